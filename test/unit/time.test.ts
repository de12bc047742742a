import t from 'tap';
import { startOfDay } from '../../src/lib/time.js';

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
