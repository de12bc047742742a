import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase, recordAccounting, revoke, updateDevice } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jsonRequest } from '../helpers/http.js';
import {
  aDevice,
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  postPurchase,
  wifiRows,
  type PaidPurchase,
} from '../helpers/wifi.js';

/**
 * The router hand-offs of DESIGN.md §4.7/§4.8 through HTTP: MikroTik's hotspot-login after a
 * purchase, a typed login on either router, and the router check the portal makes before it
 * sells. The expected values are computed here from the protocols, not by the code under test.
 */

const md5 = (...parts: (Buffer | string)[]) =>
  parts.reduce((h, p) => h.update(p), createHash('md5')).digest();
/** RouterOS's octal form of octets. */
const octal = (bytes: Buffer): string =>
  [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
const CHAP_ID = Buffer.of(0xf9);
const CHALLENGE = Buffer.from('ef0dd80b119c65a5c3ab62a65b7dfdce', 'hex');
const CHILLI_CHALLENGE = '8b10938e9770a389af6667748c2c828f';
const LINK = 'http://10.5.50.1/login';

async function setUp(t: Test) {
  const app = await startTestApp(t);
  await aDevice(app.app, {
    name: 'Bar',
    model: 'MikroTik hAP ax2',
    radius_nas_id: 'bar-01',
    mac_address: '02:00:00:00:00:0b',
    local_network: '10.5.50.0/24',
  });
  await aDevice(app.app, { uam_secret: 'uamsecret' }); // CoovaChilli, lobby-01, 10.1.0.0/24
  return app;
}

async function credentials(app: TestApp, p: PaidPurchase) {
  const live = await findLiveForPurchase(app.app.deps, p.invoiceId, sha256Hex(p.key));
  if (live.kind !== 'live') throw new Error(live.kind);
  return { username: live.grant.username, password: live.password, grantId: live.grant.id };
}

const post = (app: TestApp, path: string, body: unknown) =>
  jsonRequest(`${app.base}${path}`, { method: 'POST', body });
const hotspotLogin = (app: TestApp, invoiceId: string, body: Record<string, unknown>) =>
  post(app, `/api/v1/public/purchases/${invoiceId}/hotspot-login`, body);
const accessLogin = (app: TestApp, body: Record<string, unknown>) =>
  post(app, '/api/v1/public/access/login', body);

t.test(
  'hotspot-login answers the MikroTik login URL with the HTTP-CHAP response, or the password (PAP)',
  async (t) => {
    const app = await setUp(t);
    const p = await aPaidPurchase(app);
    const { username, password } = await credentials(app, p);
    const chap = await hotspotLogin(app, p.invoiceId, {
      purchase_key: p.key,
      nasid: 'bar-01',
      link_login_only: LINK,
      chap_id: octal(CHAP_ID),
      chap_challenge: octal(CHALLENGE),
      dst: 'http://example.com/news?a=1',
    });
    t.equal(chap.status, 200);
    const response = md5(CHAP_ID, password, CHALLENGE).toString('hex');
    t.same(chap.body, {
      data: {
        redirect_url: `${LINK}?username=${username}&password=${response}&dst=http%3A%2F%2Fexample.com%2Fnews%3Fa%3D1`,
      },
    });
    const pap = await hotspotLogin(app, p.invoiceId, {
      purchase_key: p.key,
      nasid: 'bar-01',
      link_login_only: 'https://10.5.50.1/login',
      chap_id: '',
      chap_challenge: '',
    });
    t.same(pap.body, {
      data: { redirect_url: `https://10.5.50.1/login?username=${username}&password=${password}` },
    });
  },
);

t.test('every hotspot-login refusal has its status and message, and changes nothing', async (t) => {
  const app = await setUp(t);
  const p = await aPaidPurchase(app);
  const good = {
    purchase_key: p.key,
    nasid: 'bar-01',
    link_login_only: LINK,
    chap_id: octal(CHAP_ID),
    chap_challenge: octal(CHALLENGE),
  };
  const before = await wifiRows(app.app.deps.db);
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['unknown field', { ...good, mac: '11:22:33:44:55:66' }, 400, 'invalid request body'],
    ['short key', { ...good, purchase_key: 'short' }, 422, 'purchase_key must be at least 16 characters'],
    ['no nasid', { ...good, nasid: undefined }, 422, 'nasid must be 1-253 printable characters'],
    ['nasid with a space', { ...good, nasid: 'bar 01' }, 422, 'nasid must be 1-253 printable characters'],
    [
      'ftp link',
      { ...good, link_login_only: 'ftp://10.5.50.1/login' },
      422,
      'link_login_only must be an http or https URL without query or credentials',
    ],
    [
      'javascript link',
      { ...good, link_login_only: 'javascript:alert(1)' },
      422,
      'link_login_only must be an http or https URL without query or credentials',
    ],
    [
      'link with credentials',
      { ...good, link_login_only: 'http://a:b@10.5.50.1/login' },
      422,
      'link_login_only must be an http or https URL without query or credentials',
    ],
    [
      'link with a query',
      { ...good, link_login_only: `${LINK}?dst=x` },
      422,
      'link_login_only must be an http or https URL without query or credentials',
    ],
    [
      'a host outside the network',
      { ...good, link_login_only: 'http://203.0.113.7/login' },
      422,
      "link_login_only must be the router's own address on its network (gateway_ip)",
    ],
    [
      'another router’s network',
      { ...good, link_login_only: 'http://10.1.0.1/login' },
      422,
      "link_login_only must be the router's own address on its network (gateway_ip)",
    ],
    [
      'a guest’s phone on the same network',
      { ...good, link_login_only: 'http://10.5.50.77/login' },
      422,
      "link_login_only must be the router's own address on its network (gateway_ip)",
    ],
    [
      'a name, not an address',
      { ...good, link_login_only: 'http://hotspot.lan/login' },
      422,
      "link_login_only must be the router's own address on its network (gateway_ip)",
    ],
    [
      'chap_id of two octets',
      { ...good, chap_id: '\\371\\001' },
      422,
      'chap_id must be one octet in octal escapes, such as \\371',
    ],
    [
      'chap_id not an escape',
      { ...good, chap_id: '\\x41' },
      422,
      'chap_id must be one octet in octal escapes, such as \\371',
    ],
    [
      'a 15-octet challenge',
      { ...good, chap_challenge: octal(CHALLENGE.subarray(1)) },
      422,
      'chap_challenge must be 16 octets in octal escapes',
    ],
    [
      'a 17-octet challenge',
      { ...good, chap_challenge: `${octal(CHALLENGE)}\\001` },
      422,
      'chap_challenge must be 16 octets in octal escapes',
    ],
    [
      'chap_id alone',
      { ...good, chap_challenge: '' },
      422,
      'chap_id and chap_challenge must be sent together',
    ],
    ['ftp dst', { ...good, dst: 'ftp://example.com/' }, 422, 'dst must be an http or https URL'],
    ['unknown router', { ...good, nasid: 'BAR-01' }, 422, 'nasid is not a registered router'],
    ['wrong key', { ...good, purchase_key: aPurchaseKey() }, 403, 'purchase key does not match this invoice'],
  ];
  for (const [name, body, status, message] of cases) {
    const res = await hotspotLogin(app, p.invoiceId, body);
    t.equal(res.status, status, name);
    t.same(res.body, { message }, name);
  }
  const unknown = await hotspotLogin(app, '00000000-0000-4000-8000-000000000000', good);
  t.equal(unknown.status, 404);
  t.same(unknown.body, { message: 'invoice not found' });
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
});

