import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import {
  lastCode,
  outboxFor,
  PASSWORD,
  registered,
  waitForOutbox,
  waitForSubject,
  withLegacyPasswordHash,
} from '../helpers/identity.js';
import { startMuteSmtp } from '../helpers/smtp.js';
import { identityErrors, pruneResetCodeMisses, signIn, verifyPassword } from '../../src/identity/index.js';
import { provenPasswordHash } from '../../src/identity/passwords.js';
import { findUserByIdentifier } from '../../src/identity/users.store.js';

const NEW_PASSWORD = 'a brand new secret';
const SENT = { success: true, message: 'if an account exists, a reset link has been sent' };

const linkToken = (text: string): string => {
  const m = /\/reset-password\?token=([0-9a-f]+)/.exec(text);
  if (!m?.[1]) throw new Error('no reset link');
  return m[1];
};

t.test('forgot-password answers the same for known and unknown identifiers', async (t) => {
  const app = await startTestApp(t);
  await registered(app, 'known@example.com');
  const anon = new Client(app.base);
  const known = await anon.post('/auth/forgot-password', { identifier: 'known@example.com' });
  const unknown = await anon.post('/auth/forgot-password', { identifier: 'ghost@example.com' });
  const phone = await anon.post('/auth/forgot-password', { identifier: '+255700000000' });
  for (const res of [known, unknown, phone]) t.same([res.status, res.body], [200, SENT]);
  t.same(await outboxFor(app.dataDir, 'ghost@example.com'), []);
  const empty = await anon.post('/auth/forgot-password', { identifier: '  ' });
  t.same([empty.status, empty.body], [400, { success: false, message: 'identifier is required' }]);
});

t.test('forgot-password answers while the mail server has not even greeted (no timing tell)', async (t) => {
  // The account, made while mail goes to the outbox (its registration code must not tie up the
  // mute server below).
  const dataDir = t.testdir();
  const setup = await startTestApp(t, { dataDir });
  await registered(setup, 'slow@example.com');
  await waitForOutbox(setup, 'slow@example.com', 1);
  await setup.app.close();

  // A mail server that accepts the connection and never says a word: a send hangs until the
  // client's greeting timeout (10 s) gives up and hangs up.
  const mute = await startMuteSmtp();
  t.teardown(mute.close);
  const app = await startTestApp(t, { dataDir, env: { SMTP_URL: mute.url } });
  // The notifier logs every send's outcome before it returns (notify.sent / notify.failed).
  const outcomes = () => app.logs.lines.filter((l) => String(l.event).startsWith('notify.')).length;
  const res = await new Client(app.base).post('/auth/forgot-password', { identifier: 'slow@example.com' });
  const atTheAnswer = { outcomes: outcomes(), hungUp: mute.connections.filter((c) => c.closed).length };
  t.same([res.status, res.body], [200, SENT]);
  t.same(atTheAnswer, { outcomes: 0, hungUp: 0 }, 'the answer came before the send could finish or give up');
  const mail = await mute.connection(1);
  t.same(mail, { received: 0, closed: false }, 'the reset mail is open, still waiting for a greeting');
  t.equal(outcomes(), 0, 'and its send is still pending');
  t.equal(mute.connections.length, 1, 'one connection: the reset mail');
});

t.test('the mailed link resets the password once, within the hour, and revokes every session', async (t) => {
  const app = await startTestApp(t);
  const first = await registered(app, 'r@example.com');
  const second = new Client(app.base);
  await second.post('/auth/login', { identifier: 'r@example.com', password: PASSWORD });
  await new Client(app.base).post('/auth/forgot-password', { identifier: 'r@example.com' });
  // The second sign-in came from a new address, so its alert may be in the outbox too.
  const mail = await waitForSubject(app, 'r@example.com', 'reset your password');
  t.match(mail.text, `${app.config.publicBaseUrl}/reset-password?token=`);
  const token = linkToken(mail.text);
  t.match(token, /^[0-9a-f]{64}$/);

  const short = await new Client(app.base).post('/auth/reset-password', { token, new_password: 'short' });
  t.same(short.body, { success: false, message: 'password must be at least 8 characters' });
  const missing = await new Client(app.base).post('/auth/reset-password', { token });
  t.same(missing.body, { success: false, message: 'token and new_password are required' });

  const ok = await new Client(app.base).post('/auth/reset-password', { token, new_password: NEW_PASSWORD });
  t.same([ok.status, ok.body], [200, { success: true, message: 'password reset successfully' }]);
  for (const c of [first, second]) {
    t.same(
      (await c.get('/auth/me')).body,
      { success: false, message: 'session expired or invalid' },
      'sessions revoked',
    );
  }
  const again = await new Client(app.base).post('/auth/reset-password', {
    token,
    new_password: 'yet another one',
  });
  t.same(
    [again.status, again.body],
    [400, { success: false, message: 'reset link expired or already used' }],
  );

  const fresh = new Client(app.base);
  t.equal((await fresh.post('/auth/login', { identifier: 'r@example.com', password: PASSWORD })).status, 401);
  t.equal(
    (await fresh.post('/auth/login', { identifier: 'r@example.com', password: NEW_PASSWORD })).status,
    200,
  );
  const events = (await fresh.get('/auth/security-events')).body.data as { action: string }[];
  t.ok(events.some((e) => e.action === 'password_reset'));
  t.match(await waitForSubject(app, 'r@example.com', 'password changed'), {
    text: /password of your account was reset/,
  });
});

