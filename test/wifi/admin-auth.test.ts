import t from 'tap';
import { addStaff, removeStaff } from '../../src/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { registered, waitForSubject } from '../helpers/identity.js';
import { STAFF_PASSWORD, staffClient } from '../helpers/staff.js';
import { totpForSecret } from '../helpers/totp.js';
import { wifiRows } from '../helpers/wifi.js';

const ADMIN_ROUTES: [string, string][] = [
  ['GET', '/api/v1/admin/auth/me'],
  ['POST', '/api/v1/admin/auth/logout'],
  ['GET', '/api/v1/admin/overview'],
  ['GET', '/api/v1/admin/portal/config'],
  ['GET', '/api/v1/admin/plans'],
  ['POST', '/api/v1/admin/plans'],
  ['PATCH', '/api/v1/admin/plans/00000000-0000-0000-0000-000000000000'],
  ['GET', '/api/v1/admin/devices'],
  ['POST', '/api/v1/admin/devices'],
  ['PATCH', '/api/v1/admin/devices/00000000-0000-0000-0000-000000000000'],
  ['POST', '/api/v1/admin/devices/00000000-0000-0000-0000-000000000000/rotate-secret'],
  ['GET', '/api/v1/admin/sessions'],
  ['POST', '/api/v1/admin/sessions/00000000-0000-0000-0000-000000000000/disconnect'],
  ['GET', '/api/v1/admin/guests'],
  ['GET', '/api/v1/admin/invoices'],
  ['GET', '/api/v1/admin/payments'],
  ['GET', '/api/v1/admin/messages'],
  ['POST', '/api/v1/admin/messages'],
];

t.test('login: staff identity and the admin_session cookie', async (t) => {
  const app = await startTestApp(t);
  await addStaff(app.app.deps, { email: 'boss@venue.test', role: 'owner', password: STAFF_PASSWORD });
  const c = new Client(app.base);
  const res = await c.post('/api/v1/admin/auth/login', {
    email: 'boss@venue.test',
    password: STAFF_PASSWORD,
  });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body.data).sort(), ['display_name', 'email', 'role', 'staff_id']);
  t.match(res.body.data, { email: 'boss@venue.test', role: 'owner', display_name: '' });
  const cookie = c.setCookies.find((l) => l.startsWith('admin_session='));
  t.match(
    cookie,
    /^admin_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/,
    'not Secure without an https ADMIN_ORIGIN',
  );
  t.same((await c.get('/api/v1/admin/auth/me')).body, { data: res.body.data });
  t.notMatch(
    JSON.stringify(await app.app.deps.db.selectFrom('admin_sessions').selectAll().execute()),
    c.cookies.get('admin_session')!,
    'only a hash is stored',
  );
  const events = await app.app.deps.db.selectFrom('security_events').select(['action', 'detail']).execute();
  t.match(events, [{ action: 'login', detail: 'admin' }]);
});

t.test('login refusals: wrong password, unknown, not staff, strict JSON, the limiter', async (t) => {
  const app = await startTestApp(t);
  await addStaff(app.app.deps, { email: 'boss@venue.test', role: 'owner', password: STAFF_PASSWORD });
  await registered(app, 'guest@example.com');
  const login = (body: unknown, ip = '198.51.100.1') =>
    new Client(app.base, { ip }).post('/api/v1/admin/auth/login', body);
  t.same(
    await login({ email: 'boss@venue.test', password: 'wrong password' }).then((r) => [r.status, r.body]),
    [401, { message: 'invalid email or password' }],
  );
  t.same(
    await login({ email: 'nobody@venue.test', password: STAFF_PASSWORD }).then((r) => [r.status, r.body]),
    [401, { message: 'invalid email or password' }],
  );
  t.same(
    await login({ email: 'guest@example.com', password: 'correct horse battery' }).then((r) => [
      r.status,
      r.body,
    ]),
    [403, { message: 'this account has no staff role' }],
  );
  t.same(
    await login({ email: 'boss@venue.test', password: STAFF_PASSWORD, role: 'owner' }).then((r) => [
      r.status,
      r.body,
    ]),
    [400, { message: 'invalid request body' }],
  );
  t.same(await login({ email: 'boss@venue.test' }).then((r) => r.status), 400);
  // Five requests so far from this IP; four more wrong passwords make nine.
  for (let i = 0; i < 4; i++)
    t.equal((await login({ email: 'boss@venue.test', password: 'wrong password' })).status, 401);
  const tenth = await login({ email: 'boss@venue.test', password: STAFF_PASSWORD });
  t.equal(tenth.status, 200, 'the 10th request in the minute is still answered');
  const eleventh = await login({ email: 'boss@venue.test', password: STAFF_PASSWORD });
  t.same(
    [eleventh.status, eleventh.body],
    [429, { message: 'too many requests, try again later' }],
    'the 11th is refused: 10 per minute per IP',
  );
  t.equal((await login({ email: 'boss@venue.test', password: STAFF_PASSWORD }, '198.51.100.2')).status, 200);
});

