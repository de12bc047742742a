import path from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { addSocialProvider } from '../../src/identity/index.js';
import { freePort, startTestApp } from '../helpers/app.js';
import { boxEnv, runCli } from '../helpers/cli.js';
import { Client } from '../helpers/client.js';
import { rawRequest } from '../helpers/http.js';
import { lastCode, PASSWORD, registered, verifiedUser } from '../helpers/identity.js';
import { connectProvider, socialLogin, socialLoginFrom, toCallback } from '../helpers/social.js';
import { totpForSecret } from '../helpers/totp.js';

/**
 * Two daemons: "upstream" is an OpenID provider (another hotspot-ctl), "venue" offers social
 * login through it. Real time, because openid-client checks token times against its own clock.
 */
async function pair(t: Test) {
  const root = t.testdir();
  const upstream = await startTestApp(t, {
    selfIssuer: true,
    clock: new ManualClock(new Date()),
    dataDir: path.join(root, 'up'),
  });
  const venue = await startTestApp(t, {
    selfIssuer: true,
    clock: new ManualClock(new Date()),
    dataDir: path.join(root, 'venue'),
  });
  await connectProvider(upstream, await registered(upstream, 'idp-admin@example.com'), venue, 'hq');
  return { upstream, venue };
}

t.test('social login end to end: a new account, linked, with the provider as device label', async (t) => {
  const { upstream, venue } = await pair(t);
  const alice = await verifiedUser(upstream, 'alice@example.com');
  await alice.patch('/profile', { display_name: 'Alice Upstream' });

  const { browser, begin, done } = await socialLogin(venue, alice, 'hq', '/account?tab=apps');
  const authorize = new URL(begin.headers.get('location')!);
  t.equal(`${authorize.origin}${authorize.pathname}`, `${upstream.base}/oauth/authorize`);
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.ok(authorize.searchParams.get('state'));
  t.ok(authorize.searchParams.get('nonce'));
  t.match(
    begin.headers.get('set-cookie'),
    /^svc_social=[^;]+; Max-Age=600; Path=\/auth\/social; HttpOnly; SameSite=Lax/,
  );

  t.equal(done.status, 302);
  t.equal(done.headers.get('location'), '/account?tab=apps', 'back to next');
  const me = await browser.get('/auth/me');
  t.match(me.body.data, { email: 'alice@example.com', email_verified: true });
  t.match((await browser.get('/profile')).body.data, { display_name: 'Alice Upstream' });
  const [session] = (await browser.get('/sessions')).body.data as { device_label: string }[];
  t.equal(session?.device_label, 'hq');
  t.match((await browser.get('/auth/security-events')).body.data, [{ action: 'login', detail: 'social:hq' }]);

  const again = await socialLogin(venue, alice, 'hq');
  t.equal(
    (await again.browser.get('/auth/me')).body.data.id,
    me.body.data.id,
    'the same account the second time',
  );
});

t.test('the login page links the provider, and its next survives begin and callback', async (t) => {
  const { upstream, venue } = await pair(t);
  const alice = await verifiedUser(upstream, 'alice@example.com');
  const next = '/oauth/authorize?client_id=partner&scope=openid%20email';
  const page = await rawRequest(`${venue.base}/login?next=${encodeURIComponent(next)}`);
  const href = /<a class="button alt" href="([^"]+)"\s*>Sign in with hq</.exec(page.text)?.[1];
  t.equal(href, `/auth/social/hq/begin?next=${encodeURIComponent(next)}`);
  const { browser, done } = await socialLoginFrom(venue, alice, href ?? '');
  t.same([done.status, done.headers.get('location')], [302, next], 'the final redirect is next');
  t.match((await browser.get('/auth/me')).body.data, { email: 'alice@example.com' });
});

t.test('an existing account with the same verified email is linked, and TOTP is bypassed', async (t) => {
  const { upstream, venue } = await pair(t);
  const local = await verifiedUser(venue, 'bob@example.com');
  const { secret } = (await local.post('/auth/mfa/setup')).body.data as { secret: string };
  const enabled = await local.post('/auth/mfa/enable', { code: totpForSecret(secret, venue.clock.now()) });
  t.equal(enabled.status, 200, 'MFA is on');
  const localId = (await local.get('/auth/me')).body.data.id as string;
  const password = await new Client(venue.base).post('/auth/login', {
    identifier: 'bob@example.com',
    password: PASSWORD,
  });
  t.match(password.body, { success: true, data: { mfa_required: true } }, 'a password login asks for TOTP');
  t.notOk(password.headers.get('set-cookie'), 'and sets no session until then');

  const bob = await verifiedUser(upstream, 'bob@example.com');
  const { browser, done } = await socialLogin(venue, bob, 'hq');
  t.equal(done.headers.get('location'), '/account', 'straight to next, no TOTP step');
  t.equal((await browser.get('/auth/me')).body.data.id, localId, 'linked, no second account, signed in');
});

