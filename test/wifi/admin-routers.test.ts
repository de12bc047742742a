import t from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { staffClient } from '../helpers/staff.js';
import { aPaidPurchase, wifiRows } from '../helpers/wifi.js';

/** The admin API of issue 17: plan speeds, the router set-up download, router health. */

const DEVICE = {
  name: 'Bar',
  model: 'MikroTik hAP ax2',
  mac_address: 'AA:BB:CC:DD:EE:0B',
  local_network: '10.5.50.0/24',
  uam_server: 'http://192.168.88.10:8080/portal',
  radius_nas_id: 'bar-01',
  radius_client_ip: '192.168.88.2',
};

t.test(
  'plans carry download_kbps and upload_kbps; a sold grant keeps the speed it was sold with',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const created = await admin.post('/api/v1/admin/plans', {
      name: 'Fast',
      price_tzs: 2000,
      duration_seconds: 3600,
      download_kbps: 4000,
      upload_kbps: 1000,
    });
    t.equal(created.status, 201);
    t.match(created.body.data, { download_kbps: 4000, upload_kbps: 1000 });
    const id = created.body.data.id as string;
    const plain = await admin.post('/api/v1/admin/plans', {
      name: 'Plain',
      price_tzs: 1000,
      duration_seconds: 3600,
    });
    t.match(plain.body.data, { download_kbps: null, upload_kbps: null });

    const publicPlans = (await fetch(`${app.base}/api/v1/public/plans`).then((r) => r.json())) as {
      data: Record<string, unknown>[];
    };
    t.same(
      publicPlans.data.map((p) => [p.name, p.download_kbps, p.upload_kbps, 'download_kbps' in p]),
      [
        ['Plain', undefined, undefined, false],
        ['Fast', 4000, 1000, true],
      ],
      'the public plan shows a speed only when it has one',
    );

    const before = await wifiRows(app.app.deps.db);
    for (const [body, message] of [
      [{ download_kbps: 63 }, 'download_kbps must be a whole number of kbit/s from 64 to 4000000, or null'],
      [
        { upload_kbps: 4_000_001 },
        'upload_kbps must be a whole number of kbit/s from 64 to 4000000, or null',
      ],
      [{ upload_kbps: '1M' }, 'upload_kbps must be a whole number of kbit/s from 64 to 4000000, or null'],
      [{ download_kbps: 1.5 }, 'download_kbps must be a whole number of kbit/s from 64 to 4000000, or null'],
    ] as const) {
      const res = await admin.patch(`/api/v1/admin/plans/${id}`, body);
      t.equal(res.status, 422, JSON.stringify(body));
      t.same(res.body, { message });
    }
    t.same(await wifiRows(app.app.deps.db), before, 'a refused speed changes nothing');

    const { plan, invoiceId, key } = await aPaidPurchase(
      app,
      await app.app.deps.db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    );
    t.equal(plan.id, id);
    const patched = await admin.patch(`/api/v1/admin/plans/${id}`, {
      download_kbps: 8000,
      upload_kbps: null,
    });
    t.match(patched.body.data, { download_kbps: 8000, upload_kbps: null });
    const live = await findLiveForPurchase(app.app.deps, invoiceId, sha256Hex(key));
    t.match(
      live,
      { kind: 'live', grant: { download_kbps: 4000, upload_kbps: 1000 } },
      'access already sold keeps its speed',
    );

    const operator = await staffClient(app, 'operator');
    t.equal((await operator.post(`/api/v1/admin/plans/${id}/apply-to-live`)).status, 403, 'admins only');
    const unknown = await admin.post(
      '/api/v1/admin/plans/00000000-0000-4000-8000-000000000000/apply-to-live',
    );
    t.equal(unknown.status, 404);
    t.same(unknown.body, { message: 'plan not found' });
    const applied = await admin.post(`/api/v1/admin/plans/${id}/apply-to-live`);
    t.same(applied.body, { data: { grants_updated: 1, status: 'no_sessions', sessions: [] } });
    t.match(
      await findLiveForPurchase(app.app.deps, invoiceId, sha256Hex(key)),
      { kind: 'live', grant: { download_kbps: 8000, upload_kbps: null } },
      'applied to live access on request',
    );
  },
);

