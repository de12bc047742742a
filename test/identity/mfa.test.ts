import { createHash } from 'node:crypto';
import t from 'tap';
import { foundInDatabase, startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { PASSWORD, registered, waitForSubject } from '../helpers/identity.js';
import { base32Decode, totpAt, totpForSecret } from '../helpers/totp.js';

t.test('the test TOTP matches the RFC 6238 SHA-1 vectors (so it is a fair judge)', async (t) => {
  const key = Buffer.from('12345678901234567890', 'ascii');
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [time, code] of vectors) t.equal(totpAt(key, time, 8), code, `T=${String(time)}`);
  t.same(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'), key);
});

/** Password step of an MFA login: the challenge token. */
async function mfaToken(app: TestApp, email: string): Promise<string> {
  const res = await new Client(app.base).post('/auth/login', { identifier: email, password: PASSWORD });
  return res.body.data.mfa_token as string;
}

interface Enrolled {
  c: Client;
  secret: string;
  recovery: string[];
}

/** Signs up, sets up TOTP and enables it with a code computed independently. */
async function enrolled(app: TestApp, email: string): Promise<Enrolled> {
  const c = await registered(app, email);
  const setup = await c.post('/auth/mfa/setup');
  const secret = setup.body.data.secret as string;
  const enable = await c.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
  if (enable.status !== 200) throw new Error(JSON.stringify(enable.body));
  app.clock.advance('2m'); // past the enabling code's step, which is burnt
  return { c, secret, recovery: enable.body.data.recovery_codes as string[] };
}

t.test('mfa/setup returns a base32 secret and a complete otpauth URI; MFA stays off', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_NAME: 'Cafe Wi-Fi' } });
  const c = await registered(app, 'otp@example.com');
  const res = await c.post('/auth/mfa/setup');
  t.equal(res.status, 200);
  const { secret, uri } = res.body.data as { secret: string; uri: string };
  t.match(secret, /^[A-Z2-7]{32}$/, '20 bytes of base32');
  const url = new URL(uri);
  t.equal(url.protocol, 'otpauth:');
  t.equal(url.host, 'totp');
  t.equal(decodeURIComponent(url.pathname), '/Cafe Wi-Fi:otp@example.com');
  t.same(Object.fromEntries(url.searchParams), {
    secret,
    issuer: 'Cafe Wi-Fi',
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });
  const row = await app.app.deps.db
    .selectFrom('users')
    .select('totp_secret')
    .where('email', '=', 'otp@example.com')
    .executeTakeFirstOrThrow();
  t.match(row.totp_secret, /^v1\./, 'sealed in the vault');
  t.notMatch(row.totp_secret, secret, 'never stored in the clear');
  const login = await new Client(app.base).post('/auth/login', {
    identifier: 'otp@example.com',
    password: PASSWORD,
  });
  t.notOk(login.body.data.mfa_required, 'set up is not enabled');
});

t.test('mfa/enable: every error of §4.2, then recovery codes and the mfa_enabled event', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'en@example.com');
  t.same((await c.post('/auth/mfa/enable', { code: '123456' })).body, {
    success: false,
    message: 'mfa not set up — call setup first',
  });
  const { secret } = (await c.post('/auth/mfa/setup')).body.data as { secret: string };
  t.same((await c.post('/auth/mfa/enable', {})).body, { success: false, message: 'code is required' });
  const good = totpForSecret(secret, app.clock.now());
  const bad = good === '000000' ? '000001' : '000000';
  t.same((await c.post('/auth/mfa/enable', { code: bad })).body, {
    success: false,
    message: 'invalid mfa code',
  });
  const ok = await c.post('/auth/mfa/enable', { code: good });
  t.equal(ok.status, 200);
  t.equal(ok.body.message, 'mfa enabled');
  const codes = ok.body.data.recovery_codes as string[];
  t.equal(codes.length, 10);
  for (const code of codes) t.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
  t.same((await c.post('/auth/mfa/enable', { code: good })).body, {
    success: false,
    message: 'mfa already enabled',
  });
  t.same(
    (await c.post('/auth/mfa/setup')).body,
    { success: false, message: 'mfa already enabled' },
    'no silent re-keying',
  );
  const events = (await c.get('/auth/security-events')).body.data as { action: string }[];
  t.equal(events[0]?.action, 'mfa_enabled');
  await waitForSubject(app, 'en@example.com', 'two-step sign-in turned on');
});

t.test('recovery codes are stored only as hashes', async (t) => {
  const app = await startTestApp(t);
  const { recovery } = await enrolled(app, 'rh@example.com');
  const rows = await app.app.deps.db
    .selectFrom('mfa_recovery_codes')
    .select(['code_hash', 'used_at'])
    .execute();
  t.equal(rows.length, 10);
  const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
  t.same(
    rows.map((r) => r.code_hash).sort(),
    recovery.map((c) => sha256(c.replace('-', ''))).sort(),
    'the SHA-256 of each code (as typed without its dash)',
  );
  const forms = recovery.flatMap((c) => [c, c.replace('-', ''), c.toUpperCase()]);
  t.same(await foundInDatabase(app, forms), [], 'no code is in the database files in any form');
  t.same(await foundInDatabase(app, [rows[0]!.code_hash]), [rows[0]!.code_hash], 'where the hashes are');
});

