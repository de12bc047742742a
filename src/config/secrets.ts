import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { randomString, randomToken } from '../lib/crypto.js';
import { writeSecretFile } from '../lib/secret-file.js';

export { writeSecretFile } from '../lib/secret-file.js';

export const SECRETS_FILE = 'secrets.env';
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Thrown when root is about to work in a data directory that belongs to the daemon's user. */
export class ForeignDataDirError extends Error {
  constructor(readonly owner: number) {
    super(`belongs to uid ${String(owner)}`);
  }
}

/**
 * The files that say a box lives in a data directory. (The SQLite file's name is db/store.ts's
 * DATABASE_FILE, the vault key's lib/vault.ts's VAULT_KEY_FILE: named here so reading the
 * settings loads neither the database driver nor the vault.)
 */
const SQLITE_BOX: readonly string[] = ['hotspot.db'];
const POSTGRES_BOX: readonly string[] = [SECRETS_FILE, 'vault.key', ...SQLITE_BOX];

/**
 * Whether the data directory holds a box. On SQLite that is its database file: secrets.env alone
 * is no box, as it is written as soon as a command that makes one reads its settings, before any
 * database, so a start or a restore that failed (or was cut short) leaves it behind, and counting
 * it let every other command make a database there with no warning. On PostgreSQL the database is
 * the server's and the directory holds only its keys, so any of these files still counts
 * (secrets.env is all `migrate` makes there; restore refuses PostgreSQL before making any).
 * False when the directory is absent (or a file is in its way) or holds none of them; a directory
 * that cannot be read (EACCES) throws: no answer either way.
 */
export function holdsBox(dir: string, options: { postgres: boolean }): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
  const marks = options.postgres ? POSTGRES_BOX : SQLITE_BOX;
  return names.some((name) => marks.includes(name));
}

/** What a data directory held before a command that makes a box started in it. */
export interface DataDirBefore {
  readonly dir: string;
  /** false: the command made the directory. */
  readonly existed: boolean;
  readonly names: readonly string[];
}

/** The directory's entries now; `existed`: whether it was there before ensureDataDir made it. */
export function dataDirBefore(dir: string, existed: boolean): DataDirBefore {
  return { dir, existed, names: readdirSync(dir) };
}

/**
 * What a start can make in a data directory: secrets.env, vault.key (lib/vault.ts), the SQLite
 * database and its journals (db/store.ts), the lock and pid files (db/dir-lock.ts), the OAuth
 * keys (oauth/keys.ts), the RadSec certificates (config/load.ts) and the outbox
 * (notify/outbox.ts). Nothing else is ever removed: a HOTSPOT_DATA_DIR pointed at a directory in
 * use keeps whatever other programs put there meanwhile.
 */
const MADE_BY_A_START: ReadonlySet<string> = new Set([
  SECRETS_FILE,
  'vault.key',
  'hotspot.db',
  'hotspot.db-wal',
  'hotspot.db-shm',
  'hotspot.db-journal',
  'daemon.lock',
  'daemon.pid',
  'keys',
  'radsec',
  'outbox.jsonl',
]);

/**
 * Takes back what a failed `serve` or `migrate` added to a data directory that held no box: its
 * secrets.env, vault.key, database, keys and lock file (the daemon's lock is removed while still
 * held, as restore does), and the directory when it made it. Left behind, they made the next
 * command take the directory for a box (on PostgreSQL secrets.env alone counts), with secrets no
 * router or database knows (docs/decisions/0051). What was there before stays. On PostgreSQL only
 * when the database was never reached (`reached` false): once reached, it holds values sealed
 * with this directory's vault.key, so the directory is that database's box and must keep it.
 * Only names in MADE_BY_A_START are removed. The caller holds the directory's lock: a daemon or a
 * restore that began beside it owns what appeared.
 */
export function removeAddedSince(
  before: DataDirBefore,
  { postgres, reached }: { postgres: boolean; reached: boolean },
): void {
  if (postgres && reached) return;
  const { dir, existed, names } = before;
  let now: string[];
  try {
    now = readdirSync(dir);
  } catch {
    return; // gone or unreadable: nothing of ours to take back
  }
  for (const name of now)
    if (MADE_BY_A_START.has(name) && !names.includes(name))
      rmSync(path.join(dir, name), { recursive: true, force: true });
  if (!existed && readdirSync(dir).length === 0) rmdirSync(dir);
}

/**
 * Refuses root in an existing data directory another user owns (the daemon's, under systemd):
 * the database, WAL and key files it created would belong to root and the daemon could no longer
 * open them. Creates nothing; an absent directory passes, a file in its way is EEXIST (what
 * creating it would say).
 */
export function checkDataDirOwner(dir: string): void {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!st.isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'EEXIST' });
  const uid = process.getuid?.();
  if (uid === 0 && st.uid !== 0) throw new ForeignDataDirError(st.uid);
}

/**
 * Creates the data directory with mode 0700 (and tightens an existing one we own); root may not
 * work in a directory another user owns (checkDataDirOwner).
 */
export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkDataDirOwner(dir);
  const st = statSync(dir);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

export interface GeneratedSecrets {
  radiusSecret: string;
  paymentWebhookSecret: string;
}

/**
 * Secrets generated at first start and reused afterwards, kept in `<data dir>/secrets.env`
 * (mode 0600, written atomically). A value given in the configuration takes precedence and is
 * not written here.
 */
export function loadOrCreateSecrets(dataDir: string): GeneratedSecrets {
  const file = path.join(dataDir, SECRETS_FILE);
  const stored = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  const secrets: GeneratedSecrets = {
    // Routers make people type the RADIUS secret: letters and digits only, no look-alikes.
    radiusSecret: stored.RADIUS_SECRET ?? randomString(ALNUM, 24),
    paymentWebhookSecret: stored.PAYMENT_WEBHOOK_SECRET ?? randomToken(32),
  };
  if (stored.RADIUS_SECRET === undefined || stored.PAYMENT_WEBHOOK_SECRET === undefined) {
    writeSecretFile(
      file,
      `# generated by hotspot-ctl at first start; keep private\nRADIUS_SECRET=${secrets.radiusSecret}\nPAYMENT_WEBHOOK_SECRET=${secrets.paymentWebhookSecret}\n`,
    );
  }
  return secrets;
}
