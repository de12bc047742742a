import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { WifiAuditTable } from '../db/tables/wifi.js';

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
  limit: number;
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
    .execute();
}
