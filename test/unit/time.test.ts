import t from 'tap';
import { isoAt, startOfDay } from '../../src/lib/time.js';

/** The start of `iso`'s day in `timeZone`, as an ISO instant. */
const dayStart = (iso: string, timeZone: string): string => startOfDay(new Date(iso), timeZone).toISOString();

t.test('startOfDay is local midnight, with the offset in force at midnight', async (t) => {
  t.equal(dayStart('2026-07-01T12:00:00Z', 'Africa/Dar_es_Salaam'), '2026-06-30T21:00:00.000Z', '+03:00');
  t.equal(dayStart('2026-07-01T12:00:00Z', 'Asia/Kathmandu'), '2026-06-30T18:15:00.000Z', '+05:45');
  t.equal(
    dayStart('2026-06-30T20:59:59Z', 'Africa/Dar_es_Salaam'),
    '2026-06-29T21:00:00.000Z',
    'the last second of a day',
  );
  t.equal(
    dayStart('2026-06-30T21:00:00Z', 'Africa/Dar_es_Salaam'),
    '2026-06-30T21:00:00.000Z',
    'midnight itself',
  );
});

t.test('startOfDay on the days a clock changes', async (t) => {
  // London springs forward at 01:00 GMT: midnight was still GMT although noon is BST.
  t.equal(dayStart('2026-03-29T12:00:00Z', 'Europe/London'), '2026-03-29T00:00:00.000Z', 'spring forward');
  t.equal(dayStart('2026-03-29T00:30:00Z', 'Europe/London'), '2026-03-29T00:00:00.000Z', 'before the change');
  // London falls back at 01:00 BST: midnight was BST although noon is GMT.
  t.equal(dayStart('2026-10-25T12:00:00Z', 'Europe/London'), '2026-10-24T23:00:00.000Z', 'fall back');
  t.equal(
    dayStart('2026-03-08T18:00:00Z', 'America/New_York'),
    '2026-03-08T05:00:00.000Z',
    'New York, spring',
  );
  // Santiago moves at midnight: on 6 September 2026 the clock goes from 23:59:59 to 01:00.
  t.equal(
    dayStart('2026-09-06T15:00:00Z', 'America/Santiago'),
    '2026-09-06T04:00:00.000Z',
    'midnight skipped',
  );
  // On 5 April 2026 midnight (-03) goes back to 23:00 (-04): the day starts at the one midnight.
  t.equal(
    dayStart('2026-04-05T15:00:00Z', 'America/Santiago'),
    '2026-04-05T04:00:00.000Z',
    'back over midnight',
  );
});

t.test('isoAt is Date’s toISOString, from a cache of each second’s text', async (t) => {
  const same = (ms: number, what: string) => t.equal(isoAt(ms), new Date(ms).toISOString(), what);
  same(Date.UTC(2026, 10, 28, 2, 50, 27, 0), 'a whole second');
  same(Date.UTC(2026, 10, 28, 2, 50, 27, 7), 'one digit of milliseconds');
  same(Date.UTC(2026, 10, 28, 2, 50, 27, 42), 'two');
  same(Date.UTC(2026, 10, 28, 2, 50, 27, 999), 'the last millisecond of a second');
  same(Date.UTC(2026, 11, 31, 23, 59, 59, 999) + 1, 'into a new year');
  same(0, 'the epoch');
  same(-1, 'just before it');
  same(-86_400_000 * 365 * 100 - 123, 'a century before it');
  same(Date.UTC(10_000, 0, 1, 0, 0, 0, 5), 'a year of six digits');
  same(1_700_000_000_123.9, 'a fraction of a millisecond is dropped, as Date drops it');
  same(-1_234.5, 'before the epoch too');
  // Many instants, in an order that makes the cache fill, clear and refill.
  let seed = 20261128;
  for (let i = 0; i < 20_000; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const ms = 1_790_000_000_000 + (seed % 2_000_000) * (i % 3 === 0 ? 997 : 1);
    if (isoAt(ms) !== new Date(ms).toISOString()) {
      t.fail(`isoAt(${String(ms)}) is ${isoAt(ms)}, not ${new Date(ms).toISOString()}`);
      return;
    }
  }
  t.pass('20,000 instants as Date has them');
  t.throws(() => isoAt(Number.NaN), RangeError, 'an invalid time throws, as toISOString does');
});
