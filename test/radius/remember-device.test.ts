import t from 'tap';
import { revoke, routerConfig, type DeviceRequest } from '../../src/wifi/index.js';
import { aLiveSession } from '../helpers/wifi.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  acctRequest,
  radclient,
  startRadiusApp,
  type RadiusTestApp,
} from '../helpers/radius.js';

/**
 * Returning guests (DESIGN.md §4.8) with FreeRADIUS radclient as the router: a device that logged
 * in with a grant of a plan that remembers devices comes back by MAC authentication (User-Name and
 * password = its MAC) with the grant's limits, while the grant lasts and its device limit allows.
 */

const chilli: DeviceRequest = { model: 'CoovaChilli on OpenWrt' };
const PHONE = '11-22-33-44-55-66';
const OTHER = 'AA-BB-CC-DD-EE-FF';

/** An Access-Request as CoovaChilli's macauth sends it (PAP, the MAC as name and password). */
const macRequest = (mac: string, caller = mac, password = mac): string =>
  [
    `User-Name = "${mac}"`,
    `User-Password = "${password}"`,
    `NAS-Identifier = "${NAS_ID}"`,
    'NAS-IP-Address = 127.0.0.1',
    'Service-Type = Framed-User',
    `Calling-Station-Id = "${caller}"`,
    'Message-Authenticator = 0x00',
  ].join('\n') + '\n';

const loginFrom = (username: string, password: string, mac: string): string =>
  [
    `User-Name = "${username}"`,
    `User-Password = "${password}"`,
    `NAS-Identifier = "${NAS_ID}"`,
    'NAS-IP-Address = 127.0.0.1',
    `Calling-Station-Id = "${mac}"`,
    'Message-Authenticator = 0x00',
  ].join('\n') + '\n';

/** The router's one reply (radclient exits 1 on a reject: that is an answer too). */
async function answer(app: RadiusTestApp, input: string) {
  const run = await radclient(app.auth, 'auth', input);
  if (run.replies.length !== 1) throw new Error(run.output);
  return run.replies[0];
}

t.test("a remembered device comes back by MAC with the grant's time, speed and data left", async (t) => {
  const app = await startRadiusApp(t, { device: chilli });
  const g = await aGuest(app, {
    remember_device: true,
    max_devices: 1,
    data_limit_bytes: 1_000_000_000,
    download_kbps: 4000,
    upload_kbps: 1000,
  });
  t.equal((await answer(app, macRequest(PHONE)))?.code, 'Access-Reject', 'not before it logged in once');

  app.clock.advance('10m');
  t.equal((await answer(app, loginFrom(g.username, g.password, PHONE)))?.code, 'Access-Accept');
  const rows = await app.app.deps.db.selectFrom('remembered_devices').selectAll().execute();
  t.match(rows, [{ grant_id: g.grantId, mac: '11:22:33:44:55:66' }]);

  app.clock.advance('20m');
  const back = await answer(app, macRequest(PHONE));
  t.equal(back?.code, 'Access-Accept');
  t.match(back?.attributes, {
    'User-Name': `"${g.username}"`,
    'Session-Timeout': String(3600 - 30 * 60),
    'ChilliSpot-Max-Total-Octets': '1000000000',
    'WISPr-Bandwidth-Max-Down': '4000000',
    'WISPr-Bandwidth-Max-Up': '1000000',
  });
  // MikroTik writes the MAC with colons: the same device.
  t.equal((await answer(app, macRequest('11:22:33:44:55:66')))?.code, 'Access-Accept');

  // Refused: another device, a MAC that is not the caller's, a password that is not the MAC.
  t.equal((await answer(app, macRequest(OTHER)))?.code, 'Access-Reject');
  t.equal((await answer(app, macRequest(PHONE, OTHER)))?.code, 'Access-Reject');
  t.equal((await answer(app, macRequest(PHONE, PHONE, 'secret')))?.code, 'Access-Reject');

  // Accounting under the MAC (a router that kept it as User-Name) counts against the grant.
  const acct = await radclient(
    app.acct,
    'acct',
    `${acctRequest(PHONE, 'mac00001').trimEnd()}\nAcct-Status-Type = Start\n`,
  );
  t.equal(acct.exitCode, 0, acct.output);
  const session = await app.app.deps.db
    .selectFrom('radius_sessions')
    .selectAll()
    .where('acct_session_id', '=', 'mac00001')
    .executeTakeFirst();
  t.equal(session?.grant_id, g.grantId);

  // The device limit: another device online on the grant keeps the remembered one out.
  await aLiveSession(app.app, {
    deviceId: app.deviceId,
    username: g.username,
    acctSessionId: 'other01',
    mac: 'AA:BB:CC:DD:EE:FF',
  });
  const busy = await answer(app, macRequest(PHONE));
  t.same(busy?.code, 'Access-Reject');
  t.equal(busy?.attributes['Reply-Message'], '"This access is already in use on another device"');
});

t.test('MAC logins end with the grant, with its revocation, and never happen for other plans', async (t) => {
  const app = await startRadiusApp(t, { device: chilli });
  const plain = await aGuest(app, {});
  t.equal((await answer(app, loginFrom(plain.username, plain.password, OTHER)))?.code, 'Access-Accept');
  t.same(
    await app.app.deps.db.selectFrom('remembered_devices').selectAll().execute(),
    [],
    'nothing remembered',
  );
  t.equal((await answer(app, macRequest(OTHER)))?.code, 'Access-Reject');

  const g = await aGuest(app, { remember_device: true });
  t.equal((await answer(app, loginFrom(g.username, g.password, PHONE)))?.code, 'Access-Accept');
  t.equal((await answer(app, macRequest(PHONE)))?.code, 'Access-Accept');
  app.clock.advance('61m');
  const expired = await answer(app, macRequest(PHONE));
  t.equal(expired?.code, 'Access-Reject', 'the grant has expired');

  const h = await aGuest(app, { remember_device: true });
  t.equal((await answer(app, loginFrom(h.username, h.password, PHONE)))?.code, 'Access-Accept');
  t.equal((await answer(app, macRequest(PHONE)))?.code, 'Access-Accept', 'the newer grant');
  await revoke(app.app.deps, h.grantId, 'test');
  t.equal((await answer(app, macRequest(PHONE)))?.code, 'Access-Reject', 'revoked');
});

t.test('router-config turns MAC authentication on where a plan remembers devices', async (t) => {
  const app = await startRadiusApp(t, { device: chilli, env: { RADIUS_SECRET: SECRET } });
  const before = await routerConfig(app.app.deps, app.deviceId, { format: 'routeros' });
  t.match(before.text, /login-by=http-chap,http-pap dns-name/);
  t.notMatch(before.text, /login-by=mac/);
  await aGuest(app, { remember_device: true });
  const routeros = await routerConfig(app.app.deps, app.deviceId, { format: 'routeros' });
  t.match(routeros.text, /login-by=mac,http-chap,http-pap mac-auth-mode=mac-as-username-and-password/);
  t.match(
    (await routerConfig(app.app.deps, app.deviceId, { format: 'coovachilli' })).text,
    /^HS_MACAUTH='?on'?$/m,
  );
  const openwrt = (await routerConfig(app.app.deps, app.deviceId, { format: 'openwrt' })).text;
  t.match(openwrt, /uci set 'chilli\.@chilli\[0\]\.macauth=1'/);
});
