import t from 'tap';
import { setFirstParty } from '../../src/console/index.js';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { registered, verifiedUser } from '../helpers/identity.js';
import { authorizeQuery, consoleClient, pkcePair, REDIRECT } from '../helpers/oauth.js';

t.test('authorize outcome 1: validation errors are 400 envelopes, never redirects', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner, { scopes: ['openid', 'email'] });
  const user = await verifiedUser(app, 'u@example.com');
  const { challenge } = pkcePair();
  const base = Object.fromEntries(
    new URLSearchParams(authorizeQuery(client.clientId, challenge, { scope: 'openid email' })),
  );
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['no client_id', { client_id: undefined }, 'client_id is required'],
    ['unknown client', { client_id: 'nope-abcdef' }, 'unknown client_id'],
    ['no redirect_uri', { redirect_uri: undefined }, 'redirect_uri is required'],
    [
      'other redirect_uri',
      { redirect_uri: 'https://evil.example/cb' },
      'redirect_uri does not match a registered redirect URI',
    ],
    [
      'prefix redirect_uri',
      { redirect_uri: `${REDIRECT}/more` },
      'redirect_uri does not match a registered redirect URI',
    ],
    ['response_type token', { response_type: 'token' }, 'response_type must be code'],
    ['no scope', { scope: undefined }, 'scope is required'],
    [
      'scope beyond the client',
      { scope: 'openid phone' },
      "scope must be a subset of the client's allowed scopes",
    ],
    ['no PKCE', { code_challenge: undefined }, 'code_challenge is required (PKCE with S256)'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'code_challenge_method must be S256'],
    [
      'short challenge',
      { code_challenge: 'abc' },
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
    ],
  ];
  for (const [label, change, message] of cases) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...base, ...change })) if (v !== undefined) params.set(k, v);
    for (const who of [user, new Client(app.base)]) {
      const res = await who.get(`/oauth/authorize?${params.toString()}`);
      t.same(
        [res.status, res.body],
        [400, { success: false, message }],
        `${label} (${who === user ? 'signed in' : 'anonymous'})`,
      );
      t.equal(res.headers.get('location'), null);
    }
  }
  const dup = await user.get(
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge)}&client_id=${client.clientId}`,
  );
  t.same([dup.status, dup.body.message], [400, 'duplicate parameter: client_id']);
  await owner.patch(`/console/projects/${client.projectId}/clients/${client.clientId}`, {
    status: 'disabled',
  });
  const disabled = await user.get(
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { scope: 'openid' })}`,
  );
  t.same([disabled.status, disabled.body], [400, { success: false, message: 'client is disabled' }]);
});

t.test('authorize outcomes 2-5 in order: login, verify, consent, code', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const { challenge } = pkcePair();
  const query = authorizeQuery(client.clientId, challenge, { scope: 'openid email', nonce: 'n-1' });
  const next = encodeURIComponent(`/oauth/authorize?${query}`);

  const anon = await new Client(app.base).get(`/oauth/authorize?${query}`);
  t.same([anon.status, anon.headers.get('location')], [302, `/login?next=${next}`]);

  const unverified = await registered(app, 'new@example.com');
  const verify = await unverified.get(`/oauth/authorize?${query}`);
  t.same([verify.status, verify.headers.get('location')], [302, `/verify-email?next=${next}`]);

  const user = await verifiedUser(app, 'user@example.com');
  const consent = await user.get(`/oauth/authorize?${query}`);
  t.same([consent.status, consent.headers.get('location')], [302, `/consent?${query}`]);

  const approved = await user.post('/oauth/consent', {
    ...Object.fromEntries(new URLSearchParams(query)),
    approve: true,
  });
  t.equal(approved.status, 200);
  const back = new URL(approved.body.data.redirect_uri as string);
  t.equal(`${back.origin}${back.pathname}`, REDIRECT);
  t.match(back.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/);
  t.equal(back.searchParams.get('state'), 'st-123');
  t.equal(back.searchParams.get('iss'), app.config.publicBaseUrl);

  const direct = await user.get(`/oauth/authorize?${query}`);
  t.equal(direct.status, 302, 'consent on file: straight to the client');
  const location = new URL(direct.headers.get('location')!);
  t.equal(`${location.origin}${location.pathname}`, REDIRECT);
  t.match(location.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/);
  t.equal(location.searchParams.get('state'), 'st-123');

  const wider = authorizeQuery(client.clientId, challenge, { scope: 'openid email phone' });
  t.equal(
    (await user.get(`/oauth/authorize?${wider}`)).headers.get('location'),
    `/consent?${wider}`,
    'a wider scope asks again',
  );
  const narrower = authorizeQuery(client.clientId, challenge, { scope: 'email' });
  t.match(
    (await user.get(`/oauth/authorize?${narrower}`)).headers.get('location'),
    /^https:\/\/app\.partner\.example\/callback\?code=/,
  );
  const events = (await user.get('/auth/security-events')).body.data as { action: string; detail: string }[];
  t.same(
    events.filter((e) => e.action === 'app_connected').map((e) => e.detail),
    [client.clientId],
    'app_connected once: the covered and narrower requests recorded no second one',
  );
});

