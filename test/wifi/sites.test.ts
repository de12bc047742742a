import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { rawRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import {
  aDevice,
  aHarbourRouter,
  aLiveSession,
  aPaidPurchase,
  aPlan,
  aSite,
  wifiRows,
} from '../helpers/wifi.js';
import { aGuest } from '../helpers/radius.js';

/** Sites (DESIGN.md §4.9, docs/decisions/0024-sites.md) through the admin and public APIs. */

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** Two venues: the default site (lobby-01) and the harbour (harbour-01), each with its own plan. */
async function twoSites(t: Parameters<typeof startTestApp>[0]) {
  const app = await startTestApp(t);
  const harbour = await aSite(app.app, { time_zone: 'Europe/London' });
  const lobbyPlan = await aPlan(app.app, { name: 'Lobby hour', price_tzs: 1000 });
  const harbourPlan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id });
  const lobby = (await aDevice(app.app)).device;
  const harbourRouter = (await aHarbourRouter(app.app, harbour.id)).device;
  return { app, harbour, lobbyPlan, harbourPlan, lobby, harbourRouter };
}

const names = (rows: { name: string }[]) => rows.map((r) => r.name).sort();

t.test('a single venue has one site, the default one, and everything is in it', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const sites = await admin.get('/api/v1/admin/sites');
  t.equal(sites.status, 200);
  t.match(sites.body.data, [
    {
      id: 'default',
      slug: 'default',
      name: 'Default',
      display_name: null,
      logo_url: null,
      brand_color: null,
      background_color: null,
      time_zone: null,
    },
  ]);
  t.equal(sites.body.data.length, 1);
  const plan = await admin.post('/api/v1/admin/plans', {
    name: 'Day',
    price_tzs: 3000,
    duration_seconds: 86400,
  });
  t.equal(plan.body.data.site_id, 'default', 'a plan without site_id is the default site’s');
  const publicPlans = await new Client(app.base).get('/api/v1/public/plans');
  t.same(
    publicPlans.body.data.map((p: { name: string }) => p.name),
    ['Day'],
  );
  t.notOk('site_id' in publicPlans.body.data[0], 'the public Plan is the spec’s');
  const overview = await admin.get('/api/v1/admin/overview');
  t.equal(overview.body.data.today.timezone, app.config.venueTimezone);
});

