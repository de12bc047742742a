import type { Insertable } from 'kysely';
import { backfillFirstRouters } from '../../migrations/0040_first_router.js';
import type { Db } from '../../src/db/index.js';
import type {
  DevicesTable,
  GrantsTable,
  InvoicesTable,
  PaymentsTable,
  VoucherBatchesTable,
  VouchersTable,
} from '../../src/db/tables/wifi.js';
import type { RadiusSessionsTable } from '../../src/db/tables/radius.js';

/**
 * Random rows for the reports (docs/decisions/0036-reports.md), for test/wifi/reports.test.ts and
 * bench/reports.ts. Reports read rows; a year of sales in every channel and state, with refunds
 * and sessions on every router, cannot be made through the purchase flows in a test's time, so
 * these rows are written as the flows would leave them, from a seed. Refunds are negative payment
 * rows with event id `refund:<invoice id>`: most on the sale's own invoice, later than the sale
 * (as refunds.ts records them, the invoice marked refunded), some alone on an invoice whose sale
 * fell before the data's start. Counter sales (cash, complimentary) carry a seller (`sold_by`).
 */

/** Router number `i` of `siteId`, as a row written straight to the store (no secret, never seen). */
export const routerRow = (i: number, siteId: string, at: string): Insertable<DevicesTable> => ({
  id: `dev-${String(i)}`,
  site_id: siteId,
  name: `AP ${String(i)}`,
  model: 'bench',
  mac_address: `AA:BB:CC:00:00:${i.toString(16).padStart(2, '0').toUpperCase()}`,
  local_network: `10.${String(i)}.0.0/24`,
  uam_server: 'http://10.0.0.1/portal',
  radius_nas_id: `ap-${String(i)}`,
  radius_client_ip: `10.${String(i)}.0.1`,
  coa_port: 3799,
  radius_secret_enc: null,
  uam_secret_enc: null,
  uam_auth: 'chap',
  require_message_authenticator: 1,
  created_at: at,
  updated_at: at,
  last_seen_at: null,
  gateway_ip: null,
  tunnel_address: null,
  tunnel_public_key: null,
  radsec_cert_sha256: null,
});

/** mulberry32: small and seeded (the random data here and the money test's steps). */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] as T };
}

export interface ReportWorld {
  /** Plans with their site and price. */
  plans: readonly { id: string; site_id: string; price_tzs: number }[];
  /** Routers with their site. */
  devices: readonly { id: string; site_id: string }[];
  /** Instants (ms) the rows fall between, and special instants some rows fall on (local midnights, DST). */
  from: number;
  to: number;
  edges?: readonly number[];
  invoices: number;
  sessions: number;
  batches: number;
  codesPerBatch: number;
  /** The clock's now: voucher expiry is judged against it. */
  now: number;
  /** Who sells at the counter (`invoices.sold_by` of cash and complimentary sales); none: null. */
  sellers?: readonly string[];
  /** One session in this many is still open (no stop, no final octets); none: every one is closed. */
  openOneIn?: number;
}

export interface ReportRows {
  invoices: Insertable<InvoicesTable>[];
  payments: Insertable<PaymentsTable>[];
  grants: Insertable<GrantsTable>[];
  radius_sessions: Insertable<RadiusSessionsTable>[];
  voucher_batches: Insertable<VoucherBatchesTable>[];
  vouchers: Insertable<VouchersTable>[];
}

const CHANNELS = [
  'mobile_money',
  'mobile_money',
  'mobile_money',
  'voucher',
  'cash',
  'complimentary',
] as const;
const STATUSES = ['paid', 'paid', 'paid', 'failed', 'expired', 'pending'] as const;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const iso = (ms: number) => new Date(ms).toISOString();

type Random = ReturnType<typeof seeded>;

/** An instant of the world: any, or (one in five) on one of its edges, give or take a millisecond. */
function instant(rnd: Random, world: Pick<ReportWorld, 'from' | 'to' | 'edges'>): number {
  const edges = world.edges ?? [];
  if (edges.length > 0 && rnd.int(5) === 0) return rnd.pick(edges) + rnd.pick([-1, 0, 1]);
  return world.from + rnd.int(world.to - world.from);
}

/**
 * `count` RADIUS sessions, numbered from `first`, on the world's routers: most of them of a grant
 * of the router's site (`grantsOf`), with octets, closed as the accounting path closes them (their
 * final octets written) or (`openOneIn`) open. The bench writes a million of them in chunks.
 */
