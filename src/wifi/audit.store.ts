import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { WifiAuditTable } from '../db/tables/wifi.js';
import { searchAny, startsWith } from './list-filter.store.js';

export type AuditRow = Selectable<WifiAuditTable>;

export async function insertAuditRow(db: Db, row: AuditRow): Promise<void> {
  await db.insertInto('wifi_audit').values(row).execute();
}

export interface AuditQuery {
  /** Only this target (`grant`, `invoice`, …) and, when given, this id. */
  targetType?: string;
  targetId?: string;
  /** Only entries at or after / before these ISO-8601 instants. */
  from?: string;
  to?: string;
  /** Only entries of these sites (null: every site). */
  sites?: readonly string[] | null;
  /** Only entries older than this one (newest-first order): the next page. */
  after?: { createdAt: string; id: string };
  /** Only entries whose actor holds this (case-insensitive). */
  actor?: string;
  /** Only this action (`grant.issue`), or every action of a target (`grant`). */
  action?: string;
  /** Only entries whose target type or id holds this. */
  target?: string;
  /** A search of actor, action, target, reason and the records before and after. */
  q?: string;
  limit: number;
  offset?: number;
}

/** Newest first. */
export function selectAudit(db: Db, q: AuditQuery): Promise<AuditRow[]> {
  return db
    .selectFrom('wifi_audit')
    .selectAll()
    .$if(q.targetType !== undefined, (s) => s.where('target_type', '=', q.targetType ?? ''))
    .$if(q.targetId !== undefined, (s) => s.where('target_id', '=', q.targetId ?? ''))
    .$if(q.from !== undefined, (s) => s.where('created_at', '>=', q.from ?? ''))
    .$if(q.to !== undefined, (s) => s.where('created_at', '<', q.to ?? ''))
    .$if(q.sites !== undefined && q.sites !== null, (s) => s.where('site_id', 'in', q.sites ?? []))
    .$if(q.actor !== undefined, (s) => s.where(searchAny(q.actor ?? '', ['actor'])))
    .$if(q.action !== undefined, (s) =>
      s.where((eb) => eb.or([eb('action', '=', q.action ?? ''), startsWith('action', `${q.action ?? ''}.`)])),
    )
    .$if(q.target !== undefined, (s) => s.where(searchAny(q.target ?? '', ['target_type', 'target_id'])))
    .$if(q.q !== undefined, (s) =>
      s.where(
        searchAny(q.q ?? '', ['actor', 'action', 'target_type', 'target_id', 'reason', 'before', 'after']),
      ),
    )
    .$if(q.after !== undefined, (s) =>
      s.where((eb) =>
        eb.or([
          eb('created_at', '<', q.after?.createdAt ?? ''),
          eb.and([eb('created_at', '=', q.after?.createdAt ?? ''), eb('id', '<', q.after?.id ?? '')]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .$if(q.offset !== undefined, (s) => s.offset(q.offset ?? 0))
    .execute();
}
