import t from 'tap';
import { mapConcurrent } from '../../src/lib/concurrent.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

t.test('mapConcurrent keeps at most `limit` calls under way and the results in order', async (t) => {
  let running = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const run = mapConcurrent([1, 2, 3, 4, 5], 2, async (n) => {
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return n * 10;
  });
  // Let the calls end one at a time, oldest first; the pool refills as each ends.
  for (let released = 0; released < 5; released++) {
    while (gates.length === 0) await turn();
    await turn(); // a call that could start now has started
    gates.shift()?.();
  }
  t.same(await run, [10, 20, 30, 40, 50]);
  t.equal(most, 2);
});

t.test('mapConcurrent of nothing is nothing', async (t) => {
  t.same(await mapConcurrent([], 4, () => Promise.resolve(1)), []);
});

t.test('after a failure no new call starts; it rejects once the running ones have ended', async (t) => {
  const started: number[] = [];
  let finishSlow = (): void => undefined;
  let slowEnded = false;
  const run = mapConcurrent([1, 2, 3, 4], 2, async (n) => {
    started.push(n);
    if (n === 2) throw new Error('router 2');
    if (n === 1) {
      await new Promise<void>((resolve) => (finishSlow = resolve));
      slowEnded = true;
    }
    return n;
  });
  let settled = false;
  void run.catch(() => undefined).finally(() => (settled = true));
  for (let i = 0; i < 5; i++) await turn();
  t.same(started, [1, 2], 'items 3 and 4 never start');
  t.notOk(settled, 'still waiting for item 1');
  finishSlow();
  await t.rejects(run, { message: 'router 2' });
  t.ok(slowEnded, 'item 1 ended before the rejection');
});
