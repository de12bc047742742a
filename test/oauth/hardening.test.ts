import { decodeJwt, decodeProtectedHeader } from 'jose';
import t, { type Test } from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { registered, verifiedUser } from '../helpers/identity.js';
import {
  authorizeCode,
  codeFlowTokens,
  consoleClient,
  pkcePair,
  REDIRECT,
  tokenRequest,
} from '../helpers/oauth.js';

async function setup(t: Test) {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const user = await verifiedUser(app, 'user@example.com');
  return { app, owner, client, user };
}

t.test('a code issued before the user revoked the app cannot be exchanged', async (t) => {
  const { app, client, user } = await setup(t);
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(user, client.clientId, challenge);
  await user.delete(`/connections/${client.clientId}`);
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.clientId,
    client_secret: client.secret!,
    code_verifier: verifier,
  });
  t.equal(res.body.error, 'invalid_grant');
  t.same((await user.get('/connections')).body.data, [], 'nothing the user cannot see');
});

t.test(
  'rotate, then rotate --now: the newest key signs at once and the superseded pending key never signs',
  async (t) => {
    const { app, client, user } = await setup(t);
    const keys = app.app.deps.keys;
    const pending = await keys.rotate({ now: false });
    const urgent = await keys.rotate({ now: true });
    const kidNow = decodeProtectedHeader((await codeFlowTokens(app, user, client)).body.access_token).kid;
    t.equal(kidNow, urgent.kid);
    app.clock.advance('5m');
    const later = (await codeFlowTokens(app, user, client)).body.access_token as string;
    t.equal(decodeProtectedHeader(later).kid, urgent.kid, 'the pending key was cut short');
    t.not(decodeProtectedHeader(later).kid, pending.kid);
    app.clock.advance('20m');
    await keys.refresh();
    const muchLater = (await codeFlowTokens(app, user, client)).body.access_token as string;
    const info = await fetch(`${app.base}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${muchLater}` },
    });
    t.equal(info.status, 200, 'tokens keep verifying after the old keys are unpublished');
    const states = Object.fromEntries((await keys.list()).map((k) => [k.kid, k.state]));
    t.equal(states[pending.kid], 'retired');
    t.equal(states[urgent.kid], 'active');
  },
);

t.test('an internal failure at the token endpoint is a raw server_error with no-store', async (t) => {
  const { app, client, user } = await setup(t);
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(user, client.clientId, challenge);
  // The token endpoint's store fails (as a broken disk or a lost database would).
  await app.app.deps.db.schema.dropTable('oauth_access_tokens').execute();
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.clientId,
    client_secret: client.secret!,
    code_verifier: verifier,
  });
  t.same(
    [res.status, res.body],
    [500, { error: 'server_error', error_description: 'internal server error' }],
  );
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal(res.headers.get('pragma'), 'no-cache');
  t.ok(app.logs.events('http.unhandled_error').length > 0, 'and it is logged');
});

t.test("a disabled client's access tokens stop working at once", async (t) => {
  const { app, owner, client, user } = await setup(t);
  const token = (await codeFlowTokens(app, user, client)).body.access_token as string;
  const info = () => fetch(`${app.base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal((await info()).status, 200);
  await owner.delete(`/console/projects/${client.projectId}`); // archiving disables its clients
  t.equal((await info()).status, 401);
});

t.test('GET and PATCH /profile take a bearer token of any scope (§4.7, §5: session or bearer)', async (t) => {
  const { app, client, user } = await setup(t);
  const openidOnly = (await codeFlowTokens(app, user, client, { scope: 'openid' })).body
    .access_token as string;
  t.equal(decodeJwt(openidOnly).scope, 'openid', 'the token carries no profile scope');
  const api = new Client(app.base, { headers: { Authorization: `Bearer ${openidOnly}` } });
  t.equal((await api.get('/profile')).status, 200);
  const patched = await api.patch('/profile', { display_name: 'From the app' });
  t.same(
    [patched.status, patched.body.data.display_name, patched.headers.get('www-authenticate')],
    [200, 'From the app', null],
  );
  t.equal((await user.get('/profile')).body.data.display_name, 'From the app', 'stored');

  const forged = new Client(app.base, { headers: { Authorization: `Bearer ${openidOnly}x` } });
  const refused = await forged.patch('/profile', { display_name: 'Forged' });
  t.same(
    [refused.status, refused.body],
    [401, { success: false, message: 'invalid or expired access token' }],
  );
  t.equal((await user.get('/profile')).body.data.display_name, 'From the app', 'a bad token changes nothing');
});

t.test('/oauth/authorize renews the sliding session cookie like any signed-in request', async (t) => {
  const { app, client, user } = await setup(t);
  app.clock.advance('2m');
  const { challenge } = pkcePair();
  const res = await user.get(
    `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }).toString()}`,
  );
  t.equal(res.status, 302);
  t.match(
    user.setCookies.find((l) => l.startsWith('svc_session=')),
    /Max-Age=2592000/,
  );
});

t.test('a repeated query parameter is not an array in handlers (no 500)', async (t) => {
  const { app } = await setup(t);
  const res = await new Client(app.base).get('/auth/social/x/begin?next=/a&next=/b');
  t.equal(res.status, 404, 'an unknown provider, answered properly');
});
