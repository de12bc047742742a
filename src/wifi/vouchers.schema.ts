import { wifiErrors } from './errors.js';
import { dayNumber } from './reports.js';
import { isWholeNumber } from './values.js';

/**
 * Voucher codes and the batch request (DESIGN.md §4.8). The alphabet leaves out what reads as
 * something else on paper or a phone: 0/O, 1/I/L.
 */
export const VOUCHER_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const DEFAULT_CODE_LENGTH = 10;
export const MIN_CODE_LENGTH = 8;
export const MAX_CODE_LENGTH = 20;
export const MAX_BATCH = 1000;
const MAX_PREFIX = 8;
const CODE_CHARS = new RegExp(`^[${VOUCHER_ALPHABET}]+$`);

/** A typed code as stored: upper case, without spaces and dashes; null when it cannot be a code. */
export function normaliseCode(typed: unknown): string | null {
  if (typeof typed !== 'string') return null;
  const code = typed.replace(/[\s\-\u2010-\u2015]/g, '').toUpperCase();
  return code.length >= MIN_CODE_LENGTH &&
    code.length <= MAX_CODE_LENGTH + MAX_PREFIX &&
    CODE_CHARS.test(code)
    ? code
    : null;
}

/** How a code is written on paper: the prefix, then groups of five (`BAR-K7QX4-M9TPE`). */
export function formatCode(code: string, prefixLength: number): string {
  const groups = [code.slice(0, prefixLength), ...(code.slice(prefixLength).match(/.{1,5}/g) ?? [])];
  return groups.filter((g) => g !== '').join('-');
}

export const BATCH_FIELDS = ['plan_id', 'count', 'prefix', 'length', 'valid_until'] as const;
export type BatchRequest = Partial<Record<(typeof BATCH_FIELDS)[number], unknown>>;

export interface BatchValues {
  planId: string;
  count: number;
  prefix: string;
  length: number;
  /** `YYYY-MM-DD` (the end of that day at the venue) or an ISO-8601 instant; null: no limit. */
  validUntil: string | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A day that exists, YYYY-MM-DD (as the reports and lists read one: 2026-02-31 is refused, where
 * Date.parse rolled it into 3 March), or an ISO-8601 instant on such a day.
 */
const isDayOrInstant = (value: string): boolean =>
  dayNumber(value.slice(0, 10)) !== undefined && (DATE.test(value) || !Number.isNaN(Date.parse(value)));

export function parseBatch(request: BatchRequest): BatchValues {
  // Null is "not given", as for valid_until.
  const { plan_id: planId, count, valid_until: validUntil = null } = request;
  const typed = request.prefix ?? '';
  const length = request.length ?? DEFAULT_CODE_LENGTH;
  if (typeof planId !== 'string' || planId === '') throw wifiErrors.voucherPlanInvalid();
  if (!isWholeNumber(count) || count < 1 || count > MAX_BATCH) throw wifiErrors.voucherCountInvalid();
  // Codes are read without regard to case, so the prefix is too (`bar` is printed `BAR`).
  const prefix = typeof typed === 'string' ? typed.toUpperCase() : null;
  if (prefix === null || prefix.length > MAX_PREFIX || (prefix !== '' && !CODE_CHARS.test(prefix)))
    throw wifiErrors.voucherPrefixInvalid();
  if (!isWholeNumber(length) || length < MIN_CODE_LENGTH || length > MAX_CODE_LENGTH)
    throw wifiErrors.voucherLengthInvalid();
  if (validUntil !== null && (typeof validUntil !== 'string' || !isDayOrInstant(validUntil)))
    throw wifiErrors.voucherValidUntilInvalid();
  return { planId: planId.toLowerCase(), count, prefix, length, validUntil };
}

export const PRINT_FORMATS = ['a4', 'thermal58'] as const;
export type PrintFormat = (typeof PRINT_FORMATS)[number];

export function parsePrintFormat(value: unknown): PrintFormat {
  const format = value ?? 'a4';
  if (!PRINT_FORMATS.includes(format as PrintFormat)) throw wifiErrors.voucherPrintFormatInvalid();
  return format as PrintFormat;
}

/** POST /api/v1/admin/vouchers/{id}/print: the paper and the codes to print (as handed out). */
export const PRINT_FIELDS = ['format', 'codes'] as const;
export type PrintRequest = Partial<Record<(typeof PRINT_FIELDS)[number], unknown>>;

/**
 * The codes of a print request: 1 to MAX_BATCH strings. Each is normalised later; one that cannot
 * be a code counts among the refused ones, so the answer says how many, not which rule it broke.
 */
export function parsePrintCodes(value: unknown): string[] {
  if (
    !Array.isArray(value) ||
    value.length < 1 ||
    value.length > MAX_BATCH ||
    !value.every((c) => typeof c === 'string')
  )
    throw wifiErrors.voucherPrintCodesInvalid();
  return value;
}

/**
 * Codes handed back as text: one a line, or the CSV `vouchers create --csv` and the admin UI
 * save (its first column; the header line and empty lines are skipped).
 */
export function codesFromText(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => (line.split(',')[0] ?? '').replace(/^"|"$/g, '').trim())
    .filter((code) => code !== '' && code.toLowerCase() !== 'code');
}
