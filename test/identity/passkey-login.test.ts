import { sql } from 'kysely';
import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { outboxFor, PASSWORD, registered, waitForSubject } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';
import {
  addPasskey,
  beginLogin,
  beginRegistration,
  finishLogin,
  passkeyLogin,
  SoftAuthenticator,
} from '../helpers/webauthn.js';

const EMAIL = 'pk@example.com';
const failed = { success: false, message: 'passkey verification failed' };
const expired = { success: false, message: 'passkey challenge expired or already used' };

async function counterOf(app: TestApp, id: string): Promise<number | undefined> {
  const row = await app.app.deps.db
    .selectFrom('passkeys')
    .select('counter')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.counter;
}

/** An account with one passkey on a soft authenticator. */
async function withPasskey(app: TestApp, email = EMAIL, step = 1) {
  const c = await registered(app, email);
  const auth = new SoftAuthenticator(app.config.webauthnOrigin, { step });
  const id = await addPasskey(c, auth);
  return { c, auth, id };
}

/** What a refused login must leave as it was: sessions and login events. */
async function logins(c: Client) {
  const events = (await c.get('/auth/security-events')).body.data as { action: string }[];
  return {
    sessions: (await c.get('/sessions')).body.data.length as number,
    logins: events.filter((e) => e.action === 'login').length,
  };
}

t.test('a passkey signs in: options, session cookie, User object, login event, counter', async (t) => {
  const app = await startTestApp(t);
  const { c: owner, auth, id } = await withPasskey(app);
  const c = new Client(app.base);
  const begin = await c.post('/auth/passkeys/login/begin', { identifier: EMAIL });
  t.equal(begin.status, 200);
  t.equal(begin.headers.get('cache-control'), 'no-store');
  const token = begin.headers.get('x-passkey-token') ?? '';
  t.match(token, /^[A-Za-z0-9_-]{43}$/);
  t.match(begin.body.data, {
    rpId: 'localhost',
    allowCredentials: [{ id, type: 'public-key', transports: ['internal'] }],
    userVerification: 'preferred',
    timeout: 180_000,
  });
  t.equal(c.cookies.size, 0, 'begin signs nobody in');

  app.clock.advance('1m');
  const res = await finishLogin(c, token, auth.get(begin.body.data));
  t.equal(res.status, 200);
  const me = (await owner.get('/auth/me')).body.data;
  t.same(res.body, { success: true, data: me });
  t.match(c.setCookies[0], /^svc_session=[^;]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
  t.same((await c.get('/auth/me')).body.data, me);

  const [passkey] = (await owner.get('/auth/passkeys')).body.data;
  t.equal(passkey.last_used_at, app.clock.now().toISOString());
  t.not(passkey.last_used_at, passkey.created_at);
  t.equal(await counterOf(app, id), 1, 'the counter the authenticator reported');
  const [event] = (await owner.get('/auth/security-events')).body.data;
  t.match(event, { action: 'login', detail: 'passkey', ip_address: c.ip });
  t.same(
    (await finishLogin(c, token, auth.get(begin.body.data))).body,
    expired,
    'the ceremony is single use',
  );
});

t.test('a passkey login skips TOTP on an MFA account and alerts a new address', async (t) => {
  const app = await startTestApp(t);
  const { c: owner, auth } = await withPasskey(app);
  const { secret } = (await owner.post('/auth/mfa/setup')).body.data;
  t.equal(
    (await owner.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) })).status,
    200,
  );
  app.clock.advance('1m'); // past the enabling code's step, which is burnt
  // From the sign-up address: a known one, so no alert.
  const home = new Client(app.base, { ip: owner.ip });
  const password = await home.post('/auth/login', { identifier: EMAIL, password: PASSWORD });
  t.equal(password.body.data.mfa_required, true, 'a password login needs the second factor');
  const verify = await home.post('/auth/mfa/verify', {
    mfa_token: password.body.data.mfa_token,
    code: totpForSecret(secret, app.clock.now()),
  });
  t.equal(verify.status, 200, 'a first sign-in, so the next one from elsewhere is news');

  const c = new Client(app.base);
  const res = await passkeyLogin(c, auth, EMAIL);
  t.equal(res.status, 200);
  t.equal(res.body.data.email, EMAIL, 'the User object, not an MFA challenge');
  t.ok(c.cookies.get('svc_session'));
  t.equal((await c.get('/auth/me')).status, 200);
  const mail = await waitForSubject(app, EMAIL, 'new sign-in');
  t.match(mail.text, `(${c.ip})`);
  t.equal(
    (await outboxFor(app.dataDir, EMAIL)).filter((m) => m.subject?.endsWith('new sign-in')).length,
    1,
    'the sign-up address was not news',
  );
});

