import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { sendStaffSmsForTest } from '../helpers/staff-sms.js';
import { startTestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { aDevice, aLiveSession, aPaidPurchase, aPlan, aPurchaseKey, postPurchase } from '../helpers/wifi.js';
import { STAFF_PASSWORD, staffClient } from '../helpers/staff.js';
import { Client } from '../helpers/client.js';
import { CoaListener } from '../helpers/coa-listener.js';
import { aGuest } from '../helpers/radius.js';
import { addStaff } from '../../src/identity/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { deviceByNasId } from '../../src/wifi/index.js';

const device = {
  name: 'Lobby AP',
  model: 'MikroTik hAP ac2',
  mac_address: 'AA:BB:CC:DD:EE:01',
  local_network: '10.1.0.0/24',
  uam_server: 'http://10.1.0.10:8080/portal',
  radius_nas_id: 'lobby-01',
  radius_client_ip: '10.1.0.1',
  coa_port: 3799,
};

t.test(
  'plans: create, validation, PATCH replaces what is given and re-activates when active is omitted',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const created = await admin.post('/api/v1/admin/plans', {
      name: 'Day',
      description: 'All day',
      price_tzs: 3000,
      duration_seconds: 86400,
      data_limit_bytes: 2e9,
    });
    t.equal(created.status, 201);
    t.match(created.body.data, {
      name: 'Day',
      price_tzs: 3000,
      duration_seconds: 86400,
      data_limit_bytes: 2e9,
      active: true,
    });
    const id = created.body.data.id as string;
    t.same(
      (await admin.post('/api/v1/admin/plans', { name: 'Cheap', price_tzs: 499, duration_seconds: 60 })).body,
      {
        message: 'price_tzs must be a whole number of at least 500',
      },
    );
    t.equal(
      (await admin.post('/api/v1/admin/plans', { name: 'X', price_tzs: 500, duration_seconds: 0 })).status,
      422,
    );
    t.equal(
      (
        await admin.post('/api/v1/admin/plans', {
          name: 'X',
          price_tzs: 500,
          duration_seconds: 60,
          data_limit_bytes: 0,
        })
      ).status,
      422,
    );
    t.same(
      (
        await admin.post('/api/v1/admin/plans', {
          name: 'X',
          price_tzs: 500,
          duration_seconds: 60,
          colour: 'red',
        })
      ).body,
      { message: 'invalid request body' },
    );
    const off = await admin.patch(`/api/v1/admin/plans/${id}`, { active: false });
    t.equal(off.body.data.active, false);
    const repriced = await admin.patch(`/api/v1/admin/plans/${id}`, { price_tzs: 2500 });
    t.match(
      repriced.body.data,
      { price_tzs: 2500, name: 'Day', active: true },
      'omitted active becomes true',
    );
    t.same(
      (await admin.patch('/api/v1/admin/plans/00000000-0000-0000-0000-000000000000', { price_tzs: 900 }))
        .body,
      { message: 'plan not found' },
    );
    t.equal((await admin.get('/api/v1/admin/plans')).body.data.length, 1, 'refused requests created nothing');
  },
);

t.test('devices: the RADIUS secret appears only when created or rotated', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const created = await admin.post('/api/v1/admin/devices', device);
  t.equal(created.status, 201);
  t.equal(created.headers.get('cache-control'), 'no-store');
  const secret = created.body.data.radius_secret as string;
  t.match(secret, /^[A-Za-z0-9]{16,}$/);
  t.equal(created.body.data.radius_secret_source, 'own');
  const id = created.body.data.id as string;
  const listed = await admin.get('/api/v1/admin/devices');
  t.notMatch(JSON.stringify(listed.body), secret);
  t.notOk('radius_secret' in listed.body.data[0]);
  const patched = await admin.patch(`/api/v1/admin/devices/${id}`, { name: 'Lobby AP 2', coa_port: 1700 });
  t.match(patched.body.data, { name: 'Lobby AP 2', coa_port: 1700, radius_nas_id: 'lobby-01' });
  t.notOk('radius_secret' in patched.body.data);
  t.equal(
    (await admin.patch(`/api/v1/admin/devices/${id}`, { radius_secret: 'mine' })).status,
    400,
    'secrets change through rotate-secret',
  );
  t.equal((await admin.patch(`/api/v1/admin/devices/${id}`, { mac_address: 'nope' })).status, 422);
  const rotated = await admin.post(`/api/v1/admin/devices/${id}/rotate-secret`);
  t.not(rotated.body.data.radius_secret, secret);
  t.equal((await admin.post('/api/v1/admin/devices', device)).status, 409, 'the same NAS id twice');
});

