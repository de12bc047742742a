import t from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import type { PlanRow } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { seeded } from '../helpers/report-data.js';
import { jsonRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan, aPurchaseKey, postPurchase, postSandboxEvent, succeeded } from '../helpers/wifi.js';

/**
 * Money adds up (DESIGN.md §4.8): random sequences of sales through every channel (vouchers
 * redeemed for real from batches the admin API made), revocations of grants and of unused codes,
 * invoices marked paid by hand, and refunds by hand (docs/decisions/0035), with refused ones (a
 * second refund, an operator's); after each step the overview's revenue (net of refunds), sales
 * and refunds per channel and in total must equal the payments table, and the payments table must
 * equal what the test itself took and gave back. Seeded, so a failure names the seed that
 * reproduces it (MONEY_SEED=<n> to run one).
 */

const CHANNELS = ['mobile_money', 'voucher', 'cash', 'complimentary'] as const;
type Channel = (typeof CHANNELS)[number];
interface Takings {
  sales: number;
  revenue_tzs: number;
  refunds: number;
  refunded_tzs: number;
}
type Ledger = Record<Channel, Takings>;
/** A sale that took money, which an admin may refund. */
type Refundable = { invoiceId: string; channel: Channel; amount: number };

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

/** The payments table since `since`, per channel: sales and refunds counted apart, revenue net. */
async function paymentsSince(app: TestApp, since: string): Promise<Ledger> {
  const rows = await app.app.deps.db
    .selectFrom('payments')
    .select(['channel', 'kind', 'amount_tzs', 'paid_at'])
    .execute();
  const ledger = emptyLedger();
  for (const r of rows)
    if (r.paid_at >= since) {
      const c = ledger[r.channel as Channel];
      if (r.kind === 'refund') {
        c.refunds += 1;
        c.refunded_tzs -= r.amount_tzs;
      } else c.sales += 1;
      c.revenue_tzs += r.amount_tzs;
    }
  return ledger;
}

const emptyLedger = (): Ledger =>
  Object.fromEntries(
    CHANNELS.map((c) => [c, { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 }]),
  ) as Ledger;

const sum = (ledger: Ledger, figure: keyof Takings): number =>
  CHANNELS.reduce((n, c) => n + ledger[c][figure], 0);

const SEEDS = process.env.MONEY_SEED ? [Number(process.env.MONEY_SEED)] : [1, 2, 3];
const STEPS = 30;

for (const seed of SEEDS)
  t.test(
    `seed ${String(seed)}: the overview's revenue equals the payments table, per channel and in total`,
    async (t) => {
      const rnd = seeded(seed);
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
      const refundable: Refundable[] = [];
      const refunded: Refundable[] = [];
      let refusedRefunds = 0;
      /** A sale that took money: in the test's ledger, and refundable from now on. */
      const sold = (sale: Refundable) => {
        taken[sale.channel].sales += 1;
        taken[sale.channel].revenue_tzs += sale.amount;
        if (sale.amount > 0) refundable.push(sale);
      };
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
                'refund',
                'refund_refused',
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
            sold({
              invoiceId: started.body.data?.invoice_id ?? '',
              channel: 'mobile_money',
              amount: plan.price_tzs,
            });
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
            sold({ invoiceId: res.body.data.invoice.id, channel: 'cash', amount });
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
            const { username } = (res.body as { data: { username: string } }).data;
            const grant = await app.app.deps.db
              .selectFrom('grants')
              .select('invoice_id')
              .where('username', '=', username)
              .executeTakeFirstOrThrow();
            sold({ invoiceId: grant.invoice_id, channel: 'voucher', amount: plan.price_tzs });
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
            sold({ invoiceId: invoice.id, channel: 'mobile_money', amount: invoice.amount });
            break;
          }
          case 'refund': {
            // The venue gave the money back: the sale stays counted, its money comes off revenue.
            const sale = refundable.splice(rnd.int(refundable.length), 1)[0];
            if (!sale) break;
            const res = await admin.post(`/api/v1/admin/invoices/${sale.invoiceId}/refund`, {
              reason: 'property refund',
            });
            t.equal(res.status, 200, JSON.stringify(res.body));
            taken[sale.channel].refunds += 1;
            taken[sale.channel].refunded_tzs += sale.amount;
            taken[sale.channel].revenue_tzs -= sale.amount;
            refunded.push(sale);
            break;
          }
          case 'refund_refused': {
            // A second refund, and an operator's: refused, and nothing moves (checked below).
            const again = refunded[rnd.int(refunded.length)];
            if (again) {
              refusedRefunds++;
              const res = await admin.post(`/api/v1/admin/invoices/${again.invoiceId}/refund`, {
                reason: 'twice',
              });
              t.equal(res.status, 409, 'a refund is made once');
            }
            const sale = refundable[rnd.int(refundable.length)];
            if (sale)
              t.equal(
                (await operator.post(`/api/v1/admin/invoices/${sale.invoiceId}/refund`, { reason: 'x' }))
                  .status,
                403,
                'operators do not refund',
              );
            break;
          }
          case 'time':
            // At most 10 hours in all: the staff sessions (12 hours) stay signed in.
            app.clock.advance(`${String(1 + rnd.int(20))}m`);
            break;
        }

        const today = (await operator.get('/api/v1/admin/overview')).body.data.today as Takings & {
          since: string;
          by_channel: Ledger;
        };
        const table = await paymentsSince(app, today.since);
        const context = `seed ${String(seed)} after ${steps.join(',')}`;
        t.same(today.by_channel, table, `per channel: ${context}`);
        for (const figure of ['sales', 'revenue_tzs', 'refunds', 'refunded_tzs'] as const)
          t.equal(today[figure], sum(table, figure), `${figure} in total: ${context}`);
        t.same(await paymentsSince(app, ''), taken, `the payments table is what was taken: ${context}`);
      }
      t.ok(refunded.length > 0, `the run refunded a sale: ${steps.join(',')}`);
      t.ok(refusedRefunds > 0, `the run was refused a second refund: ${steps.join(',')}`);
      for (const kind of ['voucher', 'voucher_revoked', 'refund_refused'])
        t.ok(steps.includes(kind), `the run had a ${kind} step: ${steps.join(',')}`);
    },
  );
