import type { Db } from '../db/index.js';
import { STALE } from './sessions.store.js';

/**
 * Router health beyond last seen (issue 21, docs/decisions/0038-router-down.md): the live
 * sessions of each router, and the outages the router-down job reports once each
 * (`devices.down_since`, migration 0035).
 */

/**
 * Open sessions per router of `deviceIds`, in one grouped query (the radius_sessions_stopped
 * index finds the open ones); a router without any is not in the map.
 */
export async function countOpenSessionsByDevice(
  db: Db,
  deviceIds: readonly string[],
): Promise<Map<string, number>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('radius_sessions')
    .select((eb) => ['device_id', eb.fn.countAll<number | string>().as('n')])
    .where('stopped_at', 'is', null)
    .where('device_id', 'in', deviceIds)
    .groupBy('device_id')
    .execute();
  // Counts come back as strings from PostgreSQL (bigint).
  return new Map(rows.map((r) => [r.device_id, Number(r.n)]));
}

/** A router silent since `last_seen_at` that had `sessions` open when it was last heard from. */
export interface SilentRouter {
  id: string;
  name: string;
  radius_nas_id: string;
  site_id: string;
  last_seen_at: string;
  sessions: number;
}

/**
 * Routers last heard from at `since` or later but before `silentBefore`, whose outage has not
 * been reported, that had sessions open when they went quiet: sessions started by their last
 * packet that are still open, or that the stale-session job closed after it (the router never
 * said they ended). One grouped query.
 */
export async function selectSilentRouters(
  db: Db,
  window: { since: string; silentBefore: string },
): Promise<SilentRouter[]> {
  const rows = await db
    .selectFrom('devices as d')
    .innerJoin('radius_sessions as s', 's.device_id', 'd.id')
    .select(['d.id', 'd.name', 'd.radius_nas_id', 'd.site_id', 'd.last_seen_at'])
    .select((eb) => eb.fn.countAll<number | string>().as('sessions'))
    .where('d.archived_at', 'is', null) // put away by staff (docs/decisions/0037): never "down"
    .where('d.last_seen_at', '>=', window.since)
    .where('d.last_seen_at', '<', window.silentBefore)
    .where((eb) => eb.or([eb('d.down_since', 'is', null), eb('d.down_since', '<', eb.ref('d.last_seen_at'))]))
    .where((eb) => eb('s.started_at', '<=', eb.ref('d.last_seen_at')))
    .where((eb) =>
      eb.or([
        eb('s.stopped_at', 'is', null),
        eb.and([eb('s.terminate_cause', '=', STALE), eb('s.stopped_at', '>', eb.ref('d.last_seen_at'))]),
      ]),
    )
    .groupBy(['d.id', 'd.name', 'd.radius_nas_id', 'd.site_id', 'd.last_seen_at'])
    .orderBy('d.last_seen_at')
    .orderBy('d.id')
    .execute();
  return rows.map((r) => ({ ...r, last_seen_at: r.last_seen_at ?? '', sessions: Number(r.sessions) }));
}

/**
 * Records that the outage of a router last heard from at `lastSeen` is reported: a conditional
 * UPDATE, so of two runs (or daemons) one reports it. False: a packet came meanwhile, or it was
 * reported already.
 */
export async function claimOutage(db: Db, id: string, lastSeen: string): Promise<boolean> {
  const result = await db
    .updateTable('devices')
    .set({ down_since: lastSeen })
    .where('id', '=', id)
    .where('last_seen_at', '=', lastSeen)
    .where((eb) => eb.or([eb('down_since', 'is', null), eb('down_since', '<', lastSeen)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A router whose reported outage ended: it was heard from after `down_since`. */
export interface RouterHeardAgain {
  id: string;
  name: string;
  radius_nas_id: string;
  site_id: string;
  down_since: string;
  last_seen_at: string;
}

export async function selectHeardAgain(db: Db): Promise<RouterHeardAgain[]> {
  const rows = await db
    .selectFrom('devices')
    .select(['id', 'name', 'radius_nas_id', 'site_id', 'down_since', 'last_seen_at'])
    .where('down_since', 'is not', null)
    .where((eb) => eb('last_seen_at', '>', eb.ref('down_since')))
    .orderBy('last_seen_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, down_since: r.down_since ?? '', last_seen_at: r.last_seen_at ?? '' }));
}

/** Re-arms a router whose outage `downSince` was reported; false when another run did it. */
export async function rearmRouter(db: Db, id: string, downSince: string): Promise<boolean> {
  const result = await db
    .updateTable('devices')
    .set({ down_since: null })
    .where('id', '=', id)
    .where('down_since', '=', downSince)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
