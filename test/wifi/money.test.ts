import t from 'tap';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { sha256Hex, uuid } from '../../src/lib/crypto.js';
import { invoiceNumber, issue, type PlanRow } from '../../src/wifi/index.js';
import { nextSequence } from '../../src/wifi/purchases.store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aPurchaseKey, postPurchase, postSandboxEvent, succeeded } from '../helpers/wifi.js';

/**
 * Money adds up (DESIGN.md §4.8): random sequences of sales through every channel, revocations
 * and invoices marked paid by hand; after each step the overview's revenue per channel and in
 * total must equal the payments table, and the payments table must equal what the test itself
 * took. Seeded, so a failure names the seed that reproduces it (MONEY_SEED=<n> to run one).
 */

const CHANNELS = ['mobile_money', 'voucher', 'cash', 'complimentary'] as const;
type Channel = (typeof CHANNELS)[number];
type Ledger = Record<Channel, { sales: number; revenue_tzs: number }>;

/** mulberry32: small, seeded, good enough to pick steps. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}

/**
 * A voucher sale as a redemption records it (the vouchers feature owns the real redeem): a paid
 * invoice of channel `voucher`, its payment at the plan's price, and its grant, in one transaction.
 */
async function aVoucherSale(app: TestApp, plan: PlanRow): Promise<void> {
  const deps = app.app.deps;
  await deps.db.transaction().execute(async (tx: Db) => {
    const now = deps.clock.now();
    const sequence = await nextSequence(tx);
    const invoice = {
      id: uuid(),
      number: invoiceNumber(
        deps.config.invoicePrefix,
        sequence,
        randomBytes(4).toString('hex').toUpperCase(),
      ),
      sequence,
      plan_id: plan.id,
      phone: '',
      amount_tzs: plan.price_tzs,
      duration_seconds: plan.duration_seconds,
      data_limit_bytes: plan.data_limit_bytes,
      max_devices: plan.max_devices,
      download_kbps: plan.download_kbps,
      upload_kbps: plan.upload_kbps,
      status: 'paid',
      purchase_key_hash: sha256Hex(randomBytes(16)),
      provider: 'voucher',
      provider_reference: null,
      failure_reason: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      paid_at: now.toISOString(),
      site_id: plan.site_id,
      channel: 'voucher',
      sold_by: null,
    };
    await tx.insertInto('invoices').values(invoice).execute();
    await issue(tx, deps, { invoice, paidAt: now });
    await tx
      .insertInto('payments')
      .values({
        id: uuid(),
        invoice_id: invoice.id,
        channel: 'voucher',
        provider: 'voucher',
        provider_reference: null,
        amount_tzs: plan.price_tzs,
        phone: null,
        event_id: `voucher:${invoice.id}`,
        paid_at: now.toISOString(),
      })
      .execute();
  });
}

/** The payments table since `since`, per channel. */
async function paymentsSince(app: TestApp, since: string): Promise<Ledger> {
  const rows = await app.app.deps.db
    .selectFrom('payments')
    .select(['channel', 'amount_tzs', 'paid_at'])
    .execute();
  const ledger = emptyLedger();
  for (const r of rows)
    if (r.paid_at >= since) {
      const c = ledger[r.channel as Channel];
      c.sales += 1;
      c.revenue_tzs += r.amount_tzs;
    }
  return ledger;
}

const emptyLedger = (): Ledger =>
  Object.fromEntries(CHANNELS.map((c) => [c, { sales: 0, revenue_tzs: 0 }])) as Ledger;

const SEEDS = process.env.MONEY_SEED ? [Number(process.env.MONEY_SEED)] : [1, 2, 3];
const STEPS = 30;

