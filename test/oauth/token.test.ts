import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import t, { type Test } from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { tokenEndpoint } from '../../src/oauth/token.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { registered, verifiedUser } from '../helpers/identity.js';
import {
  authorizeCode,
  codeFlowTokens,
  consoleClient,
  pkcePair,
  REDIRECT,
  tokenRequest,
  type TestClient,
} from '../helpers/oauth.js';
import { failInserts, onPostgres } from '../helpers/store.js';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description: 'the provided authorization grant is invalid, expired, or already used',
};

async function setup(t: Test, env: Record<string, string> = {}) {
  const app = await startTestApp(t, { env });
  const owner = await registered(app, 'owner@example.com');
  const client = await consoleClient(owner);
  const user = await verifiedUser(app, 'user@example.com');
  return { app, owner, client, user };
}

const codeForm = (
  client: TestClient,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: REDIRECT,
  client_id: client.clientId,
  code_verifier: verifier,
  client_secret: client.secret!,
  ...extra,
});

async function jwks(app: TestApp) {
  return createLocalJWKSet((await (await fetch(`${app.base}/oauth/jwks`)).json()) as { keys: [] });
}

t.test(
  'authorization_code: the token response, its headers and RS256 tokens that jose verifies against the JWKS',
  async (t) => {
    const { app, client, user } = await setup(t);
    const { verifier, challenge } = pkcePair();
    const code = await authorizeCode(user, client.clientId, challenge, { nonce: 'nonce-42' });
    t.equal(code.length, 43);
    const res = await tokenRequest(app, codeForm(client, code, verifier));
    t.equal(res.status, 200);
    t.equal(res.headers.get('cache-control'), 'no-store');
    t.equal(res.headers.get('pragma'), 'no-cache');
    t.same(Object.keys(res.body).sort(), [
      'access_token',
      'expires_in',
      'id_token',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    t.match(res.body, { token_type: 'Bearer', expires_in: 900, scope: 'openid profile email' });
    const userId = (await user.get('/auth/me')).body.data.id as string;
    const keySet = await jwks(app);
    const now = app.clock.now();
    const access = await jwtVerify(res.body.access_token, keySet, {
      issuer: app.config.publicBaseUrl,
      audience: client.clientId,
      currentDate: now,
      typ: 'at+jwt',
    });
    t.same(Object.keys(access.payload).sort(), [
      'aud',
      'client_id',
      'exp',
      'iat',
      'iss',
      'jti',
      'scope',
      'sub',
    ]);
    t.match(access.payload, { sub: userId, client_id: client.clientId, scope: 'openid profile email' });
    t.equal(access.payload.exp! - access.payload.iat!, 900);
    t.equal(access.protectedHeader.alg, 'RS256');
    t.type(access.protectedHeader.kid, 'string');
    const id = await jwtVerify(res.body.id_token, keySet, {
      issuer: app.config.publicBaseUrl,
      audience: client.clientId,
      currentDate: now,
    });
    t.match(id.payload, { sub: userId, nonce: 'nonce-42', azp: client.clientId });
    t.type(id.payload.auth_time, 'number');

    const replay = await tokenRequest(app, codeForm(client, code, verifier));
    t.same([replay.status, replay.body], [400, INVALID_GRANT], 'single use');
    t.equal(
      (await user.get('/auth/me')).status,
      200,
      "the replay revokes the code's grant, not the user's browser session",
    );
    const info = await fetch(`${app.base}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${String(res.body.access_token)}` },
    });
    t.equal(info.status, 401, 'a replayed code revokes what it issued');
    const refresh = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: res.body.refresh_token,
      client_id: client.clientId,
      client_secret: client.secret!,
    });
    t.equal(refresh.body.error, 'invalid_grant');
  },
);

