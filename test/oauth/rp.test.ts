import * as client from 'openid-client';
import openidClientV5 from 'openid-client-v5';
import t, { type Test } from 'tap';
import { setFirstParty } from '../../src/console/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { PASSWORD, registered, verifiedUser } from '../helpers/identity.js';
import { consoleClient, REDIRECT } from '../helpers/oauth.js';

/**
 * Interoperability with relying-party libraries we did not write: openid-client 6 (built on
 * oauth4webapi) and openid-client 5 (what next-auth 4 uses). Real time, because the libraries
 * check token times against their own clock.
 */
async function provider(t: Test) {
  const app = await startTestApp(t, { selfIssuer: true, clock: new ManualClock(new Date()) });
  const owner = await registered(app, 'partner-dev@example.com');
  const user = await verifiedUser(app, 'alice@example.com');
  await user.patch('/profile', { display_name: 'Alice' });
  return { app, owner, user };
}

/** The browser part: follow /oauth/authorize as the signed-in user, approve consent, return the callback URL. */
async function browse(app: TestApp, user: Client, authorizationUrl: URL): Promise<URL> {
  const res = await user.get(`${authorizationUrl.pathname}${authorizationUrl.search}`);
  let location = res.headers.get('location') ?? '';
  if (location.startsWith('/consent?')) {
    const params = Object.fromEntries(new URLSearchParams(location.slice('/consent?'.length)));
    location = (await user.post('/oauth/consent', { ...params, approve: true })).body.data
      .redirect_uri as string;
  }
  t.ok(location.startsWith(REDIRECT), `redirected to the client (${location.slice(0, 60)})`);
  return new URL(location);
}

