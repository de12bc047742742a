import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/index.js';
import { pagedWindow, type ListFilter } from './list-filter.store.js';

/** The states a grant is filtered by (GET /api/v1/admin/grants?status=), as the counter page shows them. */
export const GRANT_STATES = ['live', 'ended', 'revoked', 'refunded'] as const;

/**
 * The grants of `sites` (null: every site) with what staff need to find one, newest first: the
 * admin lists' search (username, invoice number, phone), state, issue-time window and page.
 */
export const selectGrants = (db: Db, filter: ListFilter, sites: readonly string[] | null, now: string) =>
  pagedWindow(
    db
      .selectFrom('grants')
      .innerJoin('invoices', 'invoices.id', 'grants.invoice_id')
      .leftJoin('plans', 'plans.id', 'invoices.plan_id')
      .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
      .$if(filter.status !== undefined, (q) => q.where(grantState(filter.status ?? '', now)))
      .selectAll('grants')
      .select([
        'invoices.number as invoice_number',
        'invoices.phone',
        'invoices.plan_id',
        'plans.name as plan_name',
        'invoices.channel',
        'invoices.amount_tzs',
        'invoices.site_id',
        'invoices.refunded_at',
      ]),
    filter,
    {
      time: 'grants.issued_at',
      tie: 'grants.id',
      search: ['grants.username', 'invoices.number'],
      phones: ['invoices.phone'],
    },
  ).execute();

/** Refunded before revoked: a refund revokes the grant too (the counter page's pill says so). */
function grantState(state: string, now: string) {
  switch (state) {
    case 'refunded':
      return sql<SqlBool>`invoices.refunded_at is not null`;
    case 'revoked':
      return sql<SqlBool>`grants.revoked_at is not null and invoices.refunded_at is null`;
    case 'live':
      return sql<SqlBool>`grants.revoked_at is null and invoices.refunded_at is null and grants.expires_at > ${now}`;
    default:
      return sql<SqlBool>`grants.revoked_at is null and invoices.refunded_at is null and grants.expires_at <= ${now}`;
  }
}