t.test('hotspot-login is 409 while unpaid and after revocation', async (t) => {
  const app = await setUp(t);
  const plan = await aPlan(app.app);
  const key = aPurchaseKey();
  const pending = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' }, key)).body.data!;
  const body = (k: string) => ({ purchase_key: k, nasid: 'bar-01', link_login_only: LINK });
  const unpaid = await hotspotLogin(app, pending.invoice_id, body(key));
  t.equal(unpaid.status, 409);
  t.same(unpaid.body, { message: 'the invoice is not paid' });
  const paid = await aPaidPurchase(app, plan);
  await revoke(app.app.deps, (await credentials(app, paid)).grantId, 'staff');
  const revoked = await hotspotLogin(app, paid.invoiceId, body(paid.key));
  t.equal(revoked.status, 409);
  t.same(revoked.body, { message: 'the access has been revoked' });
});

t.test(
  'uam-login finds the router by nasid: two sites on 10.1.0.0/24 keep their own uam secrets',
  async (t) => {
    const app = await startTestApp(t);
    const siteA = await aDevice(app.app, { radius_nas_id: 'site-a', uam_secret: 'secret-a' });
    await aDevice(app.app, {
      radius_nas_id: 'site-b',
      mac_address: '02:00:00:00:00:02',
      uam_secret: 'secret-b',
    });
    const p = await aPaidPurchase(app);
    const { username, password } = await credentials(app, p);
    const body = { purchase_key: p.key, uamip: '10.1.0.1', uamport: 3990, challenge: CHILLI_CHALLENGE };
    for (const [nasid, secret] of [
      ['site-a', 'secret-a'],
      ['site-b', 'secret-b'],
    ] as const) {
      const res = await post(app, `/api/v1/public/purchases/${p.invoiceId}/uam-login`, { ...body, nasid });
      const response = md5(
        Buffer.of(0),
        password,
        md5(Buffer.from(CHILLI_CHALLENGE, 'hex'), secret),
      ).toString('hex');
      const url = `http://10.1.0.1:3990/logon?username=${username}&response=${response}`;
      t.same(res.body, { data: { redirect_url: url }, redirect_url: url }, nasid);
    }
    const before = await wifiRows(app.app.deps.db);
    const guessed = await post(app, `/api/v1/public/purchases/${p.invoiceId}/uam-login`, body);
    t.equal(guessed.status, 422);
    t.same(guessed.body, { message: 'ambiguous router: send nasid' });
    const elsewhere = await post(app, `/api/v1/public/purchases/${p.invoiceId}/uam-login`, {
      ...body,
      nasid: 'site-a',
      uamip: '10.2.0.1',
    });
    t.equal(elsewhere.status, 422);
    t.same(elsewhere.body, { message: 'uamip is not inside the network of the router named by nasid' });
    t.same(await wifiRows(app.app.deps.db), before);

    // With its address set, a CoovaChilli is handed logins on that address only.
    await updateDevice(app.app.deps, siteA.device.id, { gateway_ip: '10.1.0.1' });
    t.equal(
      (await post(app, `/api/v1/public/purchases/${p.invoiceId}/uam-login`, { ...body, nasid: 'site-a' }))
        .status,
      200,
    );
    const phone = await post(app, `/api/v1/public/purchases/${p.invoiceId}/uam-login`, {
      ...body,
      nasid: 'site-a',
      uamip: '10.1.0.77',
    });
    t.equal(phone.status, 422);
    t.same(phone.body, { message: "uamip is not the router's own address (gateway_ip)" });
  },
);