export function sessionRows(
  rnd: Random,
  world: Pick<ReportWorld, 'devices' | 'from' | 'to' | 'edges' | 'openOneIn'>,
  grantsOf: ReadonlyMap<string, readonly string[]>,
  first: number,
  count: number,
  seed: number,
): Insertable<RadiusSessionsTable>[] {
  const out: Insertable<RadiusSessionsTable>[] = [];
  for (let i = first; i < first + count; i++) {
    const device = rnd.pick(world.devices);
    const grants = grantsOf.get(device.site_id) ?? [];
    const started = instant(rnd, world);
    const seconds = rnd.int(7200);
    // Drawn in the order they always were: a seed gives the same rows as before.
    const grant = grants.length > 0 && rnd.int(4) > 0 ? rnd.pick(grants) : null;
    const input = rnd.int(50_000_000);
    const output = rnd.int(500_000_000);
    const open = world.openOneIn !== undefined && rnd.int(world.openOneIn) === 0;
    out.push({
      id: `sess-${hex(seed, 4)}-${hex(i, 8)}`,
      device_id: device.id,
      acct_session_id: hex(i, 8),
      username: 'guest',
      grant_id: grant,
      framed_ip: null,
      mac: null,
      input_octets: input,
      output_octets: output,
      session_time: seconds,
      started_at: iso(started),
      updated_at: iso(started + seconds * 1000),
      stopped_at: open ? null : iso(started + seconds * 1000),
      terminate_cause: open ? null : 'User-Request',
      final_input_octets: open ? null : input,
      final_output_octets: open ? null : output,
    });
  }
  return out;
}

/** The grants of `rows`, by the site of their plan's sale (for sessionRows). */
export function grantsBySite(rows: Pick<ReportRows, 'grants' | 'invoices'>): Map<string, string[]> {
  const siteOf = new Map(rows.invoices.map((i) => [i.id, i.site_id]));
  const out = new Map<string, string[]>();
  for (const g of rows.grants) {
    const site = siteOf.get(g.invoice_id) ?? '';
    const list = out.get(site) ?? [];
    list.push(g.id);
    out.set(site, list);
  }
  return out;
}

