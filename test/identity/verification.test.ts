import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { lastCode, outboxFor, PASSWORD, registered } from '../helpers/identity.js';

const me = async (c: Client) =>
  (await c.get('/auth/me')).body.data as {
    email_verified: boolean;
    phone: string | null;
    phone_verified: boolean;
  };

/** A wrong code that is surely not the right one. */
const wrong = (code: string) => (code === '000000' ? '111111' : '000000');

t.test('verify-email: the registration code verifies the email and records email_verified', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'v@example.com');
  const code = await lastCode(app.dataDir, 'v@example.com');
  const bad = await c.post('/auth/verify-email/check', { code: wrong(code) });
  t.same([bad.status, bad.body], [400, { success: false, message: 'incorrect code' }]);
  t.equal((await me(c)).email_verified, false, 'a wrong code changes nothing');
  const ok = await c.post('/auth/verify-email/check', { code });
  t.same([ok.status, ok.body], [200, { success: true, message: 'email verified' }]);
  t.equal((await me(c)).email_verified, true);
  const events = (await c.get('/auth/security-events')).body.data as { action: string }[];
  t.equal(events[0]?.action, 'email_verified');
  const again = await c.post('/auth/verify-email/check', { code });
  t.same(again.body, { success: false, message: 'code expired, request a new one' }, 'single use');
});

t.test('verify-email: codes expire after 5 minutes and die after 5 wrong tries', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'exp@example.com');
  const first = await lastCode(app.dataDir, 'exp@example.com');
  app.clock.advance('5m');
  t.same((await c.post('/auth/verify-email/check', { code: first })).body, {
    success: false,
    message: 'code expired, request a new one',
  });

  t.same((await c.post('/auth/verify-email/send')).body, {
    success: true,
    message: 'verification code sent',
  });
  const second = await lastCode(app.dataDir, 'exp@example.com');
  t.not(second, undefined);
  app.clock.advance(299_000);
  for (let i = 0; i < 5; i++) {
    t.equal(
      (await c.post('/auth/verify-email/check', { code: wrong(second) })).body.message,
      'incorrect code',
    );
  }
  t.equal(
    (await c.post('/auth/verify-email/check', { code: second })).body.message,
    'code expired, request a new one',
    'the right code no longer works after 5 misses',
  );
  t.equal((await me(c)).email_verified, false);
  t.same((await c.post('/auth/verify-email/check', {})).body, {
    success: false,
    message: 'code is required',
  });
});

t.test('verify-email/send: 3 codes per hour per user, plus the otp-send limiter per IP', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'lim@example.com'); // the registration code is send #1
  t.equal((await c.post('/auth/verify-email/send')).status, 200);
  t.equal((await c.post('/auth/verify-email/send')).status, 200);
  const fourth = await c.post('/auth/verify-email/send');
  t.same(
    [fourth.status, fourth.body],
    [429, { success: false, message: 'too many codes requested, try again later' }],
  );
  t.equal((await outboxFor(app.dataDir, 'lim@example.com')).length, 3, 'nothing sent the fourth time');
  app.clock.advance('61m');
  t.equal((await c.post('/auth/verify-email/send')).status, 200, 'the hour has passed');

  // Three sends from one address per hour, whoever asks.
  const shared = '198.51.100.77';
  const clients: Client[] = [];
  for (let i = 0; i < 4; i++) {
    const u = await registered(app, `ip${String(i)}@example.com`);
    const same = new Client(app.base, { ip: shared });
    for (const [k, v] of u.cookies) same.cookies.set(k, v);
    clients.push(same);
  }
  for (const client of clients.slice(0, 3))
    t.equal((await client.post('/auth/verify-email/send')).status, 200);
  const limited = await clients[3]!.post('/auth/verify-email/send');
  t.same(
    [limited.status, limited.body],
    [429, { success: false, message: 'too many requests, try again later' }],
  );
});