t.test('a typed login is handed to either router, whatever the case of what the guest typed', async (t) => {
  const app = await setUp(t);
  const p = await aPaidPurchase(app);
  const { username, password } = await credentials(app, p);
  const typed = {
    username: ` ${username.toUpperCase()}`,
    password: `${password[0]!.toUpperCase()}${password.slice(1)} `,
  };
  const mikrotik = await accessLogin(app, {
    ...typed,
    nasid: 'bar-01',
    link_login_only: LINK,
    chap_id: octal(CHAP_ID),
    chap_challenge: octal(CHALLENGE),
    dst: 'http://example.com/',
  });
  t.equal(mikrotik.status, 200);
  const response = md5(CHAP_ID, password, CHALLENGE).toString('hex');
  t.same(mikrotik.body, {
    data: {
      redirect_url: `${LINK}?username=${username}&password=${response}&dst=http%3A%2F%2Fexample.com%2F`,
    },
  });
  const chilli = await accessLogin(app, {
    ...typed,
    nasid: 'lobby-01',
    uamip: '10.1.0.1',
    uamport: 3990,
    challenge: CHILLI_CHALLENGE,
    userurl: 'http://example.com/',
  });
  const chap = md5(Buffer.of(0), password, md5(Buffer.from(CHILLI_CHALLENGE, 'hex'), 'uamsecret')).toString(
    'hex',
  );
  t.same(chilli.body, {
    data: {
      redirect_url: `http://10.1.0.1:3990/logon?username=${username}&response=${chap}&userurl=http%3A%2F%2Fexample.com%2F`,
    },
  });
});

