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

/** Midnight of `at`'s day in `timeZone` (an IANA name such as Africa/Dar_es_Salaam), as an instant. */
export function startOfDay(at: Date, timeZone: string): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  const wallClockAsUtc = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  const offsetMs = wallClockAsUtc - Math.floor(at.getTime() / 1000) * 1000;
  return new Date(Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1) - offsetMs);
}