t.test('consent: re-validated, 403 for unverified accounts, decline says access_denied', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const { challenge } = pkcePair();
  const params = Object.fromEntries(new URLSearchParams(authorizeQuery(client.clientId, challenge)));
  const user = await verifiedUser(app, 'c@example.com');

  t.same(
    (await new Client(app.base).post('/oauth/consent', { ...params, approve: true })).body.message,
    'not authenticated',
  );
  const tampered = await user.post('/oauth/consent', {
    ...params,
    redirect_uri: 'https://evil.example/cb',
    approve: true,
  });
  t.same(
    [tampered.status, tampered.body.message],
    [400, 'redirect_uri does not match a registered redirect URI'],
  );
  const noPkce = await user.post('/oauth/consent', {
    ...params,
    code_challenge_method: 'plain',
    approve: true,
  });
  t.equal(noPkce.body.message, 'code_challenge_method must be S256');
  t.equal(
    (await user.post('/oauth/consent', { ...params, approve: 'yes' })).status,
    400,
    'approve must be a boolean',
  );
  t.same((await user.get('/connections')).body.data, [], 'nothing stored');

  const stranger = await registered(app, 'unverified@example.com');
  const forbidden = await stranger.post('/oauth/consent', { ...params, approve: true });
  t.same(
    [forbidden.status, forbidden.body],
    [403, { success: false, message: 'account must verify email or phone before connecting an app' }],
  );

  const declined = await user.post('/oauth/consent', { ...params, approve: false });
  t.equal(declined.status, 200);
  const url = new URL(declined.body.data.redirect_uri as string);
  t.same(
    [url.searchParams.get('error'), url.searchParams.get('state'), url.searchParams.get('code')],
    ['access_denied', 'st-123', null],
  );
  t.same((await user.get('/connections')).body.data, [], 'declining stores nothing');

  await owner.patch(`/console/projects/${client.projectId}/clients/${client.clientId}`, {
    status: 'disabled',
  });
  t.equal(
    (await user.post('/oauth/consent', { ...params, approve: true })).body.message,
    'client is disabled',
  );
});

t.test('consent re-checks the scope subset, against the client as it is now', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner, { scopes: ['openid', 'email'] });
  const user = await verifiedUser(app, 'scope@example.com');
  const { challenge } = pkcePair();
  const query = authorizeQuery(client.clientId, challenge, { scope: 'openid email' });
  t.equal((await user.get(`/oauth/authorize?${query}`)).headers.get('location'), `/consent?${query}`);
  const params = Object.fromEntries(new URLSearchParams(query));
  const refused = [400, { success: false, message: "scope must be a subset of the client's allowed scopes" }];
  const consent = async (body: Record<string, unknown>) => {
    const res = await user.post('/oauth/consent', { ...params, ...body });
    return [res.status, res.body];
  };
  t.same(
    await consent({ scope: 'openid email phone', approve: true }),
    refused,
    'a wider scope than allowed',
  );
  t.same(await consent({ scope: 'openid admin', approve: true }), refused, 'an unknown scope');
  t.same(await consent({ scope: 'openid phone', approve: false }), refused, 'even to decline');
  await owner.patch(`/console/projects/${client.projectId}/clients/${client.clientId}`, {
    allowed_scopes: ['openid'],
  });
  t.same(await consent({ approve: true }), refused, 'the client lost email after the authorize call');
  t.same((await user.get('/connections')).body.data, [], 'no consent stored');
  const events = (await user.get('/auth/security-events')).body.data as { action: string }[];
  t.same(
    events.filter((e) => e.action === 'app_connected'),
    [],
    'no app_connected',
  );
  const ok = await user.post('/oauth/consent', { ...params, scope: 'openid', approve: true });
  t.match(new URL(ok.body.data.redirect_uri as string).searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/);
});

t.test('first-party clients skip the consent screen (consent stored silently)', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  await setFirstParty(app.app.deps, client.clientId, true); // what `hotspot-ctl clients first-party` calls
  const user = await verifiedUser(app, 'fp@example.com');
  const { challenge } = pkcePair();
  const res = await user.get(`/oauth/authorize?${authorizeQuery(client.clientId, challenge)}`);
  t.match(res.headers.get('location'), /^https:\/\/app\.partner\.example\/callback\?code=/);
  t.match((await user.get('/connections')).body.data, [{ client_id: client.clientId }]);
});
