import type { Command } from 'commander';
import { migrateToLatest, openStore } from '../../db/index.js';
import { systemClock } from '../../lib/clock.js';
import { contextOf } from '../context.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, { createsBox: true });
      const store = await openStore(ctx.config(), { now: () => systemClock.now() });
      const { db } = store;
      try {
        const applied = (await migrateToLatest(db)).map((r) => r.migrationName);
        ctx.out.result({ applied }, () =>
          applied.length === 0 ? 'database is up to date\n' : applied.map((m) => `applied ${m}\n`).join(''),
        );
      } finally {
        await store.close();
      }
    });
}
