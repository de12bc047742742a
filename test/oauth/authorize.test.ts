import t from 'tap';
import { setFirstParty } from '../../src/console/index.js';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { PASSWORD, registered, verifiedUser } from '../helpers/identity.js';
import { authorizeQuery, consoleClient, pkcePair, REDIRECT, tokenRequest } from '../helpers/oauth.js';

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
    ['response_mode form_post', { response_mode: 'form_post' }, 'response_mode must be query or fragment'],
    ['response_mode unknown', { response_mode: 'Query' }, 'response_mode must be query or fragment'],
    ['prompt none with login', { prompt: 'none login' }, 'prompt none cannot be combined with other values'],
    [
      'prompt none with consent',
      { prompt: 'consent none' },
      'prompt none cannot be combined with other values',
    ],
    ['max_age negative', { max_age: '-1' }, 'max_age must be a whole number of seconds'],
    ['max_age fraction', { max_age: '1.5' }, 'max_age must be a whole number of seconds'],
    ['max_age huge', { max_age: '1'.repeat(400) }, 'max_age must be a whole number of seconds'],
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
  for (const name of ['prompt', 'max_age', 'response_mode']) {
    const value = name === 'prompt' ? 'login' : name === 'max_age' ? '60' : 'query';
    const twice = await user.get(
      `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { [name]: value })}&${name}=${value}`,
    );
    t.same([twice.status, twice.body.message], [400, `duplicate parameter: ${name}`]);
  }
  t.same((await user.get('/connections')).body.data, [], 'no refusal stored a consent');
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

/** The error a client receives at its redirect_uri (query or fragment), with state and iss. */
function errorAt(
  location: string | null,
  app: { config: { publicBaseUrl: string } },
  where: 'query' | 'fragment' = 'query',
) {
  const url = new URL(location ?? '');
  const params = where === 'query' ? url.searchParams : new URLSearchParams(url.hash.slice(1));
  return {
    to: `${url.origin}${url.pathname}`,
    error: params.get('error'),
    state: params.get('state'),
    iss: params.get('iss') === app.config.publicBaseUrl,
    code: params.get('code'),
  };
}

