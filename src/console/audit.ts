import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { isoNow } from '../lib/time.js';
import { insertAudit } from './audit.store.js';

export const AUDIT_SHOWN = 100;

export type AuditAction =
  | 'project.created'
  | 'project.renamed'
  | 'project.archived'
  | 'client.created'
  | 'client.updated'
  | 'client.status_changed'
  | 'client.secret_rotated'
  | 'client.deleted';

/** Who did it and from where: every console mutation carries this. */
export interface Actor {
  userId: string;
  ip: string;
}

/** Appends one entry to a project's audit trail (inside the mutation's transaction). */
export async function audit(
  db: Db,
  clock: Clock,
  entry: {
    projectId: string;
    actor: Actor;
    action: AuditAction;
    target: { type: 'project' | 'client'; id: string };
    metadata?: Record<string, unknown>;
  },
): Promise<void> {
  await insertAudit(db, {
    project_id: entry.projectId,
    actor_id: entry.actor.userId,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    metadata: entry.metadata === undefined ? null : JSON.stringify(entry.metadata),
    ip_address: entry.actor.ip,
    created_at: isoNow(clock),
  });
}
