import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { errorCatalogue } from '../lib/errors.js';
import { writeSecretFile } from '../lib/secret-file.js';
import { isEncryptedBackup, openBackup, sealBackup } from './backup-crypto.js';
import { lockDataDir } from './dir-lock.js';

/**
 * `hotspot-ctl backup FILE` / `restore FILE` (DESIGN.md §3.2). A backup is ONE file: an online
 * SQLite backup of the database (consistent while the daemon writes: better-sqlite3's backup API
 * copies a snapshot page by page), into which the data directory's key material is added as a
 * table: the generated secrets, the vault key (devices' RADIUS secrets and grant passwords are
 * sealed with it) and the OAuth signing keys. Without those the database alone is useless, so
 * they travel together. The file is written with mode 0600: it holds secrets.
 *
 * With a passphrase (`backup --encrypt`) the file is that backup sealed with AES-256-GCM under
 * a scrypt-derived key (backup-crypto.ts); the plain copy is made inside the data directory
 * (private to the daemon's user) and removed, never beside the target (a USB stick, a share).
 */

/** The table a backup carries the data directory's key files in; removed again on restore. */
const FILES_TABLE = 'hotspot_backup_files';
/** What is copied besides the database: files directly in the data dir, and the keys folder. */
const KEY_FILES = ['secrets.env', 'vault.key'];
const KEY_DIR = 'keys';

export const backupErrors = errorCatalogue({
  notABackup: [400, 'that file is not a hotspot-ctl backup'],
  daemonRunning: [409, 'the daemon is running on this data directory: stop it before restoring'],
  dataExists: [409, 'the data directory already has a database: add --force to replace it'],
  targetExists: [409, 'the backup file already exists: choose another name or remove it'],
  passphraseNeeded: [
    400,
    'the backup is encrypted: give its passphrase (HOTSPOT_BACKUP_PASSPHRASE, --passphrase-file FILE, or type it on a terminal)',
  ],
  postgres: [
    409,
    'the database is PostgreSQL (DATABASE_URL): back it up with pg_dump, and copy secrets.env, vault.key and keys/ from the data directory',
  ],
});

export interface BackupResult {
  file: string;
  bytes: number;
  files: string[];
  encrypted: boolean;
}

/** The key files of a data directory, as paths relative to it. */
function keyFiles(dataDir: string): string[] {
  const out = KEY_FILES.filter((f) => existsSync(path.join(dataDir, f)));
  const dir = path.join(dataDir, KEY_DIR);
  if (existsSync(dir)) for (const f of readdirSync(dir).sort()) out.push(path.join(KEY_DIR, f));
  return out;
}

/** Writes a consistent backup of `databaseFile` and the key files of `dataDir` to `target`. */
export async function backup(
  sqlite: Database.Database,
  dataDir: string,
  target: string,
  options: { passphrase?: string } = {},
): Promise<BackupResult> {
  if (existsSync(target)) throw backupErrors.targetExists();
  const { passphrase } = options;
  const partial =
    passphrase === undefined
      ? `${target}.partial-${String(process.pid)}`
      : path.join(dataDir, `backup.partial-${String(process.pid)}`);
  try {
    await sqlite.backup(partial);
    const copy = new Database(partial);
    try {
      copy.pragma('journal_mode = DELETE'); // one self-contained file, no -wal beside it
      copy.exec(
        `CREATE TABLE ${FILES_TABLE} (name TEXT PRIMARY KEY, mode INTEGER NOT NULL, content BLOB NOT NULL)`,
      );
      const insert = copy.prepare(`INSERT INTO ${FILES_TABLE} (name, mode, content) VALUES (?, ?, ?)`);
      const files = keyFiles(dataDir);
      copy.transaction(() => {
        for (const f of files) {
          const full = path.join(dataDir, f);
          insert.run(f, statSync(full).mode & 0o777, readFileSync(full));
        }
      })();
      copy.pragma('synchronous = FULL');
      copy.close();
      chmodSync(partial, 0o600);
      if (passphrase === undefined) renameSync(partial, target);
      else writeSealed(target, sealBackup(readFileSync(partial), passphrase));
      return { file: target, bytes: statSync(target).size, files, encrypted: passphrase !== undefined };
    } finally {
      if (copy.open) copy.close();
    }
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Writes the sealed backup beside the target, then renames it into place (never over a file). */
function writeSealed(target: string, sealed: Buffer): void {
  const partial = `${target}.partial-${String(process.pid)}`;
  try {
    writeSecretFile(partial, sealed);
    if (existsSync(target)) throw backupErrors.targetExists();
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** The key files a backup carries; refuses anything that is not a hotspot-ctl backup. */
function readBackupFiles(source: string): { name: string; mode: number; content: Buffer }[] {
  try {
    const src = new Database(source, { readonly: true, fileMustExist: true });
    try {
      src.prepare('SELECT count(*) FROM kysely_migration').get(); // our schema, migrated
      return src.prepare(`SELECT name, mode, content FROM ${FILES_TABLE} ORDER BY name`).all() as {
        name: string;
        mode: number;
        content: Buffer;
      }[];
    } finally {
      src.close();
    }
  } catch {
    throw backupErrors.notABackup();
  }
}

/**
 * Puts a backup in place in `dataDir`: the key files, then the database (its old -wal/-shm
 * removed). Refuses while the daemon runs there (it holds the data directory's lock, which the
 * restore holds in turn, so no daemon starts halfway), and over an existing database without `force`.
 */
export function restore(
  source: string,
  dataDir: string,
  databaseFile: string,
  options: { force: boolean; passphrase?: string | undefined },
): { files: string[]; encrypted: boolean } {
  const lock = lockDataDir(dataDir, { daemon: false, held: () => backupErrors.daemonRunning() });
  try {
    if (!isEncryptedBackup(source))
      return { ...restoreLocked(source, dataDir, databaseFile, options), encrypted: false };
    if (existsSync(path.join(dataDir, databaseFile)) && !options.force) throw backupErrors.dataExists();
    if (options.passphrase === undefined) throw backupErrors.passphraseNeeded();
    // Opened (and its tag checked) before anything in the data directory changes.
    const plain = openBackup(source, options.passphrase);
    const opened = path.join(dataDir, `restore.opened-${String(process.pid)}`);
    try {
      writeSecretFile(opened, plain);
      return { ...restoreLocked(opened, dataDir, databaseFile, options), encrypted: true };
    } finally {
      rmSync(opened, { force: true });
    }
  } finally {
    lock.release();
  }
}

function restoreLocked(
  source: string,
  dataDir: string,
  databaseFile: string,
  options: { force: boolean },
): { files: string[] } {
  const dbPath = path.join(dataDir, databaseFile);
  if (existsSync(dbPath) && !options.force) throw backupErrors.dataExists();
  const rows = readBackupFiles(source);
  const staged = `${dbPath}.restore-${String(process.pid)}`;
  try {
    copyFileSync(source, staged);
    const db = new Database(staged);
    try {
      db.exec(`DROP TABLE ${FILES_TABLE}`);
    } finally {
      db.close();
    }
    for (const row of rows) {
      const target = path.join(dataDir, row.name);
      if (path.relative(dataDir, target).startsWith('..')) throw backupErrors.notABackup();
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      writeSecretFile(target, row.content);
      chmodSync(target, row.mode & 0o600);
    }
    for (const suffix of ['-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    renameSync(staged, dbPath);
    chmodSync(dbPath, 0o600);
    return { files: rows.map((r) => r.name) };
  } finally {
    rmSync(staged, { force: true });
  }
}