t.test('a reset link expires after an hour', async (t) => {
  const app = await startTestApp(t);
  await registered(app, 'late@example.com');
  await new Client(app.base).post('/auth/forgot-password', { identifier: 'late@example.com' });
  const token = linkToken((await waitForOutbox(app, 'late@example.com', 2)).at(-1)!.text);
  app.clock.advance('1h');
  const res = await new Client(app.base).post('/auth/reset-password', { token, new_password: NEW_PASSWORD });
  t.same(res.body, { success: false, message: 'reset link expired or already used' });
  t.equal(
    (await new Client(app.base).post('/auth/login', { identifier: 'late@example.com', password: PASSWORD }))
      .status,
    200,
  );
});

t.test(
  'a verified phone gets a 6-digit SMS code, valid 15 minutes, taken by the same endpoint',
  async (t) => {
    const app = await startTestApp(t);
    const c = new Client(app.base);
    await c.post('/auth/register', { phone: '+255711111111', password: PASSWORD });
    await c.post('/auth/verify-phone/send', { phone: '+255711111111' });
    await c.post('/auth/verify-phone/check', { code: await lastCode(app.dataDir, '+255711111111') });

    await new Client(app.base).post('/auth/forgot-password', { identifier: '+255711111111' });
    await waitForOutbox(app, '+255711111111', 2);
    const code = await lastCode(app.dataDir, '+255711111111');
    app.clock.advance('14m');
    const ok = await new Client(app.base).post('/auth/reset-password', {
      token: code,
      new_password: NEW_PASSWORD,
    });
    t.same(ok.body, { success: true, message: 'password reset successfully' });
    t.same((await c.get('/auth/me')).body.message, 'session expired or invalid');

    await new Client(app.base).post('/auth/forgot-password', { identifier: '+255711111111' });
    await waitForOutbox(app, '+255711111111', 3);
    const expired = await lastCode(app.dataDir, '+255711111111');
    app.clock.advance('15m');
    t.same(
      (
        await new Client(app.base).post('/auth/reset-password', {
          token: expired,
          new_password: 'third password',
        })
      ).body,
      {
        success: false,
        message: 'reset link expired or already used',
      },
    );
  },
);

t.test('an unverified phone gets no SMS code', async (t) => {
  const app = await startTestApp(t);
  await new Client(app.base).post('/auth/register', { phone: '+255722222222', password: PASSWORD });
  await registered(app, 'later@example.com');
  const res = await new Client(app.base).post('/auth/forgot-password', { identifier: '+255722222222' });
  t.same([res.status, res.body], [200, SENT]);
  // Background requests run in order: once the next one's mail is out, the first is done.
  await new Client(app.base).post('/auth/forgot-password', { identifier: 'later@example.com' });
  await waitForSubject(app, 'later@example.com', 'reset your password');
  t.same(await outboxFor(app.dataDir, '+255722222222'), [], 'unverified: no SMS');
  t.same(
    (await resetRows(app)).map((r) => r.kind),
    ['link'],
    'no SMS reset stored',
  );
});