t.test(
  'devices: radius_secret null uses RADIUS_SECRET; rotate-secret gives the device its own again',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const global = app.config.radiusSecret;
    const created = await admin.post('/api/v1/admin/devices', { ...device, radius_secret: null });
    t.equal(created.status, 201);
    t.match(created.body.data, { radius_nas_id: 'lobby-01', radius_secret_source: 'global' });
    t.notOk('radius_secret' in created.body.data, 'no secret of its own to show');
    t.notMatch(JSON.stringify(created.body), global, 'and never the global one');
    const id = created.body.data.id as string;
    t.match(await deviceByNasId(app.app.deps, 'lobby-01'), { radiusSecret: global, secretSource: 'global' });
    t.match((await admin.get('/api/v1/admin/devices')).body.data, [{ id, radius_secret_source: 'global' }]);

    const rotated = await admin.post(`/api/v1/admin/devices/${id}/rotate-secret`);
    t.match(rotated.body.data, { radius_secret_source: 'own', radius_secret: /^[A-Za-z0-9]{24}$/ });
    t.match(await deviceByNasId(app.app.deps, 'lobby-01'), {
      radiusSecret: rotated.body.data.radius_secret as string,
      secretSource: 'own',
    });

    const back = await admin.patch(`/api/v1/admin/devices/${id}`, { radius_secret: null });
    t.equal(back.status, 200);
    t.match(back.body.data, { radius_secret_source: 'global' });
    t.notOk('radius_secret' in back.body.data);
    t.match(await deviceByNasId(app.app.deps, 'lobby-01'), { radiusSecret: global, secretSource: 'global' });
    t.same(
      await admin
        .patch(`/api/v1/admin/devices/${id}`, { radius_secret: 'typed-secret-01' })
        .then((r) => [r.status, r.body]),
      [400, { message: 'invalid request body' }],
      'a secret of its own comes only from rotate-secret',
    );
  },
);

t.test('guests, invoices and payments: newest first, documented fields, at most 200 rows', async (t) => {
  const app = await startTestApp(t);
  // An owner: whole phones (a viewer sees their last 3 digits: admin-lists.test.ts).
  const staff = await staffClient(app, 'owner');
  const plan = await aPlan(app.app, { price_tzs: 1500 });
  await aPaidPurchase(app, plan);
  app.clock.advance('1m');
  await postPurchase(app.base, { plan_id: plan.id, phone: '+255700000002' }, aPurchaseKey());
  const guests = (await staff.get('/api/v1/admin/guests')).body.data as Record<string, unknown>[];
  t.same(guests, [
    {
      phone: '+255700000002',
      purchases: 0,
      invoices: 1,
      spent_tzs: 0,
      first_seen: guests[0]!.first_seen,
      last_seen: guests[0]!.last_seen,
    },
    {
      phone: '+255712345678',
      purchases: 1,
      invoices: 1,
      spent_tzs: 1500,
      first_seen: guests[1]!.first_seen,
      last_seen: guests[1]!.last_seen,
    },
  ]);
  const invoices = (await staff.get('/api/v1/admin/invoices')).body.data as Record<string, unknown>[];
  t.same(Object.keys(invoices[0]!).sort(), [
    'amount_tzs',
    'channel',
    'created_at',
    'failure_reason',
    'id',
    'number',
    'paid_at',
    'phone',
    'plan_id',
    'plan_name',
    'provider',
    'provider_reference',
    'refunded_at',
    'site_id',
    'sold_by',
    // An addition (issue 21): who sold it at the counter, in words.
    'sold_by_name',
    'status',
  ]);
  t.same(
    invoices.map((i) => i.status),
    ['pending', 'paid'],
  );
  const payments = (await staff.get('/api/v1/admin/payments')).body.data as Record<string, unknown>[];
  t.match(payments, [{ amount_tzs: 1500, provider: 'sandbox', invoice_number: invoices[1]!.number }]);

  for (let i = 0; i < 205; i++)
    await postPurchase(
      app.base,
      { plan_id: plan.id, phone: `+2557000${String(i).padStart(5, '0')}` },
      aPurchaseKey(),
    );
  t.equal((await staff.get('/api/v1/admin/invoices')).body.data.length, 200);
  t.equal((await staff.get('/api/v1/admin/guests')).body.data.length, 200);
  for (let i = 0; i < 201; i++) {
    app.clock.advance('1s');
    await sendStaffSmsForTest(app, `sms ${String(i)}`);
  }
  const messages = (await staff.get('/api/v1/admin/messages')).body.data as { message: string }[];
  t.equal(messages.length, 200);
  t.equal(messages[0]?.message, 'sms 200', 'newest first');
});