t.test('an unverified local account with that email is not taken over', async (t) => {
  const { upstream, venue } = await pair(t);
  await registered(venue, 'carol@example.com'); // somebody registered the address, never verified it
  const carol = await verifiedUser(upstream, 'carol@example.com');
  const { browser, done } = await socialLogin(venue, carol, 'hq');
  t.equal(done.headers.get('location'), '/login?error=social_email_unverified');
  t.equal((await browser.get('/auth/me')).status, 401);
});

t.test('callback refusals: no state cookie, replayed callback, cancelled at the provider', async (t) => {
  const { upstream, venue } = await pair(t);
  const dave = await verifiedUser(upstream, 'dave@example.com');
  const browser = new Client(venue.base);
  const begin = await browser.get('/auth/social/hq/begin');
  const authorize = new URL(begin.headers.get('location')!);
  const consent = (await dave.get(`${authorize.pathname}${authorize.search}`)).headers.get('location')!;
  const params = Object.fromEntries(new URLSearchParams(consent.slice('/consent?'.length)));
  const callback = new URL(
    (await dave.post('/oauth/consent', { ...params, approve: true })).body.data.redirect_uri as string,
  );

  const stranger = new Client(venue.base);
  const stolen = await stranger.get(`${callback.pathname}${callback.search}`);
  t.equal(stolen.headers.get('location'), '/login?error=social_state', 'another browser cannot finish it');
  t.equal((await browser.get(`${callback.pathname}${callback.search}`)).headers.get('location'), '/account');
  const replay = await browser.get(`${callback.pathname}${callback.search}`);
  t.equal(replay.headers.get('location'), '/login?error=social_state', 'single use');

  // The user declines at the provider, which sends the browser back with error=access_denied.
  const second = new Client(venue.base);
  const begin2 = new URL((await second.get('/auth/social/hq/begin')).headers.get('location')!);
  const denied = `/auth/social/hq/callback?error=access_denied&state=${begin2.searchParams.get('state') ?? ''}`;
  t.equal((await second.get(denied)).headers.get('location'), '/login?error=social_cancelled');
  t.equal((await second.get('/auth/me')).status, 401);

  // With a next of its own, the way back to /login keeps it, so a second try still gets there.
  const third = new Client(venue.base);
  const next = '/consent?client_id=partner';
  const begin3 = new URL(
    (await third.get(`/auth/social/hq/begin?next=${encodeURIComponent(next)}`)).headers.get('location')!,
  );
  const back = (
    await third.get(
      `/auth/social/hq/callback?error=access_denied&state=${begin3.searchParams.get('state') ?? ''}`,
    )
  ).headers.get('location');
  t.equal(back, `/login?error=social_cancelled&next=${encodeURIComponent(next)}`);
  const login = await rawRequest(`${venue.base}${back ?? ''}`);
  t.match(login.text, /role="alert">The sign-in was cancelled at the other service/, 'the page explains it');
  t.match(login.text, `"next":${JSON.stringify(next)}`, 'and keeps next for the second try');
});

t.test('an upstream email that is not verified is left off: a new account, never linked', async (t) => {
  const { upstream, venue } = await pair(t);
  const local = await verifiedUser(venue, 'erin@example.com');
  const localId = (await local.get('/auth/me')).body.data.id as string;
  // Erin's upstream account is verified by phone (so it may connect apps), not by email.
  const erin = await registered(upstream, 'erin@example.com');
  t.equal((await erin.post('/auth/verify-phone/send', { phone: '+255712345670' })).status, 200);
  const code = await lastCode(upstream.dataDir, '+255712345670');
  t.equal((await erin.post('/auth/verify-phone/check', { code })).status, 200);
  t.match((await erin.get('/auth/me')).body.data, { email_verified: false, phone_verified: true });

  const { browser, done } = await socialLogin(venue, erin, 'hq');
  t.equal(done.headers.get('location'), '/account', 'signed in');
  const me = (await browser.get('/auth/me')).body.data as { id: string; email: string | null };
  t.not(me.id, localId, 'not the local account with that address');
  t.match(me, { email: null, email_verified: false }, 'a new account without the unverified email');
  const links = await venue.app.deps.db.selectFrom('social_identities').select('user_id').execute();
  t.same(links, [{ user_id: me.id }], 'only the new account is linked');
  t.equal((await local.get('/auth/me')).body.data.email, 'erin@example.com', 'the local account keeps it');
});

t.test('begin: a provider that cannot be reached is a 502 envelope and starts nothing', async (t) => {
  const { venue } = await pair(t);
  const closed = await freePort();
  await addSocialProvider(venue.app.deps, {
    name: 'down',
    issuer: `http://127.0.0.1:${String(closed)}`,
    clientId: 'venue',
    clientSecret: 'secret',
  });
  const browser = new Client(venue.base);
  const res = await browser.get('/auth/social/down/begin?next=%2Faccount');
  t.same(
    [res.status, res.body],
    [502, { success: false, message: 'the login provider cannot be reached, try again later' }],
  );
  t.same(browser.setCookies, [], 'no state cookie');
  t.same(await venue.app.deps.db.selectFrom('social_logins').selectAll().execute(), [], 'no pending login');
  t.match(venue.logs.events('social.discovery_failed'), [{ level: 40, provider: 'down' }], 'logged');
});