t.test('verify-email/send without an email on the account is 400', async (t) => {
  const app = await startTestApp(t);
  const c = new Client(app.base);
  await c.post('/auth/register', { phone: '+255700000001', password: PASSWORD });
  t.same((await c.post('/auth/verify-email/send')).body, {
    success: false,
    message: 'no email address on account',
  });
});

async function phoneFlow(app: TestApp) {
  const c = await registered(app, 'p@example.com');
  const res = await c.post('/auth/verify-phone/send', { phone: '+255712345678' });
  return { c, res };
}

t.test('verify-phone: attaches the number unverified, sends the code by SMS, then verifies', async (t) => {
  const app = await startTestApp(t);
  const { c, res } = await phoneFlow(app);
  t.same([res.status, res.body], [200, { success: true, message: 'verification code sent' }]);
  t.match(await me(c), { phone: '+255712345678', phone_verified: false });
  const sms = await outboxFor(app.dataDir, '+255712345678');
  t.equal(sms.length, 1);
  t.equal(sms[0]?.channel, 'sms');
  const code = await lastCode(app.dataDir, '+255712345678');
  t.same((await c.post('/auth/verify-phone/check', { code: wrong(code) })).body, {
    success: false,
    message: 'incorrect code',
  });
  t.same((await c.post('/auth/verify-phone/check', { code })).body, {
    success: true,
    message: 'phone verified',
  });
  t.match(await me(c), { phone: '+255712345678', phone_verified: true });
  const alerts = (await outboxFor(app.dataDir, 'p@example.com')).filter((m) =>
    m.subject?.includes('phone number changed'),
  );
  t.equal(alerts.length, 1, 'the account email hears of the change');
});

t.test('verify-phone/send refuses a bad number and a number another account owns', async (t) => {
  const app = await startTestApp(t);
  const other = new Client(app.base);
  await other.post('/auth/register', { phone: '+255799999999', password: PASSWORD });
  const c = await registered(app, 'q@example.com');
  t.same((await c.post('/auth/verify-phone/send', { phone: 'call me' })).body, {
    success: false,
    message: 'please enter a valid phone number (e.g. +255712345678)',
  });
  const taken = await c.post('/auth/verify-phone/send', { phone: '+255799999999' });
  t.same(
    [taken.status, taken.body],
    [400, { success: false, message: 'an account with that email or phone already exists' }],
  );
  const spelt = await c.post('/auth/verify-phone/send', { phone: '0799999999' });
  t.same(
    [spelt.status, spelt.body.message],
    [400, 'an account with that email or phone already exists'],
    'another spelling',
  );
  t.equal((await me(c)).phone, null, 'nothing attached');
  t.same(await outboxFor(app.dataDir, '+255799999999'), [], 'no SMS to the owner');
});

t.test('a code for an old number does not verify a new one', async (t) => {
  const app = await startTestApp(t);
  const { c } = await phoneFlow(app);
  const oldCode = await lastCode(app.dataDir, '+255712345678');
  t.equal((await c.post('/auth/verify-phone/send', { phone: '+255712345679' })).status, 200);
  const newCode = await lastCode(app.dataDir, '+255712345679');
  if (oldCode !== newCode) {
    t.equal((await c.post('/auth/verify-phone/check', { code: oldCode })).status, 400);
  }
  const res = await c.post('/auth/verify-phone/check', { code: newCode });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(await me(c), { phone: '+255712345679', phone_verified: true });
});

const codeRows = (app: TestApp) =>
  app.app.deps.db
    .selectFrom('verification_codes')
    .select(['channel', 'target'])
    .orderBy('created_at')
    .execute();