t.test('openid-client 6: discovery, PKCE, code, refresh, userinfo for post, basic and none', async (t) => {
  const { app, owner, user } = await provider(t);
  const confidential = await consoleClient(owner, { name: 'Confidential' });
  const pub = await consoleClient(owner, { type: 'public', name: 'SPA' });
  const methods: [string, string, string | undefined, client.ClientAuth][] = [
    [
      'client_secret_post',
      confidential.clientId,
      confidential.secret!,
      client.ClientSecretPost(confidential.secret!),
    ],
    [
      'client_secret_basic',
      confidential.clientId,
      confidential.secret!,
      client.ClientSecretBasic(confidential.secret!),
    ],
    ['none', pub.clientId, undefined, client.None()],
  ];
  for (const [label, clientId, secret, auth] of methods) {
    const config = await client.discovery(new URL(app.base), clientId, secret, auth, {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the test issuer is plain http on loopback
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await browse(app, user, url);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const claims = tokens.claims();
    t.ok(claims?.sub, `${label}: ID token validated`);
    t.equal(claims?.aud, clientId);
    t.equal(tokens.token_type, 'bearer');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    t.not(refreshed.refresh_token, tokens.refresh_token, `${label}: refresh rotates`);
    const info = await client.fetchUserInfo(config, refreshed.access_token, claims!.sub);
    t.match(
      info,
      { sub: claims!.sub, name: 'Alice', email: 'alice@example.com', email_verified: true },
      `${label}: userinfo`,
    );
    const reuse = await client.refreshTokenGrant(config, tokens.refresh_token!).catch((err: unknown) => err);
    t.match(reuse, { error: 'invalid_grant' }, `${label}: reuse refused`);
  }
});

t.test('openid-client 5 (next-auth 4): callback() with ID token checks and Basic by default', async (t) => {
  const { app, owner, user } = await provider(t);
  const registeredClient = await consoleClient(owner, { name: 'NextAuth site' });
  const issuer = await openidClientV5.Issuer.discover(app.base);
  const rp = new issuer.Client({
    client_id: registeredClient.clientId,
    client_secret: registeredClient.secret!,
    redirect_uris: [REDIRECT],
    response_types: ['code'],
  });
  t.equal(rp.metadata.token_endpoint_auth_method, 'client_secret_basic');
  const { generators } = openidClientV5;
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const nonce = generators.nonce();
  const url = new URL(
    rp.authorizationUrl({
      scope: 'openid email profile',
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }),
  );
  const callback = await browse(app, user, url);
  const tokenSet = await rp.callback(REDIRECT, rp.callbackParams(callback.toString()), {
    code_verifier: verifier,
    state,
    nonce,
  });
  const claims = tokenSet.claims();
  t.equal(claims.aud, registeredClient.clientId);
  t.equal(claims.nonce, nonce);
  t.match(await rp.userinfo(tokenSet.access_token!), {
    sub: claims.sub,
    email: 'alice@example.com',
    name: 'Alice',
  });
  const refreshed = await rp.refresh(tokenSet.refresh_token!);
  t.type(refreshed.access_token, 'string');
  t.match(await rp.userinfo(refreshed.access_token!), { sub: claims.sub });
  t.match(
    await rp.userinfo(refreshed.access_token!, { method: 'POST' }),
    { sub: claims.sub, email: 'alice@example.com' },
    'userinfo by POST (OIDC Core §5.3)',
  );
});

/**
 * The browser part when the provider may ask to sign in again: the login page must be the
 * "sign in again" one, the person signs in, and the login page's `next` is followed.
 */
async function browseSigningIn(user: Client, email: string, authorizationUrl: URL): Promise<URL> {
  const first = await user.get(`${authorizationUrl.pathname}${authorizationUrl.search}`);
  const login = new URL(first.headers.get('location') ?? '', 'http://x.invalid');
  t.equal(login.pathname, '/login', 'sent to the login page');
  t.equal(login.searchParams.get('prompt'), 'login', 'to sign in again, though signed in');
  const signedIn = await user.post('/auth/login', { identifier: email, password: PASSWORD });
  t.equal(signedIn.status, 200);
  const next = new URL(login.searchParams.get('next') ?? '', 'http://x.invalid');
  t.equal(next.pathname, '/oauth/authorize');
  const res = await user.get(`${next.pathname}${next.search}`);
  const location = res.headers.get('location') ?? '';
  t.ok(location.startsWith(REDIRECT), `then straight to the client (${location.slice(0, 60)})`);
  return new URL(location);
}

t.test('openid-client 6: prompt=login, prompt=none and max_age', async (t) => {
  // The provider's clock starts ten minutes before the libraries' and catches up with it by the
  // max_age checks, which openid-client makes against its own clock; it is never ahead of it.
  const app = await startTestApp(t, {
    selfIssuer: true,
    clock: new ManualClock(new Date(Date.now() - 600_000)),
  });
  const owner = await registered(app, 'partner-dev@example.com');
  const user = await verifiedUser(app, 'alice@example.com');
  const registeredAt = Math.floor(app.clock.now().getTime() / 1000);
  const registeredClient = await consoleClient(owner, { name: 'Bank' });
  await setFirstParty(app.app.deps, registeredClient.clientId, true);
  const config = await client.discovery(
    new URL(app.base),
    registeredClient.clientId,
    registeredClient.secret!,
    client.ClientSecretPost(registeredClient.secret!),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the test issuer is plain http on loopback
    { execute: [client.allowInsecureRequests] },
  );
  const start = async (extra: Record<string, string>) => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...extra,
    });
    return { url, checks: { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce } };
  };
  const nowSeconds = () => Math.floor(app.clock.now().getTime() / 1000);

  app.clock.advance('4m');
  const again = await start({ prompt: 'login' });
  const relogged = await client.authorizationCodeGrant(
    config,
    await browseSigningIn(user, 'alice@example.com', again.url),
    again.checks,
  );
  const signedInAgain = relogged.claims()!.auth_time!;
  t.equal(signedInAgain, nowSeconds(), 'prompt=login: signed in again, a new auth_time');
  t.ok(signedInAgain >= registeredAt + 240, 'not the first sign-in');

  app.clock.advance('1m');
  const quiet = await start({ prompt: 'none' });
  const ok = await client.authorizationCodeGrant(config, await browse(app, user, quiet.url), quiet.checks);
  t.equal(ok.claims()!.auth_time, signedInAgain, 'prompt=none with a session: a code, no page');
  const silent = await start({ prompt: 'none' });
  const refused = await client
    .authorizationCodeGrant(config, await browse(app, new Client(app.base), silent.url), silent.checks)
    .catch((err: unknown) => err);
  t.ok(refused instanceof client.AuthorizationResponseError, 'an authorization error response');
  t.match(refused, { error: 'login_required' }, 'prompt=none without a session: login_required');

  app.clock.advance('5m'); // the libraries' time now; the session is six minutes old
  const young = await start({ max_age: '600' });
  const kept = await client.authorizationCodeGrant(config, await browse(app, user, young.url), {
    ...young.checks,
    maxAge: 600,
  });
  t.equal(kept.claims()!.auth_time, signedInAgain, 'max_age=600: the six-minute-old sign-in is kept');

  const old = await start({ max_age: '60' });
  const callback = await browseSigningIn(user, 'alice@example.com', old.url);
  const fresh = await client.authorizationCodeGrant(config, callback, { ...old.checks, maxAge: 60 });
  t.equal(fresh.claims()!.auth_time, nowSeconds(), 'max_age=60: signed in again, the ID token passes');
});
