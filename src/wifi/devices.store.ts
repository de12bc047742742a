import { PostgresAdapter, sql, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { DevicesTable } from '../db/tables/wifi.js';
import type { ArchivedFilter } from './plans.store.js';

export type DeviceRow = Selectable<DevicesTable>;

export async function insertDevice(db: Db, row: DeviceRow): Promise<void> {
  await db.insertInto('devices').values(row).execute();
}

export async function updateDeviceRow(
  db: Db,
  id: string,
  changes: Updateable<DevicesTable>,
): Promise<boolean> {
  const result = await db.updateTable('devices').set(changes).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function findDevice(db: Db, id: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findDeviceByNasId(db: Db, nasId: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('radius_nas_id', '=', nasId).executeTakeFirst();
}

/** Another device (not `exceptId`) holding this NAS id or MAC address. */
export function findClash(
  db: Db,
  values: { nasId?: string | undefined; mac?: string | undefined },
  exceptId: string | null,
): Promise<Pick<DeviceRow, 'radius_nas_id' | 'mac_address'> | undefined> {
  return db
    .selectFrom('devices')
    .select(['radius_nas_id', 'mac_address'])
    .where((eb) =>
      eb.or([
        ...(values.nasId === undefined ? [] : [eb('radius_nas_id', '=', values.nasId)]),
        ...(values.mac === undefined ? [] : [eb('mac_address', '=', values.mac)]),
      ]),
    )
    .$if(exceptId !== null, (q) => q.where('id', '!=', exceptId ?? ''))
    .executeTakeFirst();
}

/** Devices by name, of `sites` (null: every site); the first `limit` of them unless it is null. */
export function selectDevices(
  db: Db,
  options: { limit: number | null; sites: readonly string[] | null; archived?: ArchivedFilter },
): Promise<DeviceRow[]> {
  const query = db
    .selectFrom('devices')
    .selectAll()
    .$if(options.sites !== null, (q) => q.where('site_id', 'in', options.sites ?? []))
    .$if(options.archived === 'current', (q) => q.where('archived_at', 'is', null))
    .$if(options.archived === 'archived', (q) => q.where('archived_at', 'is not', null))
    .orderBy('name')
    .orderBy('id');
  return (options.limit === null ? query : query.limit(options.limit)).execute();
}

/** Moves a device's last_seen_at forward to `at` (never back: flushes may overlap). */
/**
 * Records when routers were last heard from (device id → ISO time), never moving a time back.
 * PostgreSQL: one UPDATE from the arrays, outside any transaction, so it never holds the write
 * lock (a statement per router, under the lock, held up accounting for a few hundred ms at 500
 * routers). SQLite: a statement per router in one transaction (in-process, microseconds each).
 */
export async function markSeen(db: Db, seen: ReadonlyMap<string, string>): Promise<void> {
  if (seen.size === 0) return;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`update devices set last_seen_at = v.at
      from unnest(${[...seen.keys()]}::text[], ${[...seen.values()]}::text[]) as v(id, at)
      where devices.id = v.id and (devices.last_seen_at is null or devices.last_seen_at < v.at)`.execute(db);
    return;
  }
  await db.transaction().execute(async (tx) => {
    for (const [id, at] of seen)
      await tx
        .updateTable('devices')
        .set({ last_seen_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', at)]))
        .execute();
  });
}

/** How many devices there are (not archived), and how many were seen at `since` or later. */
export async function countSeenSince(
  db: Db,
  since: string,
): Promise<{ total: number; seen: number; down: number }> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => {
      // An outage the router-down job reported and no packet since (devices.ts downSince).
      const down = eb.and([eb('down_since', 'is not', null), eb('down_since', '=', eb.ref('last_seen_at'))]);
      return [
        eb.fn.countAll().as('total'),
        eb.fn
          .sum<number | string | null>(
            eb
              .case()
              .when(eb.and([eb('last_seen_at', '>=', since), eb.not(down)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as('seen'),
        eb.fn.sum<number | string | null>(eb.case().when(down).then(1).else(0).end()).as('down'),
      ];
    })
    .where('archived_at', 'is', null)
    .executeTakeFirstOrThrow();
  // Counts and sums come back as strings from some drivers (PostgreSQL's bigint).
  return { total: Number(row.total), seen: Number(row.seen ?? 0), down: Number(row.down ?? 0) };
}

/** Whether the router ever had a RADIUS session. */
export async function deviceEverUsed(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('radius_sessions')
    .select('id')
    .where('device_id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteDeviceRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('devices').where('id', '=', id).execute();
}
