import type { Selectable } from 'kysely';
import type { Db } from '../db/index.js';
import type { VoucherBatchesTable, VouchersTable } from '../db/tables/wifi.js';

export type VoucherBatchRow = Selectable<VoucherBatchesTable>;
export type VoucherRow = Selectable<VouchersTable>;

export async function insertBatch(
  db: Db,
  batch: VoucherBatchRow,
  vouchers: readonly VoucherRow[],
): Promise<void> {
  await db.insertInto('voucher_batches').values(batch).execute();
  // Several rows a statement, well under SQLite's 32766 bound parameters.
  for (let i = 0; i < vouchers.length; i += 200)
    await db
      .insertInto('vouchers')
      .values(vouchers.slice(i, i + 200))
      .execute();
}

export function findBatch(db: Db, id: string): Promise<VoucherBatchRow | undefined> {
  return db.selectFrom('voucher_batches').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findVoucher(db: Db, id: string): Promise<VoucherRow | undefined> {
  return db.selectFrom('vouchers').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findVoucherByHash(db: Db, codeHash: string): Promise<VoucherRow | undefined> {
  return db.selectFrom('vouchers').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Batches of `sites` (null: every site), newest first. */
export function selectBatches(
  db: Db,
  options: { sites: readonly string[] | null; limit: number | null },
): Promise<VoucherBatchRow[]> {
  let query = db.selectFrom('voucher_batches').selectAll();
  if (options.sites !== null) query = query.where('site_id', 'in', options.sites);
  query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
  if (options.limit !== null) query = query.limit(options.limit);
  return query.execute();
}

/** The codes of a batch among those with the given digests (a print request's codes). */
export function selectVouchersByHash(
  db: Db,
  batchId: string,
  codeHashes: readonly string[],
): Promise<VoucherRow[]> {
  if (codeHashes.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('vouchers')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('code_hash', 'in', codeHashes)
    .execute();
}

/** The names of the given plans, by id. */
export async function planNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('plans').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The codes of a batch, in the order they were made. */
export function selectVouchers(db: Db, batchId: string): Promise<VoucherRow[]> {
  return db.selectFrom('vouchers').selectAll().where('batch_id', '=', batchId).orderBy('id').execute();
}

/** How many codes of each batch are in each stored status (unused ones past valid_until included in unused). */
export async function countByStatus(
  db: Db,
  batchIds: readonly string[],
  now: string,
): Promise<Map<string, Record<'unused' | 'redeemed' | 'revoked' | 'expired', number>>> {
  const counts = new Map<string, Record<'unused' | 'redeemed' | 'revoked' | 'expired', number>>();
  for (const id of batchIds) counts.set(id, { unused: 0, redeemed: 0, revoked: 0, expired: 0 });
  if (batchIds.length === 0) return counts;
  const rows = await db
    .selectFrom('vouchers')
    .select((eb) => [
      'batch_id',
      eb
        .case()
        .when(eb.and([eb('status', '=', 'unused'), eb('valid_until', '<=', now)]))
        .then('expired')
        .else(eb.ref('status'))
        .end()
        .as('shown'),
      eb.fn.countAll<number | string | bigint>().as('n'),
    ])
    .where('batch_id', 'in', batchIds)
    .groupBy(['batch_id', 'shown'])
    .execute();
  for (const row of rows) {
    const entry = counts.get(row.batch_id);
    const status = row.shown as keyof NonNullable<typeof entry>;
    if (entry && status in entry) entry[status] = Number(row.n);
  }
  return counts;
}

/**
 * unused → redeemed, only while it is unused and not past `valid_until`: of two redemptions of one
 * code at once, exactly one changes the row.
 */
export async function markRedeemed(db: Db, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('vouchers')
    .set({ status: 'redeemed', redeemed_at: now })
    .where('id', '=', id)
    .where('status', '=', 'unused')
    .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setRedemption(db: Db, id: string, invoiceId: string, grantId: string): Promise<void> {
  await db
    .updateTable('vouchers')
    .set({ invoice_id: invoiceId, grant_id: grantId })
    .where('id', '=', id)
    .execute();
}

/** unused → revoked for the given codes (a whole batch, or one); how many changed. */
export async function markRevoked(
  db: Db,
  where: { batchId: string } | { id: string },
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('vouchers')
    .set({ status: 'revoked', revoked_at: now })
    .$if('batchId' in where, (q) => q.where('batch_id', '=', 'batchId' in where ? where.batchId : ''))
    .$if('id' in where, (q) => q.where('id', '=', 'id' in where ? where.id : ''))
    .where('status', '=', 'unused')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function markBatchRevoked(db: Db, id: string, now: string): Promise<void> {
  await db
    .updateTable('voucher_batches')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}