for (const seed of SEEDS)
  t.test(
    `seed ${String(seed)}: the overview's revenue equals the payments table, per channel and in total`,
    async (t) => {
      const rnd = random(seed);
      // 23:45 in Dar es Salaam: the venue's day turns over during the run, and yesterday's sales drop out of today.
      const app = await startTestApp(t, { clock: new ManualClock('2026-01-15T20:45:00Z') });
      const operator = await staffClient(app, 'operator');
      const admin = await staffClient(app, 'admin');
      const plans = [
        await aPlan(app.app, { price_tzs: 1000 }),
        await aPlan(app.app, { name: 'Day', price_tzs: 5000, duration_seconds: 86400 }),
      ];
      /** What the test took, all time, per channel: its own ledger, independent of the app. */
      const taken = emptyLedger();
      const pendingInvoices: { id: string; amount: number }[] = [];
      const grants: string[] = [];
      const steps: string[] = [];

      for (let step = 0; step < STEPS; step++) {
        const plan = rnd.pick(plans);
        const kind = rnd.pick([
          'portal',
          'portal_pending',
          'cash',
          'complimentary',
          'voucher',
          'revoke',
          'mark_paid',
          'time',
        ] as const);
        steps.push(kind);
        switch (kind) {
          case 'portal': {
            const started = await postPurchase(
              app.base,
              { plan_id: plan.id, phone: '0712345678' },
              aPurchaseKey(),
            );
            const number = started.body.data?.invoice_number ?? '';
            t.equal((await postSandboxEvent(app, succeeded(number, plan.price_tzs))).status, 200);
            taken.mobile_money.sales += 1;
            taken.mobile_money.revenue_tzs += plan.price_tzs;
            break;
          }
          case 'portal_pending': {
            const started = await postPurchase(
              app.base,
              { plan_id: plan.id, phone: '0712345679' },
              aPurchaseKey(),
            );
            pendingInvoices.push({ id: started.body.data?.invoice_id ?? '', amount: plan.price_tzs });
            break;
          }
          case 'cash': {
            const amount = 1 + rnd.int(20_000);
            const res = await operator.post('/api/v1/admin/grants', {
              plan_id: plan.id,
              channel: 'cash',
              amount_tzs: amount,
            });
            t.equal(res.status, 201);
            grants.push(res.body.data.grant.id);
            taken.cash.sales += 1;
            taken.cash.revenue_tzs += amount;
            break;
          }
          case 'complimentary': {
            const res = await operator.post('/api/v1/admin/grants', {
              plan_id: plan.id,
              channel: 'complimentary',
            });
            t.equal(res.status, 201);
            grants.push(res.body.data.grant.id);
            taken.complimentary.sales += 1;
            break;
          }
          case 'voucher':
            await aVoucherSale(app, plan);
            taken.voucher.sales += 1;
            taken.voucher.revenue_tzs += plan.price_tzs;
            break;
          case 'revoke': {
            // Revoking takes access away, never money back: revenue is unchanged.
            if (grants.length === 0) break;
            const res = await operator.post(`/api/v1/admin/grants/${rnd.pick(grants)}/revoke`, {
              reason: 'property',
            });
            t.equal(res.status, 200);
            break;
          }
          case 'mark_paid': {
            const invoice = pendingInvoices.shift();
            if (!invoice) break;
            const res = await admin.post(`/api/v1/admin/invoices/${invoice.id}/mark-paid`, {
              reason: 'receipt shown',
            });
            t.equal(res.status, 200);
            taken.mobile_money.sales += 1;
            taken.mobile_money.revenue_tzs += invoice.amount;
            break;
          }
          case 'time':
            // At most 10 hours in all: the staff sessions (12 hours) stay signed in.
            app.clock.advance(`${String(1 + rnd.int(20))}m`);
            break;
        }

        const today = (await operator.get('/api/v1/admin/overview')).body.data.today as {
          since: string;
          sales: number;
          revenue_tzs: number;
          by_channel: Ledger;
        };
        const table = await paymentsSince(app, today.since);
        const context = `seed ${String(seed)} after ${steps.join(',')}`;
        t.same(today.by_channel, table, `per channel: ${context}`);
        t.equal(
          today.sales,
          CHANNELS.reduce((n, c) => n + table[c].sales, 0),
          `sales in total: ${context}`,
        );
        t.equal(
          today.revenue_tzs,
          CHANNELS.reduce((n, c) => n + table[c].revenue_tzs, 0),
          `revenue in total: ${context}`,
        );
        t.same(await paymentsSince(app, ''), taken, `the payments table is what was taken: ${context}`);
      }
      t.ok(steps.includes('time'), 'the day turned over at least once (or time moved)');
    },
  );