t.test('a typed login refuses wrong, ended and used-up access, and changes nothing', async (t) => {
  const app = await setUp(t);
  const plan = await aPlan(app.app, { data_limit_bytes: 1_000_000 });
  const { username, password } = await credentials(app, await aPaidPurchase(app, plan));
  const good = { username, password };
  const used = await credentials(app, await aPaidPurchase(app, plan));
  const revoked = await credentials(app, await aPaidPurchase(app, plan));
  await revoke(app.app.deps, revoked.grantId, 'staff');
  const [bar] = await app.app.deps.db
    .selectFrom('devices')
    .select('id')
    .where('radius_nas_id', '=', 'bar-01')
    .execute();
  await recordAccounting(app.app.deps, [
    {
      deviceId: bar!.id,
      statusType: 'Stop',
      acctSessionId: 'used-1',
      username: used.username,
      framedIp: '10.5.50.9',
      mac: '11:22:33:44:55:66',
      inputOctets: 400_000,
      outputOctets: 600_000,
      sessionTime: 60,
      terminateCause: 'User-Request',
      delaySeconds: 0,
    },
  ]);
  const router = { nasid: 'bar-01', link_login_only: LINK };
  const before = await wifiRows(app.app.deps.db);
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['wrong password', { username: good.username, password: 'wrongwrong' }, 401, 'invalid login'],
    ['unknown user', { username: 'nobody12', password: good.password }, 401, 'invalid login'],
    [
      'empty password',
      { username: good.username, password: '' },
      422,
      'username and password must be non-empty strings',
    ],
    ['no username', { password: good.password }, 422, 'username and password must be non-empty strings'],
    [
      'revoked',
      { username: revoked.username, password: revoked.password },
      409,
      'the access has been revoked',
    ],
    ['used up', { username: used.username, password: used.password }, 409, 'the data allowance is used up'],
  ];
  for (const [name, creds, status, message] of cases) {
    const res = await accessLogin(app, { ...creds, ...router });
    t.equal(res.status, status, name);
    t.same(res.body, { message }, name);
  }
  const mixed = await accessLogin(app, { ...good, ...router, uamip: '10.5.50.1' });
  t.equal(mixed.status, 422);
  t.same(mixed.body, {
    message: "send either CoovaChilli's uamip, uamport and challenge or MikroTik's link_login_only, not both",
  });
  const none = await accessLogin(app, { ...good });
  t.equal(none.status, 422);
  t.same(none.body, {
    message: 'send uamip, uamport and challenge (CoovaChilli) or nasid and link_login_only (MikroTik)',
  });
  t.equal(
    (await accessLogin(app, { ...good, ...router, purchase_key: 'x'.repeat(20) })).status,
    400,
    'unknown field',
  );
  app.clock.advance('1h');
  const expired = await accessLogin(app, { ...good, ...router });
  t.equal(expired.status, 409);
  t.same(expired.body, { message: 'the access has expired' });
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
});

