import t from 'tap';
import { formatDuration, parseDuration } from '../../src/lib/duration.js';
import { ManualClock } from '../../src/lib/clock.js';
import { safeEqual, randomDigits, randomToken, randomString } from '../../src/lib/crypto.js';

t.test('parseDuration accepts seconds and 30m / 1h / 1d / 7d', async (t) => {
  t.equal(parseDuration('90'), 90);
  t.equal(parseDuration('30m'), 1800);
  t.equal(parseDuration('1h'), 3600);
  t.equal(parseDuration('1d'), 86_400);
  t.equal(parseDuration('7d'), 604_800);
  for (const bad of ['', '1w', '-5', '1.5h', 'h', '10 m'])
    t.throws(() => parseDuration(bad), RangeError, bad);
});

t.test('formatDuration renders the largest units first', async (t) => {
  t.equal(formatDuration(5400), '1h 30m');
  t.equal(formatDuration(86_400 + 61), '1d 1m 1s');
  t.equal(formatDuration(0), '0s');
});

t.test('ManualClock fires due timers in order while advancing and never on its own', async (t) => {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const fired: string[] = [];
  clock.setTimer(30_000, () => fired.push(`a@${clock.now().toISOString()}`));
  clock.setTimer(10_000, () => fired.push(`b@${clock.now().toISOString()}`));
  const cancelled = clock.setTimer(20_000, () => fired.push('c'));
  cancelled.cancel();
  clock.advance('15s');
  t.same(fired, ['b@2026-01-01T00:00:10.000Z']);
  clock.advance(20_000);
  t.same(fired, ['b@2026-01-01T00:00:10.000Z', 'a@2026-01-01T00:00:30.000Z']);
  t.equal(clock.now().toISOString(), '2026-01-01T00:00:35.000Z');
  t.equal(clock.pendingTimers, 0);
});

t.test('safeEqual compares by content, whatever the lengths', async (t) => {
  t.ok(safeEqual('abc', 'abc'));
  t.notOk(safeEqual('abc', 'abd'));
  t.notOk(safeEqual('abc', 'abcd'));
  t.notOk(safeEqual('', 'x'));
});

t.test('random helpers produce the promised shapes', async (t) => {
  t.match(randomDigits(6), /^\d{6}$/);
  t.match(randomToken(32), /^[A-Za-z0-9_-]{43}$/);
  t.match(randomString('AB', 50), /^[AB]{50}$/);
  t.not(randomToken(), randomToken());
});
