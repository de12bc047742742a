import { randomString } from '../lib/crypto.js';

/** Characters for things people read aloud or type on a phone: no 0/O, 1/l/I look-alikes. */
const LOWER = 'abcdefghjkmnpqrstuvwxyz23456789';
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const MIXED = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Wi-Fi username of a grant: 8 characters (≈ 40 bits, unique by index). */
export const newUsername = (): string => randomString(LOWER, 8);

/** Wi-Fi password of a grant: 10 characters (≈ 50 bits). */
export const newPassword = (): string => randomString(LOWER, 10);

/** Per-device RADIUS shared secret: 24 letters and digits, typed into router settings. */
export const newRadiusSecret = (): string => randomString(MIXED, 24);

/** The random tail of an invoice number. */
export const newInvoiceSuffix = (): string => randomString(UPPER, 8);