t.test('login/begin: 401 for an unknown account or one without passkeys', async (t) => {
  const app = await startTestApp(t);
  await registered(app, 'nopk@example.com');
  const none = { success: false, message: 'no passkey login available for this account' };
  for (const identifier of ['ghost@example.com', 'nopk@example.com', '']) {
    const res = await new Client(app.base).post('/auth/passkeys/login/begin', { identifier });
    t.same([res.status, res.body], [401, none], identifier || 'empty');
    t.equal(res.headers.get('x-passkey-token'), null);
  }
  t.same((await new Client(app.base).post('/auth/passkeys/login/begin', { identifier: 1 })).body, {
    success: false,
    message: 'invalid request body',
  });
  const { rows } = await sql<{ n: number }>`select count(*) as n from passkey_challenges`.execute(
    app.app.deps.db,
  );
  t.equal(rows[0]?.n, 0, 'no ceremony opened');
});

t.test('login/begin counts against the otp-send limiter (3 per hour per IP)', async (t) => {
  const app = await startTestApp(t);
  const { c: owner } = await withPasskey(app);
  const c = new Client(app.base);
  t.equal((await c.post('/auth/passkeys/login/begin', { identifier: EMAIL })).status, 200);
  t.equal((await c.post('/auth/passkeys/login/begin', { identifier: 'ghost@example.com' })).status, 401);
  const shared = new Client(app.base, { ip: c.ip, headers: { Cookie: owner.cookieHeader() } });
  t.equal((await shared.post('/auth/verify-email/send')).status, 200, 'the same budget as code sends');
  const over = await c.post('/auth/passkeys/login/begin', { identifier: EMAIL });
  t.same([over.status, over.body], [429, { success: false, message: 'too many requests, try again later' }]);
  t.equal((await new Client(app.base).post('/auth/passkeys/login/begin', { identifier: EMAIL })).status, 200);
  app.clock.advance('1h');
  t.equal((await c.post('/auth/passkeys/login/begin', { identifier: EMAIL })).status, 200, 'a new hour');
});

t.test('login/finish refuses every bad call of §4.3 and signs nobody in', async (t) => {
  const app = await startTestApp(t);
  const { c: owner, auth } = await withPasskey(app);
  const { auth: otherAuth } = await withPasskey(app, 'other@example.com');
  const before = await logins(owner);
  type Begun = Awaited<ReturnType<typeof beginLogin>> & { c: Client };
  const attempt = async (finish: (begun: Begun) => Promise<{ status: number; body: unknown }>) => {
    const c = new Client(app.base);
    const res = await finish({ ...(await beginLogin(c, EMAIL)), c });
    t.equal(c.cookies.size, 0, 'no cookie');
    return [res.status, res.body];
  };

  t.same(await attempt(({ c, options }) => finishLogin(c, '', auth.get(options))), [
    400,
    { success: false, message: 'missing X-Passkey-Token header' },
  ]);
  t.same(await attempt(({ c, options }) => finishLogin(c, 'made-up', auth.get(options))), [401, expired]);
  t.same(
    await attempt(async ({ c, options, token }) => {
      app.clock.advance('3m');
      return finishLogin(c, token, auth.get(options));
    }),
    [401, expired],
    'three minutes old',
  );
  const registration = await beginRegistration(owner);
  t.same(
    await attempt(({ c, options }) => finishLogin(c, registration.token, auth.get(options))),
    [401, expired],
    'a registration token is not a login token',
  );
  t.same(
    await attempt(({ c, options, token }) =>
      finishLogin(c, token, auth.get(options, { badSignature: true })),
    ),
    [401, failed],
  );
  t.same(
    await attempt(({ c, options, token }) =>
      finishLogin(c, token, auth.get(options, { origin: 'http://evil.example' })),
    ),
    [401, failed],
  );
  t.same(
    await attempt(({ c, options, token }) =>
      finishLogin(c, token, otherAuth.get({ challenge: options.challenge })),
    ),
    [401, failed],
    "another account's passkey",
  );
  t.same(
    await attempt(({ c, options, token }) =>
      finishLogin(c, token, auth.get(options, { userHandle: otherAuth.credentials[0]!.userHandle })),
    ),
    [401, failed],
    "the account's passkey, claiming to be another account's",
  );
  t.same(
    await attempt(({ c, options, token }) => finishLogin(c, token, { ...auth.get(options), type: 'x' })),
    [401, failed],
    'not an assertion',
  );
  t.same(
    await attempt(({ c, token }) =>
      c.request('POST', '/auth/passkeys/login/finish', '[1]', { 'X-Passkey-Token': token }),
    ),
    [400, { success: false, message: 'invalid request body' }],
  );
  t.same(await logins(owner), before, 'no session, no login event');

  const c = new Client(app.base);
  const { options, token } = await beginLogin(c, EMAIL);
  t.same((await finishLogin(c, token, auth.get(options, { badSignature: true }))).body, failed);
  t.same((await finishLogin(c, token, auth.get(options))).body, expired, 'a failed assertion used it up');
});