t.test('the router set-up downloads as text for admins only, with the router’s own secret', async (t) => {
  const app = await startTestApp(t, { radius: true });
  const admin = await staffClient(app, 'admin');
  const created = await admin.post('/api/v1/admin/devices', DEVICE);
  const { id, radius_secret: secret } = created.body.data as { id: string; radius_secret: string };
  t.match(created.body.data, { online: false, last_seen_at: null });
  const download = (client: typeof admin, query: string) =>
    fetch(`${app.base}/api/v1/admin/devices/${id}/router-config${query}`, {
      headers: { Cookie: client.cookieHeader(), 'X-Forwarded-For': client.ip },
    });

  const routeros = await download(admin, '');
  t.equal(routeros.status, 200);
  t.equal(routeros.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(routeros.headers.get('content-disposition'), 'attachment; filename="hotspot-ctl-bar-01.rsc"');
  t.equal(routeros.headers.get('cache-control'), 'no-store');
  const script = await routeros.text();
  t.match(script, `/radius add service=hotspot address=192.168.88.10 secret="${secret}"`);
  t.match(script, '/system identity set name="bar-01"');

  const chilli = await download(admin, '?format=coovachilli&radius_address=10.9.9.9');
  t.equal(chilli.headers.get('content-disposition'), 'attachment; filename="hotspot-ctl-bar-01.sh"');
  t.match(await chilli.text(), "HS_RADIUS='10.9.9.9'");

  for (const [query, status, message] of [
    ['?format=cisco', 422, 'format must be routeros, coovachilli or openwrt'],
    ['?radius_address=box.lan', 422, 'radius_address must be an IPv4 address'],
  ] as const) {
    const res = await download(admin, query);
    t.equal(res.status, status, query);
    t.same(await res.json(), { message });
  }
  const missing = await fetch(
    `${app.base}/api/v1/admin/devices/00000000-0000-4000-8000-000000000000/router-config`,
    {
      headers: { Cookie: admin.cookieHeader(), 'X-Forwarded-For': admin.ip },
    },
  );
  t.equal(missing.status, 404);
  const operator = await staffClient(app, 'operator');
  const refused = await download(operator, '');
  t.equal(refused.status, 403, 'the file holds the router secret: admins only');
  t.notMatch(await refused.text(), secret);
  t.equal((await fetch(`${app.base}/api/v1/admin/devices/${id}/router-config`)).status, 401);

  const listed = await operator.get('/api/v1/admin/devices');
  t.match(listed.body.data, [{ id, online: false, last_seen_at: null }]);
});

t.test(
  'a router remote over WireGuard: its tunnel in the device, the peer section in its set-up',
  async (t) => {
    const BOX_KEY = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
    const app = await startTestApp(t, {
      radius: true,
      env: {
        WIREGUARD_ENDPOINT: 'vpn.venue.example:51820',
        WIREGUARD_PUBLIC_KEY: BOX_KEY,
        WIREGUARD_ADDRESS: '10.99.0.1/24',
      },
    });
    const admin = await staffClient(app, 'admin');
    const remote = { ...DEVICE, radius_client_ip: '10.99.0.2' };
    for (const [tunnel, message] of [
      [{ tunnel_address: '10.98.0.2' }, 'tunnel_address must be an IPv4 address inside the WireGuard subnet'],
      [{ tunnel_address: '10.99.0.1' }, 'tunnel_address must be an IPv4 address inside the WireGuard subnet'],
      [
        { tunnel_address: '10.99.0.2', tunnel_public_key: 'not-a-key' },
        'tunnel_public_key must be a WireGuard public key (44 base64 characters)',
      ],
    ] as const) {
      const refused = await admin.post('/api/v1/admin/devices', { ...remote, ...tunnel });
      t.equal(refused.status, 422);
      t.same(refused.body, { message });
    }
    t.same((await wifiRows(app.app.deps.db)).devices, [], 'a refused router changes nothing');

    const created = await admin.post('/api/v1/admin/devices', { ...remote, tunnel_address: '10.99.0.2' });
    t.equal(created.status, 201);
    t.match(created.body.data, {
      tunnel_address: '10.99.0.2',
      tunnel_public_key: null,
      radsec_certificate: false,
    });
    const { id } = created.body.data as { id: string };
    const download = async (format: string) => {
      const res = await fetch(`${app.base}/api/v1/admin/devices/${id}/router-config?format=${format}`, {
        headers: { Cookie: admin.cookieHeader(), 'X-Forwarded-For': admin.ip },
      });
      t.equal(res.status, 200);
      return res.text();
    };
    const script = await download('routeros');
    t.match(
      script,
      `/interface wireguard peers add interface="wg-hotspot-ctl" public-key="${BOX_KEY}" endpoint-address="vpn.venue.example" endpoint-port=51820 allowed-address=10.99.0.1/32`,
    );
    t.match(script, '/radius add service=hotspot address=10.99.0.1 ', 'RADIUS through the tunnel');
    t.match(await download('openwrt'), "uci set 'network.hotspotctl_box.endpoint_host=vpn.venue.example'");

    const routerKey = 'HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=';
    const updated = await admin.patch(`/api/v1/admin/devices/${id}`, { tunnel_public_key: routerKey });
    t.match(updated.body.data, { tunnel_public_key: routerKey });
    t.match(await download('routeros'), `#   PublicKey = ${routerKey}\n`);
  },
);

t.test('a remote router’s set-up is refused while the box has no WireGuard settings', async (t) => {
  const app = await startTestApp(t, { radius: true });
  const admin = await staffClient(app, 'admin');
  const created = await admin.post('/api/v1/admin/devices', { ...DEVICE, tunnel_address: '10.99.0.2' });
  const { id } = created.body.data as { id: string };
  const res = await fetch(`${app.base}/api/v1/admin/devices/${id}/router-config`, {
    headers: { Cookie: admin.cookieHeader(), 'X-Forwarded-For': admin.ip },
  });
  t.equal(res.status, 409);
  t.same(await res.json(), {
    message:
      'this router is remote over WireGuard, but WIREGUARD_ENDPOINT, WIREGUARD_PUBLIC_KEY and WIREGUARD_ADDRESS are not all set',
  });
});