export function reportRows(seed: number, world: ReportWorld): ReportRows {
  const rnd = seeded(seed);
  const at = () => instant(rnd, world);
  const out: ReportRows = {
    invoices: [],
    payments: [],
    grants: [],
    radius_sessions: [],
    voucher_batches: [],
    vouchers: [],
  };
  const phones = Array.from({ length: 40 }, (_, i) => `+2557${String(10_000_000 + i * 7919).slice(-8)}`);
  for (let i = 0; i < world.invoices; i++) {
    const plan = rnd.pick(world.plans);
    const channel = rnd.pick(CHANNELS);
    const status = channel === 'mobile_money' ? rnd.pick(STATUSES) : 'paid';
    const created = at();
    const id = `inv-${hex(seed, 4)}-${hex(i, 8)}`;
    const amount = channel === 'complimentary' ? 0 : plan.price_tzs;
    const paidAt = status === 'paid' ? Math.min(created + rnd.int(600_000), world.to - 1) : null;
    const counter = channel === 'cash' || channel === 'complimentary';
    const sellers = world.sellers ?? [];
    // One sale in twelve that took money refunded (complimentary ones cannot be): mostly on its own
    // invoice, a little later (maybe another day); one in four of those alone, its sale before the
    // data's start.
    const refund =
      paidAt !== null && amount > 0 && rnd.int(12) === 0 ? (rnd.int(4) === 0 ? 'alone' : 'after') : null;
    const refundedAt =
      refund === 'after' && paidAt !== null ? Math.min(paidAt + rnd.int(3 * 86_400_000), world.to - 1) : null;
    out.invoices.push({
      id,
      number: `HS-${hex(i, 6)}-${hex(seed, 8).toUpperCase()}`,
      sequence: seed * 10_000_000 + i,
      plan_id: plan.id,
      phone: channel === 'voucher' || rnd.int(10) === 0 ? '' : rnd.pick(phones),
      amount_tzs: amount,
      duration_seconds: 3600,
      data_limit_bytes: null,
      max_devices: 1,
      download_kbps: null,
      upload_kbps: null,
      status,
      purchase_key_hash: `${hex(seed, 8)}${hex(i, 56)}`,
      provider: channel === 'mobile_money' ? 'sandbox' : channel,
      provider_reference: null,
      failure_reason: status === 'failed' ? 'declined' : null,
      created_at: iso(created),
      updated_at: iso(refundedAt ?? paidAt ?? created),
      paid_at: paidAt === null ? null : iso(paidAt),
      refunded_at:
        refundedAt === null ? (refund === 'alone' ? iso(paidAt ?? created) : null) : iso(refundedAt),
      site_id: plan.site_id,
      channel,
      sold_by: counter && sellers.length > 0 ? rnd.pick(sellers) : null,
      language: null,
      network: null,
    });
    if (paidAt === null) continue;
    const payment = (kind: 'sale' | 'refund', at: number) =>
      out.payments.push({
        id: `${kind === 'refund' ? 'ref' : 'pay'}-${id}`,
        invoice_id: id,
        provider: channel === 'mobile_money' ? 'sandbox' : channel,
        provider_reference: null,
        // A refund: the sale's money given back, a negative row of the same channel.
        amount_tzs: kind === 'refund' ? -amount : amount,
        kind,
        phone: null,
        event_id: kind === 'refund' ? `refund:${id}` : `evt-${id}`,
        paid_at: iso(at),
        channel,
      });
    if (refund !== 'alone') payment('sale', paidAt);
    if (refund !== null) payment('refund', refundedAt ?? paidAt);
    if (refund || rnd.int(3) === 0) continue;
    const grantId = `grant-${id}`;
    out.grants.push({
      id: grantId,
      invoice_id: id,
      username: `u${hex(seed, 4)}${hex(i, 8)}`,
      password_enc: 'sealed',
      data_limit_bytes: null,
      max_devices: 1,
      download_kbps: null,
      upload_kbps: null,
      issued_at: iso(paidAt),
      expires_at: iso(paidAt + 3_600_000),
      revoked_at: null,
      revoke_reason: null,
      ended_at: null,
      end_reminder_at: null,
      data_reminder_at: null,
    });
  }
  out.radius_sessions = sessionRows(rnd, world, grantsBySite(out), 0, world.sessions, seed);
  for (let b = 0; b < world.batches; b++) {
    const plan = rnd.pick(world.plans);
    const batchId = `batch-${hex(seed, 4)}-${hex(b, 4)}`;
    const created = at();
    out.voucher_batches.push({
      id: batchId,
      plan_id: plan.id,
      site_id: plan.site_id,
      count: world.codesPerBatch,
      prefix: '',
      code_length: 10,
      valid_until: null,
      created_by: 'cli:test',
      created_at: iso(created),
      revoked_at: null,
      // The plan's terms when the batch was made (migration 0047): its price is what the stock is worth.
      price_tzs: plan.price_tzs,
      duration_seconds: 3600,
      data_limit_bytes: null,
      max_devices: 1,
      download_kbps: null,
      upload_kbps: null,
    });
    for (let c = 0; c < world.codesPerBatch; c++) {
      const status = rnd.pick(['unused', 'unused', 'redeemed', 'revoked'] as const);
      // Some unused codes ran out before now (expired), some run out later.
      const validUntil =
        rnd.int(3) === 0 ? iso(world.now + (rnd.int(2) === 0 ? -1 : 1) * (1 + rnd.int(86_400_000))) : null;
      out.vouchers.push({
        id: `${batchId}-${hex(c, 4)}`,
        batch_id: batchId,
        code_hash: `${hex(seed, 8)}${hex(b, 8)}${hex(c, 48)}`,
        last3: hex(c, 3).slice(-3).toUpperCase(),
        status,
        valid_until: validUntil,
        redeemed_at: status === 'redeemed' ? iso(created + 1000) : null,
        invoice_id: null,
        grant_id: null,
        revoked_at: status === 'revoked' ? iso(created + 2000) : null,
      });
    }
  }
  return out;
}

/**
 * Writes the rows in one transaction, in chunks small enough for either store's parameter limit.
 * The sessions are written around the accounting path, which records each sale's first router:
 * with `firstRouters` (the default) the migration's backfill (0040) then records them.
 */
export async function insertReportRows(
  db: Db,
  rows: ReportRows,
  chunk = 500,
  firstRouters = true,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const table of [
      'invoices',
      'payments',
      'grants',
      'radius_sessions',
      'voucher_batches',
      'vouchers',
    ] as const) {
      const list: readonly unknown[] = rows[table];
      for (let i = 0; i < list.length; i += chunk)
        // One loop over six tables of different row types: each list holds rows of its own table.
        await tx
          .insertInto(table)
          .values(list.slice(i, i + chunk) as never)
          .execute();
    }
    if (firstRouters) await backfillFirstRouters(tx);
  });
}