t.test(
  'the login event is written when mfa/verify finishes the sign-in, not at the password step',
  async (t) => {
    const app = await startTestApp(t);
    const { c, secret } = await enrolled(app, 'lev@example.com');
    type Event = { action: string; ip_address: string | null; detail: string };
    const events = async () => (await c.get('/auth/security-events')).body.data as Event[];
    const logins = async () => (await events()).filter((e) => e.action === 'login');
    t.same(await logins(), [], 'signing up is not a login');

    const browser = new Client(app.base);
    const password = await browser.post('/auth/login', { identifier: 'lev@example.com', password: PASSWORD });
    t.equal(password.body.data.mfa_required, true);
    t.same(await logins(), [], 'the password step alone is not a sign-in');
    const token = password.body.data.mfa_token as string;
    const now = app.clock.now();
    const refused = await browser.post('/auth/mfa/verify', {
      mfa_token: token,
      code: totpForSecret(secret, new Date(now.getTime() + 5 * 60_000)),
    });
    t.equal(refused.status, 401);
    t.same(await logins(), [], 'nor is a refused code');

    const ok = await browser.post('/auth/mfa/verify', { mfa_token: token, code: totpForSecret(secret, now) });
    t.equal(ok.status, 200);
    const after = await events();
    t.same(
      [after[0]?.action, after[0]?.ip_address, after[0]?.detail],
      ['login', browser.ip, 'password+totp'],
      'the newest event: this sign-in',
    );
    t.equal((await logins()).length, 1);
  },
);

t.test(
  'a password login of an MFA account answers the challenge; only mfa/verify creates the session',
  async (t) => {
    const app = await startTestApp(t);
    const { secret } = await enrolled(app, 'ch@example.com');
    const c = new Client(app.base);
    const login = await c.post('/auth/login', { identifier: 'ch@example.com', password: PASSWORD });
    t.equal(login.status, 200);
    t.same(Object.keys(login.body.data).sort(), ['mfa_required', 'mfa_token', 'user_id']);
    t.equal(login.body.data.mfa_required, true);
    t.equal(c.cookies.size, 0, 'no cookie before the second factor');
    const token = login.body.data.mfa_token as string;

    t.same((await c.post('/auth/mfa/verify', { mfa_token: token })).body, {
      success: false,
      message: 'mfa_token and code are required',
    });
    const now = app.clock.now();
    const wrongCode = totpForSecret(secret, new Date(now.getTime() + 5 * 60_000));
    const bad = await c.post('/auth/mfa/verify', { mfa_token: token, code: wrongCode });
    t.same([bad.status, bad.body], [401, { success: false, message: 'invalid mfa code' }]);
    const prev = totpForSecret(secret, new Date(now.getTime() - 30_000));
    const ok = await c.post('/auth/mfa/verify', { mfa_token: token, code: prev });
    t.equal(ok.status, 200, 'the previous 30 s step is accepted');
    t.equal(ok.body.data.email, 'ch@example.com');
    t.ok(c.cookies.get('svc_session'));
    t.equal((await c.get('/auth/me')).status, 200);
    const reuse = await c.post('/auth/mfa/verify', { mfa_token: token, code: prev });
    t.equal(reuse.status, 401, 'the token is single use');
  },
);

t.test('a code already used is refused; the next step is accepted', async (t) => {
  const app = await startTestApp(t);
  const { secret } = await enrolled(app, 'rp@example.com');
  const start = () => mfaToken(app, 'rp@example.com');
  const code = totpForSecret(secret, app.clock.now());
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code })).status,
    200,
  );
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code })).status,
    401,
    'replay',
  );
  const next = totpForSecret(secret, new Date(app.clock.now().getTime() + 30_000));
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code: next })).status,
    200,
    'next step',
  );
});

t.test('after the clock steps back past a used code, codes are refused (401/400), not a 500', async (t) => {
  const app = await startTestApp(t);
  const { c, secret } = await enrolled(app, 'ntp@example.com');
  const start = () => mfaToken(app, 'ntp@example.com');
  const used = await new Client(app.base).post('/auth/mfa/verify', {
    mfa_token: await start(),
    code: totpForSecret(secret, app.clock.now()),
  });
  t.equal(used.status, 200);
  // NTP corrects a box that ran 3 minutes ahead: the last accepted step is now in the future.
  app.clock.advance(-180_000);
  const now = totpForSecret(secret, app.clock.now());
  const verify = await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code: now });
  t.same([verify.status, verify.body], [401, { success: false, message: 'invalid mfa code' }]);
  const disable = await c.post('/auth/mfa/disable', { code: now });
  t.same([disable.status, disable.body], [400, { success: false, message: 'invalid mfa code' }]);
  // Once time has passed the used step again, the next code is accepted.
  app.clock.advance('3m');
  const later = totpForSecret(secret, new Date(app.clock.now().getTime() + 30_000));
  const again = await new Client(app.base).post('/auth/mfa/verify', {
    mfa_token: await start(),
    code: later,
  });
  t.equal(again.status, 200);
});

