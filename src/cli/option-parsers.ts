import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../lib/duration.js';

/** Option parsers: a malformed value is a usage error (exit 2); a value out of range is the domain's call. */

export function parseWholeNumber(value: string): number {
  if (!/^-?\d{1,15}$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

export function parseDurationOption(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError('must be seconds or a duration like 30m, 1h, 1d, 7d');
  }
}

const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/**
 * Bytes as a number or with a decimal unit (500MB, 2GB), or `none` for no limit (kept as the word:
 * commander turns a parser's null into an empty string).
 */
export function parseBytes(value: string): number | 'none' {
  if (value.trim().toLowerCase() === 'none') return 'none';
  const match = /^(\d{1,15})\s*([KMGT]B)?$/i.exec(value.trim());
  if (!match) throw new InvalidArgumentError('must be bytes, or a number with KB, MB, GB or TB, or none');
  return Number(match[1]) * (BYTE_UNITS[(match[2] ?? '').toUpperCase()] ?? 1);
}

const SPEED_UNITS: Readonly<Record<string, number>> = { '': 1, K: 1, M: 1000, G: 1_000_000 };

/**
 * A speed in kbit/s: a number of kbit/s, or with k, M or G (decimal: 1M = 1000k; `1.5M` is 1500k),
 * or `none` for no limit. The range (64 kbit/s at least) is the domain's to check.
 */
export function parseSpeed(value: string): number | 'none' {
  const text = value.trim();
  if (text.toLowerCase() === 'none') return 'none';
  const match = /^(\d{1,9})(?:\.(\d{1,6}))?\s*([kmg])?$/i.exec(text);
  const unit = SPEED_UNITS[(match?.[3] ?? '').toUpperCase()] ?? 1;
  const fraction = match?.[2] ?? '';
  // Exact decimal arithmetic: the fraction must come to whole kbit/s in this unit.
  const scaled = Number(fraction.padEnd(6, '0')) * unit;
  if (!match || scaled % 1_000_000 !== 0)
    throw new InvalidArgumentError('must be kbit/s (512, 512k) or with M or G (4M, 1.5M, 1G), or none');
  return Number(match[1]) * unit + scaled / 1_000_000;
}

/**
 * `--from`/`--to` of the reports: the form YYYY-MM-DD (else a usage error); whether that day
 * exists (2026-02-31) is the report's to say, as on the API.
 */
export function parseDateOption(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('must be a date, YYYY-MM-DD');
  return value;
}

/**
 * `--from`/`--to` of the lists and the audit trail: a date or a date-time by its form (else a
 * usage error); whether it exists is the list's to say, as on the API.
 */
export function parseInstantOption(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}.*)?$/.test(value))
    throw new InvalidArgumentError(
      'must be an ISO-8601 date or date-time (2026-11-29, 2026-11-29T08:00:00Z)',
    );
  return value;
}