t.test('payments: at most 200 rows, newest first', async (t) => {
  const app = await startTestApp(t);
  const viewer = await staffClient(app, 'viewer');
  const plan = await aPlan(app.app);
  const paid: string[] = [];
  for (let i = 0; i < 201; i++) {
    app.clock.advance('1s');
    paid.push((await aPaidPurchase(app, plan)).invoiceNumber);
  }
  const payments = (await viewer.get('/api/v1/admin/payments')).body.data as { invoice_number: string }[];
  t.equal(payments.length, 200);
  t.same(
    payments.map((p) => p.invoice_number),
    paid.slice(1).reverse(),
    'newest first; the oldest of the 201 is left out',
  );
});

t.test('plans and devices: the admin lists stop at 200 rows; the CLI lists show every one', async (t) => {
  const app = await startTestApp(t);
  const viewer = await staffClient(app, 'viewer');
  const n = (i: number) => String(i).padStart(3, '0');
  for (let i = 0; i < 201; i++) {
    await aPlan(app.app, { name: `Plan ${n(i)}`, sort_order: i });
    await aDevice(app.app, {
      name: `AP ${n(i)}`,
      mac_address: `02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
      radius_nas_id: `ap-${n(i)}`,
    });
  }
  const names = async (path: string) =>
    ((await viewer.get(path)).body.data as { name: string }[]).map((r) => r.name);
  const first200 = (prefix: string) => Array.from({ length: 200 }, (_, i) => `${prefix} ${n(i)}`);
  t.same(await names('/api/v1/admin/plans'), first200('Plan'), 'the first 200 plans in portal order');
  t.same(await names('/api/v1/admin/devices'), first200('AP'), 'the first 200 devices by name');

  const env = cliEnv(app.dataDir);
  for (const noun of ['plans', 'devices']) {
    const listed = await runCli([noun, 'list', '--json'], env);
    t.equal(listed.code, 0, listed.stderr);
    t.equal((JSON.parse(listed.stdout) as unknown[]).length, 201, `hotspot-ctl ${noun} list shows all 201`);
  }
});

t.test("overview: devices, sessions, pending invoices and the venue day's sales", async (t) => {
  // 22:30 UTC is 01:30 the next day in Dar es Salaam (UTC+3): "today" started 21:00 UTC.
  const app = await startTestApp(t, { clock: new ManualClock('2026-05-10T20:30:00Z') });
  const viewer = await staffClient(app, 'viewer');
  const admin = await staffClient(app, 'admin');
  await admin.post('/api/v1/admin/devices', device);
  const plan = await aPlan(app.app, { price_tzs: 2000 });
  await aPaidPurchase(app, plan); // 20:30 UTC: yesterday, venue time
  app.clock.advance('2h');
  await aPaidPurchase(app, plan);
  await aPaidPurchase(app, plan);
  await postPurchase(app.base, { plan_id: plan.id, phone: '0712000000' }, aPurchaseKey());
  const overview = (await viewer.get('/api/v1/admin/overview')).body.data;
  t.same(overview, {
    devices: 1,
    active_sessions: 0,
    pending_invoices: 1,
    live_grants: 2, // the first one-hour grant ran out at 21:30
    today: {
      since: '2026-05-10T21:00:00.000Z',
      timezone: 'Africa/Dar_es_Salaam',
      sales: 2,
      revenue_tzs: 4000,
      refunds: 0,
      refunded_tzs: 0,
      by_channel: {
        mobile_money: { sales: 2, revenue_tzs: 4000, refunds: 0, refunded_tzs: 0 },
        voucher: { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
        cash: { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
        complimentary: { sales: 0, revenue_tzs: 0, refunds: 0, refunded_tzs: 0 },
      },
    },
  });
});

t.test('portal config: endpoints and readiness, never a secret', async (t) => {
  const app = await startTestApp(t, {
    env: { PUBLIC_BASE_URL: 'https://wifi.venue.example', UAM_SECRET: 'uam-s3cret' },
  });
  const viewer = await staffClient(app, 'viewer');
  const config = (await viewer.get('/api/v1/admin/portal/config')).body.data;
  t.match(config, {
    api_base_url: 'https://wifi.venue.example/api/v1',
    portal_url: 'https://wifi.venue.example/portal',
    endpoints: {
      plans: 'https://wifi.venue.example/api/v1/public/plans',
      hotspot_login: 'https://wifi.venue.example/api/v1/public/purchases/{invoice_id}/hotspot-login',
      access_login: 'https://wifi.venue.example/api/v1/public/access/login',
      router_check: 'https://wifi.venue.example/api/v1/public/router',
      payment_webhook: 'https://wifi.venue.example/webhooks/sandbox',
    },
    payment_provider: { name: 'sandbox', ready: true, sandbox: true },
    radius: { listening: false, auth_port: null, acct_port: null },
    uam: { default_secret_set: true },
  });
  const text = JSON.stringify(config);
  for (const secret of [app.config.paymentWebhookSecret, app.config.radiusSecret, 'uam-s3cret'])
    t.notMatch(text, secret);
});

t.test('portal config: the RADIUS listener as it is, the ports bound or none', async (t) => {
  const app = await startTestApp(t, { radius: true });
  const viewer = await staffClient(app, 'viewer');
  const radius = async () =>
    ((await viewer.get('/api/v1/admin/portal/config')).body.data as { radius: unknown }).radius;
  t.same(await radius(), {
    listening: true,
    auth_port: app.config.radiusAuthPort,
    acct_port: app.config.radiusAcctPort,
  });
  await app.app.radius.close(); // as at shutdown, or had a socket gone
  t.same(
    await radius(),
    { listening: false, auth_port: null, acct_port: null },
    'not what the configuration says',
  );
});

t.test(
  'no admin response carries a secret; a device secret appears only in the answer that creates it',
  async (t) => {
    // A generic HTTP SMS gateway that accepts, so POST messages really uses SMS_HTTP_TOKEN.
    const gateway = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"id":"sms-1"}'));
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    t.teardown(() => gateway.close());
    const gatewayUrl = `http://127.0.0.1:${String((gateway.address() as AddressInfo).port)}/send`;
    const env = {
      UAM_SECRET: 'global-uam-secret',
      SMS_PROVIDER: 'http',
      SMS_HTTP_URL: gatewayUrl,
      SMS_HTTP_TOKEN: 'sms-http-token-0001',
      BEEM_API_KEY: 'beem-api-key-0001',
      BEEM_SECRET_KEY: 'beem-secret-key-0001',
      AFRICASTALKING_API_KEY: 'africastalking-api-key-0001',
    };
    const app = await startTestApp(t, { env });
    await addStaff(app.app.deps, { email: 'owner@venue.test', role: 'owner', password: STAFF_PASSWORD });
    const owner = new Client(app.base);
    const responses: { label: string; text: string }[] = [];
    const keep = async (label: string, res: Promise<{ status: number; body: unknown }>) => {
      const answer = await res;
      t.ok(answer.status < 300, `${label}: ${String(answer.status)}`);
      responses.push({ label, text: JSON.stringify(answer.body) });
      return answer.body as { data: Record<string, unknown> };
    };

    await keep(
      'login',
      owner.post('/api/v1/admin/auth/login', { email: 'owner@venue.test', password: STAFF_PASSWORD }),
    );
    const plan = await keep(
      'POST plan',
      owner.post('/api/v1/admin/plans', { name: 'Hour', price_tzs: 1000, duration_seconds: 3600 }),
    );
    await keep('PATCH plan', owner.patch(`/api/v1/admin/plans/${String(plan.data.id)}`, { price_tzs: 1500 }));
    const created = await keep(
      'POST device',
      owner.post('/api/v1/admin/devices', {
        ...device,
        radius_client_ip: '127.0.0.1',
        uam_secret: 'device-uam-secret',
      }),
    );
    const deviceId = String(created.data.id);
    const rotated = await keep(
      'rotate-secret',
      owner.post(`/api/v1/admin/devices/${deviceId}/rotate-secret`),
    );
    const firstSecret = String(created.data.radius_secret);
    const deviceSecret = String(rotated.data.radius_secret);
    const router = new CoaListener(deviceSecret);
    const coaPort = await router.listen();
    t.teardown(() => router.close());
    await keep('PATCH device', owner.patch(`/api/v1/admin/devices/${deviceId}`, { coa_port: coaPort }));
    await keep(
      'POST global-secret device',
      owner.post('/api/v1/admin/devices', {
        ...device,
        mac_address: 'AA:BB:CC:DD:EE:02',
        radius_nas_id: 'bar-01',
        radius_secret: null,
      }),
    );

    const guest = await aGuest(app);
    const paid = await aPaidPurchase(app);
    await aLiveSession(app.app, { deviceId, username: guest.username, acctSessionId: 'acct-1' });
    const [session] = (await owner.get('/api/v1/admin/sessions')).body.data as { id: string }[];
    const disconnected = await keep(
      'disconnect',
      owner.post(`/api/v1/admin/sessions/${String(session?.id)}/disconnect`),
    );
    t.match(disconnected.data, { disconnect: { sessions: [{ answer: 'ack' }] } }, 'the router answered');
    await keep(
      'POST message',
      owner.post('/api/v1/admin/messages', { recipient: '0712345678', message: 'Karibu' }),
    );
    for (const path of [
      'overview',
      'portal/config',
      'plans',
      'devices',
      'sessions',
      'guests',
      'invoices',
      'payments',
      'messages',
      'auth/me',
    ])
      await keep(`GET ${path}`, owner.get(`/api/v1/admin/${path}`));

    const carrying = (needle: string) => responses.filter((r) => r.text.includes(needle)).map((r) => r.label);
    t.same(carrying(firstSecret), ['POST device'], 'the registration secret: only in its 201');
    t.same(carrying(deviceSecret), ['rotate-secret'], 'the rotated secret: only in the rotate answer');
    const never = {
      PAYMENT_WEBHOOK_SECRET: app.config.paymentWebhookSecret,
      RADIUS_SECRET: app.config.radiusSecret,
      UAM_SECRET: 'global-uam-secret',
      'device uam secret': 'device-uam-secret',
      SMS_HTTP_TOKEN: env.SMS_HTTP_TOKEN,
      BEEM_API_KEY: env.BEEM_API_KEY,
      BEEM_SECRET_KEY: env.BEEM_SECRET_KEY,
      AFRICASTALKING_API_KEY: env.AFRICASTALKING_API_KEY,
      'staff password': STAFF_PASSWORD,
      'admin_session cookie': owner.cookies.get('admin_session') ?? 'no cookie',
      'purchase key': paid.key,
      'guest Wi-Fi password': guest.password,
    };
    for (const [name, secret] of Object.entries(never))
      t.same(carrying(secret), [], `${name}: in no response`);
    const all = responses.map((r) => r.text).join('\n');
    t.notMatch(all, /\$argon2id\$/, 'no password hash');
    t.notMatch(all, /purchase_key|password_enc|secret_enc/, 'no sealed or hashed columns');
    t.equal(responses.length, 19, 'every response above was scanned');
  },
);
