import { Migrator, PostgresAdapter, sql, type Migration, type MigrationResult } from 'kysely';
import * as m0001 from '../../migrations/0001_init.js';
import * as m0002 from '../../migrations/0002_identity.js';
import * as m0003 from '../../migrations/0003_wifi.js';
import * as m0004 from '../../migrations/0004_passkeys.js';
import * as m0005 from '../../migrations/0005_console.js';
import * as m0006 from '../../migrations/0006_oauth.js';
import * as m0008 from '../../migrations/0008_social.js';
import * as m0009 from '../../migrations/0009_admin.js';
import * as m0010 from '../../migrations/0010_radius.js';
import * as m0011 from '../../migrations/0011_registration_ip.js';
import * as m0012 from '../../migrations/0012_reset_code_misses.js';
import * as m0013 from '../../migrations/0013_password_changed_at.js';
import * as m0014 from '../../migrations/0014_social_display_name.js';
import * as m0015 from '../../migrations/0015_device_global_secret.js';
import * as m0016 from '../../migrations/0016_acct_session_reuse.js';
import * as m0017 from '../../migrations/0017_router_handoff.js';
import * as m0018 from '../../migrations/0018_shared_state.js';
import * as m0019 from '../../migrations/0019_sites.js';
import * as m0020 from '../../migrations/0020_device_tunnel.js';
import * as m0021 from '../../migrations/0021_sales_channels.js';
import * as m0022 from '../../migrations/0022_vouchers.js';
import * as m0023 from '../../migrations/0023_grant_reminders.js';
import * as m0026 from '../../migrations/0026_session_updates_in_place.js';
import * as m0028 from '../../migrations/0028_site_payment_accounts.js';
import * as m0029 from '../../migrations/0029_voucher_codes_hashed_only.js';
import * as m0030 from '../../migrations/0030_invoice_network.js';
import * as m0033 from '../../migrations/0033_refunds.js';
import type { Db } from './connect.js';

/**
 * The migrations, listed statically (not scanned from disk) so a bundled build finds them.
 * Append new ones; never edit one that has landed.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_init': m0001,
  '0002_identity': m0002,
  '0003_wifi': m0003,
  '0004_passkeys': m0004,
  '0005_console': m0005,
  '0006_oauth': m0006,
  '0008_social': m0008,
  '0009_admin': m0009,
  '0010_radius': m0010,
  '0011_registration_ip': m0011,
  '0012_reset_code_misses': m0012,
  '0013_password_changed_at': m0013,
  '0014_social_display_name': m0014,
  '0015_device_global_secret': m0015,
  '0016_acct_session_reuse': m0016,
  '0017_router_handoff': m0017,
  '0018_shared_state': m0018,
  '0019_sites': m0019,
  '0020_device_tunnel': m0020,
  '0021_sales_channels': m0021,
  '0022_vouchers': m0022,
  '0023_grant_reminders': m0023,
  '0026_session_updates_in_place': m0026,
  '0028_site_payment_accounts': m0028,
  '0029_voucher_codes_hashed_only': m0029,
  '0030_invoice_network': m0030,
  '0033_refunds': m0033,
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
 * Applies every pending migration; throws (after rolling back the failed one) on error. Nothing
 * pending: no lock is taken (kysely's migration lock on PostgreSQL is one for the whole database,
 * whatever the schema, so every CLI run would otherwise queue behind other schemas' migrations).
 */
export async function migrateToLatest(db: Db): Promise<MigrationResult[]> {
  const m = await migrator(db);
  if ((await m.getMigrations()).every((migration) => migration.executedAt !== undefined)) return [];
  const { error, results } = await m.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error('migration failed', { cause: error });
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
