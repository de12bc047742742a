import type { Db } from '../db/index.js';

/** The most recent grants of `sites` (null: every site), with what staff need to find one. */
export const selectRecentGrants = (db: Db, limit: number, sites: readonly string[] | null) =>
  db
    .selectFrom('grants')
    .innerJoin('invoices', 'invoices.id', 'grants.invoice_id')
    .leftJoin('plans', 'plans.id', 'invoices.plan_id')
    .$if(sites !== null, (q) => q.where('invoices.site_id', 'in', sites ?? []))
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
    ])
    .orderBy('grants.issued_at', 'desc')
    .orderBy('grants.id', 'desc')
    .limit(limit)
    .execute();
