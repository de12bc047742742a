import type { Insertable } from 'kysely';
import type { Db } from '../db/index.js';
import type { AuditLogsTable } from '../db/tables/console.js';

export const insertAudit = (db: Db, row: Insertable<AuditLogsTable>) =>
  db.insertInto('audit_logs').values(row).execute();

export const listAudit = (db: Db, projectId: string, limit: number) =>
  db
    .selectFrom('audit_logs')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
