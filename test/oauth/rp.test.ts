import * as client from 'openid-client';
import openidClientV5 from 'openid-client-v5';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { registered, verifiedUser } from '../helpers/identity.js';
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
});