t.test(
  'wrong typed logins are limited per client: thirty a minute, then 429 for the rest of the minute',
  async (t) => {
    const app = await setUp(t);
    const { username, password } = await credentials(app, await aPaidPurchase(app));
    const good = { username, password };
    const router = { nasid: 'bar-01', link_login_only: LINK };
    // Right logins and refused router parameters do not count.
    for (let i = 0; i < 12; i++) t.equal((await accessLogin(app, { ...good, ...router })).status, 200);
    t.equal((await accessLogin(app, { ...good, nasid: 'nope', link_login_only: LINK })).status, 422);
    // Thirty wrong guesses at once (concurrently) use the budget up.
    const guesses = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        accessLogin(app, { username: good.username, password: `guess${String(i)}xx`, ...router }),
      ),
    );
    t.same(
      guesses.map((g) => g.status).sort(),
      [...Array<number>(30).fill(401), 429, 429],
      'no more than thirty guesses are answered, however they are sent',
    );
    const blocked = await accessLogin(app, { ...good, ...router });
    t.equal(blocked.status, 429);
    t.same(blocked.body, { message: 'too many requests, try again later' });
    t.match(blocked.headers.get('retry-after'), /^\d+$/);
    app.clock.advance('1m');
    t.equal((await accessLogin(app, { ...good, ...router })).status, 200, 'the next minute is open again');
  },
);

t.test('the router check says which hand-off a portal page will use, before anyone pays', async (t) => {
  const app = await setUp(t);
  const check = (query: Record<string, string>) =>
    jsonRequest(`${app.base}/api/v1/public/router?${new URLSearchParams(query).toString()}`, {
      method: 'GET',
    });
  t.same((await check({ nasid: 'lobby-01', uamip: '10.1.0.1' })).body, {
    data: { nasid: 'lobby-01', hand_off: 'coovachilli' },
  });
  t.same((await check({ uamip: '10.1.0.1' })).body, { data: { nasid: 'lobby-01', hand_off: 'coovachilli' } });
  t.same((await check({ nasid: 'bar-01', link_login_only: LINK })).body, {
    data: { nasid: 'bar-01', hand_off: 'mikrotik' },
  });
  const refusals: [Record<string, string>, string][] = [
    [{ nasid: 'nowhere', uamip: '10.1.0.1' }, 'nasid is not a registered router'],
    [{ uamip: '192.168.0.1' }, 'uamip is not inside any registered device network'],
    [
      { nasid: 'bar-01', link_login_only: 'http://10.1.0.1/login' },
      "link_login_only must be the router's own address on its network (gateway_ip)",
    ],
    [{}, 'send uamip, uamport and challenge (CoovaChilli) or nasid and link_login_only (MikroTik)'],
  ];
  for (const [query, message] of refusals) {
    const res = await check(query);
    t.equal(res.status, 422, message);
    t.same(res.body, { message });
  }
  // With its own address set, the check refuses another address as the hand-off would.
  const [lobby] = await app.app.deps.db
    .selectFrom('devices')
    .select('id')
    .where('radius_nas_id', '=', 'lobby-01')
    .execute();
  await updateDevice(app.app.deps, lobby!.id, { gateway_ip: '10.1.0.1' });
  t.same((await check({ nasid: 'lobby-01', uamip: '10.1.0.77' })).body, {
    message: "uamip is not the router's own address (gateway_ip)",
  });
  t.same((await check({ nasid: 'lobby-01', uamip: '10.1.0.1' })).body, {
    data: { nasid: 'lobby-01', hand_off: 'coovachilli' },
  });
  await aDevice(app.app, { radius_nas_id: 'lobby-02', mac_address: '02:00:00:00:00:0c' });
  t.same((await check({ uamip: '10.1.0.1' })).body, { message: 'ambiguous router: send nasid' });
});
