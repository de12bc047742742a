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
import { DIR_LOCK_FILE, lockDataDir, type DataDirLock } from './dir-lock.js';

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

interface BackupFile {
  name: string;
  mode: number;
  content: Buffer;
}

/**
 * The key files a backup carries; refuses anything that is not a hotspot-ctl backup, or that
 * names a file outside the data directory. `source` is the backup file, or an encrypted one's
 * opened bytes (SQLite reads them in memory: nothing is written to check them).
 */
function readBackupFiles(source: string | Buffer, dataDir: string): BackupFile[] {
  let raw: Record<string, unknown>[];
  try {
    const src =
      typeof source === 'string'
        ? new Database(source, { readonly: true, fileMustExist: true })
        : new Database(source, { readonly: true });
    try {
      src.prepare('SELECT count(*) FROM kysely_migration').get(); // our schema, migrated
      raw = src.prepare(`SELECT name, mode, content FROM ${FILES_TABLE} ORDER BY name`).all() as Record<
        string,
        unknown
      >[];
    } finally {
      src.close();
    }
  } catch {
    throw backupErrors.notABackup();
  }
  // Read from a file we may not have written: checked here, before anything is put in place.
  return raw.map(({ name, mode, content }) => {
    if (typeof name !== 'string' || typeof mode !== 'number' || !Buffer.isBuffer(content))
      throw backupErrors.notABackup();
    const relative = path.relative(dataDir, path.join(dataDir, name));
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
      throw backupErrors.notABackup();
    return { name, mode, content };
  });
}

/**
 * Puts a backup in place in `dataDir`. Everything that can refuse it is checked before the data
 * directory changes at all, not even its lock file made: a database already there without
 * `force`, the passphrase, the file itself (an encrypted one opened in memory, its tag checked,
 * then read by SQLite from those bytes). Then it takes the directory's lock (refused while the
 * daemon runs there; held in turn, so no daemon starts halfway), writes the key files and, last,
 * renames the database into place. The database is what makes a box (config/secrets.ts,
 * holdsBox), so a restore cut short (a crash, a full disk) leaves no box that other commands
 * would take for one and fill with a new database. A failure it sees puts the key files back as
 * they were and removes what it made (the lock file and the directory too, when it made them).
 */
export function restore(
  source: string,
  dataDir: string,
  databaseFile: string,
  options: { force: boolean; passphrase?: string | undefined },
): { files: string[]; encrypted: boolean } {
  const dbPath = path.join(dataDir, databaseFile);
  if (existsSync(dbPath) && !options.force) throw backupErrors.dataExists();
  const encrypted = isEncryptedBackup(source);
  let opened: Buffer | undefined;
  if (encrypted) {
    if (options.passphrase === undefined) throw backupErrors.passphraseNeeded();
    opened = openBackup(source, options.passphrase);
  }
  const rows = readBackupFiles(opened ?? source, dataDir);

  const lockFile = path.join(dataDir, DIR_LOCK_FILE);
  const made = { dir: !existsSync(dataDir), lock: !existsSync(lockFile) };
  const undo: (() => void)[] = [];
  let lock: DataDirLock | undefined;
  try {
    lock = lockDataDir(dataDir, { daemon: false, held: () => backupErrors.daemonRunning() });
    if (existsSync(dbPath) && !options.force) throw backupErrors.dataExists(); // made meanwhile
    putInPlace({ source: opened ?? source, dataDir, dbPath, rows }, undo);
    return { files: rows.map((r) => r.name), encrypted };
  } catch (err) {
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // Best effort: the error that stopped the restore is the one to report.
      }
    }
    // A lock file this restore made is removed while still held: a process that opens it now is
    // refused, one that comes after makes a fresh one (dir-lock.ts never deletes the daemon's).
    if (made.lock && lock !== undefined) rmSync(lockFile, { force: true });
    throw err;
  } finally {
    lock?.release();
    if (made.dir) removeIfEmpty(dataDir);
  }
}

/** rmdir, when nothing is left in it (a restore that succeeded left its box). */
function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: false, force: true });
  } catch {
    // Gone already, or not ours to judge.
  }
}

/**
 * The key files, then the database (its old -wal/-shm removed) renamed over the old one. Each
 * change pushes onto `undo` how to take it back, before it is made.
 */
function putInPlace(
  restore: { source: string | Buffer; dataDir: string; dbPath: string; rows: BackupFile[] },
  undo: (() => void)[],
): void {
  const { source, dataDir, dbPath, rows } = restore;
  const staged = `${dbPath}.restore-${String(process.pid)}`;
  try {
    if (typeof source === 'string') copyFileSync(source, staged);
    else writeSecretFile(staged, source);
    const db = new Database(staged);
    try {
      db.exec(`DROP TABLE ${FILES_TABLE}`);
    } finally {
      db.close();
    }
    for (const row of rows) putKeyFile(path.join(dataDir, row.name), row, undo);
    for (const suffix of ['-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    renameSync(staged, dbPath);
    chmodSync(dbPath, 0o600);
  } finally {
    rmSync(staged, { force: true });
  }
}

/** Writes one key file (mode from the backup, at most 0600), remembering what was there. */
function putKeyFile(target: string, row: BackupFile, undo: (() => void)[]): void {
  const before = existsSync(target)
    ? { content: readFileSync(target), mode: statSync(target).mode & 0o777 }
    : undefined;
  const madeDir = mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  if (madeDir !== undefined) undo.push(() => rmSync(madeDir, { recursive: true, force: true }));
  undo.push(() => {
    rmSync(`${target}.tmp-${String(process.pid)}`, { force: true }); // writeSecretFile's, if cut short
    if (before === undefined) rmSync(target, { force: true });
    else {
      writeSecretFile(target, before.content);
      chmodSync(target, before.mode);
    }
  });
  writeSecretFile(target, row.content);
  chmodSync(target, row.mode & 0o600);
}
