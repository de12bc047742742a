import { createHash } from 'node:crypto';
import t from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase, revoke } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jsonRequest, rawRequest } from '../helpers/http.js';
import {
  aDevice,
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  postPurchase,
  wifiRows,
  type PaidPurchase,
} from '../helpers/wifi.js';

const CHALLENGE = '8b10938e9770a389af6667748c2c828f';
const md5 = (...parts: (Buffer | string)[]) =>
  parts.reduce((h, p) => h.update(p), createHash('md5')).digest();
/** PAP as the reference portal computes it: password XOR the 16-byte key, repeated. */
const papHex = (password: string, key: Buffer) =>
  Buffer.from([...Buffer.from(password)].map((b, i) => b ^ (key[i % 16] ?? 0))).toString('hex');

const login = (t: TestApp, invoiceId: string, body: Record<string, unknown>) =>
  jsonRequest(`${t.base}/api/v1/public/purchases/${invoiceId}/uam-login`, { method: 'POST', body });

async function credentials(t: TestApp, p: PaidPurchase) {
  const live = await findLiveForPurchase(t.app.deps, p.invoiceId, sha256Hex(p.key));
  if (live.kind !== 'live') throw new Error(live.kind);
  return { username: live.grant.username, password: live.password, grantId: live.grant.id };
}

t.test('CHAP with the device uam secret, userurl passed through encoded; no secret at all', async (t) => {
  const app = await startTestApp(t);
  await aDevice(app.app, { uam_secret: 'uamsecret' });
  await aDevice(app.app, {
    radius_nas_id: 'bare-chap',
    mac_address: '02:00:00:00:00:03',
    local_network: '172.16.0.0/16',
  });
  await aDevice(app.app, {
    radius_nas_id: 'bare-pap',
    mac_address: '02:00:00:00:00:04',
    local_network: '192.168.182.0/24',
    uam_auth: 'pap',
  });
  const p = await aPaidPurchase(app);
  const { username, password } = await credentials(app, p);
  const res = await login(app, p.invoiceId, {
    purchase_key: p.key,
    uamip: '10.1.0.1',
    uamport: 3990,
    challenge: CHALLENGE,
    userurl: 'http://example.com/a?b=c&d=e',
  });
  t.equal(res.status, 200);
  const newchal = md5(Buffer.from(CHALLENGE, 'hex'), 'uamsecret');
  const response = md5(Buffer.of(0), password, newchal).toString('hex');
  const url = `http://10.1.0.1:3990/logon?username=${username}&response=${response}&userurl=http%3A%2F%2Fexample.com%2Fa%3Fb%3Dc%26d%3De`;
  t.same(res.body, { data: { redirect_url: url }, redirect_url: url });

  const raw = Buffer.from(CHALLENGE, 'hex');
  const bareChap = await login(app, p.invoiceId, {
    purchase_key: p.key,
    uamip: '172.16.9.9',
    uamport: 3990,
    challenge: CHALLENGE,
  });
  t.match(bareChap.body, {
    redirect_url: `http://172.16.9.9:3990/logon?username=${username}&response=${md5(Buffer.of(0), password, raw).toString('hex')}`,
  });
  const barePap = await login(app, p.invoiceId, {
    purchase_key: p.key,
    uamip: '192.168.182.1',
    uamport: 3990,
    challenge: CHALLENGE,
  });
  const xored = papHex(password, raw);
  t.match(barePap.body, {
    redirect_url: `http://192.168.182.1:3990/logon?username=${username}&password=${xored}`,
  });
});

t.test('PAP with the global UAM_SECRET when the device has none; a device secret wins', async (t) => {
  const app = await startTestApp(t, { env: { UAM_SECRET: 'global-secret' } });
  await aDevice(app.app, { uam_auth: 'pap' });
  await aDevice(app.app, {
    radius_nas_id: 'bar',
    mac_address: '02:00:00:00:00:02',
    local_network: '192.168.182.0/24',
    uam_secret: 'own',
  });
  const p = await aPaidPurchase(app);
  const { username, password } = await credentials(app, p);

  const pap = await login(app, p.invoiceId, {
    purchase_key: p.key,
    uamip: '10.1.0.1',
    uamport: 3990,
    challenge: CHALLENGE,
  });
  const key = md5(Buffer.from(CHALLENGE, 'hex'), 'global-secret');
  const xored = papHex(password, key);
  t.same(pap.body, {
    data: { redirect_url: `http://10.1.0.1:3990/logon?username=${username}&password=${xored}` },
    redirect_url: `http://10.1.0.1:3990/logon?username=${username}&password=${xored}`,
  });

  const own = await login(app, p.invoiceId, {
    purchase_key: p.key,
    uamip: '192.168.182.1',
    uamport: 4990,
    challenge: CHALLENGE.toUpperCase(),
    userurl: '',
  });
  const response = md5(Buffer.of(0), password, md5(Buffer.from(CHALLENGE, 'hex'), 'own')).toString('hex');
  t.match(
    own.body,
    { redirect_url: `http://192.168.182.1:4990/logon?username=${username}&response=${response}` },
    'the device secret wins',
  );
});