t.test('callback: a tampered code or an ID token for another nonce is social_failed', async (t) => {
  const { upstream, venue } = await pair(t);
  const frank = await verifiedUser(upstream, 'frank@example.com');
  const next = '/account?tab=apps';
  const begin = `/auth/social/hq/begin?next=${encodeURIComponent(next)}`;
  const failed = `/login?error=social_failed&next=${encodeURIComponent(next)}`;

  const tampered = await toCallback(venue, frank, begin);
  tampered.callback.searchParams.set('code', `${tampered.callback.searchParams.get('code') ?? ''}x`);
  const res = await tampered.browser.get(`${tampered.callback.pathname}${tampered.callback.search}`);
  t.same([res.status, res.headers.get('location')], [302, failed], 'the exchange is refused upstream');
  t.equal((await tampered.browser.get('/auth/me')).status, 401, 'not signed in');
  t.equal(venue.logs.events('social.exchange_failed').length, 1, 'logged');

  // The provider answers with a good code, but the ID token names the nonce of another login.
  const other = await toCallback(venue, frank, begin);
  await venue.app.deps.db.updateTable('social_logins').set({ nonce: 'not-the-nonce-sent' }).execute();
  const wrongNonce = await other.browser.get(`${other.callback.pathname}${other.callback.search}`);
  t.same([wrongNonce.status, wrongNonce.headers.get('location')], [302, failed], 'the ID token is refused');
  t.equal((await other.browser.get('/auth/me')).status, 401, 'not signed in');
  t.equal(venue.logs.events('social.exchange_failed').length, 2);
  t.same(await venue.app.deps.db.selectFrom('users').select('email').execute(), [], 'no account made');
  t.same(await venue.app.deps.db.selectFrom('social_identities').selectAll().execute(), [], 'nothing linked');
  t.notMatch(venue.logs.raw.join('\n'), 'not-the-nonce-sent', 'the nonce is never logged');
});

t.test(
  'begin: unknown provider is a 404 envelope; next stays on this site; the social-login limiter',
  async (t) => {
    const { venue } = await pair(t);
    const c = new Client(venue.base, { ip: '192.0.2.77' });
    const unknown = await c.get('/auth/social/nope/begin');
    t.same([unknown.status, unknown.body], [404, { success: false, message: 'unknown login provider' }]);
    for (const evil of ['//evil.example/x', '/.//evil.example', 'https://evil.example/']) {
      await venue.app.deps.db.deleteFrom('social_logins').execute();
      const begin = await new Client(venue.base).get(
        `/auth/social/hq/begin?next=${encodeURIComponent(evil)}`,
      );
      t.equal(begin.status, 302);
      const row = await venue.app.deps.db
        .selectFrom('social_logins')
        .select('next')
        .executeTakeFirstOrThrow();
      t.equal(row.next, '/account', `an off-site next is replaced: ${evil}`);
    }
    for (let i = 0; i < 9; i++) t.equal((await c.get('/auth/social/hq/begin')).status, 302);
    const limited = await c.get('/auth/social/hq/begin');
    t.same(
      [limited.status, limited.body],
      [429, { success: false, message: 'too many requests, try again later' }],
    );
  },
);

t.test('hotspot-ctl social add/list/remove; the client secret is sealed, never printed', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'), { PUBLIC_BASE_URL: 'https://wifi.venue.example' });
  const added = await runCli(
    [
      'social',
      'add',
      '--name',
      'google',
      '--issuer',
      'https://accounts.google.com',
      '--client-id',
      'abc.apps',
      '--display-name',
      'Google',
      '--json',
    ],
    env,
    'g-secret-123\n',
  );
  t.equal(added.code, 0, added.stderr);
  t.same(JSON.parse(added.stdout), {
    name: 'google',
    display_name: 'Google',
    issuer: 'https://accounts.google.com',
    client_id: 'abc.apps',
    callback_url: 'https://wifi.venue.example/auth/social/google/callback',
    created_at: JSON.parse(added.stdout).created_at,
  });
  const listed = await runCli(['social', 'list'], env);
  t.match(listed.stdout, /google\s+Google\s+https:\/\/accounts\.google\.com\s+abc\.apps/);
  t.notMatch(added.stdout + listed.stdout, 'g-secret-123');
  const bad = await runCli(
    [
      'social',
      'add',
      '--name',
      'Bad Name',
      '--issuer',
      'https://x',
      '--client-id',
      'a',
      '--client-secret',
      's',
    ],
    env,
  );
  t.same(
    [bad.code, bad.stderr],
    [1, 'error: provider name must be 1-32 lower-case letters, digits or hyphens\n'],
  );
  t.equal((await runCli(['social', 'remove', 'google'], env)).code, 0);
  t.same(JSON.parse((await runCli(['social', 'list', '--json'], env)).stdout), []);
  t.same((await runCli(['social', 'remove', 'google'], env)).stderr, 'error: unknown login provider\n');
});