t.test(
  'sites: create, read, change; every refusal has its status and message and changes nothing',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const created = await admin.post('/api/v1/admin/sites', {
      slug: 'harbour',
      name: 'Harbour café',
      display_name: 'Harbour Wi-Fi',
      logo: `data:image/png;base64,${PNG}`,
      brand_color: '#1D4ED8',
      background_color: '#f0f4ff',
      time_zone: 'europe/london',
    });
    t.equal(created.status, 201);
    const site = created.body.data;
    t.match(site, {
      slug: 'harbour',
      name: 'Harbour café',
      display_name: 'Harbour Wi-Fi',
      brand_color: '#1d4ed8',
      background_color: '#f0f4ff',
      time_zone: 'Europe/London',
      created_at: '2026-01-15T09:00:00.000Z',
    });
    t.match(site.logo_url, new RegExp(`^/portal/sites/${site.id as string}/logo\\?v=[0-9a-f]{12}$`));
    t.same((await admin.get(`/api/v1/admin/sites/${site.id as string}`)).body.data, site);

    const logo = await rawRequest(`${app.base}${site.logo_url as string}`);
    t.equal(logo.status, 200);
    t.equal(logo.headers['content-type'], 'image/png');
    t.equal(logo.body.toString('base64'), PNG, 'served as uploaded');
    const css = await rawRequest(`${app.base}/portal/sites/${site.id as string}/brand.css`);
    t.equal(css.text, ':root {\n  --brand: #1d4ed8;\n  --bg: #f0f4ff;\n}\n');

    const before = await wifiRows(app.app.deps.db);
    const refusals: [unknown, number, string][] = [
      [{ slug: 'harbour', name: 'Again' }, 409, 'a site with this slug already exists'],
      [
        { slug: 'Bad Slug', name: 'X' },
        422,
        'slug must be 1-40 lower-case letters, digits or hyphens, starting with a letter or digit',
      ],
      [{ slug: 'x' }, 422, 'name must be 1-100 characters'],
      [
        { slug: 'x', name: 'X', brand_color: '#ffff00' },
        422,
        'brand_color must be a #rrggbb colour with a contrast of at least 4.5:1 against white, or null',
      ],
      [
        { slug: 'x', name: 'X', background_color: 'navy' },
        422,
        'background_color must be a #rrggbb colour with a contrast of at least 4.5:1 against the grey text #57606a, or null',
      ],
      [
        { slug: 'x', name: 'X', time_zone: 'Mars/Olympus_Mons' },
        422,
        'time_zone must be an IANA time zone such as Africa/Dar_es_Salaam, or null',
      ],
      [
        {
          slug: 'x',
          name: 'X',
          logo: `data:image/png;base64,${Buffer.from('not a png').toString('base64')}`,
        },
        422,
        'logo must be a PNG, JPEG, GIF or WebP image of at most 100 KB as a base64 data: URL, or null',
      ],
      [
        { slug: 'x', name: 'X', logo: 'https://example.com/logo.png' },
        422,
        'logo must be a PNG, JPEG, GIF or WebP image of at most 100 KB as a base64 data: URL, or null',
      ],
      [{ slug: 'x', name: 'X', colour: 'red' }, 400, 'invalid request body'],
    ];
    for (const [body, status, message] of refusals) {
      const res = await admin.post('/api/v1/admin/sites', body);
      t.same([res.status, res.body], [status, { message }], JSON.stringify(body));
    }
    const patchRefused = await admin.patch(`/api/v1/admin/sites/${site.id as string}`, { slug: 'default' });
    t.same(
      [patchRefused.status, patchRefused.body],
      [409, { message: 'a site with this slug already exists' }],
    );
    t.same((await admin.patch('/api/v1/admin/sites/nope', { name: 'X' })).body, {
      message: 'site not found',
    });
    t.same(await wifiRows(app.app.deps.db), before, 'the refusals changed nothing');

    app.clock.advance('1m');
    const changed = await admin.patch(`/api/v1/admin/sites/${site.id as string}`, {
      name: 'Harbour',
      logo: null,
      brand_color: null,
    });
    t.equal(changed.status, 200);
    t.match(changed.body.data, {
      name: 'Harbour',
      slug: 'harbour',
      logo_url: null,
      brand_color: null,
      background_color: '#f0f4ff',
      updated_at: '2026-01-15T09:01:00.000Z',
    });
    t.equal((await rawRequest(`${app.base}${site.logo_url as string}`)).status, 404, 'the old logo is gone');

    const operator = await staffClient(app, 'operator');
    t.equal((await operator.post('/api/v1/admin/sites', { slug: 'y', name: 'Y' })).status, 403);
    t.equal((await operator.get('/api/v1/admin/sites')).body.data.length, 2, 'every staff role reads them');
    t.equal((await new Client(app.base).get('/api/v1/admin/sites')).status, 401);
  },
);

t.test('a site keeps the current name of its time zone where the runtime knows an older one', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  for (const [slug, given, kept] of [
    ['kolkata', 'Asia/Kolkata', 'Asia/Kolkata'], // Node 20's ICU resolves it to Asia/Calcutta
    ['kyiv', 'Europe/Kyiv', 'Europe/Kyiv'], // … and this one to Europe/Kiev
    ['zulu', 'utc', 'UTC'], // the same name in the runtime's spelling
  ] as const) {
    const created = await admin.post('/api/v1/admin/sites', { slug, name: slug, time_zone: given });
    t.equal(created.status, 201, given);
    t.equal(created.body.data.time_zone, kept, `${given} is kept as ${kept}`);
  }
});

t.test('the portal’s plans are those of the site of the router the guest came through', async (t) => {
  const { app } = await twoSites(t);
  const guest = new Client(app.base);
  const plans = async (query: string) => {
    const res = await guest.get(`/api/v1/public/plans${query}`);
    return [res.status, res.status === 200 ? names(res.body.data) : res.body];
  };
  t.same(await plans(''), [200, ['Lobby hour']], 'no router: the default site');
  t.same(await plans('?nasid=harbour-01'), [200, ['Harbour hour']], 'MikroTik: by its identity');
  t.same(await plans('?uamip=10.2.0.1&uamport=3990'), [200, ['Harbour hour']], 'CoovaChilli: by uamip');
  t.same(await plans('?nasid=lobby-01&uamip=10.1.0.1'), [200, ['Lobby hour']]);
  t.same(await plans('?nasid=nowhere'), [200, ['Lobby hour']], 'a router it does not know: the default site');
  t.same(await plans('?uamip=10.9.0.1'), [200, ['Lobby hour']]);
  t.same(await plans('?uamip=x'), [422, { message: 'uamip must be an IPv4 address' }]);
});