t.test('every refusal has its status and message, and changes nothing', async (t) => {
  const app = await startTestApp(t);
  await aDevice(app.app);
  const p = await aPaidPurchase(app);
  const good = { purchase_key: p.key, uamip: '10.1.0.1', uamport: 3990, challenge: CHALLENGE };
  const before = await wifiRows(app.app.deps.db);

  const cases: [string, Record<string, unknown>, number, string][] = [
    ['unknown field', { ...good, ident: 0 }, 400, 'invalid request body'],
    ['short key', { ...good, purchase_key: 'short' }, 422, 'purchase_key must be at least 16 characters'],
    [
      'key not a string',
      { ...good, purchase_key: 1234567890123456 },
      422,
      'purchase_key must be at least 16 characters',
    ],
    ['IPv6 uamip', { ...good, uamip: 'fe80::1' }, 422, 'uamip must be an IPv4 address'],
    ['bad uamip', { ...good, uamip: '10.1.0.300' }, 422, 'uamip must be an IPv4 address'],
    ['port 0', { ...good, uamport: 0 }, 422, 'uamport must be a port number'],
    ['port as string', { ...good, uamport: '3990' }, 422, 'uamport must be a port number'],
    [
      'short challenge',
      { ...good, challenge: CHALLENGE.slice(2) },
      422,
      'challenge must be 32 hexadecimal characters',
    ],
    [
      'non-hex challenge',
      { ...good, challenge: 'z'.repeat(32) },
      422,
      'challenge must be 32 hexadecimal characters',
    ],
    ['ftp userurl', { ...good, userurl: 'ftp://example.com/' }, 422, 'userurl must be an http or https URL'],
    [
      'javascript userurl',
      { ...good, userurl: 'javascript:alert(1)' },
      422,
      'userurl must be an http or https URL',
    ],
    [
      'outside every network',
      { ...good, uamip: '10.2.0.1' },
      422,
      'uamip is not inside any registered device network',
    ],
    ['wrong key', { ...good, purchase_key: aPurchaseKey() }, 403, 'purchase key does not match this invoice'],
  ];
  for (const [name, body, status, message] of cases) {
    const res = await login(app, p.invoiceId, body);
    t.equal(res.status, status, name);
    t.same(res.body, { message }, name);
  }
  const unknown = await login(app, '00000000-0000-4000-8000-000000000000', good);
  t.equal(unknown.status, 404);
  t.same(unknown.body, { message: 'invoice not found' });
  t.equal((await login(app, 'nope', good)).status, 404);
  const malformed = await rawRequest(`${app.base}/api/v1/public/purchases/${p.invoiceId}/uam-login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"purchase_key":',
  });
  t.equal(malformed.status, 400);
  t.same(await wifiRows(app.app.deps.db), before);
});

t.test('409 while unpaid, after expiry and after revocation', async (t) => {
  const app = await startTestApp(t);
  await aDevice(app.app);
  const plan = await aPlan(app.app);
  const key = aPurchaseKey();
  const pending = (await postPurchase(app.base, { plan_id: plan.id, phone: '0712345678' }, key)).body.data!;
  const body = (k: string) => ({ purchase_key: k, uamip: '10.1.0.1', uamport: 3990, challenge: CHALLENGE });
  const unpaid = await login(app, pending.invoice_id, body(key));
  t.equal(unpaid.status, 409);
  t.same(unpaid.body, { message: 'the invoice is not paid' });

  const revoked = await aPaidPurchase(app, plan);
  await revoke(app.app.deps, (await credentials(app, revoked)).grantId, 'staff');
  const r = await login(app, revoked.invoiceId, body(revoked.key));
  t.equal(r.status, 409);
  t.same(r.body, { message: 'the access has been revoked' });

  const expiring = await aPaidPurchase(app, plan);
  t.equal((await login(app, expiring.invoiceId, body(expiring.key))).status, 200);
  app.clock.advance('1h');
  const expired = await login(app, expiring.invoiceId, body(expiring.key));
  t.equal(expired.status, 409);
  t.same(expired.body, { message: 'the access has expired' });
});