t.test('prompt=none: errors at the client instead of any page, a code when nothing is needed', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const { challenge } = pkcePair();
  const query = authorizeQuery(client.clientId, challenge, { prompt: 'none' });
  const refused = (error: string) => ({ to: REDIRECT, error, state: 'st-123', iss: true, code: null });

  const anon = await new Client(app.base).get(`/oauth/authorize?${query}`);
  t.equal(anon.status, 302);
  t.same(errorAt(anon.headers.get('location'), app), refused('login_required'), 'no session');

  const unverified = await registered(app, 'new@example.com');
  const u = await unverified.get(`/oauth/authorize?${query}`);
  t.same(errorAt(u.headers.get('location'), app), refused('interaction_required'), 'unverified account');

  const user = await verifiedUser(app, 'user@example.com');
  const c = await user.get(`/oauth/authorize?${query}`);
  t.same(errorAt(c.headers.get('location'), app), refused('consent_required'), 'no consent on file');
  t.same((await user.get('/connections')).body.data, [], 'nothing stored');

  const fragment = await user.get(
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { prompt: 'none', response_mode: 'fragment' })}`,
  );
  t.same(
    errorAt(fragment.headers.get('location'), app, 'fragment'),
    refused('consent_required'),
    'in the fragment when asked',
  );
  t.equal(new URL(fragment.headers.get('location')!).search, '', 'and nothing in the query');

  await user.post('/oauth/consent', { ...Object.fromEntries(new URLSearchParams(query)), approve: true });
  const ok = await user.get(`/oauth/authorize?${query}`);
  t.match(
    ok.headers.get('location'),
    /^https:\/\/app\.partner\.example\/callback\?code=[A-Za-z0-9_-]{43}&state=st-123&iss=/,
  );

  const old = await user.get(
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { prompt: 'none', max_age: '60' })}`,
  );
  t.match(
    errorAt(old.headers.get('location'), app),
    { code: /^[A-Za-z0-9_-]{43}$/ },
    'a fresh session meets max_age',
  );
  app.clock.advance('4m');
  const stale = await user.get(
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { prompt: 'none', max_age: '60' })}`,
  );
  t.same(
    errorAt(stale.headers.get('location'), app),
    refused('login_required'),
    'a session older than max_age',
  );
});

/** GET /login as `who` (an HTML page, so not through Client's JSON reader): status, location, body. */
async function loginPage(app: TestApp, who: Client, location: string) {
  const res = await fetch(`${app.base}${location}`, {
    redirect: 'manual',
    headers: who.cookies.size > 0 ? { Cookie: who.cookieHeader() } : {},
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

t.test('prompt=login, select_account and max_age sign the person in again, then go on', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  await setFirstParty(app.app.deps, client.clientId, true);
  const user = await verifiedUser(app, 'again@example.com');
  const signedInAt = app.clock.now();
  app.clock.advance('4m');
  const { verifier, challenge } = pkcePair();
  const authorize = (extra: Record<string, string>) =>
    `/oauth/authorize?${authorizeQuery(client.clientId, challenge, { nonce: 'n-1', ...extra })}`;
  const toLoginAgain = (kept: Record<string, string> = {}) =>
    `/login?next=${encodeURIComponent(authorize(kept))}&prompt=login`;

  for (const [label, extra, kept] of [
    ['prompt=login', { prompt: 'login' }, {}],
    ['prompt=select_account', { prompt: 'select_account' }, {}],
    ['max_age=60, session 4 minutes old', { max_age: '60' }, {}],
    ['max_age=0', { max_age: '0' }, {}],
    ['prompt=login consent keeps consent', { prompt: 'login consent' }, { prompt: 'consent' }],
  ] as [string, Record<string, string>, Record<string, string>][]) {
    const res = await user.get(authorize(extra));
    t.same([res.status, res.headers.get('location')], [302, toLoginAgain(kept)], label);
  }
  const anon = await new Client(app.base).get(authorize({ prompt: 'login', max_age: '0' }));
  t.equal(
    anon.headers.get('location'),
    `/login?next=${encodeURIComponent(authorize({}))}`,
    'no session: the usual login redirect, without what the sign-in satisfies',
  );
  const young = await user.get(authorize({ max_age: '600' }));
  t.match(
    young.headers.get('location'),
    /^https:\/\/app\.partner\.example\/callback\?code=/,
    'max_age=600 is met',
  );

  // The login page shows its form to a signed-in person sent to sign in again...
  const page = await loginPage(app, user, toLoginAgain());
  t.equal(page.status, 200, 'the login page, not a redirect');
  t.match(page.html, /id="login-again"[^]*signed in as again@example\.com/);
  // ...and without that flag a signed-in person goes straight on, as before.
  const plain = await loginPage(
    app,
    user,
    `/login?next=${encodeURIComponent(authorize({ prompt: 'login' }))}`,
  );
  t.same([plain.status, plain.location], [303, authorize({ prompt: 'login' })]);

  // Signing in again, then following next: the code, with the new auth_time (no loop).
  const login = await user.post('/auth/login', { identifier: 'again@example.com', password: PASSWORD });
  t.equal(login.status, 200);
  const resumed = await user.get(authorize({}));
  const code = new URL(resumed.headers.get('location') ?? '').searchParams.get('code');
  t.match(code, /^[A-Za-z0-9_-]{43}$/, 'signed in again: straight to the client');
  const tokens = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: REDIRECT,
    client_id: client.clientId,
    code_verifier: verifier,
    client_secret: client.secret!,
  });
  const authTime = decodeJwt(tokens.body.id_token as string).auth_time as number;
  t.equal(authTime, Math.floor(app.clock.now().getTime() / 1000), 'auth_time is the new sign-in');
  t.ok(authTime > Math.floor(signedInAt.getTime() / 1000) + 200, 'not the old one');
});

t.test('prompt=consent asks again even with consent on file (first-party too)', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const user = await verifiedUser(app, 'pc@example.com');
  const { challenge } = pkcePair();
  const query = authorizeQuery(client.clientId, challenge);
  await user.post('/oauth/consent', { ...Object.fromEntries(new URLSearchParams(query)), approve: true });
  t.match((await user.get(`/oauth/authorize?${query}`)).headers.get('location'), /^https:\/\/app\.partner/);
  const again = authorizeQuery(client.clientId, challenge, { prompt: 'consent' });
  t.equal((await user.get(`/oauth/authorize?${again}`)).headers.get('location'), `/consent?${again}`);
  await setFirstParty(app.app.deps, client.clientId, true);
  t.equal(
    (await user.get(`/oauth/authorize?${again}`)).headers.get('location'),
    `/consent?${again}`,
    'first-party',
  );
  const approved = await user.post('/oauth/consent', {
    ...Object.fromEntries(new URLSearchParams(again)),
    approve: true,
  });
  t.match(approved.body.data.redirect_uri, /^https:\/\/app\.partner\.example\/callback\?code=/);
});

t.test('response_mode=fragment: the code or error in the fragment, through consent too', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner, { redirectUris: [`${REDIRECT}?tenant=7`] });
  const user = await verifiedUser(app, 'frag@example.com');
  const { challenge } = pkcePair();
  const query = authorizeQuery(client.clientId, challenge, {
    redirect_uri: `${REDIRECT}?tenant=7`,
    response_mode: 'fragment',
  });
  t.equal((await user.get(`/oauth/authorize?${query}`)).headers.get('location'), `/consent?${query}`);
  const params = Object.fromEntries(new URLSearchParams(query)); // what the consent page posts back
  const declined = new URL(
    (await user.post('/oauth/consent', { ...params, approve: false })).body.data.redirect_uri,
  );
  t.equal(declined.search, '?tenant=7', "the query is the redirect URI's own");
  t.same(Object.fromEntries(new URLSearchParams(declined.hash.slice(1))), {
    error: 'access_denied',
    state: 'st-123',
    iss: app.config.publicBaseUrl,
  });
  const approved = new URL(
    (await user.post('/oauth/consent', { ...params, approve: true })).body.data.redirect_uri,
  );
  t.equal(approved.search, '?tenant=7');
  t.match(Object.fromEntries(new URLSearchParams(approved.hash.slice(1))), {
    code: /^[A-Za-z0-9_-]{43}$/,
    state: 'st-123',
    iss: app.config.publicBaseUrl,
  });
  const direct = new URL((await user.get(`/oauth/authorize?${query}`)).headers.get('location')!);
  t.equal(direct.search, '?tenant=7', 'consent on file: still the fragment');
  t.match(new URLSearchParams(direct.hash.slice(1)).get('code'), /^[A-Za-z0-9_-]{43}$/);
  const explicit = authorizeQuery(client.clientId, challenge, {
    redirect_uri: `${REDIRECT}?tenant=7`,
    response_mode: 'query',
  });
  const inQuery = new URL((await user.get(`/oauth/authorize?${explicit}`)).headers.get('location')!);
  t.same([inQuery.searchParams.get('tenant'), inQuery.hash], ['7', '']);
  t.match(inQuery.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/);
  const bad = await user.post('/oauth/consent', { ...params, response_mode: 'form_post', approve: true });
  t.same([bad.status, bad.body.message], [400, 'response_mode must be query or fragment']);
  const notString = await user.post('/oauth/consent', { ...params, response_mode: 1, approve: true });
  t.same([notString.status, notString.body.message], [400, 'invalid request body']);
});

t.test(
  'an empty response_mode, prompt or max_age counts as omitted; other prompt values are ignored',
  async (t) => {
    const app = await startTestApp(t);
    const owner = await registered(app, 'owner@example.com');
    const client = await consoleClient(owner);
    const user = await verifiedUser(app, 'empty@example.com');
    const { challenge } = pkcePair();
    // RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted".
    const empty = authorizeQuery(client.clientId, challenge, { response_mode: '', prompt: '', max_age: '' });
    t.equal((await user.get(`/oauth/authorize?${empty}`)).headers.get('location'), `/consent?${empty}`);
    const params = Object.fromEntries(new URLSearchParams(empty));
    const approved = new URL(
      (await user.post('/oauth/consent', { ...params, approve: true })).body.data.redirect_uri,
    );
    t.match(approved.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/, 'in the query');
    // `create` (OIDC's registration initiation) is not ours: ignored, as before prompt was read.
    const create = authorizeQuery(client.clientId, challenge, { prompt: 'create' });
    const direct = new URL((await user.get(`/oauth/authorize?${create}`)).headers.get('location')!);
    t.match(direct.searchParams.get('code'), /^[A-Za-z0-9_-]{43}$/);
    const none = authorizeQuery(client.clientId, challenge, { prompt: 'none create' });
    const silent = new URL((await user.get(`/oauth/authorize?${none}`)).headers.get('location')!);
    t.match(
      silent.searchParams.get('code'),
      /^[A-Za-z0-9_-]{43}$/,
      'none beside an unknown value is none alone',
    );
  },
);
