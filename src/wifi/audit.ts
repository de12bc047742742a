import { userInfo } from 'node:os';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { uuid } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import { insertAuditRow, selectAudit, type AuditQuery, type AuditRow } from './audit.store.js';
import type { StaffPrincipal } from './staff.js';

/**
 * The audit trail of staff actions on Wi-Fi data (DESIGN.md §4.8, migration 0021): who did what
 * to which record, when, and the record before and after. An entry is written in the same
 * transaction as the change it describes, so there is never a change without its entry or an
 * entry for a change that rolled back.
 */

/** How a sale was paid (invoices.channel, payments.channel). */
export const SALE_CHANNELS = ['mobile_money', 'voucher', 'cash', 'complimentary'] as const;
export type SaleChannel = (typeof SALE_CHANNELS)[number];

/** Who acted: a staff member through the admin API or UI, or the operator at the CLI. */
export interface WifiActor {
  /** users.id; null for the CLI. */
  id: string | null;
  /** Fit to show: the staff member's email (or name), `cli:<os user>` for the CLI. */
  label: string;
}

export const staffActor = (p: Pick<StaffPrincipal, 'userId' | 'email' | 'displayName'>): WifiActor => ({
  id: p.userId,
  label: p.email ?? p.displayName,
});

/** The operator at the CLI, named by the OS account that ran it (root under sudo says so). */
export function cliActor(): WifiActor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): the uid is what is known.
    name = `uid-${process.getuid?.() ?? 'unknown'}`;
  }
  return { id: null, label: `cli:${name}` };
}

export interface AuditEntry {
  actor: WifiActor;
  /** `<target>.<verb>`: grant.issue, grant.extend, grant.revoke, invoice.recheck, invoice.mark_paid, voucher_batch.create, … */
  action: string;
  target: { type: string; id: string };
  siteId?: string | null;
  reason?: string | null;
  /** The record (as the API presents it, no secrets) before and after; omit where there is none. */
  before?: unknown;
  after?: unknown;
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/** Appends one entry; call it inside the transaction that makes the change. */
export async function recordAudit(db: Db, clock: Clock, entry: AuditEntry): Promise<void> {
  await insertAuditRow(db, {
    id: uuid(),
    created_at: isoNow(clock),
    actor_id: entry.actor.id,
    actor: entry.actor.label,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    site_id: entry.siteId ?? null,
    reason: entry.reason ?? null,
    before: json(entry.before),
    after: json(entry.after),
  });
}

const parsed = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

/** An entry as the admin API and the CLI show it. */
export const presentAudit = (row: AuditRow) => ({
  id: row.id,
  at: row.created_at,
  actor: row.actor,
  actor_id: row.actor_id,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  site_id: row.site_id,
  reason: row.reason,
  before: parsed(row.before),
  after: parsed(row.after),
});

export const listAudit = (db: Db, query: AuditQuery) => selectAudit(db, query);
export type { AuditQuery, AuditRow };
