import { identityErrors } from './errors.js';

/** identity-service.md §4.1: optional leading +, digits only, 7-16 characters in all. */
export const isValidPhone = (phone: string): boolean =>
  /^\+?\d+$/.test(phone) && phone.length >= 7 && phone.length <= 16;

export const MIN_PASSWORD_LENGTH = 8;
export const DISPLAY_NAME_MAX = 100;

export function checkNewPassword(password: string): void {
  // Characters, as every other length here: four emoji are four characters, not eight.
  if (codePoints(password) < MIN_PASSWORD_LENGTH) throw identityErrors.passwordTooShort();
}

/** Length in characters (code points), not UTF-16 units: "Zoë 🎉" is 5. */
export function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
