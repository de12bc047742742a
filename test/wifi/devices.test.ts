import t from 'tap';
import {
  deviceByNasId,
  findPortalRouter,
  listDevices,
  presentDevice,
  rotateDeviceSecret,
  updateDevice,
} from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { aDevice, wifiRows } from '../helpers/wifi.js';

t.test('a registered device gets a RADIUS secret, sealed at rest and readable for RADIUS', async (t) => {
  const { app } = await startTestApp(t);
  const { device, radiusSecret } = await aDevice(app, {
    mac_address: 'aa-bb-cc-dd-ee-0f',
    local_network: '10.1.0.1/24',
    uam_secret: 'chilli-uam',
  });
  t.match(radiusSecret, /^[A-Za-z2-9]{24}$/);
  t.match(device, {
    mac_address: 'AA:BB:CC:DD:EE:0F',
    local_network: '10.1.0.0/24',
    coa_port: 3799,
    uam_auth: 'chap',
  });
  const stored = JSON.stringify(await wifiRows(app.deps.db));
  t.notMatch(stored, radiusSecret, 'the secret is not stored in the clear');
  t.notMatch(stored, 'chilli-uam');
  const forRadius = await deviceByNasId(app.deps, 'lobby-01');
  t.equal(forRadius?.radiusSecret, radiusSecret);
  t.equal(await deviceByNasId(app.deps, 'LOBBY-01'), undefined, 'NAS-Identifier matches exactly');
  t.same(presentDevice(device), {
    id: device.id,
    name: 'Lobby AP',
    model: 'CoovaChilli on OpenWrt',
    mac_address: 'AA:BB:CC:DD:EE:0F',
    local_network: '10.1.0.0/24',
    uam_server: 'http://10.1.0.10:8080/portal',
    radius_nas_id: 'lobby-01',
    radius_client_ip: '10.1.0.1',
    coa_port: 3799,
    radius_secret_source: 'own',
    uam_auth: 'chap',
    has_uam_secret: true,
    require_message_authenticator: true,
    gateway_ip: null,
    tunnel_address: null,
    tunnel_public_key: null,
    radsec_certificate: false,
    last_seen_at: null,
    online: false,
    down_since: null,
    site_id: 'default',
    created_at: '2026-01-15T09:00:00.000Z',
    updated_at: '2026-01-15T09:00:00.000Z',
    archived_at: null,
  });
  const given = await aDevice(app, {
    radius_nas_id: 'bar-02',
    mac_address: '02:00:00:00:00:02',
    radius_secret: 'typed-into-router',
  });
  t.equal(given.radiusSecret, 'typed-into-router', 'an operator-chosen secret is kept');
});

t.test('device values are validated and a refused device changes nothing', async (t) => {
  const { app } = await startTestApp(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ mac_address: 'aa:bb:cc:dd:ee' }, 'mac_address must be six colon-separated hex pairs'],
    [{ mac_address: 'aa:bb-cc:dd:ee:ff' }, 'mac_address must be six colon-separated hex pairs'],
    [{ local_network: '10.1.0.0' }, 'local_network must be an IPv4 CIDR such as 10.1.0.0/24'],
    [{ local_network: '10.1.0.0/33' }, 'local_network must be an IPv4 CIDR such as 10.1.0.0/24'],
    [{ local_network: 'fd00::/64' }, 'local_network must be an IPv4 CIDR such as 10.1.0.0/24'],
    [{ uam_server: 'ftp://portal' }, 'uam_server must be an http or https URL'],
    [{ radius_client_ip: '10.1.0.256' }, 'radius_client_ip must be an IP address'],
    [{ coa_port: 0 }, 'coa_port must be a port number 1-65535'],
    [{ coa_port: 70000 }, 'coa_port must be a port number 1-65535'],
    [{ radius_nas_id: 'has space' }, 'radius_nas_id must be 1-253 printable characters'],
    [{ radius_secret: 'short' }, 'radius secret must be 16-128 printable characters without spaces'],
    // RFC 2865 §3: at least 16 octets.
    [
      { radius_secret: 'fifteen-chars-1' },
      'radius secret must be 16-128 printable characters without spaces',
    ],
    [{ uam_secret: 'with space' }, 'uam secret must be 1-128 printable characters without spaces'],
    [{ uam_auth: 'mschap' }, 'uam_auth must be chap or pap'],
    [{ name: '' }, 'name must be 1-100 characters'],
    [{ model: 42 }, 'model must be 1-100 characters'],
  ];
  for (const [overrides, message] of cases) {
    await t.rejects(aDevice(app, overrides), { status: 422, message }, JSON.stringify(overrides));
  }
  t.same((await wifiRows(app.deps.db)).devices, []);
  t.ok(await aDevice(app, { radius_client_ip: 'fe80::1' }), 'IPv6 CoA address is fine');
});

t.test('NAS ids and MAC addresses are unique', async (t) => {
  const { app } = await startTestApp(t);
  const first = await aDevice(app);
  await t.rejects(aDevice(app, { mac_address: '02:00:00:00:00:09' }), {
    status: 409,
    message: 'a device with this radius_nas_id is already registered',
  });
  await t.rejects(aDevice(app, { radius_nas_id: 'other' }), {
    status: 409,
    message: 'a device with this mac_address is already registered',
  });
  const second = await aDevice(app, { radius_nas_id: 'other', mac_address: '02:00:00:00:00:09' });
  await t.rejects(updateDevice(app.deps, second.device.id, { radius_nas_id: 'lobby-01' }), {
    status: 409,
    message: 'a device with this radius_nas_id is already registered',
  });
  t.same(
    (await listDevices(app.deps)).map((d) => d.id).sort(),
    [first.device.id, second.device.id].sort(),
    'the refused update changed nothing',
  );
  t.equal((await deviceByNasId(app.deps, 'other'))?.device.id, second.device.id);
});