t.test('verify-phone/send: 3 codes per hour per user, counted apart from the email channel', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'plim@example.com'); // the registration code is email send #1
  await lastCode(app.dataDir, 'plim@example.com');
  /** The same session from a new address each time, so the per-IP otp-send limiter stays out of it. */
  const fresh = () => {
    const x = new Client(app.base);
    for (const [k, v] of c.cookies) x.cookies.set(k, v);
    return x;
  };
  const phone = (n: number) => fresh().post('/auth/verify-phone/send', { phone: `+25571300000${String(n)}` });
  const email = () => fresh().post('/auth/verify-email/send');
  const tooMany = [429, { success: false, message: 'too many codes requested, try again later' }];

  t.equal((await phone(1)).status, 200, 'phone #1');
  t.equal((await phone(2)).status, 200, 'phone #2');
  t.equal((await email()).status, 200, 'email #2: two phone codes did not count against email');
  t.equal((await email()).status, 200, 'email #3');
  const fourthEmail = await email();
  t.same([fourthEmail.status, fourthEmail.body], tooMany, 'email spent');
  t.equal((await phone(3)).status, 200, 'phone #3: three email codes did not count against the phone');

  const before = { me: await me(c), codes: await codeRows(app) };
  const fourth = await phone(4);
  t.same([fourth.status, fourth.body], tooMany);
  t.same(
    { me: await me(c), codes: await codeRows(app) },
    before,
    'the 429 attached nothing and stored no code',
  );
  t.equal(before.me.phone, '+255713000003');
  t.same(await outboxFor(app.dataDir, '+255713000004'), [], 'no SMS');

  app.clock.advance('61m');
  t.equal((await phone(4)).status, 200, 'the hour has passed');
  t.match(await me(c), { phone: '+255713000004', phone_verified: false });
});

t.test('verify-phone/send counts against the otp-send limiter: 3 per hour per IP', async (t) => {
  const app = await startTestApp(t);
  const shared = '198.51.100.88';
  const clients: Client[] = [];
  for (let i = 0; i < 4; i++) {
    const u = await registered(app, `pip${String(i)}@example.com`);
    const same = new Client(app.base, { ip: shared });
    for (const [k, v] of u.cookies) same.cookies.set(k, v);
    clients.push(same);
  }
  for (const [i, client] of clients.slice(0, 3).entries())
    t.equal(
      (await client.post('/auth/verify-phone/send', { phone: `+25571400000${String(i)}` })).status,
      200,
    );
  const limited = await clients[3]!.post('/auth/verify-phone/send', { phone: '+255714000003' });
  t.same(
    [limited.status, limited.body],
    [429, { success: false, message: 'too many requests, try again later' }],
  );
  t.equal((await me(clients[3]!)).phone, null, 'nothing attached');
  t.same(await outboxFor(app.dataDir, '+255714000003'), [], 'no SMS');
  app.clock.advance('1h');
  t.equal(
    (await clients[3]!.post('/auth/verify-phone/send', { phone: '+255714000003' })).status,
    200,
    'a new window',
  );
});

t.test('verify-phone/check: a code expires after 5 minutes and dies after 5 wrong tries', async (t) => {
  const app = await startTestApp(t);
  const { c } = await phoneFlow(app);
  const expired = { success: false, message: 'code expired, request a new one' };
  const first = await lastCode(app.dataDir, '+255712345678');
  app.clock.advance(299_000);
  t.equal(
    (await c.post('/auth/verify-phone/check', { code: wrong(first) })).body.message,
    'incorrect code',
    'still alive at 4:59',
  );
  app.clock.advance(1_000);
  const late = await c.post('/auth/verify-phone/check', { code: first });
  t.same([late.status, late.body], [400, expired], 'at 5 minutes');
  t.match(await me(c), { phone: '+255712345678', phone_verified: false });

  app.clock.advance('1m');
  t.equal((await c.post('/auth/verify-phone/send', { phone: '+255712345678' })).status, 200);
  const second = await lastCode(app.dataDir, '+255712345678');
  for (let i = 0; i < 5; i++)
    t.equal(
      (await c.post('/auth/verify-phone/check', { code: wrong(second) })).body.message,
      'incorrect code',
    );
  const dead = await c.post('/auth/verify-phone/check', { code: second });
  t.same([dead.status, dead.body], [400, expired], 'the right code after 5 misses');
  t.equal((await me(c)).phone_verified, false);
});