t.test('staff with MFA must give the TOTP code', async (t) => {
  const app = await startTestApp(t);
  await addStaff(app.app.deps, { email: 'mfa@venue.test', role: 'admin', password: STAFF_PASSWORD });
  const user = new Client(app.base);
  await user.post('/auth/login', { identifier: 'mfa@venue.test', password: STAFF_PASSWORD });
  const { secret } = (await user.post('/auth/mfa/setup')).body.data as { secret: string };
  await user.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
  app.clock.advance('2m');
  const login = (code?: string) =>
    new Client(app.base).post('/api/v1/admin/auth/login', {
      email: 'mfa@venue.test',
      password: STAFF_PASSWORD,
      ...(code ? { code } : {}),
    });
  t.same((await login()).body, { message: 'mfa code required' });
  t.same((await login('000000' === totpForSecret(secret, app.clock.now()) ? '111111' : '000000')).body, {
    message: 'invalid mfa code',
  });
  const ok = await login(totpForSecret(secret, app.clock.now()));
  t.equal(ok.status, 200);
  t.equal(ok.body.data.role, 'admin');
});

t.test('every admin route is 401 {message: not authenticated} without a session', async (t) => {
  const app = await startTestApp(t);
  for (const [method, path] of ADMIN_ROUTES) {
    const res = await new Client(app.base).request(method, path, method === 'GET' ? undefined : {});
    t.same([res.status, res.body], [401, { message: 'not authenticated' }], `${method} ${path}`);
  }
  const forged = new Client(app.base);
  forged.cookies.set('admin_session', 'x'.repeat(43));
  const res = await forged.get('/api/v1/admin/overview');
  t.same([res.status, res.body], [401, { message: 'not authenticated' }]);
});

t.test('sessions: 12 hours, logout deletes them server-side, a removed role ends them', async (t) => {
  const app = await startTestApp(t);
  const c = await staffClient(app, 'viewer');
  app.clock.advance(11 * 3600_000 + 59 * 60_000);
  t.equal((await c.get('/api/v1/admin/auth/me')).status, 200);
  app.clock.advance('1m');
  t.equal((await c.get('/api/v1/admin/auth/me')).status, 401, 'expired after 12 hours');

  const d = await staffClient(app, 'viewer');
  const cookie = d.cookies.get('admin_session')!;
  const out = await d.post('/api/v1/admin/auth/logout');
  t.equal(out.status, 204);
  t.match(d.setCookies[0], /^admin_session=; Max-Age=0/);
  // The cookie of the session that just logged out, replayed by a client that kept it: the
  // server-side session is gone, so it no longer signs anyone in (not only cleared in the browser).
  const replay = new Client(app.base);
  replay.cookies.set('admin_session', cookie);
  t.same(await replay.get('/api/v1/admin/auth/me').then((r) => [r.status, r.body]), [
    401,
    { message: 'not authenticated' },
  ]);

  const e = await staffClient(app, 'admin');
  await removeStaff(app.app.deps, e.email);
  t.equal((await e.get('/api/v1/admin/auth/me')).status, 401, 'the role was taken away');
});

t.test("a password reset ends the staff member's admin sessions from before it", async (t) => {
  const app = await startTestApp(t);
  const before = await staffClient(app, 'admin');
  t.equal((await before.get('/api/v1/admin/auth/me')).status, 200);
  const anon = new Client(app.base);
  await anon.post('/auth/forgot-password', { identifier: before.email });
  const mail = await waitForSubject(app, before.email, 'reset your password');
  const token = /\/reset-password\?token=([0-9a-f]{64})/.exec(mail.text)?.[1] ?? '';
  app.clock.advance('1s');
  const reset = await anon.post('/auth/reset-password', { token, new_password: 'a new staff password' });
  t.equal(reset.status, 200);
  t.same(await before.get('/api/v1/admin/auth/me').then((r) => [r.status, r.body]), [
    401,
    { message: 'not authenticated' },
  ]);
  const after = new Client(app.base);
  const login = await after.post('/api/v1/admin/auth/login', {
    email: before.email,
    password: 'a new staff password',
  });
  t.equal(login.status, 200);
  t.equal((await after.get('/api/v1/admin/auth/me')).status, 200, 'a session made after the reset works');
});

