import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { lastCode, PASSWORD, registered, waitForOutbox } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';

t.test('verify-phone/send: a gateway failure changes nothing (phone and earlier code kept)', async (t) => {
  let up = true;
  const gateway = createServer((_req, res) => res.writeHead(up ? 200 : 503).end('{}'));
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => gateway.close());
  const url = `http://127.0.0.1:${String((gateway.address() as AddressInfo).port)}/send`;
  const app = await startTestApp(t, { env: { SMS_PROVIDER: 'http', SMS_HTTP_URL: url } });
  const c = await registered(app, 'p@example.com');
  t.equal((await c.post('/auth/verify-phone/send', { phone: '+255711000001' })).status, 200);
  up = false;
  const failed = await c.post('/auth/verify-phone/send', { phone: '+255711000002' });
  t.same(
    [failed.status, failed.body],
    [502, { success: false, message: 'could not send the code, try again later' }],
  );
  t.equal((await c.get('/auth/me')).body.data.phone, '+255711000001', 'the number did not change');
  const rows = await app.app.deps.db
    .selectFrom('verification_codes')
    .select(['target', 'consumed_at'])
    .where('channel', '=', 'phone')
    .execute();
  t.same(
    rows,
    [{ target: '+255711000001', consumed_at: null }],
    'the earlier code is still live; the failed one is gone',
  );
});

t.test('an identifier can belong to one account only, whichever column holds it', async (t) => {
  const app = await startTestApp(t);
  const emailLike = await new Client(app.base).post('/auth/register', {
    email: '+255712345678',
    password: PASSWORD,
  });
  t.equal(emailLike.status, 201);
  const phone = await new Client(app.base).post('/auth/register', {
    phone: '+255712345678',
    password: PASSWORD,
  });
  t.same([phone.status, phone.body.message], [409, 'an account with that email or phone already exists']);
  const other = await registered(app, 'other@example.com');
  const attach = await other.post('/auth/verify-phone/send', { phone: '+255712345678' });
  t.same([attach.status, attach.body.message], [400, 'an account with that email or phone already exists']);
});

t.test('an account takes at most 10 wrong MFA codes in 15 minutes, across challenges', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'mfa@example.com');
  const { secret } = (await c.post('/auth/mfa/setup')).body.data as { secret: string };
  await c.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
  app.clock.advance('1m');
  const challenge = async () =>
    (await new Client(app.base).post('/auth/login', { identifier: 'mfa@example.com', password: PASSWORD }))
      .body.data.mfa_token as string;
  for (let round = 0; round < 2; round++) {
    const token = await challenge();
    for (let i = 0; i < 5; i++)
      await new Client(app.base).post('/auth/mfa/verify', { mfa_token: token, code: 'wrong1' });
  }
  const right = totpForSecret(secret, app.clock.now());
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await challenge(), code: right }))
      .status,
    401,
    'budget spent',
  );
  app.clock.advance('15m');
  const later = totpForSecret(secret, app.clock.now());
  t.equal(
    (await new Client(app.base).post('/auth/mfa/verify', { mfa_token: await challenge(), code: later }))
      .status,
    200,
    'a new window',
  );
});

t.test('6-digit codes are stored as keyed digests, not plain hashes', async (t) => {
  const app = await startTestApp(t);
  await registered(app, 'codes@example.com');
  const code = await lastCode(app.dataDir, 'codes@example.com');
  const rows = await app.app.deps.db.selectFrom('verification_codes').select('code_hash').execute();
  const plain = [code, `x:${code}`].map((v) => createHash('sha256').update(v).digest('hex'));
  for (const row of rows) t.notOk(plain.includes(row.code_hash));
  t.match(rows[0]?.code_hash, /^[0-9a-f]{64}$/);

  const c = new Client(app.base);
  await c.post('/auth/register', { phone: '+255722000000', password: PASSWORD });
  await c.post('/auth/verify-phone/send', { phone: '+255722000000' });
  await c.post('/auth/verify-phone/check', { code: await lastCode(app.dataDir, '+255722000000') });
  await new Client(app.base).post('/auth/forgot-password', { identifier: '+255722000000' });
  await waitForOutbox(app, '+255722000000', 2);
  const sms = await lastCode(app.dataDir, '+255722000000');
  const reset = await app.app.deps.db
    .selectFrom('password_resets')
    .select('token_hash')
    .where('kind', '=', 'sms')
    .executeTakeFirstOrThrow();
  t.not(reset.token_hash, createHash('sha256').update(sms).digest('hex'));
  t.equal(
    (await new Client(app.base).post('/auth/reset-password', { token: sms, new_password: 'a new password!' }))
      .status,
    200,
  );
});
