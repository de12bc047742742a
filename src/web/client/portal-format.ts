/** How the portal words plans and numbers; every word comes from the language's table. */

export type Strings = Readonly<Record<string, string>>;

const fill = (template: string | undefined, n: number | string): string =>
  (template ?? '').replace('{n}', String(n)).replace('{size}', String(n));

const UNITS = [
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
] as const;

/** 5400 → "1 hour 30 minutes" / "saa 1 na dakika 30" (at most two units, rounded down). */
export function durationWords(seconds: number, s: Strings): string {
  const parts: string[] = [];
  let left = Math.max(60, seconds);
  for (const [unit, size] of UNITS) {
    const n = Math.floor(left / size);
    if (n === 0) continue;
    parts.push(fill(s[`dur.${unit}.${n === 1 ? 'one' : 'other'}`], n));
    left -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(s['dur.join'] ?? ' ');
}

const grouped = new Intl.NumberFormat('en-US');

export const amount = (tzs: number): string => grouped.format(tzs);

/** Decimal units, as the CLI reads them (`--data-limit 2GB`). */
export function bytesWords(bytes: number): string {
  for (const [unit, size] of [
    ['TB', 1e12],
    ['GB', 1e9],
    ['MB', 1e6],
    ['KB', 1e3],
  ] as const) {
    if (bytes >= size) return `${String(Math.round((bytes / size) * 10) / 10)} ${unit}`;
  }
  return `${String(bytes)} B`;
}

/**
 * A speed in kbit/s in the unit people know: 4000 → "4 Mbit/s", 1500 → "1.5 Mbit/s", 512 →
 * "512 kbit/s"; the number and its unit never part at a line break.
 */
export const speedWords = (kbps: number): string =>
  kbps >= 1000 ? `${String(Math.round(kbps / 100) / 10)}\u00a0Mbit/s` : `${String(kbps)}\u00a0kbit/s`;

/**
 * A Tanzanian mobile number the way guests type it (`0712 345 678`, `255712345678`,
 * `+255 712 345 678`, `712345678`) as E.164, or another country's number written with `+`.
 * The server normalises again and has the last word (422).
 */
export function normalisePhone(input: string): string | null {
  const compact = input.trim().replace(/[\s\-.()]/g, '');
  const tz = /^(?:\+255|00255|255|0)?([67]\d{8})$/.exec(compact);
  if (tz) return `+255${tz[1] ?? ''}`;
  if (/^\+(?!255)[1-9]\d{7,14}$/.test(compact)) return compact;
  return null;
}

/** +255712345678 → "+255 712 345 678". */
export const displayPhone = (e164: string): string =>
  e164.startsWith('+255') && e164.length === 13
    ? `+255 ${e164.slice(4, 7)} ${e164.slice(7, 10)} ${e164.slice(10)}`
    : e164;
