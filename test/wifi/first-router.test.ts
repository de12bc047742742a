import t from 'tap';
import type { TestApp } from '../helpers/app.js';
import { acctRequest, NAS_ID, quietRadiusApp, radclient, SECRET } from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPaidPurchase, aPlan, credentialsOf } from '../helpers/wifi.js';

/**
 * Revenue by router (docs/decisions/0045-first-router.md): a sale counts for the router its guest
 * first came online on, as the accounting path records it (invoices.first_device_id, migration
 * 0040). Through RADIUS accounting sent by radclient from two routers and the admin report API.
 */

const BAR = 'bar-01';

/** An Accounting-Request of `username`'s session `session` from the router `nasId`. */
const acct = (nasId: string, username: string, session: string, lines: string[]) =>
  acctRequest(username, session, lines).replace(
    `NAS-Identifier = "${NAS_ID}"`,
    `NAS-Identifier = "${nasId}"`,
  );

/** A paid sale of a plan at `price`: its invoice and its guest's username. */
async function aSale(app: TestApp, price: number) {
  const sale = await aPaidPurchase(app, await aPlan(app.app, { price_tzs: price }));
  return { invoiceId: sale.invoiceId, ...(await credentialsOf(app, sale.invoiceId, sale.key)) };
}

t.test(
  'a sale counts for the router of its first session; later sessions elsewhere, a refund and a sale never online',
  async (t) => {
    const app = await quietRadiusApp(t);
    const { device: bar } = await aDevice(app.app, {
      name: 'Bar',
      radius_secret: SECRET,
      radius_nas_id: BAR,
      mac_address: '02:00:00:00:00:0b',
      local_network: '10.5.50.0/24',
      radius_client_ip: '10.5.50.1',
    });
    const send = async (nasId: string, username: string, session: string, lines: string[]) => {
      const run = await radclient(app.acct, 'acct', acct(nasId, username, session, lines));
      t.match(run.replies, [{ code: 'Accounting-Response' }], run.output);
    };
    const firstRouters = async () =>
      Object.fromEntries(
        (await app.app.deps.db.selectFrom('invoices').select(['id', 'first_device_id']).execute()).map(
          (i) => [i.id, i.first_device_id],
        ),
      );
    const lobbyFirst = await aSale(app, 1000);
    const barFirst = await aSale(app, 3000);
    const neverOnline = await aSale(app, 5000);
    const invoices = {
      lobbyFirst: lobbyFirst.invoiceId,
      barFirst: barFirst.invoiceId,
      neverOnline: neverOnline.invoiceId,
    };
    t.same(
      await firstRouters(),
      { [invoices.lobbyFirst]: null, [invoices.barFirst]: null, [invoices.neverOnline]: null },
      'no sale has a router before its guest comes online',
    );

    await send(NAS_ID, lobbyFirst.username, 'lobby-1', ['Acct-Status-Type = Start']);
    app.clock.advance('5m');
    await send(BAR, barFirst.username, 'bar-1', ['Acct-Status-Type = Start']);
    await send(NAS_ID, lobbyFirst.username, 'lobby-1', [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 300',
    ]);
    app.clock.advance('5m');
    // Each guest moves to the other router: a new session there, the first one stays the sale's.
    await send(NAS_ID, lobbyFirst.username, 'lobby-1', [
      'Acct-Status-Type = Stop',
      'Acct-Session-Time = 600',
    ]);
    await send(BAR, lobbyFirst.username, 'bar-2', ['Acct-Status-Type = Start']);
    await send(BAR, barFirst.username, 'bar-1', ['Acct-Status-Type = Stop', 'Acct-Session-Time = 300']);
    await send(NAS_ID, barFirst.username, 'lobby-2', ['Acct-Status-Type = Start']);
    await send(NAS_ID, barFirst.username, 'lobby-2', ['Acct-Status-Type = Stop', 'Acct-Session-Time = 60']);
    t.same(
      await firstRouters(),
      {
        [invoices.lobbyFirst]: app.deviceId,
        [invoices.barFirst]: bar.id,
        [invoices.neverOnline]: null,
      },
      'each sale keeps the router of its first session',
    );

    const admin = await staffClient(app, 'admin');
    app.clock.advance('1m');
    const refund = await admin.post(`/api/v1/admin/invoices/${invoices.barFirst}/refund`, {
      reason: 'guest left',
    });
    t.equal(refund.status, 200, JSON.stringify(refund.body));

    const report = await admin.get('/api/v1/admin/reports/revenue?from=2026-01-15&to=2026-01-15');
    t.equal(report.status, 200, JSON.stringify(report.body));
    const byRouter = (report.body.data as { tables: { by_router: { rows: Record<string, unknown>[] } } })
      .tables.by_router.rows;
    t.same(
      byRouter.map(({ device_id, sales, refunds, revenue_tzs }) => ({
        device_id,
        sales,
        refunds,
        revenue_tzs,
      })),
      [
        { device_id: null, sales: 1, refunds: 0, revenue_tzs: 5000 },
        { device_id: app.deviceId, sales: 1, refunds: 0, revenue_tzs: 1000 },
        { device_id: bar.id, sales: 1, refunds: 1, revenue_tzs: 0 },
      ],
      'the sale never online, the lobby’s sale, and the bar’s sale with its refund',
    );
  },
);
