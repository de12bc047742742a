import type { PlanRow } from './plans.store.js';
import { formatCode } from './vouchers.schema.js';
import {
  statusOf,
  termsOf,
  type BatchSummary,
  type CreatedBatch,
  type VoucherBatchRow,
  type VoucherRow,
} from './vouchers.js';

/**
 * A batch as staff and the CLI see it, with the terms it sells (its own, kept from when it was
 * made: price_tzs, duration_seconds, data_limit_bytes, max_devices, download_kbps, upload_kbps).
 */
export const presentBatch = (batch: VoucherBatchRow, plan?: Pick<PlanRow, 'name'>) => ({
  id: batch.id,
  plan_id: batch.plan_id,
  ...(plan && { plan_name: plan.name }),
  site_id: batch.site_id,
  count: batch.count,
  prefix: batch.prefix,
  length: batch.code_length,
  ...termsOf(batch),
  valid_until: batch.valid_until,
  created_by: batch.created_by,
  created_at: batch.created_at,
  revoked_at: batch.revoked_at,
});

export const presentBatchSummary = ({ batch, planName, counts }: BatchSummary) => ({
  ...presentBatch(batch),
  plan_name: planName,
  counts,
});

/** A code without its plaintext: its last three characters tell it apart. */
export const presentVoucher = (voucher: VoucherRow, now: Date) => ({
  id: voucher.id,
  batch_id: voucher.batch_id,
  last3: voucher.last3,
  status: statusOf(voucher, now),
  valid_until: voucher.valid_until,
  redeemed_at: voucher.redeemed_at,
  revoked_at: voucher.revoked_at,
  invoice_id: voucher.invoice_id,
  grant_id: voucher.grant_id,
});

/** The answer of a batch's creation: the plaintext codes, this once. */
export const presentCreated = (created: CreatedBatch) => ({
  ...presentBatch(created.batch, created.plan),
  codes: created.codes.map(({ voucher, code }) => ({
    id: voucher.id,
    code: formatCode(code, created.batch.prefix.length),
  })),
});

const CSV_COLUMNS = [
  'voucher_id',
  'batch_id',
  'last3',
  'status',
  'valid_until',
  'redeemed_at',
  'revoked_at',
  'invoice_id',
] as const;

/** One field of CSV (RFC 4180): quoted when it holds a comma, quote or line break. */
const field = (value: string | null): string =>
  value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

export const CODES_CSV_COLUMNS = ['code', 'voucher_id', 'batch_id', 'plan', 'valid_until'] as const;

/**
 * `vouchers create --csv`: the plaintext codes of a new batch as CSV, the one copy the operator
 * keeps (the box stores none). Its first column is what `vouchers print --codes-file` and the
 * print API take back; the admin UI's download (src/web/client/admin-vouchers.ts) writes the same.
 */

export function codesCsv(created: CreatedBatch): string {
  const rows = created.codes.map(({ voucher, code }) => [
    formatCode(code, created.batch.prefix.length),
    voucher.id,
    created.batch.id,
    created.plan.name,
    created.batch.valid_until,
  ]);
  return [CODES_CSV_COLUMNS, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}

/** `vouchers export`: the codes of a batch as CSV, without their plaintext. */
export function vouchersCsv(vouchers: readonly VoucherRow[], now: Date): string {
  const rows = vouchers.map((v) => {
    const p = presentVoucher(v, now);
    return [p.id, p.batch_id, p.last3, p.status, p.valid_until, p.redeemed_at, p.revoked_at, p.invoice_id];
  });
  return [CSV_COLUMNS, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
