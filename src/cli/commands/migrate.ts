import type { Command } from 'commander';
import { removeAddedSince } from '../../config/index.js';
import { DatabaseUnreachable, lockIfFree, migrateToLatest, openStore } from '../../db/index.js';
import { systemClock } from '../../lib/clock.js';
import { contextOf } from '../context.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, { createsBox: true });
      const config = ctx.config();
      // A migrate that failed on a directory that held no box takes back what it made there, but
      // only with the directory's lock: migrate takes none to run, so a daemon (or a restore) may
      // have started on the new directory meanwhile, and what appeared is then its box.
      const failed = (err: unknown): never => {
        const before = config.newDataDirBefore;
        const lock = before && lockIfFree(config.dataDir);
        if (before && lock) {
          try {
            removeAddedSince(before, {
              postgres: config.databaseUrl !== null,
              reached: !(err instanceof DatabaseUnreachable),
            });
          } finally {
            lock.release();
          }
        }
        throw err;
      };
      const store = await openStore(config, { now: () => systemClock.now() }).catch(failed);
      const results = await migrateToLatest(store.db).catch(async (err: unknown) => {
        await store.close().catch(() => undefined);
        return failed(err);
      });
      try {
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