t.test('codes are bound to client, redirect URI and PKCE verifier, and live 60 seconds', async (t) => {
  const { app, owner, client, user } = await setup(t);
  const other = await consoleClient(owner, { name: 'Other' });
  const attempt = async (tweak: (p: { verifier: string }) => Record<string, string>, wait?: string) => {
    const pair = pkcePair();
    const code = await authorizeCode(user, client.clientId, pair.challenge);
    if (wait) app.clock.advance(wait);
    return tokenRequest(app, { ...codeForm(client, code, pair.verifier), ...tweak(pair) });
  };
  t.same(
    (await attempt(() => ({ code_verifier: pkcePair().verifier }))).body,
    INVALID_GRANT,
    'wrong verifier',
  );
  t.same((await attempt(() => ({ code_verifier: 'short' }))).body, INVALID_GRANT, 'malformed verifier');
  t.same(
    (await attempt(() => ({ redirect_uri: `${REDIRECT}?x=1` }))).body,
    INVALID_GRANT,
    'other redirect URI',
  );
  t.same(
    (await attempt(() => ({ client_id: other.clientId, client_secret: other.secret! }))).body,
    INVALID_GRANT,
    'other client',
  );
  t.same((await attempt(() => ({}), '61s')).body, INVALID_GRANT, 'expired after 60 s');
  t.equal((await attempt(() => ({}), '59s')).status, 200, 'fine at 59 s');
  t.same(
    (await tokenRequest(app, codeForm(client, 'x'.repeat(43), 'y'.repeat(43)))).body,
    INVALID_GRANT,
    'unknown code',
  );
});

t.test(
  'client authentication: form secret, HTTP Basic (form-urlencoded), public clients, and invalid_client',
  async (t) => {
    const { app, owner, client, user } = await setup(t);
    const pair = pkcePair();
    const code = await authorizeCode(user, client.clientId, pair.challenge);
    const {
      client_secret: _secret,
      client_id: _id,
      ...withoutCredentials
    } = codeForm(client, code, pair.verifier);
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId).replace(/-/g, '%2D')}:${encodeURIComponent(client.secret!)}`).toString('base64')}`;
    const ok = await tokenRequest(app, withoutCredentials, { Authorization: basic });
    t.equal(ok.status, 200, 'Basic with form-urlencoded id and secret (as openid-client sends it)');

    const bad = async (form: Record<string, string>, headers: Record<string, string> = {}) => {
      const res = await tokenRequest(
        app,
        { grant_type: 'refresh_token', refresh_token: 'whatever', ...form },
        headers,
      );
      t.equal(res.status, 401, JSON.stringify(form));
      t.equal(res.body.error, 'invalid_client');
      t.equal(res.headers.get('www-authenticate'), 'Basic realm="svc-accounts"');
      t.equal(res.headers.get('cache-control'), 'no-store');
    };
    await bad({}); // §5 rule 6: missing credentials, client_id included
    await bad({ client_id: client.clientId });
    await bad({ client_id: client.clientId, client_secret: 'cask_wrong' });
    await bad({ client_id: 'nope-abcdef', client_secret: client.secret! });
    await bad({}, { Authorization: `Basic ${Buffer.from(`${client.clientId}:wrong`).toString('base64')}` });
    const both = await tokenRequest(
      app,
      { grant_type: 'refresh_token', refresh_token: 'x', client_secret: client.secret! },
      { Authorization: basic },
    );
    t.same([both.status, both.body.error], [400, 'invalid_request']);

    const pub = await consoleClient(owner, { type: 'public', name: 'Mobile' });
    const pp = pkcePair();
    const pubCode = await authorizeCode(user, pub.clientId, pp.challenge);
    const pubRes = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: pubCode,
      redirect_uri: REDIRECT,
      client_id: pub.clientId,
      code_verifier: pp.verifier,
    });
    t.equal(pubRes.status, 200, 'public clients send no secret');

    const pp2 = pkcePair();
    const pubForm = {
      grant_type: 'authorization_code',
      code: await authorizeCode(user, pub.clientId, pp2.challenge),
      redirect_uri: REDIRECT,
      code_verifier: pp2.verifier,
    };
    const pubBasic = (secret: string) =>
      `Basic ${Buffer.from(`${pub.clientId}:${secret}`).toString('base64')}`;
    for (const [form, headers] of [
      [{ ...pubForm }, { Authorization: pubBasic('made-up-secret') }],
      [{ ...pubForm, client_id: pub.clientId, client_secret: 'made-up-secret' }, {}],
    ] as const) {
      const refused = await tokenRequest(app, form, headers);
      t.same(
        [refused.status, refused.body, refused.headers.get('www-authenticate')],
        [
          401,
          { error: 'invalid_client', error_description: 'public clients do not authenticate with a secret' },
          'Basic realm="svc-accounts"',
        ],
        'a secret presented for a public client is refused',
      );
    }
    const emptySecret = await tokenRequest(app, pubForm, { Authorization: pubBasic('') });
    t.equal(
      emptySecret.status,
      200,
      'an empty secret is no secret (RFC 6749 §2.3.1); the refusals burnt nothing',
    );

    await owner.patch(`/console/projects/${pub.projectId}/clients/${pub.clientId}`, { status: 'disabled' });
    const disabledPublic = await tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: pubRes.body.refresh_token as string,
      client_id: pub.clientId,
    });
    t.same(
      [disabledPublic.status, disabledPublic.body, disabledPublic.headers.get('www-authenticate')],
      [
        401,
        { error: 'invalid_client', error_description: 'client is disabled' },
        'Basic realm="svc-accounts"',
      ],
      'a disabled public client is refused at the token endpoint',
    );

    await owner.patch(`/console/projects/${client.projectId}/clients/${client.clientId}`, {
      status: 'disabled',
    });
    await bad({ client_id: client.clientId, client_secret: client.secret! });
  },
);

