import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { errorCatalogue } from '../lib/errors.js';

/**
 * `hotspot-ctl backup --encrypt`: the backup sealed under a passphrase, so a copy on a USB stick
 * or another machine gives nothing away. The key is derived with scrypt (node:crypto; random salt,
 * the parameters in the header) and the whole backup is sealed with AES-256-GCM. The file is
 *
 *   MAGIC  (one line)
 *   header (one line of JSON: kdf, N, r, p, salt, cipher, iv)
 *   ciphertext, then the 16-byte GCM tag
 *
 * The magic and header lines are the GCM additional data: changing a parameter fails the tag
 * check like a wrong passphrase does. The backup is read whole into memory (a venue's database
 * is megabytes), which keeps the tag check before anything is written.
 */

export const ENCRYPTED_MAGIC = 'hotspot-ctl encrypted backup v1\n';
const TAG_BYTES = 16;
const IV_BYTES = 12;
const SALT_BYTES = 16;
/** scrypt cost: 2^17 × 8 × 128 bytes = 128 MiB and about half a second on a small box. */
const DEFAULT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
/** The largest memory a header may ask scrypt for (a header is input: it cannot ask for gigabytes). */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
export const MIN_PASSPHRASE_LENGTH = 8;

export const backupCryptoErrors = errorCatalogue({
  wrongPassphrase: [
    400,
    'the passphrase does not open this backup (wrong passphrase, or the file is damaged); nothing was changed',
  ],
  damaged: [400, 'the encrypted backup is damaged (its header cannot be read); nothing was changed'],
  shortPassphrase: [400, `the passphrase must be at least ${String(MIN_PASSPHRASE_LENGTH)} characters`],
});

interface Header {
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  cipher: 'aes-256-gcm';
  iv: string;
}

/** True when `file` starts like an encrypted backup (read: the first bytes only). */
export function isEncryptedBackup(file: string): boolean {
  const want = Buffer.from(ENCRYPTED_MAGIC, 'ascii');
  const got = Buffer.alloc(want.length);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false; // the plain path reports a missing file
  }
  try {
    return readSync(fd, got, 0, got.length, 0) === got.length && got.equals(want);
  } finally {
    closeSync(fd);
  }
}

/** What scrypt allocates (node:crypto runs the p lanes one after the other). */
const memoryOf = (h: { N: number; r: number }): number => 128 * h.N * h.r;

function deriveKey(passphrase: string, h: { N: number; r: number; p: number }, salt: Buffer): Buffer {
  return scryptSync(passphrase.normalize('NFC'), salt, 32, {
    N: h.N,
    r: h.r,
    p: h.p,
    maxmem: memoryOf(h) + 32 * 1024 * 1024,
  });
}

/** Seals `plain` under `passphrase`: the bytes of an encrypted backup file. */
export function sealBackup(plain: Buffer, passphrase: string): Buffer {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) throw backupCryptoErrors.shortPassphrase();
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const header: Header = {
    kdf: 'scrypt',
    ...DEFAULT_PARAMS,
    salt: salt.toString('base64'),
    cipher: 'aes-256-gcm',
    iv: iv.toString('base64'),
  };
  const head = Buffer.from(`${ENCRYPTED_MAGIC}${JSON.stringify(header)}\n`, 'utf8');
  const cipher = createCipheriv('aes-256-gcm', deriveKey(passphrase, header, salt), iv, {
    authTagLength: TAG_BYTES,
  });
  cipher.setAAD(head);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([head, body, cipher.getAuthTag()]);
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** The header of an encrypted backup, every field checked: it is read from a file we did not write. */
function parseHeader(line: string): Header & { saltBytes: Buffer; ivBytes: Buffer } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw backupCryptoErrors.damaged();
  }
  if (typeof raw !== 'object' || raw === null) throw backupCryptoErrors.damaged();
  const h = raw as Record<string, unknown>;
  const b64 = /^[A-Za-z0-9+/]+={0,2}$/;
  if (
    h.kdf !== 'scrypt' ||
    h.cipher !== 'aes-256-gcm' ||
    !isInt(h.N, 2 ** 14, 2 ** 20) ||
    (h.N & (h.N - 1)) !== 0 ||
    !isInt(h.r, 1, 32) ||
    !isInt(h.p, 1, 4) ||
    typeof h.salt !== 'string' ||
    typeof h.iv !== 'string' ||
    !b64.test(h.salt) ||
    !b64.test(h.iv)
  )
    throw backupCryptoErrors.damaged();
  const header = {
    kdf: 'scrypt',
    cipher: 'aes-256-gcm',
    N: h.N,
    r: h.r,
    p: h.p,
    salt: h.salt,
    iv: h.iv,
  } as const;
  if (memoryOf(header) > MAX_SCRYPT_MEMORY) throw backupCryptoErrors.damaged();
  const saltBytes = Buffer.from(h.salt, 'base64');
  const ivBytes = Buffer.from(h.iv, 'base64');
  if (saltBytes.length < SALT_BYTES || saltBytes.length > 64 || ivBytes.length !== IV_BYTES)
    throw backupCryptoErrors.damaged();
  return { ...header, saltBytes, ivBytes };
}

/** Opens an encrypted backup file: the plain backup, or wrongPassphrase/damaged. */
export function openBackup(file: string, passphrase: string): Buffer {
  const data = readFileSync(file);
  const magic = Buffer.from(ENCRYPTED_MAGIC, 'ascii');
  const end = data.indexOf(0x0a, magic.length);
  if (!data.subarray(0, magic.length).equals(magic) || end < 0 || end > magic.length + 4096)
    throw backupCryptoErrors.damaged();
  const header = parseHeader(data.subarray(magic.length, end).toString('utf8'));
  const head = data.subarray(0, end + 1);
  if (data.length < head.length + TAG_BYTES) throw backupCryptoErrors.damaged();
  const body = data.subarray(head.length, data.length - TAG_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  const decipher = createDecipheriv(
    'aes-256-gcm',
    deriveKey(passphrase, header, header.saltBytes),
    header.ivBytes,
    { authTagLength: TAG_BYTES },
  );
  decipher.setAAD(head);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw backupCryptoErrors.wrongPassphrase();
  }
}
