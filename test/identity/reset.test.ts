import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import {
  lastCode,
  outboxFor,
  PASSWORD,
  registered,
  waitForOutbox,
  waitForSubject,
} from '../helpers/identity.js';
import { startMuteSmtp } from '../helpers/smtp.js';

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

t.test('an unverified phone gets nothing; wrong SMS codes burn the live ones after 5 misses', async (t) => {
  const app = await startTestApp(t);
  const c = new Client(app.base);
  await c.post('/auth/register', { phone: '+255722222222', password: PASSWORD });
  await new Client(app.base).post('/auth/forgot-password', { identifier: '+255722222222' });
  t.same(await outboxFor(app.dataDir, '+255722222222'), [], 'unverified: no SMS');

  await c.post('/auth/verify-phone/send', { phone: '+255722222222' });
  await c.post('/auth/verify-phone/check', { code: await lastCode(app.dataDir, '+255722222222') });
  await new Client(app.base).post('/auth/forgot-password', { identifier: '+255722222222' });
  await waitForOutbox(app, '+255722222222', 2);
  const code = await lastCode(app.dataDir, '+255722222222');
  const guess = code === '123456' ? '654321' : '123456';
  for (let i = 0; i < 5; i++) {
    const res = await new Client(app.base).post('/auth/reset-password', {
      token: guess,
      new_password: NEW_PASSWORD,
    });
    t.equal(res.body.message, 'reset link expired or already used');
  }
  const late = await new Client(app.base).post('/auth/reset-password', {
    token: code,
    new_password: NEW_PASSWORD,
  });
  t.equal(late.status, 400, 'the right code is dead after 5 wrong guesses');
  t.equal(
    (await new Client(app.base).post('/auth/login', { identifier: '+255722222222', password: PASSWORD }))
      .status,
    200,
  );
});
