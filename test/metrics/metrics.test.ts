import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { watchRouters } from '../../src/wifi/index.js';
import { acctRequest, aGuest, papRequest, quietRadiusApp, radclient } from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPlan, postPurchase, postSandboxEvent, succeeded } from '../helpers/wifi.js';

const FROM_AFAR = { 'X-Forwarded-For': '10.99.0.7' }; // believed: the tests' peer is loopback (TRUST_PROXY)

type Families = ReturnType<typeof parsePrometheusTextFormat>;

/** GET /metrics, parsed by a Prometheus text-format parser (it throws on a malformed line). */
async function scrape(base: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/metrics`, { headers });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    families: res.status === 200 ? parsePrometheusTextFormat(text) : ([] as Families),
  };
}

/** The value of `name`'s sample whose labels include `labels` (undefined when none). */
function value(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : undefined;
}

t.test('GET /metrics is off by default: 404', async (t) => {
  const app = await startTestApp(t);
  const res = await fetch(`${app.base}/metrics`);
  t.equal(res.status, 404);
});

t.test(
  'METRICS=on: Prometheus text for loopback and staff, 403 to others; the RADIUS counters move',
  async (t) => {
    const app = await quietRadiusApp(t, { env: { METRICS: 'on' } });
    const guest = await aGuest(app);

    const before = await scrape(app.base);
    t.equal(before.status, 200);
    t.equal(before.type, 'text/plain; version=0.0.4; charset=utf-8');
    const byName = new Map(before.families.map((f) => [f.name, f]));
    t.match(byName.get('hotspot_radius_requests_total'), { type: 'COUNTER', help: /this daemon's/ });
    t.match(byName.get('hotspot_sessions_open'), { type: 'GAUGE', help: /shared database/ });
    t.equal(value(before.families, 'hotspot_radius_requests_total', { kind: 'access', result: 'accept' }), 0);
    t.equal(value(before.families, 'hotspot_grants_live'), 1, 'the guest has a live grant');
    t.equal(value(before.families, 'hotspot_sessions_open'), 0);
    t.equal(value(before.families, 'hotspot_invoices', { status: 'paid' }), 1);
    t.ok((value(before.families, 'process_resident_memory_bytes') ?? 0) > 0, 'the process RSS');
    const paymentChannels = byName.get('hotspot_payments')?.metrics.length ?? 0;
    t.equal(paymentChannels, 1, 'the payment, under its channel');

    const accepted = await radclient(app.auth, 'auth', papRequest(guest.username, guest.password));
    t.match(accepted.replies, [{ code: 'Access-Accept' }], accepted.output);
    const started = await radclient(
      app.acct,
      'acct',
      acctRequest(guest.username, undefined, ['Acct-Status-Type = Start']),
    );
    t.match(started.replies, [{ code: 'Accounting-Response' }], started.output);

    const after = await scrape(app.base);
    t.equal(value(after.families, 'hotspot_radius_requests_total', { kind: 'access', result: 'accept' }), 1);
    t.equal(
      value(after.families, 'hotspot_radius_requests_total', { kind: 'accounting', result: 'answered' }),
      1,
    );
    t.equal(value(after.families, 'hotspot_sessions_open'), 1, 'the session is open');

    const stranger = await scrape(app.base, FROM_AFAR);
    t.equal(stranger.status, 403, 'a client elsewhere without a staff session is refused');
    const staff = await staffClient(app, 'viewer');
    const seen = await scrape(app.base, { ...FROM_AFAR, Cookie: staff.cookieHeader() });
    t.equal(seen.status, 200, 'a signed-in staff member elsewhere gets them');
    t.equal(value(seen.families, 'hotspot_sessions_open'), 1);
  },
);

t.test(
  'hotspot_payments_total counts outcomes as they happen and never goes down; hotspot_job_runs_total counts runs',
  async (t) => {
    const app = await startTestApp(t, { env: { METRICS: 'on' } });
    const outcomes = async () => {
      const { families } = await scrape(app.base);
      return {
        paid: value(families, 'hotspot_payments_total', { outcome: 'paid' }),
        failed: value(families, 'hotspot_payments_total', { outcome: 'failed' }),
        expired: value(families, 'hotspot_payments_total', { outcome: 'expired' }),
        expiredNow: value(families, 'hotspot_invoices', { status: 'expired' }) ?? 0,
        expireRuns: value(families, 'hotspot_job_runs_total', { job: 'invoices.expire' }),
        families,
      };
    };
    const start = await outcomes();
    t.same([start.paid, start.failed, start.expired], [0, 0, 0], 'every outcome from 0, before any happens');
    t.match(
      start.families.find((f) => f.name === 'hotspot_payments_total'),
      { type: 'COUNTER', help: /by outcome: paid .*failed, expired \(this daemon's/ },
    );
    t.match(
      start.families.find((f) => f.name === 'hotspot_job_runs_total'),
      {
        type: 'COUNTER',
        help: /this daemon's/,
      },
    );
    t.equal(start.expireRuns, undefined, 'no job has run yet');

    const plan = await aPlan(app.app);
    const buy = async () => {
      const res = await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' });
      if (!res.body.data) throw new Error(JSON.stringify(res.body));
      return res.body.data;
    };
    const declined = await buy();
    const abandoned = await buy();
    const fail = await postSandboxEvent(app, {
      id: 'evt_declined',
      type: 'payment.failed',
      data: { invoice_number: declined.invoice_number },
    });
    t.equal(fail.status, 200, fail.text);
    t.match(await outcomes(), { paid: 0, failed: 1, expired: 0 });

    app.clock.advance('16m');
    await app.app.scheduler.trigger('invoices.expire');
    t.match(await outcomes(), { paid: 0, failed: 1, expired: 1, expiredNow: 1, expireRuns: 1 });

    // Both paid late (a success is honoured after a failure or the expiry): the statuses move
    // on, the counters of what happened stay.
    for (const invoice of [declined, abandoned]) {
      const paid = await postSandboxEvent(app, succeeded(invoice.invoice_number, plan.price_tzs));
      t.equal(paid.status, 200, paid.text);
    }
    await app.app.scheduler.trigger('invoices.expire');
    t.match(await outcomes(), {
      paid: 2,
      failed: 1,
      expired: 1,
      expiredNow: 0,
      expireRuns: 2,
    });
    // A repeated event changes nothing.
    await postSandboxEvent(app, succeeded(abandoned.invoice_number, plan.price_tzs));
    t.match(await outcomes(), { paid: 2 });
  },
);

t.test('HTTP requests are counted by method, route template and status', async (t) => {
  const app = await startTestApp(t, { env: { METRICS: 'on' } });
  for (let i = 0; i < 3; i++) t.equal((await fetch(`${app.base}/healthz`)).status, 200);
  const unknownInvoice = await fetch(`${app.base}/api/v1/public/purchases/${crypto.randomUUID()}`);
  t.equal(unknownInvoice.status, 404);
  await fetch(`${app.base}/api/v1/public/purchases/${crypto.randomUUID()}`);
  t.equal((await fetch(`${app.base}/no/such/page`)).status, 404);

  const { families } = await scrape(app.base);
  const http = families.find((f) => f.name === 'hotspot_http_requests_total');
  t.match(http, { type: 'COUNTER', help: /this daemon's/ });
  t.equal(
    value(families, 'hotspot_http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    3,
  );
  t.equal(
    value(families, 'hotspot_http_requests_total', {
      method: 'GET',
      route: '/api/v1/public/purchases/:invoiceId',
      status: '404',
    }),
    2,
    'by the route template, not the path: one series for every invoice id',
  );
  t.equal(
    value(families, 'hotspot_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    1,
  );
  t.notOk(
    http?.metrics.some((m) => /[0-9a-f]{8}-/.test(m.labels?.route ?? '')),
    'no id in any route label',
  );
  const again = await scrape(app.base);
  t.equal(
    value(again.families, 'hotspot_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }),
    1,
    'the scrape before this one, counted once it was answered',
  );
});

t.test(
  'a scraper elsewhere reads /metrics with the token `metrics token` made, until replaced or revoked',
  async (t) => {
    const app = await startTestApp(t, { env: { METRICS: 'on' } });
    const env = cliEnv(app.dataDir, { METRICS: 'on' });
    const bearer = (token: string) => ({ ...FROM_AFAR, Authorization: `Bearer ${token}` });

    t.equal((await scrape(app.base, bearer('hsm_guessed'))).status, 403, 'no token made yet: refused');
    t.match(JSON.parse((await runCli(['metrics', 'show', '--json'], env)).stdout), {
      metrics: 'on',
      token_created_at: null,
    });

    const made = await runCli(['metrics', 'token', '--json'], env);
    t.equal(made.code, 0, made.stderr);
    const first = (JSON.parse(made.stdout) as { token: string }).token;
    t.match(first, /^hsm_[A-Za-z0-9_-]{43}$/);
    t.match(made.stderr, /credentials_file/, 'it says how Prometheus presents it');
    const scraped = await scrape(app.base, bearer(first));
    t.equal(scraped.status, 200, 'the token opens /metrics from another box');
    t.ok(scraped.families.some((f) => f.name === 'hotspot_sessions_open'));
    t.equal((await scrape(app.base, bearer(`${first}x`))).status, 403, 'a wrong token is refused');
    t.equal((await scrape(app.base, { ...FROM_AFAR, Authorization: first })).status, 403, 'not as Bearer');
    const shown = await runCli(['metrics', 'show'], env);
    t.match(shown.stdout, /scrape token: made \d{4}-/);
    t.notMatch(shown.stdout, first, 'show never prints the token');

    const second = (
      JSON.parse((await runCli(['metrics', 'token', '--json'], env)).stdout) as { token: string }
    ).token;
    t.not(second, first);
    t.equal((await scrape(app.base, bearer(first))).status, 403, 'a new token ends the old one');
    t.equal((await scrape(app.base, bearer(second))).status, 200);

    const revoked = await runCli(['metrics', 'revoke', '--json'], env);
    t.same(JSON.parse(revoked.stdout), { revoked: true });
    t.equal((await scrape(app.base, bearer(second))).status, 403, 'revoked: refused');
    t.same(JSON.parse((await runCli(['metrics', 'revoke', '--json'], env)).stdout), { revoked: false });
    t.equal((await scrape(app.base)).status, 200, 'loopback still reads it');
  },
);

t.test(
  'hotspot_router_online: one sample per router not archived, 1 online, 0 silent or reported down',
  async (t) => {
    const app = await quietRadiusApp(t, { env: { METRICS: 'on' } });
    const bar = await aDevice(app.app, {
      name: 'Bar "AP"',
      mac_address: 'AA:BB:CC:DD:EE:02',
      radius_nas_id: 'bar-01',
    });
    const cellar = await aDevice(app.app, {
      name: 'Cellar AP',
      mac_address: 'AA:BB:CC:DD:EE:03',
      radius_nas_id: 'cellar-01',
    });
    const admin = await staffClient(app, 'admin');
    const archived = await admin.post(`/api/v1/admin/devices/${cellar.device.id}/archive`, {});
    t.equal(archived.status, 200, JSON.stringify(archived.body));
    const online = (families: Families) =>
      Object.fromEntries(
        (families.find((f) => f.name === 'hotspot_router_online')?.metrics ?? []).map((m) => [
          m.labels?.router ?? '?',
          { value: Number(m.value), id: m.labels?.router_id, site: m.labels?.site_id },
        ]),
      );

    const first = await scrape(app.base);
    t.match(
      first.families.find((f) => f.name === 'hotspot_router_online'),
      {
        type: 'GAUGE',
        help: /devices page/,
      },
    );
    t.same(
      online(first.families),
      {
        'Lobby AP': { value: 0, id: app.deviceId, site: 'default' },
        'Bar "AP"': { value: 0, id: bar.device.id, site: 'default' },
      },
      'never heard from: 0; the archived router has no sample; a quote in a name survives the parser',
    );

    const guest = await aGuest(app);
    const started = await radclient(
      app.acct,
      'acct',
      acctRequest(guest.username, 'm1', ['Acct-Status-Type = Start']),
    );
    t.match(started.replies, [{ code: 'Accounting-Response' }], started.output);
    await app.app.radius.flushLastSeen();
    t.equal(online((await scrape(app.base)).families)['Lobby AP']?.value, 1, 'heard from: 1');

    app.clock.advance('11m');
    const before = await scrape(app.base);
    t.equal(online(before.families)['Lobby AP']?.value, 1, 'silent 11 minutes, still in the online window');
    const run = await watchRouters(app.app.deps);
    t.equal(run.down.length, 1, 'the router-down job reports it');
    t.equal(
      online((await scrape(app.base)).families)['Lobby AP']?.value,
      0,
      'reported down: 0, as the page shows Down',
    );
  },
);