t.test('the mfa_token lives about 5 minutes and 5 wrong codes', async (t) => {
  const app = await startTestApp(t);
  const { secret } = await enrolled(app, 'tk@example.com');
  const start = () => mfaToken(app, 'tk@example.com');
  const stale = await start();
  app.clock.advance('5m');
  const late = await new Client(app.base).post('/auth/mfa/verify', {
    mfa_token: stale,
    code: totpForSecret(secret, app.clock.now()),
  });
  t.same([late.status, late.body], [401, { success: false, message: 'invalid mfa code' }]);

  app.clock.advance('30s');
  const token = await start();
  for (let i = 0; i < 5; i++) {
    t.equal(
      (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: token, code: 'abcdef' })).status,
      401,
    );
  }
  const right = totpForSecret(secret, app.clock.now());
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: token, code: right })).status,
    401,
    'burnt after 5 misses',
  );
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: 'made-up', code: right })).status,
    401,
  );
});

t.test('a recovery code replaces a TOTP code once', async (t) => {
  const app = await startTestApp(t);
  const { recovery } = await enrolled(app, 'rc@example.com');
  const start = () => mfaToken(app, 'rc@example.com');
  const c = new Client(app.base);
  const ok = await c.post('/auth/mfa/verify', { mfa_token: await start(), code: recovery[0]!.toUpperCase() });
  t.equal(ok.status, 200, 'case and dash do not matter');
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code: recovery[0] }))
      .status,
    401,
    'used once',
  );
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await start(), code: recovery[1] }))
      .status,
    200,
  );
});

t.test('mfa/disable needs a valid code; then password login needs no second factor', async (t) => {
  const app = await startTestApp(t);
  const { c, secret } = await enrolled(app, 'off@example.com');
  t.same((await c.post('/auth/mfa/disable', { code: '99999x' })).body, {
    success: false,
    message: 'invalid mfa code',
  });
  t.same((await c.post('/auth/mfa/disable', {})).body, { success: false, message: 'code is required' });
  const ok = await c.post('/auth/mfa/disable', { code: totpForSecret(secret, app.clock.now()) });
  t.same([ok.status, ok.body], [200, { success: true, message: 'mfa disabled' }]);
  t.same((await c.post('/auth/mfa/disable', { code: '123456' })).body, {
    success: false,
    message: 'mfa not enabled',
  });
  const login = await new Client(app.base).post('/auth/login', {
    identifier: 'off@example.com',
    password: PASSWORD,
  });
  t.equal(login.body.data.email, 'off@example.com');
  const events = (await c.get('/auth/security-events')).body.data as { action: string }[];
  t.equal(events.find((e) => e.action.startsWith('mfa_'))?.action, 'mfa_disabled');
  await waitForSubject(app, 'off@example.com', 'two-step sign-in turned off');
});

t.test(
  'a password reset ends a pending mfa_token: the old password cannot finish a sign-in (issue 3)',
  async (t) => {
    const app = await startTestApp(t);
    const { secret } = await enrolled(app, 'pending@example.com');
    // Someone with the old password gets as far as the challenge.
    const thief = new Client(app.base);
    const token = await mfaToken(app, 'pending@example.com');
    await mfaToken(app, 'pending@example.com'); // a second one, also pending

    await new Client(app.base).post('/auth/forgot-password', { identifier: 'pending@example.com' });
    const mail = await waitForSubject(app, 'pending@example.com', 'reset your password');
    const link = /\/reset-password\?token=([0-9a-f]{64})/.exec(mail.text)?.[1] ?? '';
    const reset = await new Client(app.base).post('/auth/reset-password', {
      token: link,
      new_password: 'a brand new secret',
    });
    t.same(reset.body, { success: true, message: 'password reset successfully' });

    const challenges = await app.app.deps.db
      .selectFrom('mfa_challenges')
      .select(['used_at', 'attempts'])
      .execute();
    t.same(
      challenges.map((c) => [c.used_at, c.attempts]),
      [
        [app.clock.now().toISOString(), 0],
        [app.clock.now().toISOString(), 0],
      ],
      'both pending challenges were ended by the reset',
    );
    const late = await thief.post('/auth/mfa/verify', {
      mfa_token: token,
      code: totpForSecret(secret, app.clock.now()),
    });
    t.same([late.status, late.body], [401, { success: false, message: 'invalid mfa code' }]);
    t.equal(thief.cookies.size, 0, 'no session');
    const sessions = await app.app.deps.db.selectFrom('sessions').select('id').execute();
    t.same(sessions, [], 'the reset revoked every session and none was created since');

    // The new password starts a challenge that works (the refused try burnt no TOTP step).
    const fresh = new Client(app.base);
    const login = await fresh.post('/auth/login', {
      identifier: 'pending@example.com',
      password: 'a brand new secret',
    });
    const ok = await fresh.post('/auth/mfa/verify', {
      mfa_token: login.body.data.mfa_token,
      code: totpForSecret(secret, app.clock.now()),
    });
    t.equal(ok.status, 200);
  },
);
