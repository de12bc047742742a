/**
 * Phone numbers as E.164 (`+255712345678`). Guests type numbers the local way (`0712 345 678`),
 * with the country code (`255712345678`) or in full (`+255 712 345 678`); all of them are one
 * number, so purchases, SMS and provider prompts always see the normalised form.
 */

/** National significant numbers we know the shape of; others get the generic E.164 check. */
const NATIONAL: Readonly<Record<string, RegExp>> = {
  // Tanzania: mobile numbers (the only ones mobile money reaches) are 9 digits starting 6 or 7.
  '255': /^[67]\d{8}$/,
};

/** Separators people type inside numbers. */
const SEPARATORS = /[\s\-.()]/g;

/**
 * Returns the E.164 form of `input`, or null when it is not a usable phone number.
 * `defaultCountryCode` (digits, e.g. "255") applies to national numbers: those with a trunk
 * `0`, and, for countries whose numbering we know, bare national numbers.
 */
export function normalisePhone(input: string, defaultCountryCode: string): string | null {
  const compact = input.trim().replace(SEPARATORS, '');
  if (!/^\+?\d+$/.test(compact)) return null;
  const digits = internationalDigits(compact, defaultCountryCode);
  if (digits === null || !/^[1-9]\d{7,14}$/.test(digits)) return null;
  for (const [code, national] of Object.entries(NATIONAL)) {
    if (digits.startsWith(code) && !national.test(digits.slice(code.length))) return null;
  }
  return `+${digits}`;
}

/** The country code and national number as one digit string, or null when ambiguous. */
function internationalDigits(compact: string, cc: string): string | null {
  if (compact.startsWith('+')) return compact.slice(1);
  if (compact.startsWith('00')) return compact.slice(2);
  if (compact.startsWith('0')) return cc + compact.slice(1);
  const national = NATIONAL[cc];
  if (national?.test(compact)) return cc + compact;
  // Without "+", digits are read as a number with its country code (255712345678).
  return compact;
}

/**
 * Every way the number `input` may have been written by someone who typed it digits only
 * (`+255712345678`, `255712345678`, `00255712345678`, `0712345678`, and the bare national number
 * where we know its shape), `input` first. Not a phone number: `input` alone. Identity keeps a
 * phone as its owner typed it, so one number is found, and taken, whichever way it was written.
 */
export function phoneSpellings(input: string, defaultCountryCode: string): string[] {
  const e164 = normalisePhone(input, defaultCountryCode);
  if (e164 === null) return [input];
  const digits = e164.slice(1);
  const spellings = new Set([input, e164, digits, `00${digits}`]);
  if (digits.startsWith(defaultCountryCode)) {
    const national = digits.slice(defaultCountryCode.length);
    spellings.add(`0${national}`);
    if (NATIONAL[defaultCountryCode]?.test(national)) spellings.add(national);
  }
  return [...spellings];
}