t.test('request errors: invalid_request, unsupported_grant_type, form encoding only', async (t) => {
  const { app, client } = await setup(t);
  const creds = { client_id: client.clientId, client_secret: client.secret! };
  const cases: [Record<string, string>, string][] = [
    [{ ...creds }, 'invalid_request'],
    [{ ...creds, grant_type: 'password' }, 'unsupported_grant_type'],
    [{ ...creds, grant_type: 'client_credentials' }, 'unsupported_grant_type'],
    [{ ...creds, grant_type: 'authorization_code', code: 'x' }, 'invalid_request'],
    [{ ...creds, grant_type: 'refresh_token' }, 'invalid_request'],
  ];
  for (const [form, error] of cases) {
    const res = await tokenRequest(app, form);
    t.same([res.status, res.body.error], [400, error], JSON.stringify(form));
    t.type(res.body.error_description, 'string');
    t.notOk('success' in res.body, 'no envelope');
  }
  const json = await fetch(`${app.base}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  t.same([json.status, ((await json.json()) as { error: string }).error], [400, 'invalid_request']);
});

t.test('a parameter sent twice is invalid_request (RFC 6749 §3.2), whichever copy is right', async (t) => {
  const { app, client, user } = await setup(t);
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(user, client.clientId, challenge);
  const good = new URLSearchParams(codeForm(client, code, verifier));
  const twice = (name: string, value: string, first = true) => {
    const form = new URLSearchParams(good);
    const original = form.get(name) ?? '';
    form.delete(name);
    for (const v of first ? [original, value] : [value, original]) form.append(name, v);
    return form;
  };
  const cases = [
    twice('client_secret', 'wrong'),
    twice('client_secret', 'wrong', false),
    twice('code', 'A'.repeat(43)),
    twice('client_id', 'another-client'),
    twice('code_verifier', verifier),
    twice('redirect_uri', REDIRECT),
    twice('grant_type', 'refresh_token'),
  ];
  for (const form of cases) {
    const res = await fetch(`${app.base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': '10.99.0.2' },
      body: form.toString(),
    });
    const name = [...form.keys()].find((k) => form.getAll(k).length > 1) ?? '';
    t.same(
      [res.status, await res.json()],
      [400, { error: 'invalid_request', error_description: `duplicate parameter: ${name}` }],
      form.toString(),
    );
  }
  // None of those used the code: it still gives tokens once.
  const res = await tokenRequest(app, Object.fromEntries(good));
  t.equal(res.status, 200);
});

t.test('refresh tokens rotate; reusing a rotated one revokes the whole family', async (t) => {
  const { app, client, user } = await setup(t);
  const first = (await codeFlowTokens(app, user, client)).body;
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: client.clientId,
      client_secret: client.secret!,
      ...extra,
    });
  const second = await refresh(first.refresh_token);
  t.equal(second.status, 200);
  t.not(second.body.refresh_token, first.refresh_token);
  t.notOk('id_token' in second.body, 'no ID token on refresh');
  const narrowed = await refresh(second.body.refresh_token, { scope: 'email' });
  t.equal(narrowed.body.scope, 'email');
  t.same((await refresh(narrowed.body.refresh_token, { scope: 'phone' })).body.error, 'invalid_scope');
  const third = await refresh(narrowed.body.refresh_token);
  t.equal(third.status, 200, 'a refused scope change consumes nothing');

  const reuse = await refresh(first.refresh_token);
  t.same(
    [reuse.status, reuse.body],
    [
      400,
      {
        error: 'invalid_grant',
        error_description: 'refresh token reuse was detected and all sessions for this client were revoked',
      },
    ],
  );
  t.same(
    (await refresh(third.body.refresh_token)).body,
    INVALID_GRANT,
    'the newest token of the family died too',
  );
  for (const token of [first.access_token, second.body.access_token, third.body.access_token]) {
    const res = await fetch(`${app.base}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${String(token)}` },
    });
    t.equal(res.status, 401, 'access tokens of the family are dead');
  }
  const other = (await codeFlowTokens(app, user, client)).body;
  t.equal((await refresh(other.refresh_token)).status, 200, 'another family of the same user is untouched');
  t.same((await refresh('not-a-token')).body, INVALID_GRANT);
  app.clock.advance('31d');
  t.same(
    (await refresh(other.refresh_token)).body,
    INVALID_GRANT,
    'refresh tokens expire after 30 idle days',
  );
});