t.test('roles: viewers read; operators send SMS; admins manage plans and devices', async (t) => {
  const app = await startTestApp(t);
  const viewer = await staffClient(app, 'viewer');
  const operator = await staffClient(app, 'operator');
  const admin = await staffClient(app, 'admin');
  const owner = await staffClient(app, 'owner');
  const plan = { name: 'Hour', price_tzs: 1000, duration_seconds: 3600 };
  const sms = { recipient: '0712345678', message: 'hello', sender_id: 'VENUE' };
  for (const [, path] of ADMIN_ROUTES.filter(([m]) => m === 'GET'))
    t.equal((await viewer.get(path)).status, 200, `viewer GET ${path}`);
  const forbidden = { message: 'your staff role does not allow this' };
  t.same(await viewer.post('/api/v1/admin/plans', plan).then((r) => [r.status, r.body]), [403, forbidden]);
  t.same(await viewer.post('/api/v1/admin/messages', sms).then((r) => [r.status, r.body]), [403, forbidden]);
  t.equal((await operator.post('/api/v1/admin/messages', sms)).status, 202);
  t.equal((await operator.post('/api/v1/admin/plans', plan)).status, 403);
  t.equal((await operator.post('/api/v1/admin/devices', {})).status, 403);
  t.equal((await admin.post('/api/v1/admin/plans', plan)).status, 201);
  t.equal((await owner.post('/api/v1/admin/plans', plan)).status, 201);
  t.equal((await admin.post('/api/v1/admin/messages', sms)).status, 202);
});

t.test('roles: viewers and operators may not change plans or devices, nor rotate a secret', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const planId = (
    await admin.post('/api/v1/admin/plans', { name: 'Hour', price_tzs: 1000, duration_seconds: 3600 })
  ).body.data.id as string;
  const device = await admin.post('/api/v1/admin/devices', {
    name: 'Lobby AP',
    model: 'MikroTik hAP ac2',
    mac_address: 'AA:BB:CC:DD:EE:01',
    local_network: '10.1.0.0/24',
    uam_server: 'http://10.1.0.10:8080/portal',
    radius_nas_id: 'lobby-01',
    radius_client_ip: '10.1.0.1',
  });
  const deviceId = device.body.data.id as string;
  const before = await wifiRows(app.app.deps.db);
  const forbidden = [403, { message: 'your staff role does not allow this' }];
  for (const role of ['viewer', 'operator'] as const) {
    const staff = await staffClient(app, role);
    const answers = [
      await staff.patch(`/api/v1/admin/plans/${planId}`, { price_tzs: 2000 }),
      await staff.patch(`/api/v1/admin/devices/${deviceId}`, { name: 'Renamed' }),
      await staff.post(`/api/v1/admin/devices/${deviceId}/rotate-secret`),
    ];
    t.same(
      answers.map((r) => [r.status, r.body]),
      [forbidden, forbidden, forbidden],
      `${role}: PATCH plan, PATCH device, rotate-secret`,
    );
  }
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
});

t.test(
  'cookie-authenticated changes refuse a foreign Origin; the cookie is Secure with an https ADMIN_ORIGIN',
  async (t) => {
    const app = await startTestApp(t, { env: { ADMIN_ORIGIN: 'https://admin.venue.example' } });
    const c = await staffClient(app, 'admin');
    t.match(
      c.setCookies.find((l) => l.startsWith('admin_session=')),
      /; Secure/,
    );
    const plan = { name: 'Hour', price_tzs: 1000, duration_seconds: 3600 };
    const evil = await c.request('POST', '/api/v1/admin/plans', plan, { Origin: 'https://evil.example' });
    t.same([evil.status, evil.body], [403, { message: 'origin not allowed' }]);
    t.equal(
      (await c.request('POST', '/api/v1/admin/plans', plan, { Origin: 'https://admin.venue.example' }))
        .status,
      201,
    );
    t.equal((await c.get('/api/v1/admin/plans')).body.data.length, 1);

    // Without a session the answer is 401 whatever the Origin (DESIGN §4.4).
    const anonymous = await new Client(app.base).request('POST', '/api/v1/admin/plans', plan, {
      Origin: 'https://evil.example',
    });
    t.same([anonymous.status, anonymous.body], [401, { message: 'not authenticated' }]);
    t.equal((await c.get('/api/v1/admin/plans')).body.data.length, 1, 'nothing created');
  },
);
