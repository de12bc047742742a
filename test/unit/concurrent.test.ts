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

t.test('mapConcurrent of nothing is nothing; the first error rejects', async (t) => {
  t.same(await mapConcurrent([], 4, () => Promise.resolve(1)), []);
  await t.rejects(
    mapConcurrent([1, 2], 4, (n) => (n === 2 ? Promise.reject(new Error('router 2')) : Promise.resolve(n))),
    { message: 'router 2' },
  );
});
