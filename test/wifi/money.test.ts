import t from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import type { PlanRow } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { jsonRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aPurchaseKey, postPurchase, postSandboxEvent, succeeded } from '../helpers/wifi.js';

/**
 * Money adds up (DESIGN.md §4.8): random sequences of sales through every channel (vouchers
 * redeemed for real from batches the admin API made), revocations of grants and of unused codes,
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

/** A batch of codes for `plan`, made through the admin API; the codes come back once. */
async function aBatch(admin: Client, plan: PlanRow, count: number): Promise<Code[]> {
  const res = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return (res.body.data as { codes: Code[] }).codes;
}
type Code = { id: string; code: string };

/** A guest redeems a code on the public API, as the portal does. */
const redeem = (app: TestApp, code: string) =>
  jsonRequest(`${app.base}/api/v1/public/vouchers/redeem`, { method: 'POST', body: { code } });

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
      /** Printed codes not yet used, per plan, and codes revoked before use. */
      const unused = new Map<string, Code[]>();
      for (const plan of plans) unused.set(plan.id, await aBatch(admin, plan, STEPS));
      const revokedCodes: string[] = [];

      for (let step = 0; step < STEPS; step++) {
        const plan = rnd.pick(plans);
        // Once, half-way, time moves on: the venue's day turns over during every run.
        const kind =
          step === STEPS / 2
            ? 'time'
            : rnd.pick([
                'portal',
                'portal_pending',
                'cash',
                'complimentary',
                'voucher',
                'voucher_revoked',
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
          case 'voucher': {
            // Sold for cash at the bar earlier; the money counts when the guest redeems it.
            const res = await redeem(app, unused.get(plan.id)?.shift()?.code ?? '');
            t.equal(res.status, 200, JSON.stringify(res.body));
            taken.voucher.sales += 1;
            taken.voucher.revenue_tzs += plan.price_tzs;
            break;
          }
          case 'voucher_revoked': {
            // A code revoked before use (a lost card) is refused and takes no money.
            const lost = unused.get(plan.id)?.pop();
            if (lost) {
              t.equal((await admin.post(`/api/v1/admin/vouchers/${lost.id}/revoke`)).status, 200);
              revokedCodes.push(lost.code);
            }
            const refused = revokedCodes[rnd.int(revokedCodes.length)];
            if (refused) t.equal((await redeem(app, refused)).status, 409, 'a revoked code is refused');
            break;
          }
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
      for (const kind of ['voucher', 'voucher_revoked'])
        t.ok(steps.includes(kind), `the run had a ${kind} step: ${steps.join(',')}`);
    },
  );
