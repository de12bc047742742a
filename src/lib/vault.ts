import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/**
 * Secrets the box must be able to read back (device RADIUS and uam secrets, guests' Wi-Fi
 * passwords: RADIUS CHAP needs the cleartext) are sealed with AES-256-GCM under a key kept in
 * the data directory. See docs/decisions/0011-secrets-at-rest.md.
 */
export interface Vault {
  /** Encrypts `plaintext`, bound to `context` (e.g. "grant-password:<id>"). */
  seal(plaintext: string, context: string): string;
  /** Decrypts what `seal` produced for the same context; throws if it was altered. */
  open(sealed: string, context: string): string;
  /**
   * A keyed digest (HMAC-SHA256, hex) for short secrets stored only to be compared, such as
   * 6-digit codes: without the vault key a copy of the database cannot test guesses offline.
   */
  digest(value: string, context: string): string;
}

export const VAULT_KEY_FILE = 'vault.key';
const VERSION = 'v1';
const IV_BYTES = 12;

export class SecretBox implements Vault {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError('the vault key must be 32 bytes');
    this.#key = key;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, body, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  digest(value: string, context: string): string {
    return createHmac('sha256', this.#key).update(`${context}\u0000${value}`, 'utf8').digest('hex');
  }

  open(sealed: string, context: string): string {
    const [version, iv, body, tag, extra] = sealed.split('.');
    if (version !== VERSION || iv === undefined || body === undefined || tag === undefined || extra)
      throw new Error('sealed value has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * Opens the vault of a data directory, creating its key at first start: 32 random bytes,
 * base64url, in `vault.key` (mode 0600). The key is written to a temporary file and linked into
 * place, which fails if another process (the CLI next to the daemon) got there first; both then
 * read the one key that won.
 */
export function openVault(dataDir: string): SecretBox {
  const file = path.join(dataDir, VAULT_KEY_FILE);
  if (!existsSync(file)) createKeyFile(file);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  return new SecretBox(key);
}

function createKeyFile(file: string): void {
  const tmp = `${file}.tmp-${String(process.pid)}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}
