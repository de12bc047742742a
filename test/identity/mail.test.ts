import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { PASSWORD } from '../helpers/identity.js';
import { startSmtpSink } from '../helpers/smtp.js';

async function until(ready: () => boolean): Promise<void> {
  const started = Date.now();
  while (!ready()) {
    if (Date.now() - started > 5000) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

t.test('registration codes and alerts go through a real SMTP server when SMTP_URL is set', async (t) => {
  const sink = await startSmtpSink();
  t.teardown(sink.close);
  const app = await startTestApp(t, {
    env: { SMTP_URL: sink.url, MAIL_FROM: 'wifi@venue.test', SERVICE_NAME: 'Venue' },
  });
  const c = new Client(app.base);
  await c.post('/auth/register', { email: 'smtp@example.com', password: PASSWORD });
  await until(() => sink.received.length === 1); // the registration code goes out in the background
  t.equal(sink.received.length, 1);
  t.same(sink.received[0]?.to, ['smtp@example.com']);
  t.match(sink.received[0]?.raw, /Subject: Venue verification code/);
  const code = /verification code is (\d{6})/.exec(sink.received[0]?.raw ?? '')?.[1];
  t.match(code, /^\d{6}$/);
  t.same((await c.post('/auth/verify-email/check', { code })).body, {
    success: true,
    message: 'email verified',
  });

  await new Client(app.base).post('/auth/forgot-password', { identifier: 'smtp@example.com' });
  const started = Date.now();
  while (sink.received.length < 2 && Date.now() - started < 5000) await new Promise((r) => setImmediate(r));
  // The body is quoted-printable: undo soft line breaks and the escaped "=".
  const body = (sink.received[1]?.raw ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  t.match(body, /reset-password\?token=[0-9a-f]{64}\b/);
});

t.test('a dead SMTP server makes verify-email/send a 502 that does not use up the budget', async (t) => {
  const sink = await startSmtpSink();
  const app = await startTestApp(t, { env: { SMTP_URL: sink.url } });
  const c = new Client(app.base);
  await c.post('/auth/register', { email: 'dead@example.com', password: PASSWORD });
  await sink.close();
  for (let i = 0; i < 3; i++) {
    const res = await c.post('/auth/verify-email/send');
    t.same(
      [res.status, res.body],
      [502, { success: false, message: 'could not send the code, try again later' }],
    );
  }
  app.clock.advance('1h'); // the otp-send limiter's window
  const again = await c.post('/auth/verify-email/send');
  t.equal(
    again.body.message,
    'could not send the code, try again later',
    'failed sends did not count as sent',
  );
});
