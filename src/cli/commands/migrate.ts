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
        const results = await migrateToLatest(db);
        const applied = results.map((r) => r.migrationName);
        // A new database is made from the schema snapshot when the build has one (snapshot.ts).
        const snapshot = results.some((r) => r.fromSnapshot === true);
        ctx.out.result({ applied, snapshot }, () =>
          applied.length === 0
            ? 'database is up to date\n'
            : snapshot
              ? `new database created from the schema snapshot of ${String(applied.length)} migrations (${applied.at(-1) ?? ''})\n`
              : applied.map((m) => `applied ${m}\n`).join(''),
        );
      } finally {
        await store.close();
      }
    });
}