/** Staff limited to the harbour, and what they can no longer see or touch. */
async function harbourStaff(app: TestApp, harbourSlug: string) {
  return {
    admin: await staffClient(app, 'admin', [harbourSlug]),
    operator: await staffClient(app, 'operator', [harbourSlug]),
  };
}

t.test('staff limited to a site see only that site, and the others read as unknown', async (t) => {
  const { app, harbour, lobbyPlan, harbourPlan, lobby, harbourRouter } = await twoSites(t);
  await aPaidPurchase(app, lobbyPlan);
  const paidHarbour = await aPaidPurchase(app, harbourPlan);
  const { admin, operator } = await harbourStaff(app, harbour.slug);
  const owner = await staffClient(app, 'owner');

  t.same(names((await admin.get('/api/v1/admin/plans')).body.data), ['Harbour hour']);
  t.same(names((await admin.get('/api/v1/admin/devices')).body.data), ['Harbour AP']);
  t.same(
    (await admin.get('/api/v1/admin/sites')).body.data.map((s: { slug: string }) => s.slug),
    ['harbour'],
  );
  const invoices = (await admin.get('/api/v1/admin/invoices')).body.data as { site_id: string }[];
  t.same(
    invoices.map((i) => i.site_id),
    [harbour.id],
  );
  t.equal((await admin.get('/api/v1/admin/payments')).body.data.length, 1);
  t.equal((await admin.get('/api/v1/admin/guests')).body.data.length, 1);
  const overview = (await admin.get('/api/v1/admin/overview')).body.data;
  t.match(overview, {
    devices: 1,
    pending_invoices: 0,
    live_grants: 1,
    today: { sales: 1, revenue_tzs: 1500 },
  });
  t.equal(overview.today.timezone, 'Europe/London', 'their one site’s day');
  t.match((await owner.get('/api/v1/admin/overview')).body.data, {
    devices: 2,
    live_grants: 2,
    today: { sales: 2, revenue_tzs: 2500, timezone: app.config.venueTimezone },
  });

  const before = await wifiRows(app.app.deps.db);
  const hidden: [string, string, unknown, number, string][] = [
    [
      'get',
      '/api/v1/admin/plans?site_id=default',
      undefined,
      422,
      'site_id must be the id or slug of a site you can see',
    ],
    ['get', '/api/v1/admin/sites/default', undefined, 404, 'site not found'],
    ['patch', '/api/v1/admin/sites/default', { name: 'Mine' }, 404, 'site not found'],
    ['patch', `/api/v1/admin/plans/${lobbyPlan.id}`, { price_tzs: 600 }, 404, 'plan not found'],
    ['post', `/api/v1/admin/plans/${lobbyPlan.id}/apply-to-live`, undefined, 404, 'plan not found'],
    ['patch', `/api/v1/admin/devices/${lobby.id}`, { name: 'Mine' }, 404, 'device not found'],
    ['post', `/api/v1/admin/devices/${lobby.id}/rotate-secret`, undefined, 404, 'device not found'],
    ['get', `/api/v1/admin/devices/${lobby.id}/router-config`, undefined, 404, 'device not found'],
    [
      'post',
      '/api/v1/admin/plans',
      { name: 'Sneaky', price_tzs: 500, duration_seconds: 60, site_id: 'default' },
      422,
      'site_id must be the id or slug of a site you can see',
    ],
    [
      'patch',
      `/api/v1/admin/plans/${harbourPlan.id}`,
      { site_id: 'default' },
      422,
      'site_id must be the id or slug of a site you can see',
    ],
    [
      'post',
      '/api/v1/admin/sites',
      { slug: 'annex', name: 'Annex' },
      403,
      'your staff role does not allow this',
    ],
  ];
  for (const [method, path, body, status, message] of hidden) {
    const res = await admin.request(method.toUpperCase(), path, body);
    t.same([res.status, res.body], [status, { message }], `${method} ${path}`);
  }
  t.same(await wifiRows(app.app.deps.db), before, 'none of it changed anything');

  const created = await admin.post('/api/v1/admin/plans', {
    name: 'Harbour day',
    price_tzs: 4000,
    duration_seconds: 86400,
  });
  t.equal(created.body.data.site_id, harbour.id, 'their one site is where a new plan goes');
  const renamed = await admin.patch(`/api/v1/admin/sites/${harbour.id}`, { display_name: 'Harbour Wi-Fi' });
  t.equal(renamed.body.data.display_name, 'Harbour Wi-Fi', 'an admin of the site brands it');

  // Sessions: one on each site's router.
  const lobbyGuest = await aGuest(app, { site_id: 'default' });
  await aLiveSession(app.app, {
    deviceId: lobby.id,
    username: lobbyGuest.username,
    acctSessionId: 'lobby-s1',
  });
  const harbourGuest = await aGuest(app, { site_id: harbour.id });
  await aLiveSession(app.app, {
    deviceId: harbourRouter.id,
    username: harbourGuest.username,
    acctSessionId: 'harbour-s1',
    framedIp: '10.2.0.5',
  });
  const sessions = (await operator.get('/api/v1/admin/sessions')).body.data as {
    id: string;
    nas_id: string;
  }[];
  t.same(
    sessions.map((s) => s.nas_id),
    ['harbour-01'],
  );
  const all = (await owner.get('/api/v1/admin/sessions')).body.data as { id: string; nas_id: string }[];
  const lobbySession = all.find((s) => s.nas_id === 'lobby-01');
  const res = await operator.post(`/api/v1/admin/sessions/${lobbySession?.id ?? ''}/disconnect`);
  t.same(
    [res.status, res.body],
    [404, { message: 'session not found' }],
    'another site’s guest is not theirs to cut',
  );
  t.ok(paidHarbour.invoiceId);
});

