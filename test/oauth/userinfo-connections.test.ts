import t, { type Test } from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { registered, verifiedUser } from '../helpers/identity.js';
import { codeFlowTokens, consoleClient } from '../helpers/oauth.js';

async function setup(t: Test) {
  const app = await startTestApp(t);
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const user = await verifiedUser(app, 'ui@example.com');
  await user.patch('/profile', { display_name: 'Ui User', avatar_url: 'https://img.example/u.png' });
  return { app, owner, client, user };
}

const info = (base: string, token: string | undefined) =>
  fetch(`${base}/oauth/userinfo`, {
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
    headers: r.headers,
  }));

t.test('userinfo: claims gated by scope, absent attributes omitted', async (t) => {
  const { app, client, user } = await setup(t);
  const sub = (await user.get('/auth/me')).body.data.id as string;
  const scoped = async (scope: string) =>
    info(app.base, (await codeFlowTokens(app, user, client, { scope })).body.access_token);
  t.same((await scoped('openid')).body, { sub });
  t.same((await scoped('profile')).body, { sub, name: 'Ui User', picture: 'https://img.example/u.png' });
  t.same((await scoped('email')).body, { sub, email: 'ui@example.com', email_verified: true });
  t.same((await scoped('phone')).body, { sub }, 'no phone on the account: no phone claims');
  await user.post('/auth/verify-phone/send', { phone: '+255733333333' });
  const all = await scoped('openid profile email phone');
  t.same(all.body, {
    sub,
    name: 'Ui User',
    picture: 'https://img.example/u.png',
    email: 'ui@example.com',
    email_verified: true,
    phone_number: '+255733333333',
    phone_number_verified: false,
  });
  t.equal(all.headers.get('cache-control'), 'no-store');
});

t.test(
  'userinfo reads the claims with the token on every call: a profile change shows at once',
  async (t) => {
    const { app, client, user } = await setup(t);
    const token = (await codeFlowTokens(app, user, client, { scope: 'openid profile' })).body
      .access_token as string;
    const sub = (await user.get('/auth/me')).body.data.id as string;
    t.same((await info(app.base, token)).body, {
      sub,
      name: 'Ui User',
      picture: 'https://img.example/u.png',
    });
    await user.patch('/profile', { display_name: 'Renamed Later', avatar_url: null });
    t.same((await info(app.base, token)).body, { sub, name: 'Renamed Later' }, 'same token, new claims');
    app.clock.advance('15m');
    t.equal((await info(app.base, token)).status, 401, 'expired: refused, though it was just read');
  },
);

t.test('userinfo: the three bearer failures are 401 envelopes', async (t) => {
  const { app, client, user } = await setup(t);
  const missing = await info(app.base, undefined);
  t.same([missing.status, missing.body], [401, { success: false, message: 'not authenticated' }]);
  t.match(missing.headers.get('www-authenticate'), /^Bearer realm="svc-accounts"/);
  const garbage = await info(app.base, 'not.a.jwt');
  t.same(
    [garbage.status, garbage.body],
    [401, { success: false, message: 'invalid or expired access token' }],
  );
  const tokens = (await codeFlowTokens(app, user, client)).body;
  t.equal((await info(app.base, tokens.access_token)).status, 200);
  const [h, p, s] = (tokens.access_token as string).split('.');
  const forged = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'someone-else' }),
  ).toString('base64url');
  t.equal((await info(app.base, `${h!}.${forged}.${s!}`)).status, 401, 'a tampered payload');
  t.equal((await info(app.base, tokens.id_token)).status, 401, 'an ID token is not an access token');
  app.clock.advance('15m');
  const expired = await info(app.base, tokens.access_token);
  t.same(
    [expired.status, expired.body],
    [401, { success: false, message: 'invalid or expired access token' }],
  );
  const fresh = (await codeFlowTokens(app, user, client)).body;
  await user.delete(`/connections/${client.clientId}`);
  const revoked = await info(app.base, fresh.access_token);
  t.same(
    [revoked.status, revoked.body.message],
    [401, 'invalid or expired access token'],
    'revoked: dead at once',
  );
});

