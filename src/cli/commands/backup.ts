import path from 'node:path';
import type { Command } from 'commander';
import { DATABASE_FILE } from '../../app.js';
import { backup, backupErrors, openDatabase, restore } from '../../db/index.js';
import { contextOf } from '../context.js';
import { formatRecord } from '../output.js';

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'Write a consistent backup of the database and its keys to FILE (also while the daemon runs)',
    )
    .argument('<file>', 'where to write the backup (must not exist yet; written with mode 0600)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const { dataDir } = config;
      if (config.databaseUrl) throw backupErrors.postgres();
      const { db, sqlite } = openDatabase(path.join(dataDir, DATABASE_FILE));
      try {
        const result = await backup(sqlite, dataDir, path.resolve(file));
        ctx.out.result(result, () =>
          formatRecord([
            ['backup', result.file],
            ['bytes', result.bytes],
            ['key files', result.files.join(', ')],
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
    .action((file: string, flags: { force?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const { dataDir } = config;
      if (config.databaseUrl) throw backupErrors.postgres();
      const result = restore(path.resolve(file), dataDir, DATABASE_FILE, { force: flags.force === true });
      ctx.out.result({ restored: path.resolve(file), data_dir: dataDir, files: result.files }, () =>
        formatRecord([
          ['restored', path.resolve(file)],
          ['into', dataDir],
          ['key files', result.files.join(', ')],
        ]),
      );
      ctx.out.note('start the daemon to use it (pending migrations run at start)');
    });
}