/** A phone account with a verified number and a live SMS reset code: the code. */
async function smsResetCode(app: TestApp, phone: string): Promise<string> {
  const c = new Client(app.base);
  await c.post('/auth/register', { phone, password: PASSWORD });
  await c.post('/auth/verify-phone/send', { phone });
  await c.post('/auth/verify-phone/check', { code: await lastCode(app.dataDir, phone) });
  await new Client(app.base).post('/auth/forgot-password', { identifier: phone });
  await waitForOutbox(app, phone, 2);
  return lastCode(app.dataDir, phone);
}

/** n 6-digit codes that are none of `live`. */
function wrongCodes(n: number, live: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const code = String(i).padStart(6, '0');
    if (!live.includes(code)) out.push(code);
  }
  return out;
}

const resetRows = (app: TestApp) =>
  app.app.deps.db
    .selectFrom('password_resets')
    .select(['user_id', 'kind', 'attempts', 'used_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const passwordHashes = (app: TestApp) =>
  app.app.deps.db.selectFrom('users').select(['id', 'password_hash']).orderBy('id').execute();
const missRows = (app: TestApp) => app.app.deps.db.selectFrom('reset_code_misses').selectAll().execute();
const INVALID = { success: false, message: 'reset link expired or already used' };

t.test(
  'one client cannot lock SMS reset codes: after 10 wrong codes its tries are refused unseen, for an hour (issue 3)',
  async (t) => {
    const app = await startTestApp(t);
    const code = await smsResetCode(app, '+255733333333');
    const attacker = (ip = '198.51.100.9') => new Client(app.base, { ip });
    for (const guess of wrongCodes(10, [code])) {
      const res = await attacker().post('/auth/reset-password', { token: guess, new_password: NEW_PASSWORD });
      t.same([res.status, res.body], [400, INVALID], `wrong code ${guess}`);
    }
    t.same(
      (await resetRows(app)).map((r) => [r.kind, r.attempts, r.used_at]),
      [['sms', 10, null]],
      'ten misses counted',
    );

    // Spent: even the right code from that client is not looked at, and nothing is recorded.
    const state = async () => ({
      resets: await resetRows(app),
      users: await passwordHashes(app),
      misses: await missRows(app),
    });
    const before = await state();
    const refused = await attacker().post('/auth/reset-password', {
      token: code,
      new_password: NEW_PASSWORD,
    });
    t.same([refused.status, refused.body], [400, INVALID]);
    const another = await attacker().post('/auth/reset-password', {
      token: '999999',
      new_password: NEW_PASSWORD,
    });
    t.same([another.status, another.body], [400, INVALID]);
    t.same(await state(), before, 'refused tries change nothing');
    t.equal(app.logs.events('account.reset_code_budget_spent').length, 1, 'the operator hears of it once');

    // The owner, from their own address, still gets in with the code.
    const ok = await new Client(app.base).post('/auth/reset-password', {
      token: code,
      new_password: NEW_PASSWORD,
    });
    t.same([ok.status, ok.body], [200, { success: true, message: 'password reset successfully' }]);

    // An hour after its misses the client's tries are looked at again (a code it cannot use at
    // 59 minutes works for it at 60).
    app.clock.advance('50m');
    const next = await smsResetCode(app, '+255733333334');
    app.clock.advance('9m');
    const hashes = await passwordHashes(app);
    const still = await attacker().post('/auth/reset-password', { token: next, new_password: NEW_PASSWORD });
    t.same(still.body, INVALID, 'the budget is still spent after 59 minutes');
    t.same(await passwordHashes(app), hashes);
    app.clock.advance('1m');
    const back = await attacker().post('/auth/reset-password', { token: next, new_password: NEW_PASSWORD });
    t.same(back.body, { success: true, message: 'password reset successfully' }, 'a new hour, a new budget');
    t.equal((await missRows(app)).length, 10, 'the old misses are still stored');
    await pruneResetCodeMisses(app.app.deps);
    t.same(await missRows(app), [], 'the hourly job forgets them (they hold the address)');
  },
);

t.test('addresses of one IPv6 /64 share one budget', async (t) => {
  const app = await startTestApp(t);
  const code = await smsResetCode(app, '+255744444444');
  const guesses = wrongCodes(10, [code]);
  for (const [i, guess] of guesses.entries()) {
    const client = new Client(app.base, { ip: `2001:db8:5:6::${String(i + 1)}` });
    t.equal(
      (await client.post('/auth/reset-password', { token: guess, new_password: NEW_PASSWORD })).status,
      400,
    );
  }
  const sameBlock = new Client(app.base, { ip: '2001:db8:5:6:ffff::1' });
  t.same(
    (await sameBlock.post('/auth/reset-password', { token: code, new_password: NEW_PASSWORD })).body,
    INVALID,
    'an eleventh address in the /64 is the same client',
  );
  const otherBlock = new Client(app.base, { ip: '2001:db8:5:7::1' });
  t.same((await otherBlock.post('/auth/reset-password', { token: code, new_password: NEW_PASSWORD })).body, {
    success: true,
    message: 'password reset successfully',
  });
});

t.test(
  'brute force stays hopeless: a live SMS code survives at most 100 wrong codes from all clients together',
  async (t) => {
    const app = await startTestApp(t);
    const first = await smsResetCode(app, '+255755555551');
    const second = await smsResetCode(app, '+255755555552');
    const guesses = wrongCodes(100, [first, second]);
    // 99 misses from ten clients (each within its own budget of ten).
    for (const [i, guess] of guesses.slice(0, 99).entries()) {
      const client = new Client(app.base, { ip: `192.0.2.${String(Math.floor(i / 10) + 1)}` });
      const res = await client.post('/auth/reset-password', { token: guess, new_password: NEW_PASSWORD });
      t.equal(res.status, 400);
    }
    t.same(
      (await resetRows(app)).map((r) => r.attempts),
      [99, 99],
      'every miss counts against every live code',
    );
    const stillAlive = await new Client(app.base).post('/auth/reset-password', {
      token: first,
      new_password: NEW_PASSWORD,
    });
    t.equal(stillAlive.status, 200, 'after 99 misses a code still works');

    const hundredth = await new Client(app.base, { ip: '192.0.2.10' }).post('/auth/reset-password', {
      token: guesses[99],
      new_password: NEW_PASSWORD,
    });
    t.equal(hundredth.status, 400);
    const hashes = await passwordHashes(app);
    const dead = await new Client(app.base).post('/auth/reset-password', {
      token: second,
      new_password: NEW_PASSWORD,
    });
    t.same([dead.status, dead.body], [400, INVALID], 'the 100th miss killed the other code');
    t.same(await passwordHashes(app), hashes, 'the refused reset changed nothing');

    // The owner asks again: a new code, with a fresh ceiling.
    await new Client(app.base).post('/auth/forgot-password', { identifier: '+255755555552' });
    await waitForOutbox(app, '+255755555552', 3);
    const again = await new Client(app.base).post('/auth/reset-password', {
      token: await lastCode(app.dataDir, '+255755555552'),
      new_password: NEW_PASSWORD,
    });
    t.equal(again.status, 200);
  },
);

t.test(
  'a login that checked the old password just before a reset gets no session and cannot restore it',
  async (t) => {
    const app = await startTestApp(t);
    await registered(app, 'race@example.com');
    const { db } = app.app.deps;
    // A hash at older argon2 parameters, so the racing login also wants to rehash it.
    await withLegacyPasswordHash(app, 'race@example.com');

    // The login has read the user and verified the old password (passwordLogin's first steps)...
    const seen = await findUserByIdentifier(db, 'race@example.com', '255');
    if (!seen) throw new Error('no user');
    t.ok(await verifyPassword(seen.password_hash, PASSWORD));
    // ...when the owner's reset commits.
    await new Client(app.base).post('/auth/forgot-password', { identifier: 'race@example.com' });
    const token = linkToken((await waitForSubject(app, 'race@example.com', 'reset your password')).text);
    const reset = await new Client(app.base).post('/auth/reset-password', {
      token,
      new_password: NEW_PASSWORD,
    });
    t.equal(reset.status, 200);

    t.equal(await provenPasswordHash(db, seen, PASSWORD), null, 'the rehash finds the password changed');
    const proof = { passwordHash: seen.password_hash, changed: identityErrors.badCredentials };
    await t.rejects(
      signIn(app.app.deps, seen, { ip: '10.0.0.9', method: 'password', proof }),
      { status: 401, message: 'email/phone or password incorrect' },
      'the session is refused',
    );
    t.same(await db.selectFrom('sessions').select('id').where('user_id', '=', seen.id).execute(), []);
    const login = (password: string) =>
      new Client(app.base).post('/auth/login', { identifier: 'race@example.com', password });
    t.equal((await login(PASSWORD)).status, 401, 'the old password stays gone');
    t.equal((await login(NEW_PASSWORD)).status, 200, 'the new one works');
  },
);