t.test('userinfo answers POST as it answers GET (OIDC Core §5.3), the token in the header', async (t) => {
  const { app, client, user } = await setup(t);
  const tokens = (await codeFlowTokens(app, user, client, { scope: 'openid profile' })).body;
  const sub = (await user.get('/auth/me')).body.data.id as string;
  const post = (headers: Record<string, string>, body?: string) =>
    fetch(`${app.base}/oauth/userinfo`, {
      method: 'POST',
      headers,
      ...(body === undefined ? {} : { body }),
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
      headers: r.headers,
    }));
  const bearer = { Authorization: `Bearer ${tokens.access_token as string}` };
  const got = await info(app.base, tokens.access_token);
  const posted = await post(bearer);
  t.same([posted.status, posted.body], [got.status, got.body], 'same answer as GET');
  t.same(posted.body, { sub, name: 'Ui User', picture: 'https://img.example/u.png' });
  t.equal(posted.headers.get('cache-control'), 'no-store');
  const form = { ...bearer, 'Content-Type': 'application/x-www-form-urlencoded' };
  t.same((await post(form, '')).body, posted.body, 'an empty form body');
  const missing = await post({});
  t.same([missing.status, missing.body], [401, { success: false, message: 'not authenticated' }]);
  t.match(missing.headers.get('www-authenticate'), /^Bearer realm="svc-accounts"/);
  const inBody = await post(
    { 'Content-Type': 'application/x-www-form-urlencoded' },
    `access_token=${tokens.access_token as string}`,
  );
  t.same(
    [inBody.status, inBody.body.message],
    [401, 'not authenticated'],
    'a token in the form body is not read (RFC 6750 §2.2 is optional)',
  );
  t.same(
    [
      (await post({ Authorization: 'Bearer not.a.jwt' })).status,
      (await post({ Authorization: `Bearer ${tokens.id_token as string}` })).status,
    ],
    [401, 401],
    'a bad token or an ID token',
  );
  app.clock.advance('15m');
  t.same(
    (await post(bearer)).body,
    { success: false, message: 'invalid or expired access token' },
    'expired',
  );
});

t.test('GET/PATCH /profile accept the bearer token', async (t) => {
  const { app, client, user } = await setup(t);
  const token = (await codeFlowTokens(app, user, client)).body.access_token as string;
  const api = new Client(app.base, { headers: { Authorization: `Bearer ${token}` } });
  t.match((await api.get('/profile')).body.data, { display_name: 'Ui User' });
  t.match((await api.patch('/profile', { display_name: 'From the app' })).body.data, {
    display_name: 'From the app',
  });
  t.equal((await user.get('/profile')).body.data.display_name, 'From the app');
  const bad = new Client(app.base, { headers: { Authorization: 'Bearer nope' } });
  t.same((await bad.get('/profile')).body, { success: false, message: 'invalid or expired access token' });
});

t.test(
  'connections: newest first; DELETE and POST /oauth/revoke kill refresh and access tokens at once',
  async (t) => {
    const { app, owner, client, user } = await setup(t);
    const second = await consoleClient(owner, { name: 'Second App' });
    const a = (await codeFlowTokens(app, user, client, { scope: 'openid email' })).body;
    app.clock.advance('1m');
    const b = (await codeFlowTokens(app, user, second)).body;
    const list = (await user.get('/connections')).body.data as Record<string, unknown>[];
    t.same(
      list.map((c) => Object.keys(c).sort()),
      [
        ['client_id', 'client_name', 'granted_at', 'scope'],
        ['client_id', 'client_name', 'granted_at', 'scope'],
      ],
    );
    t.match(list, [
      { client_id: second.clientId, client_name: 'Second App', scope: 'openid profile email' },
      { client_id: client.clientId, client_name: 'Partner App', scope: 'openid email' },
    ]);

    t.same((await user.delete(`/connections/${client.clientId}`)).body, {
      success: true,
      message: 'connection revoked',
    });
    t.equal((await info(app.base, a.access_token)).status, 401);
    const refresh = await fetch(`${app.base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: a.refresh_token,
        client_id: client.clientId,
        client_secret: client.secret!,
      }),
    });
    t.equal(((await refresh.json()) as { error: string }).error, 'invalid_grant');
    t.equal((await info(app.base, b.access_token)).status, 200, 'the other app keeps working');

    t.same((await user.post('/oauth/revoke', { client_id: second.clientId })).body, {
      success: true,
      message: 'connection revoked',
    });
    t.equal((await info(app.base, b.access_token)).status, 401);
    t.same((await user.get('/connections')).body.data, []);
    t.same((await user.delete(`/connections/${client.clientId}`)).body, {
      success: false,
      message: 'connection not found',
    });
    for (const body of [{}, { client_id: '' }]) {
      const res = await user.post('/oauth/revoke', body);
      t.same([res.status, res.body], [400, { success: false, message: 'client_id is required' }]);
    }
    const wrongType = await user.post('/oauth/revoke', { client_id: 7 });
    t.same([wrongType.status, wrongType.body], [400, { success: false, message: 'invalid request body' }]);
    const events = (await user.get('/auth/security-events')).body.data as {
      action: string;
      detail: string;
    }[];
    t.same(
      events.filter((e) => e.action === 'app_revoked').map((e) => e.detail),
      [second.clientId, client.clientId],
    );
    t.equal((await new Client(app.base).get('/connections')).status, 401);
  },
);
