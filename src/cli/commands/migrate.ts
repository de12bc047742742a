import type { Command } from 'commander';
import { migrateToLatest, openDatabase } from '../../db/index.js';
import { DATABASE_FILE } from '../../app.js';
import path from 'node:path';
import { contextOf } from '../context.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { db } = openDatabase(path.join(ctx.config().dataDir, DATABASE_FILE));
      try {
        const applied = (await migrateToLatest(db)).map((r) => r.migrationName);
        ctx.out.result({ applied }, () =>
          applied.length === 0 ? 'database is up to date\n' : applied.map((m) => `applied ${m}\n`).join(''),
        );
      } finally {
        await db.destroy();
      }
    });
}