t.test('a counter that does not go up is refused; one that never counts is fine', async (t) => {
  const app = await startTestApp(t);
  const { auth, id } = await withPasskey(app);
  t.equal((await passkeyLogin(new Client(app.base), auth, EMAIL, { counter: 5 })).status, 200);
  t.equal(await counterOf(app, id), 5);
  for (const counter of [5, 4, 0]) {
    const res = await passkeyLogin(new Client(app.base), auth, EMAIL, { counter });
    t.same([res.status, res.body], [401, failed], `counter ${String(counter)} after 5`);
  }
  t.equal(await counterOf(app, id), 5, 'unchanged');
  const warnings = app.logs.events('passkey.login_refused').filter((l) => l.reason === 'counter_rollback');
  t.equal(warnings.length, 3);
  t.equal(warnings[0]?.level, 40, 'logged as a warning: it may be a cloned authenticator');
  t.equal((await passkeyLogin(new Client(app.base), auth, EMAIL, { counter: 6 })).status, 200);

  const still = await withPasskey(app, 'zero@example.com', 0);
  for (let i = 0; i < 2; i++)
    t.equal((await passkeyLogin(new Client(app.base), still.auth, 'zero@example.com')).status, 200, 'both 0');
  t.equal(await counterOf(app, still.id), 0);
});

t.test('no passkey token, challenge, key, credential id or cookie reaches the log', async (t) => {
  const app = await startTestApp(t);
  const { c: owner, auth, id } = await withPasskey(app);
  const secrets = [id, auth.credentials[0]!.cosePublicKey.toString('base64url')];
  const c = new Client(app.base);
  const begin = await beginLogin(c, EMAIL);
  const assertion = auth.get(begin.options);
  secrets.push(
    begin.token,
    begin.options.challenge,
    assertion.response.signature,
    assertion.response.userHandle,
  );
  t.equal((await finishLogin(c, begin.token, assertion)).status, 200);
  secrets.push(c.cookies.get('svc_session')!);
  const bad = await beginLogin(c, EMAIL);
  secrets.push(bad.token, bad.options.challenge);
  await finishLogin(c, bad.token, auth.get(bad.options, { origin: 'http://evil.example' }));
  const reg = await beginRegistration(owner, 'Phone');
  secrets.push(reg.token, reg.options.challenge);
  await owner.post('/auth/passkeys/finish-registration', auth.create(reg.options, { challenge: 'AAAA' }), {
    'X-Passkey-Token': reg.token,
  });
  await owner.delete(`/auth/passkeys/${id}`);
  await waitForSubject(app, EMAIL, 'passkey removed');

  t.ok(app.logs.events('passkey.login_refused').length > 0, 'the refusal is logged');
  const log = app.logs.raw.join('\n');
  const mail = JSON.stringify(await outboxFor(app.dataDir, EMAIL));
  for (const secret of secrets) {
    t.notOk(log.includes(secret), `log holds no ${secret.slice(0, 6)}…`);
    t.notOk(mail.includes(secret), `mail holds no ${secret.slice(0, 6)}…`);
  }
});