t.test('updates change only what is given; rotate-secret replaces the secret', async (t) => {
  const { app, clock } = await startTestApp(t);
  const { device, radiusSecret } = await aDevice(app, { uam_secret: 'uam1' });
  clock.advance('1m');
  const updated = await updateDevice(app.deps, device.id, {
    name: 'Lobby AP 2',
    uam_secret: null,
    uam_auth: 'pap',
    require_message_authenticator: false,
  });
  t.same(presentDevice(updated), {
    ...presentDevice(device),
    name: 'Lobby AP 2',
    uam_auth: 'pap',
    has_uam_secret: false,
    require_message_authenticator: false,
    updated_at: '2026-01-15T09:01:00.000Z',
  });
  t.equal(
    (await deviceByNasId(app.deps, 'lobby-01'))?.radiusSecret,
    radiusSecret,
    'secret unchanged by an update',
  );
  const rotated = await rotateDeviceSecret(app.deps, device.id);
  t.not(rotated.radiusSecret, radiusSecret);
  t.equal((await deviceByNasId(app.deps, 'lobby-01'))?.radiusSecret, rotated.radiusSecret);
  await t.rejects(rotateDeviceSecret(app.deps, device.id, 'bad secret'), {
    status: 422,
    message: 'radius secret must be 16-128 printable characters without spaces',
  });
  await t.rejects(updateDevice(app.deps, '00000000-0000-4000-8000-000000000000', { name: 'x' }), {
    status: 404,
    message: 'device not found',
  });
});

t.test(
  'the router of a portal request is the one named by nasid; by uamip only when one network holds it (issue 17)',
  async (t) => {
    const { app } = await startTestApp(t);
    // Two sites on CoovaChilli's default network, each with its own uam secret.
    const first = await aDevice(app, { radius_nas_id: 'site-a', uam_secret: 'secret-a' });
    const second = await aDevice(app, {
      radius_nas_id: 'site-b',
      mac_address: '02:00:00:00:00:02',
      uam_secret: 'secret-b',
      uam_auth: 'pap',
    });
    const other = await aDevice(app, {
      radius_nas_id: 'bar',
      mac_address: '02:00:00:00:00:03',
      local_network: '10.9.0.0/16',
    });
    t.match(await findPortalRouter(app.deps, { nasid: 'site-a', uamip: '10.1.0.1' }), {
      device: { id: first.device.id },
      uamSecret: 'secret-a',
      uamAuth: 'chap',
    });
    t.match(await findPortalRouter(app.deps, { nasid: 'site-b', uamip: '10.1.0.1' }), {
      device: { id: second.device.id },
      uamSecret: 'secret-b',
      uamAuth: 'pap',
    });
    t.match(await findPortalRouter(app.deps, { nasid: 'bar', uamip: undefined }), {
      device: { id: other.device.id },
      uamSecret: null,
    });
    t.match(
      await findPortalRouter(app.deps, { nasid: undefined, uamip: '10.9.3.1' }),
      { device: { id: other.device.id } },
      'without nasid, the only network holding uamip',
    );
    await t.rejects(findPortalRouter(app.deps, { nasid: undefined, uamip: '10.1.0.1' }), {
      status: 422,
      message: 'ambiguous router: send nasid',
    });
    await t.rejects(findPortalRouter(app.deps, { nasid: 'site-a', uamip: '10.9.0.1' }), {
      status: 422,
      message: 'uamip is not inside the network of the router named by nasid',
    });
    await t.rejects(findPortalRouter(app.deps, { nasid: 'SITE-A', uamip: '10.1.0.1' }), {
      status: 422,
      message: 'nasid is not a registered router',
    });
    await t.rejects(findPortalRouter(app.deps, { nasid: undefined, uamip: '192.168.1.1' }), {
      status: 422,
      message: 'uamip is not inside any registered device network',
    });
  },
);

t.test(
  'gateway_ip: the router’s own address must lie in its network, also after the network changes',
  async (t) => {
    const { app } = await startTestApp(t);
    const { device } = await aDevice(app, { gateway_ip: '10.1.0.254' });
    t.equal(device.gateway_ip, '10.1.0.254');
    const before = await wifiRows(app.deps.db);
    for (const request of [
      { gateway_ip: '10.2.0.1' },
      { gateway_ip: 'gateway.lan' },
      { local_network: '192.168.182.0/24' },
    ]) {
      await t.rejects(
        updateDevice(app.deps, device.id, request),
        { status: 422, message: 'gateway_ip must be an IPv4 address inside local_network' },
        JSON.stringify(request),
      );
    }
    await t.rejects(
      aDevice(app, { radius_nas_id: 'bar', mac_address: '02:00:00:00:00:09', gateway_ip: '10.9.9.9' }),
      { status: 422, message: 'gateway_ip must be an IPv4 address inside local_network' },
    );
    t.same(await wifiRows(app.deps.db), before, 'refused changes change nothing');
    const moved = await updateDevice(app.deps, device.id, {
      local_network: '192.168.182.0/24',
      gateway_ip: null,
    });
    t.match(
      moved,
      { local_network: '192.168.182.0/24', gateway_ip: null },
      'both at once: back to the default',
    );
  },
);
