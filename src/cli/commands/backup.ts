import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { DATABASE_FILE } from '../../app.js';
import { processEnv } from '../../config/index.js';
import { MIN_PASSPHRASE_LENGTH, isEncryptedBackup } from '../../db/backup-crypto.js';
import { backup, backupErrors, openDatabase, restore } from '../../db/index.js';
import { contextOf } from '../context.js';
import { prompts } from '../prompts.js';
import { formatRecord } from '../output.js';

/** Where a script puts the passphrase of an encrypted backup (or --passphrase-file FILE). */
export const PASSPHRASE_ENV = 'HOTSPOT_BACKUP_PASSPHRASE';

/**
 * The passphrase of an encrypted backup: from --passphrase-file (its first line), else from
 * HOTSPOT_BACKUP_PASSPHRASE, else asked on the terminal (twice when making a backup). Undefined
 * when none is given and there is no terminal to ask on.
 */
async function passphraseOf(file: string | undefined, confirm: boolean): Promise<string | undefined> {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`--passphrase-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? ''}`);
    }
    const line = text.split(/\r?\n/)[0] ?? '';
    if (line === '') throw new Error(`--passphrase-file: ${file} is empty`);
    return line;
  }
  const fromEnv = processEnv()[PASSPHRASE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!process.stdin.isTTY) return undefined;
  const { password } = await prompts();
  const first = await password({
    message: confirm
      ? `passphrase for the backup (at least ${String(MIN_PASSPHRASE_LENGTH)} characters; keep it apart from the backup)`
      : 'passphrase of the backup',
    mask: true,
    validate: (v) =>
      !confirm || v.length >= MIN_PASSPHRASE_LENGTH
        ? true
        : `at least ${String(MIN_PASSPHRASE_LENGTH)} characters`,
  });
  if (confirm) {
    const again = await password({ message: 'the same passphrase again', mask: true });
    if (again !== first) throw new Error('the two passphrases differ: nothing was written');
  }
  return first;
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'Write a consistent backup of the database and its keys to FILE (also while the daemon runs)',
    )
    .argument('<file>', 'where to write the backup (must not exist yet; written with mode 0600)')
    .option(
      '--encrypt',
      `seal the backup with a passphrase (asked on a terminal, or ${PASSPHRASE_ENV} / --passphrase-file)`,
    )
    .option('--passphrase-file <file>', 'with --encrypt: read the passphrase from the first line of FILE')
    .action(async (file: string, flags: { encrypt?: boolean; passphraseFile?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.dataConfig(); // a broken provider setting never stops a backup or a restore
      const { dataDir } = config;
      if (config.databaseUrl) throw backupErrors.postgres();
      if (flags.passphraseFile !== undefined && flags.encrypt !== true)
        throw new Error('--passphrase-file is for an encrypted backup: add --encrypt');
      const passphrase = flags.encrypt === true ? await passphraseOf(flags.passphraseFile, true) : undefined;
      if (flags.encrypt === true && passphrase === undefined)
        throw new Error(
          `--encrypt needs a passphrase: set ${PASSPHRASE_ENV}, give --passphrase-file FILE, or run it on a terminal`,
        );
      const { db, sqlite } = openDatabase(path.join(dataDir, DATABASE_FILE));
      try {
        const result = await backup(
          sqlite,
          dataDir,
          path.resolve(file),
          passphrase === undefined ? {} : { passphrase },
        );
        ctx.out.result(result, () =>
          formatRecord([
            ['backup', result.file],
            ['bytes', result.bytes],
            ['key files', result.files.join(', ')],
            ['encrypted', result.encrypted ? 'yes (AES-256-GCM, scrypt passphrase)' : 'no'],
          ]),
        );
      } finally {
        await db.destroy();
      }
    });

  program
    .command('restore')
    .description('Replace the database and its keys with a backup (refused while the daemon runs)')
    .argument('<file>', 'a file written by hotspot-ctl backup')
    .option('--force', 'replace an existing database')
    .option(
      '--passphrase-file <file>',
      `an encrypted backup's passphrase, the first line of FILE (or ${PASSPHRASE_ENV}, or asked on a terminal)`,
    )
    .action(async (file: string, flags: { force?: boolean; passphraseFile?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      // The settings only: the box (its secrets too) comes from the backup once it is checked, so
      // a refused restore leaves the data directory as it was. A broken provider setting never
      // stops a restore.
      const settings = ctx.dataSettings();
      const { dataDir } = settings;
      if (settings.databaseUrl) throw backupErrors.postgres();
      const source = path.resolve(file);
      const passphrase = isEncryptedBackup(source)
        ? await passphraseOf(flags.passphraseFile, false)
        : undefined;
      const result = restore(source, dataDir, DATABASE_FILE, { force: flags.force === true, passphrase });
      ctx.out.result(
        { restored: source, data_dir: dataDir, files: result.files, encrypted: result.encrypted },
        () =>
          formatRecord([
            ['restored', source],
            ['into', dataDir],
            ['key files', result.files.join(', ')],
            ['encrypted', result.encrypted ? 'yes' : 'no'],
          ]),
      );
      ctx.out.note('start the daemon to use it (pending migrations run at start)');
    });
}
