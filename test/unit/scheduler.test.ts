import t from 'tap';
import { Scheduler } from '../../src/scheduler.js';
import { createLogger } from '../../src/lib/log.js';
import { LogSink } from '../helpers/app.js';

t.test('a failing job is logged and does not stop the scheduler; overlapping runs are skipped', async (t) => {
  const logs = new LogSink();
  const scheduler = new Scheduler(createLogger('info', logs));
  t.teardown(() => scheduler.stop());
  await scheduler.runNow({ name: 'boom', cron: '* * * * *', run: () => Promise.reject(new Error('kaput')) });
  t.match(logs.events('job.failed'), [{ job: 'boom' }]);

  let release: () => void = () => undefined;
  let runs = 0;
  const slow = {
    name: 'slow',
    cron: '* * * * *',
    run: () =>
      new Promise<void>((resolve) => {
        runs++;
        release = resolve;
      }),
  };
  const first = scheduler.runNow(slow);
  await scheduler.runNow(slow);
  t.equal(runs, 1, 'the second run did not start');
  t.match(logs.events('job.skipped'), [{ job: 'slow' }]);
  release();
  await first;
  const third = scheduler.runNow(slow);
  release();
  await third;
  t.equal(runs, 2, 'runs again once the first finished');
});

t.test('jobs are registered by name and all cancelled by stop()', async (t) => {
  const scheduler = new Scheduler(createLogger('silent'));
  scheduler.add({ name: 'a', cron: '0 3 * * *', run: () => undefined });
  scheduler.add({ name: 'b', cron: '*/5 * * * *', run: () => undefined });
  t.same(scheduler.names, ['a', 'b']);
  t.throws(() => scheduler.add({ name: 'a', cron: '* * * * *', run: () => undefined }), /already scheduled/);
  await scheduler.stop();
  t.same(scheduler.names, []);
});

t.test('stop() waits for a run in progress', async (t) => {
  const scheduler = new Scheduler(createLogger('silent'));
  let release = (): void => undefined;
  const job = { name: 'slow', cron: '0 3 * * *', run: () => new Promise<void>((r) => (release = r)) };
  scheduler.add(job);
  const running = scheduler.runNow(job);
  let stopped = false;
  const stopping = scheduler.stop().then(() => (stopped = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(stopped, 'still waiting for the job');
  release();
  await stopping;
  await running;
  t.ok(stopped);
});

t.test('trigger runs a scheduled job by name, as its schedule would; nextRun says when', async (t) => {
  const logs = new LogSink();
  const scheduler = new Scheduler(createLogger('info', logs));
  t.teardown(() => scheduler.stop());
  let runs = 0;
  scheduler.add({
    name: 'count',
    cron: '0 3 * * *',
    run: () => {
      runs++;
    },
  });
  scheduler.add({ name: 'boom', cron: '0 3 * * *', run: () => Promise.reject(new Error('kaput')) });
  await scheduler.trigger('count');
  t.equal(runs, 1);
  await scheduler.trigger('boom');
  t.match(logs.events('job.failed'), [{ job: 'boom' }], 'failures handled as on schedule');
  await t.rejects(scheduler.trigger('nope'), /no job named nope/);
  t.equal(scheduler.nextRun('count'), null, 'not timed before start()');
  await scheduler.start();
  const next = scheduler.nextRun('count');
  t.ok(next instanceof Date);
  t.same([next?.getHours(), next?.getMinutes()], [3, 0], 'the cron is in local time');
  t.equal(scheduler.nextRun('nope'), null);
  await scheduler.stop();
  t.equal(scheduler.nextRun('count'), null, 'nothing after stop()');
});

t.test('a job added after start() is timed at once', async (t) => {
  const scheduler = new Scheduler(createLogger('silent'));
  t.teardown(() => scheduler.stop());
  await scheduler.start();
  scheduler.add({ name: 'late', cron: '30 4 * * *', run: () => undefined });
  t.same([scheduler.nextRun('late')?.getHours(), scheduler.nextRun('late')?.getMinutes()], [4, 30]);
});

t.test('runs and failures are counted per job where the job ran (GET /metrics)', async (t) => {
  // A shared job's turn: taken here (true), by another daemon (false), or the lock itself fails.
  const turns: (boolean | Error)[] = [true, false, new Error('database gone')];
  const scheduler = new Scheduler(createLogger('silent'), async (_name, work) => {
    const turn = turns.shift();
    if (turn instanceof Error) throw turn;
    if (turn === true) await work();
    return turn ?? false;
  });
  t.teardown(() => scheduler.stop());
  scheduler.add({
    name: 'local',
    cron: '0 3 * * *',
    local: true,
    run: () => Promise.reject(new Error('kaput')),
  });
  scheduler.add({ name: 'shared', cron: '0 3 * * *', run: () => undefined });
  await scheduler.trigger('local');
  await scheduler.trigger('local');
  for (let i = 0; i < 3; i++) await scheduler.trigger('shared');
  t.same(
    Object.fromEntries(scheduler.runs),
    { local: 2, shared: 2 },
    "another daemon's turn is not a run here",
  );
  t.same(Object.fromEntries(scheduler.failures), { local: 2, shared: 1 }, 'never more failures than runs');
});
