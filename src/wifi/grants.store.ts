import type { Selectable } from 'kysely';
import { marker, prepared, type Db } from '../db/index.js';
import type { GrantsTable } from '../db/tables/wifi.js';

export type GrantRow = Selectable<GrantsTable>;

export async function insertGrant(db: Db, row: GrantRow): Promise<void> {
  await db.insertInto('grants').values(row).execute();
}

export function findGrant(db: Db, id: string): Promise<GrantRow | undefined> {
  return db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Grants kept by username, at most (each a few hundred bytes). */
const GRANTS_CACHED = 50_000;

const grantByUsername = prepared(
  (db, username: string) => db.selectFrom('grants').selectAll().where('username', '=', username),
  [marker('username')],
  { cacheUntilWritten: { tables: ['grants'], maxEntries: GRANTS_CACHED } },
);

/**
 * The grant of a username. RADIUS authorization asks this for every login: compiled once, and
 * kept until anything writes to grants (a revocation, here or by the CLI). The row is frozen.
 */
export async function findGrantByUsername(db: Db, username: string): Promise<GrantRow | undefined> {
  return (await grantByUsername(db, username))[0];
}

export function findGrantByInvoice(db: Db, invoiceId: string): Promise<GrantRow | undefined> {
  return db.selectFrom('grants').selectAll().where('invoice_id', '=', invoiceId).executeTakeFirst();
}

export async function usernameTaken(db: Db, username: string): Promise<boolean> {
  return (await findGrantByUsername(db, username)) !== undefined;
}

/** Sets revoked_at unless the grant is already revoked; true when this call revoked it. */
export async function markRevoked(db: Db, id: string, at: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('grants')
    .set({ revoked_at: at, revoke_reason: reason })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Grants whose time ran out by `now` and whose expiry has not been handled yet. */
export function selectDueGrants(db: Db, now: string, limit: number): Promise<GrantRow[]> {
  return db
    .selectFrom('grants')
    .selectAll()
    .where('expires_at', '<=', now)
    .where('ended_at', 'is', null)
    .where('revoked_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export async function markEnded(db: Db, ids: readonly string[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('grants').set({ ended_at: at }).where('id', 'in', ids).execute();
}

/** The live grants (not revoked, not expired by `now`) bought on `planId` get this speed; how many. */
export async function setLiveGrantsSpeed(
  db: Db,
  planId: string,
  now: string,
  speed: Pick<GrantRow, 'download_kbps' | 'upload_kbps'>,
): Promise<number> {
  const result = await db
    .updateTable('grants')
    .set({ download_kbps: speed.download_kbps, upload_kbps: speed.upload_kbps })
    .where('revoked_at', 'is', null)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .where('invoice_id', 'in', (eb) => eb.selectFrom('invoices').select('id').where('plan_id', '=', planId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A grant's new expiry (staff extended it); its expiry is to be handled again when that comes. */
export async function extendGrantRow(db: Db, id: string, expiresAt: string): Promise<void> {
  await db
    .updateTable('grants')
    .set({ expires_at: expiresAt, ended_at: null })
    .where('id', '=', id)
    .execute();
}

/** Whether the plan an invoice sold remembers devices (a plan's flag is read fresh after any write to plans). */
const remembersDevices = prepared(
  (db, invoiceId: string) =>
    db
      .selectFrom('invoices')
      .innerJoin('plans', 'plans.id', 'invoices.plan_id')
      .select('plans.remember_device')
      .where('invoices.id', '=', invoiceId),
  [marker('invoiceId')],
  { cacheUntilWritten: { tables: ['plans'], maxEntries: GRANTS_CACHED } },
);

export async function planRemembersDevices(db: Db, invoiceId: string): Promise<boolean> {
  return (await remembersDevices(db, invoiceId))[0]?.remember_device === 1;
}

/** Remembers `mac` for the grant (once: a second login of the same device changes nothing). */
export async function insertRememberedDevice(
  db: Db,
  grantId: string,
  mac: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('remembered_devices')
    .values({ grant_id: grantId, mac, created_at: at })
    .onConflict((oc) => oc.columns(['grant_id', 'mac']).doNothing())
    .execute();
}

/**
 * The grants a MAC address was remembered for whose plan still remembers devices, neither revoked
 * nor expired at `now`; the one that lasts longest first.
 */
export function selectRememberedGrants(db: Db, mac: string, now: string): Promise<GrantRow[]> {
  return db
    .selectFrom('remembered_devices')
    .innerJoin('grants', 'grants.id', 'remembered_devices.grant_id')
    .innerJoin('invoices', 'invoices.id', 'grants.invoice_id')
    .innerJoin('plans', 'plans.id', 'invoices.plan_id')
    .selectAll('grants')
    .where('remembered_devices.mac', '=', mac)
    .where('plans.remember_device', '=', 1)
    .where('grants.revoked_at', 'is', null)
    .where('grants.expires_at', '>', now)
    .orderBy('grants.expires_at', 'desc')
    .execute();
}
