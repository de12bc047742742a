import path from 'node:path';
import t from 'tap';
import { ConfigError } from '../../src/config/index.js';
import { PRUNE_BATCH, pruneSmsLog } from '../../src/wifi/index.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { staffClient } from '../helpers/staff.js';

/**
 * SMS log retention (docs/decisions/0041-sms-retention.md): SMS_LOG_RETENTION (365d by default,
 * 0/off keeps everything), and the daily `sms.prune` job that deletes the rows created before
 * it, in bounded batches. Rows are made by sending SMS through the daemon's notifier (each is
 * one row, as a guest's credentials SMS) with the injected clock and read through the admin SMS
 * list; the job's function runs by hand after the clock moves.
 */

const DAY = 86_400_000;

/** Sends one SMS now as the guests' credentials SMS go (one row of the SMS log), saying `text`. */
async function sendAt(app: TestApp, text: string): Promise<void> {
  const sent = await app.app.deps.notifier.sendSms({
    to: '+255712345678',
    message: text,
    log: { kind: 'credentials', text },
  });
  if (!sent.ok) throw new Error(`send: ${sent.error}`);
}

/** The SMS log's texts as the admin SMS page lists them now, oldest first (signed in afresh: the clock moves by days). */
async function logged(app: TestApp): Promise<string[]> {
  const admin = await staffClient(app, 'admin');
  const res = await admin.get('/api/v1/admin/sms?per_page=200');
  return (res.body.data as { message: string }[]).map((m) => m.message).reverse();
}

t.test(
  'rows created before now − SMS_LOG_RETENTION go, in batches; a row exactly at the limit stays',
  async (t) => {
    const app = await startTestApp(t, { env: { SMS_LOG_RETENTION: '30d' } });
    await app.app.scheduler.stop();
    for (let i = 1; i <= 5; i++) {
      await sendAt(app, `old ${String(i)}`);
      app.clock.advance(1);
    }
    await sendAt(app, 'edge');
    app.clock.advance(5 * DAY);
    await sendAt(app, 'recent');
    t.same(await logged(app), ['old 1', 'old 2', 'old 3', 'old 4', 'old 5', 'edge', 'recent']);

    // Now = edge + 30 days: the limit is edge's own time (kept); old 5 is 1 ms before it.
    app.clock.advance(25 * DAY);
    t.same(await pruneSmsLog(app.app.deps, 2), { deleted: 5, batches: 3 }, '2 + 2 + 1 rows');
    t.same(await logged(app), ['edge', 'recent'], 'just inside stays, just outside went');
    t.match(app.logs.events('sms_log.pruned'), [{ deleted: 5, level: 30 }]);
    t.same(await pruneSmsLog(app.app.deps), { deleted: 0, batches: 1 }, 'again: nothing to delete');

    app.clock.advance(1);
    t.same(await pruneSmsLog(app.app.deps), { deleted: 1, batches: 1 }, '1 ms later the edge row goes');
    t.same(await logged(app), ['recent']);
  },
);

t.test('the daemon schedules sms.prune once a day at 03:41:35, and its run prunes the log', async (t) => {
  const app = await startTestApp(t, { env: { SMS_LOG_RETENTION: '1d' }, timeJobs: true });
  const { scheduler } = app.app;
  t.ok(scheduler.names.includes('sms.prune'), 'registered when the daemon starts');
  const next = scheduler.nextRun('sms.prune');
  t.same(
    [next?.getHours(), next?.getMinutes(), next?.getSeconds()],
    [3, 41, 35],
    'at a quiet hour (local time)',
  );
  t.ok(next && next.getTime() - Date.now() <= DAY, 'within a day');
  await sendAt(app, 'old');
  app.clock.advance(DAY + 1);
  await sendAt(app, 'today');
  // The registered job itself, as its schedule runs it (with the daemon's dependencies).
  await scheduler.trigger('sms.prune');
  t.same(await logged(app), ['today'], 'the run deleted the row older than the retention');
  t.match(app.logs.events('sms_log.pruned'), [{ deleted: 1 }]);
  t.same(scheduler.failures.get('sms.prune'), undefined, 'and did not fail');
});

t.test('a prune of more rows than one batch deletes them all, one bounded statement each', async (t) => {
  const app = await startTestApp(t, { env: { SMS_LOG_RETENTION: '1d' } });
  await app.app.scheduler.stop();
  const n = PRUNE_BATCH + 3;
  for (let i = 0; i < n; i++) await sendAt(app, `m${String(i)}`);
  app.clock.advance(DAY + 1);
  await sendAt(app, 'today');
  t.same(await pruneSmsLog(app.app.deps), { deleted: n, batches: 2 });
  t.same(await logged(app), ['today']);
});

t.test('SMS_LOG_RETENTION=off (or 0) keeps the log forever', async (t) => {
  for (const off of ['off', '0']) {
    const app = await startTestApp(t, { env: { SMS_LOG_RETENTION: off } });
    await app.app.scheduler.stop();
    await sendAt(app, 'kept');
    app.clock.advance(3650 * DAY);
    t.same(await pruneSmsLog(app.app.deps), { deleted: 0, batches: 0 }, off);
    t.same(await logged(app), ['kept'], off);
  }
});

t.test('SMS_LOG_RETENTION: 365d by default; at least a day, or 0/off', async (t) => {
  const dir = t.testdir();
  t.equal(testConfig(dir).smsLogRetention, 365 * 86_400);
  t.equal(testConfig(dir, { SMS_LOG_RETENTION: '90d' }).smsLogRetention, 90 * 86_400);
  t.equal(testConfig(dir, { SMS_LOG_RETENTION: '24h' }).smsLogRetention, 86_400);
  t.equal(testConfig(dir, { SMS_LOG_RETENTION: 'OFF' }).smsLogRetention, 0);
  t.equal(testConfig(dir, { SMS_LOG_RETENTION: '0' }).smsLogRetention, 0);
  const tooShort = (v: string) =>
    `SMS_LOG_RETENTION: must be at least 1d (like 90d, 365d), or 0/off to keep it forever (got "${v}")`;
  for (const [value, problem] of [
    ['365', tooShort('365')],
    ['23h', tooShort('23h')],
    ['forever', 'SMS_LOG_RETENTION: must be a duration: seconds, or like 15m, 1h, 1d (got "forever")'],
    ['-1d', 'SMS_LOG_RETENTION: must be a duration: seconds, or like 15m, 1h, 1d (got "-1d")'],
  ] as const)
    t.throws(() => testConfig(dir, { SMS_LOG_RETENTION: value }), new ConfigError([problem]), value);
});

t.test('serve and setup refuse a bad SMS_LOG_RETENTION, naming it', async (t) => {
  const dir = t.testdir();
  const line =
    'error: SMS_LOG_RETENTION: must be at least 1d (like 90d, 365d), or 0/off to keep it forever (got "30")\n';
  const serve = await runCli(['serve'], cliEnv(path.join(dir, 'a'), { SMS_LOG_RETENTION: '30' }));
  t.same([serve.code, serve.stdout, serve.stderr], [1, '', line]);
  const file = path.join(dir, 'hotspot.env');
  const setup = await runCli(
    ['--config', file, 'setup', '--non-interactive', '--set', 'SMS_LOG_RETENTION=30'],
    cliEnv(path.join(dir, 'b')),
  );
  t.same([setup.code, setup.stderr], [1, line]);
});