t.test('?site_id= narrows every list to one site; unknown sites are refused', async (t) => {
  const { app, harbour } = await twoSites(t);
  const viewer = await staffClient(app, 'viewer');
  t.same(names((await viewer.get('/api/v1/admin/plans')).body.data), ['Harbour hour', 'Lobby hour']);
  t.same(names((await viewer.get(`/api/v1/admin/plans?site_id=${harbour.id}`)).body.data), ['Harbour hour']);
  t.same(names((await viewer.get('/api/v1/admin/devices?site_id=default')).body.data), ['Lobby AP']);
  t.match((await viewer.get(`/api/v1/admin/overview?site_id=${harbour.id}`)).body.data, {
    devices: 1,
    today: { timezone: 'Europe/London' },
  });
  for (const path of ['plans', 'devices', 'sessions', 'guests', 'invoices', 'payments', 'overview']) {
    const res = await viewer.get(`/api/v1/admin/${path}?site_id=nowhere`);
    t.same(
      [res.status, res.body],
      [422, { message: 'site_id must be the id or slug of a site you can see' }],
      path,
    );
  }
});

t.test('a staff member limited to several sites must say where a new router goes', async (t) => {
  const { app, harbour } = await twoSites(t);
  const annex = await aSite(app.app, { slug: 'annex', name: 'Annex' });
  const admin = await staffClient(app, 'admin', [harbour.slug, annex.slug]);
  const body = { name: 'Two sites', price_tzs: 800, duration_seconds: 600 };
  t.same((await admin.post('/api/v1/admin/plans', body)).body, {
    message: 'site_id is required: your role covers several sites',
  });
  t.equal((await admin.post('/api/v1/admin/plans', { ...body, site_id: annex.id })).status, 201);
});

t.test('staff limited to sites see only the SMS they sent themselves', async (t) => {
  const { app, harbour } = await twoSites(t);
  const owner = await staffClient(app, 'owner');
  const { operator } = await harbourStaff(app, harbour.slug);
  const send = (c: Client, message: string) =>
    c.post('/api/v1/admin/messages', { recipient: '0712345678', message });
  t.equal((await send(owner, 'from the owner')).status, 202);
  t.equal((await send(operator, 'from the harbour')).status, 202);
  const seen = async (c: Client) =>
    ((await c.get('/api/v1/admin/messages')).body.data as { message: string }[]).map((m) => m.message).sort();
  t.same(await seen(operator), ['from the harbour']);
  t.same(await seen(owner), ['from the harbour', 'from the owner'], 'every site: every message');
});
