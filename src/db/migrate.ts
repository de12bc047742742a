import { Migrator, PostgresAdapter, sql, type Migration, type MigrationResult } from 'kysely';
import { systemClock } from '../lib/clock.js';
import type { Db } from './connect.js';
import { createFromSnapshot } from './snapshot.js';

/**
 * A migration whose module is imported when it runs: a daemon restarting on an up-to-date
 * database loads none of them (bench/footprint.ts).
 */
function migration(load: () => Promise<Migration>): Migration {
  return {
    up: async (db) => {
      await (await load()).up(db);
    },
    down: async (db) => {
      const loaded = await load();
      if (!loaded.down) throw new Error('this migration cannot be undone');
      await loaded.down(db);
    },
  };
}

/**
 * The migrations, listed statically (not scanned from disk) so a bundled build finds them.
 * Append new ones; never edit one that has landed.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_init': migration(() => import('../../migrations/0001_init.js')),
  '0002_identity': migration(() => import('../../migrations/0002_identity.js')),
  '0003_wifi': migration(() => import('../../migrations/0003_wifi.js')),
  '0004_passkeys': migration(() => import('../../migrations/0004_passkeys.js')),
  '0005_console': migration(() => import('../../migrations/0005_console.js')),
  '0006_oauth': migration(() => import('../../migrations/0006_oauth.js')),
  '0008_social': migration(() => import('../../migrations/0008_social.js')),
  '0009_admin': migration(() => import('../../migrations/0009_admin.js')),
  '0010_radius': migration(() => import('../../migrations/0010_radius.js')),
  '0011_registration_ip': migration(() => import('../../migrations/0011_registration_ip.js')),
  '0012_reset_code_misses': migration(() => import('../../migrations/0012_reset_code_misses.js')),
  '0013_password_changed_at': migration(() => import('../../migrations/0013_password_changed_at.js')),
  '0014_social_display_name': migration(() => import('../../migrations/0014_social_display_name.js')),
  '0015_device_global_secret': migration(() => import('../../migrations/0015_device_global_secret.js')),
  '0016_acct_session_reuse': migration(() => import('../../migrations/0016_acct_session_reuse.js')),
  '0017_router_handoff': migration(() => import('../../migrations/0017_router_handoff.js')),
  '0018_shared_state': migration(() => import('../../migrations/0018_shared_state.js')),
  '0019_sites': migration(() => import('../../migrations/0019_sites.js')),
  '0020_device_tunnel': migration(() => import('../../migrations/0020_device_tunnel.js')),
  '0021_sales_channels': migration(() => import('../../migrations/0021_sales_channels.js')),
  '0022_vouchers': migration(() => import('../../migrations/0022_vouchers.js')),
  '0023_grant_reminders': migration(() => import('../../migrations/0023_grant_reminders.js')),
  '0026_session_updates_in_place': migration(
    () => import('../../migrations/0026_session_updates_in_place.js'),
  ),
  '0028_site_payment_accounts': migration(() => import('../../migrations/0028_site_payment_accounts.js')),
  '0029_voucher_codes_hashed_only': migration(
    () => import('../../migrations/0029_voucher_codes_hashed_only.js'),
  ),
  '0030_invoice_network': migration(() => import('../../migrations/0030_invoice_network.js')),
  '0031_report_indexes': migration(() => import('../../migrations/0031_report_indexes.js')),
  '0032_admin_lists': migration(() => import('../../migrations/0032_admin_lists.js')),
  '0033_refunds': migration(() => import('../../migrations/0033_refunds.js')),
  '0034_archive': migration(() => import('../../migrations/0034_archive.js')),
  '0035_router_down': migration(() => import('../../migrations/0035_router_down.js')),
  '0036_admin_lists_more': migration(() => import('../../migrations/0036_admin_lists_more.js')),
  '0039_report_speed': migration(() => import('../../migrations/0039_report_speed.js')),
  '0040_first_router': migration(() => import('../../migrations/0040_first_router.js')),
  '0042_sms_delivery': migration(() => import('../../migrations/0042_sms_delivery.js')),
  '0045_seller_report': migration(() => import('../../migrations/0045_seller_report.js')),
  '0046_session_final_octets': migration(() => import('../../migrations/0046_session_final_octets.js')),
  '0047_voucher_batch_terms': migration(() => import('../../migrations/0047_voucher_batch_terms.js')),
};

/**
 * On PostgreSQL the migration tables live in the store's schema (DATABASE_URL `schema=`): kysely
 * looks for them across every schema otherwise, and would take another schema's for its own.
 */
async function migrator(db: Db): Promise<Migrator> {
  const provider = { getMigrations: () => Promise.resolve({ ...MIGRATIONS }) };
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return new Migrator({ db, provider });
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return new Migrator({ db, provider, migrationTableSchema: rows[0]?.schema ?? 'public' });
}

/**
 * Tables a migration rewrites wholesale, vacuumed on PostgreSQL once it has committed (VACUUM
 * cannot run inside its transaction). A mass UPDATE clears the visibility map that index-only
 * reads rely on: after 0046 the usage report over a million sessions took 6 s instead of 0.4 s
 * until autovacuum came by (docs/decisions/0054-session-final-octets.md).
 */
const VACUUM_AFTER: Readonly<Record<string, readonly string[]>> = {
  '0046_session_final_octets': ['radius_sessions'],
};

/** A migration applied: by itself, or (`fromSnapshot`) with every other one from the schema snapshot. */
export interface Applied extends MigrationResult {
  fromSnapshot?: true;
}

/**
 * Applies every pending migration; throws (after rolling back the failed one) on error. Nothing
 * pending: no lock is taken (kysely's migration lock on PostgreSQL is one for the whole database,
 * whatever the schema, so every CLI run would otherwise queue behind other schemas' migrations).
 */
export async function migrateToLatest(db: Db): Promise<Applied[]> {
  const m = await migrator(db);
  const all = await m.getMigrations();
  if (all.every((migration) => migration.executedAt !== undefined)) return [];
  // A new database (no migration applied yet): the bundle's schema snapshot, when it has one.
  const names = Object.keys(MIGRATIONS);
  if (
    all.every((migration) => migration.executedAt === undefined) &&
    (await createFromSnapshot(db, names, systemClock.now()))
  )
    return names.map((migrationName) => ({
      migrationName,
      direction: 'Up',
      status: 'Success',
      fromSnapshot: true,
    }));
  const { error, results } = await m.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
  // Every result is a success here (a failure threw above).
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    for (const { migrationName } of results ?? [])
      for (const table of VACUUM_AFTER[migrationName] ?? [])
        await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
  return results ?? [];
}

export interface MigrationState {
  applied: string[];
  pending: string[];
}

export async function migrationState(db: Db): Promise<MigrationState> {
  const all = await (await migrator(db)).getMigrations();
  return {
    applied: all.filter((m) => m.executedAt !== undefined).map((m) => m.name),
    pending: all.filter((m) => m.executedAt === undefined).map((m) => m.name),
  };
}

/** When the first migration ran: the database's birth (null before any). */
export async function databaseCreatedAt(db: Db): Promise<Date | null> {
  const times = (await (await migrator(db)).getMigrations()).flatMap((m) =>
    m.executedAt === undefined ? [] : [m.executedAt.getTime()],
  );
  return times.length === 0 ? null : new Date(Math.min(...times));
}