t.test('grants share a group commit, yet each is atomic: a failing grant rolls back alone', async (t) => {
  const { app, client, user } = await setup(t);
  const deps = app.app.deps;
  const families = [];
  for (let i = 0; i < 3; i++) families.push((await codeFlowTokens(app, user, client)).body);
  const refreshTokens = families.map((f) => f.refresh_token as string);
  const familyOf = async (token: string) =>
    (
      await deps.db
        .selectFrom('oauth_refresh_tokens')
        .select('family_id')
        .where('token_hash', '=', sha256Hex(token))
        .executeTakeFirstOrThrow()
    ).family_id;
  const doomed = await familyOf(refreshTokens[1]!);
  // The middle grant's last write fails (as a full disk or a broken constraint would), after its
  // rotation of the old token was already written inside the group transaction.
  const undo = await failInserts(deps.db, 'oauth_refresh_tokens', 'family_id', doomed);
  const grant = (refreshToken: string) =>
    tokenEndpoint(deps, {
      form: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: client.clientId,
        client_secret: client.secret!,
      }),
      authorization: undefined,
    });
  const before = { ...deps.commits.stats };
  const results = await Promise.allSettled(refreshTokens.map(grant));
  if (onPostgres) {
    // Each grant's reads are round trips to the server before it queues for the commit, so the
    // three may reach it apart; the group's atomicity is test/db/postgres.test.ts's.
    t.equal(deps.commits.stats.units, before.units + 3, 'the three grants went through the group commit');
  } else {
    t.same(
      deps.commits.stats,
      { transactions: before.transactions + 1, units: before.units + 3 },
      'the three grants ran in one group transaction',
    );
  }
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.match((results[1] as PromiseRejectedResult).reason, { message: /injected failure/ });
  await undo();

  for (const i of [0, 2]) {
    const issued = (results[i] as PromiseFulfilledResult<{ refresh_token: string }>).value;
    t.equal((await grant(issued.refresh_token)).token_type, 'Bearer', `grant ${String(i)} committed`);
    await t.rejects(
      grant(refreshTokens[i]!),
      { message: /refresh token reuse was detected/ },
      `grant ${String(i)} rotated`,
    );
  }
  const retried = await grant(refreshTokens[1]!);
  t.equal(retried.token_type, 'Bearer', 'the failed grant left its token unrotated: nothing of it stuck');
  t.equal(
    (
      await deps.db
        .selectFrom('oauth_refresh_families')
        .select('revoked_at')
        .where('id', '=', doomed)
        .executeTakeFirstOrThrow()
    ).revoked_at,
    null,
    'and no reuse was detected on the retry',
  );
});

t.test('OIDC_ID_TOKEN=off: no ID token, for strict spec parity; no openid scope, no ID token', async (t) => {
  const off = await setup(t, { OIDC_ID_TOKEN: 'off' });
  const res = await codeFlowTokens(off.app, off.user, off.client);
  t.equal(res.status, 200);
  t.notOk('id_token' in res.body);
  const on = await setup(t);
  const noOpenid = await codeFlowTokens(on.app, on.user, on.client, { scope: 'profile email' });
  t.notOk('id_token' in noOpenid.body);
  t.equal(decodeJwt(noOpenid.body.access_token).scope, 'profile email');
});

t.test('the token limiter: 30 per minute per IP, answered in OAuth form', async (t) => {
  const { app, client } = await setup(t);
  const form = {
    grant_type: 'refresh_token',
    refresh_token: 'x',
    client_id: client.clientId,
    client_secret: client.secret!,
  };
  for (let i = 0; i < 30; i++)
    t.equal((await tokenRequest(app, form, { 'X-Forwarded-For': '192.0.2.50' })).status, 400);
  const limited = await tokenRequest(app, form, { 'X-Forwarded-For': '192.0.2.50' });
  t.same(
    [limited.status, limited.body],
    [429, { error: 'temporarily_unavailable', error_description: 'too many requests, try again later' }],
  );
  t.ok(Number(limited.headers.get('retry-after')) > 0);
});
