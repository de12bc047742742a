import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createNotifier, readOutbox } from '../../src/notify/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/log.js';
import { LogSink, testConfig } from '../helpers/app.js';
import { startSmtpSink } from '../helpers/smtp.js';

function notifierFor(t: Test, env: Record<string, string>) {
  const dataDir = t.testdir();
  const config = testConfig(dataDir, env);
  const logs = new LogSink();
  const clock = new ManualClock('2026-03-01T08:00:00Z');
  const notifier = createNotifier({ config, clock, log: createLogger('info', logs) });
  t.teardown(() => notifier.close());
  return { notifier, dataDir, logs, clock };
}

t.test('mail goes through a real SMTP server when SMTP_URL is set', async (t) => {
  const sink = await startSmtpSink();
  t.teardown(sink.close);
  const { notifier, dataDir } = notifierFor(t, {
    SMTP_URL: sink.url,
    MAIL_FROM: 'wifi@venue.test',
    SERVICE_NAME: 'Cafe Wi-Fi',
  });
  const result = await notifier.sendMail({
    to: 'guest@example.com',
    subject: 'Your code',
    text: 'Code: 123456',
  });
  t.match(result, { ok: true, transport: 'smtp' });
  t.equal(sink.received.length, 1);
  t.same(sink.received[0]?.to, ['guest@example.com']);
  t.equal(sink.received[0]?.from, 'wifi@venue.test');
  t.match(sink.received[0]?.raw, /Subject: Your code/);
  t.match(sink.received[0]?.raw, /From: "Cafe Wi-Fi" <wifi@venue.test>/);
  t.match(sink.received[0]?.raw, /Code: 123456/);
  t.same(await readOutbox(dataDir), [], 'nothing spooled');
});

t.test('an unreachable SMTP server is a reported failure, not a crash', async (t) => {
  const sink = await startSmtpSink();
  const url = sink.url;
  await sink.close();
  const { notifier, logs } = notifierFor(t, { SMTP_URL: url });
  const result = await notifier.sendMail({ to: 'guest@example.com', subject: 's', text: 'secret-code-777' });
  t.match(result, { ok: false, transport: 'smtp' });
  t.equal(logs.events('notify.failed').length, 1);
  t.notMatch(logs.raw.join('\n'), 'secret-code-777', 'message text is not logged');
});

t.test('without SMTP_URL mail and SMS go to the outbox as JSON lines', async (t) => {
  const { notifier, dataDir, logs } = notifierFor(t, { SMS_SENDER_ID: 'CAFE' });
  t.match(await notifier.sendMail({ to: 'a@example.com', subject: 'Hello', text: 'Code: 111111' }), {
    ok: true,
    transport: 'outbox',
  });
  t.match(await notifier.sendSms({ to: '+255712345678', message: 'Code: 222222' }), {
    ok: true,
    transport: 'outbox',
  });
  const file = path.join(dataDir, 'outbox.jsonl');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const lines = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  t.same(lines, [
    {
      channel: 'email',
      to: 'a@example.com',
      subject: 'Hello',
      text: 'Code: 111111',
      created_at: '2026-03-01T08:00:00.000Z',
    },
    {
      channel: 'sms',
      to: '+255712345678',
      text: 'Code: 222222',
      sender_id: 'CAFE',
      created_at: '2026-03-01T08:00:00.000Z',
    },
  ]);
  t.same(await readOutbox(dataDir), lines);
  t.equal(logs.events('notify.sent').length, 2, 'each send is logged');
  t.notMatch(logs.raw.join('\n'), /111111|222222/, 'codes are not logged');
});

t.test('the http SMS gateway gets JSON with a bearer token; failures are reported', async (t) => {
  const seen: { auth: string | undefined; type: string | undefined; body: unknown }[] = [];
  let answer = 200;
  const gateway = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seen.push({
        auth: req.headers.authorization,
        type: req.headers['content-type'],
        body: JSON.parse(raw),
      });
      res.writeHead(answer, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: 'msg-42' }));
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => gateway.close());
  const url = `http://127.0.0.1:${String((gateway.address() as AddressInfo).port)}/send`;
  const { notifier, dataDir } = notifierFor(t, {
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: url,
    SMS_HTTP_TOKEN: 'tok-1',
  });

  t.same(await notifier.sendSms({ to: '+255712345678', message: 'hello', senderId: 'VENUE' }), {
    ok: true,
    transport: 'http',
    status: 'accepted',
    providerId: 'msg-42',
  });
  t.same(seen, [
    {
      auth: 'Bearer tok-1',
      type: 'application/json',
      body: { to: '+255712345678', message: 'hello', sender_id: 'VENUE' },
    },
  ]);
  answer = 503;
  t.same(await notifier.sendSms({ to: '+255712345678', message: 'again' }), {
    ok: false,
    transport: 'http',
    error: 'gateway answered 503',
  });
  t.same(await readOutbox(dataDir), [], 'the http provider does not spool');
});
