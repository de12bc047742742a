import type { Clock } from './clock.js';

/** ISO-8601 UTC timestamps: the one format stored and sent (they sort as text). */
export const isoNow = (clock: Clock): string => clock.now().toISOString();

export const isoIn = (clock: Clock, seconds: number): string =>
  new Date(clock.now().getTime() + seconds * 1000).toISOString();

export const isoAgo = (clock: Clock, seconds: number): string =>
  new Date(clock.now().getTime() - seconds * 1000).toISOString();

/** The ISO timestamp `seconds` after `iso` (before it when negative). */
export const isoPlus = (iso: string, seconds: number): string =>
  new Date(Date.parse(iso) + seconds * 1000).toISOString();

/** One formatter per zone: building one costs far more than using it (reports fold thousands of instants). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `at` in `timeZone` (an IANA name such as Africa/Dar_es_Salaam), field by field (strings, zero-padded). */
export function wallClock(
  at: Date,
  timeZone: string,
): { year: string; month: string; day: string; hour: string; minute: string; second: string } {
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  ) as Record<string, string | undefined>;
  return {
    year: parts.year ?? '0',
    month: parts.month ?? '01',
    day: parts.day ?? '01',
    hour: parts.hour ?? '00',
    minute: parts.minute ?? '00',
    second: parts.second ?? '00',
  };
}

/** Midnight of `at`'s day in `timeZone` (an IANA name such as Africa/Dar_es_Salaam), as an instant. */
export function startOfDay(at: Date, timeZone: string): Date {
  const w = wallClock(at, timeZone);
  const parts = {
    year: Number(w.year),
    month: Number(w.month),
    day: Number(w.day),
    hour: Number(w.hour),
    minute: Number(w.minute),
    second: Number(w.second),
  };
  const wallClockAsUtc = Date.UTC(
    parts.year,
    parts.month - 1,
    parts.day,
    parts.hour,
    parts.minute,
    parts.second,
  );
  const offsetMs = wallClockAsUtc - Math.floor(at.getTime() / 1000) * 1000;
  return new Date(Date.UTC(parts.year, parts.month - 1, parts.day) - offsetMs);
}
