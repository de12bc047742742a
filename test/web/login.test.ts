import t from 'tap';
import { addSocialProvider } from '../../src/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/http.js';

/** /login over plain HTTP: the notices for refused social logins and the provider links. */

const NOTICE = /<p class="notice warn" id="login-notice" role="alert">([^<]*)<\/p>/;
const PROVIDER_LINK = /<a class="button alt" href="([^"]+)"\s*>([^<]*)<\/a/g;

const links = (page: string): [string, string][] =>
  [...page.matchAll(PROVIDER_LINK)].map((m) => [m[1] ?? '', m[2] ?? '']);

t.test('a refused social login is explained on /login, one notice per reason', async (t) => {
  const app = await startTestApp(t);
  const notices: Record<string, string> = {
    social_state:
      'That sign-in did not finish: it took too long, or it was started in another browser. Please try again.',
    social_cancelled: 'The sign-in was cancelled at the other service, so you are not signed in.',
    social_failed:
      'We could not complete the sign-in with the other service. Try again, or sign in with your password.',
    social_email_unverified:
      'An account here already uses that email address but has not verified it, so we cannot link it. ' +
      'Sign in to that account with its password and verify the email first.',
  };
  for (const [error, text] of Object.entries(notices)) {
    const page = await rawRequest(`${app.base}/login?error=${error}`);
    t.equal(page.status, 200, error);
    t.equal(NOTICE.exec(page.text)?.[1], text, error);
  }
  for (const error of ['', 'social_other', 'constructor', '__proto__', 'toString', '<b>hi</b>']) {
    const page = await rawRequest(`${app.base}/login?error=${encodeURIComponent(error)}`);
    t.equal(page.status, 200, error);
    t.notMatch(page.text, 'login-notice', `no notice for error=${JSON.stringify(error)}`);
    t.notMatch(page.text, '<b>hi', 'the parameter is never echoed');
  }
});

t.test('/login links every configured provider by its display name, with a checked next', async (t) => {
  const app = await startTestApp(t);
  const none = await rawRequest(`${app.base}/login`);
  t.same(links(none.text), [], 'no provider, no link');
  t.match(none.text, /<div id="other-logins"\s+hidden>/, 'and no "or" either');

  const provider = { issuer: 'https://idp.example', clientId: 'venue', clientSecret: 's3cret' };
  await addSocialProvider(app.app.deps, { ...provider, name: 'hq', displayName: ' Venue HQ & <Staff> ' });
  await addSocialProvider(app.app.deps, { ...provider, name: 'google', displayName: 'Google' });
  await addSocialProvider(app.app.deps, { ...provider, name: 'lan-idp' });

  const next = '/oauth/authorize?client_id=x&scope=openid%20email';
  const page = await rawRequest(`${app.base}/login?next=${encodeURIComponent(next)}`);
  const carried = encodeURIComponent(next);
  t.same(links(page.text), [
    [`/auth/social/google/begin?next=${carried}`, 'Sign in with Google'],
    [`/auth/social/hq/begin?next=${carried}`, 'Sign in with Venue HQ &amp; &lt;Staff&gt;'],
    [`/auth/social/lan-idp/begin?next=${carried}`, 'Sign in with lan-idp'],
  ]);
  t.match(page.text, /<div id="other-logins"\s*>/, 'shown without waiting for the script');
  t.notMatch(page.text, 's3cret', 'the client secret appears nowhere');

  for (const evil of ['//evil.example/x', '/.//evil.example', 'https://evil.example/']) {
    const foreign = await rawRequest(`${app.base}/login?next=${encodeURIComponent(evil)}`);
    t.same(
      links(foreign.text).map(([href]) => href),
      ['google', 'hq', 'lan-idp'].map((name) => `/auth/social/${name}/begin?next=%2Faccount`),
      `next=${evil} becomes /account in the links`,
    );
    t.notMatch(foreign.text, 'evil.example');
  }
});

t.test('a provider display name is 1-40 characters without control characters', async (t) => {
  const app = await startTestApp(t);
  const base = { name: 'hq', issuer: 'https://idp.example', clientId: 'venue', clientSecret: 's' };
  for (const displayName of ['', '   ', 'x'.repeat(41), 'Venue\nHQ', 'Venue\u0000HQ']) {
    await t.rejects(
      addSocialProvider(app.app.deps, { ...base, displayName }),
      { status: 400, message: 'display name must be 1-40 characters, without control characters' },
      JSON.stringify(displayName),
    );
  }
  t.same(await app.app.deps.db.selectFrom('social_providers').selectAll().execute(), [], 'nothing saved');
  const forty = '🎉'.repeat(40);
  t.match(await addSocialProvider(app.app.deps, { ...base, displayName: forty }), { display_name: forty });
  t.match(
    await addSocialProvider(app.app.deps, { ...base, displayName: 'Venue HQ' }),
    { name: 'hq', display_name: 'Venue HQ' },
    'replacing a provider replaces its display name',
  );
  const rows = await app.app.deps.db.selectFrom('social_providers').select('display_name').execute();
  t.same(rows, [{ display_name: 'Venue HQ' }]);
});
