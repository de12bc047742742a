import path from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase, revoke, type PlanRow } from '../../src/wifi/index.js';
import { waitFor } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { boxEnv, cliEnv, runCli } from '../helpers/cli.js';
import { CoaListener, type Answer, type ReceivedRequest } from '../helpers/coa-listener.js';
import { jsonRequest } from '../helpers/http.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  acctRequest,
  papRequest,
  radclient,
  type RadiusTestApp,
  quietRadiusApp,
} from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPaidPurchase, aPlan, wifiRows } from '../helpers/wifi.js';

/**
 * Speed limits per plan (DESIGN.md §4.7): the plan's download_kbps/upload_kbps in the admin API,
 * the public plan list and the CLI; copied to the invoice and grant at purchase; sent in the
 * Access-Accept in the router's own attributes (radclient reads them with FreeRADIUS's
 * dictionaries); and, on request (--apply-to-live), given to the live grants of the plan with an
 * RFC 5176 CoA-Request to each of their live sessions (the router is a CoaListener, which checks
 * the signatures; the attributes are decoded here from the bytes it received).
 */

const MIKROTIK = 'MikroTik hAP ax2';
const CHILLI = 'CoovaChilli on OpenWrt';
const OTHER_MAKE = 'Ubiquiti UniFi U6 Lite';

const BAR_NAS_ID = 'bar-01';
const BAR_SECRET = 'radius-test-secret-bar-0002';

const FAST = { download_kbps: 4000, upload_kbps: 1000 } as const;
const SLOW = { download_kbps: 2000, upload_kbps: 512 } as const;

// --- A CoA-Request's attributes, decoded from the bytes (RFC 2865 §5.26 for vendor attributes) ---

type Kind = 'text' | 'integer' | 'ipaddr';
const ATTRIBUTES: Readonly<Record<string, readonly [string, Kind]>> = {
  '1': ['User-Name', 'text'],
  '8': ['Framed-IP-Address', 'ipaddr'],
  '27': ['Session-Timeout', 'integer'],
  '28': ['Idle-Timeout', 'integer'],
  '32': ['NAS-Identifier', 'text'],
  '44': ['Acct-Session-Id', 'text'],
  '85': ['Acct-Interim-Interval', 'integer'],
  '14988.8': ['Mikrotik-Rate-Limit', 'text'],
  '14988.17': ['Mikrotik-Total-Limit', 'integer'],
  '14988.18': ['Mikrotik-Total-Limit-Gigawords', 'integer'],
  '14559.3': ['ChilliSpot-Max-Total-Octets', 'integer'],
  '14559.4': ['ChilliSpot-Bandwidth-Max-Up', 'integer'],
  '14559.5': ['ChilliSpot-Bandwidth-Max-Down', 'integer'],
  '14559.23': ['CoovaChilli-Max-Total-Gigawords', 'integer'],
  '14122.7': ['WISPr-Bandwidth-Max-Up', 'integer'],
  '14122.8': ['WISPr-Bandwidth-Max-Down', 'integer'],
};

type Decoded = [string, string | number];

function decodeOne(key: string, value: Buffer): Decoded {
  const known = ATTRIBUTES[key];
  if (!known) return [`Attr-${key}`, `0x${value.toString('hex')}`];
  const [name, kind] = known;
  if (kind === 'integer')
    return [name, value.length === 4 ? value.readUInt32BE(0) : `0x${value.toString('hex')}`];
  if (kind === 'ipaddr') return [name, [...value].join('.')];
  return [name, value.toString('utf8')];
}

/**
 * The attributes of a received request in order, Message-Authenticator left out (the listener
 * checked it); a Vendor-Specific attribute (26) is a 4-octet vendor id then sub-attributes of
 * type, length, value, each listed as "<vendor>.<type>".
 */
function decode(req: ReceivedRequest): Decoded[] {
  const out: Decoded[] = [];
  for (const a of req.attributes) {
    if (a.type === 80) continue;
    if (a.type !== 26) {
      out.push(decodeOne(String(a.type), a.value));
      continue;
    }
    const vendor = a.value.readUInt32BE(0);
    for (let at = 4; at + 2 <= a.value.length;) {
      const type = a.value[at] ?? 0;
      const length = a.value[at + 1] ?? 0;
      if (length < 2) {
        out.push([`Vendor-${String(vendor)}-malformed`, `0x${a.value.subarray(at).toString('hex')}`]);
        break;
      }
      out.push(decodeOne(`${String(vendor)}.${String(type)}`, a.value.subarray(at + 2, at + length)));
      at += length;
    }
  }
  return out;
}

/** The CoA-Requests (code 43) a router received, by Acct-Session-Id, each checked as signed. */
function coaRequests(t: Test, listener: CoaListener): Map<string, Decoded[]> {
  const out = new Map<string, Decoded[]>();
  for (const req of listener.received.filter((r) => r.code === 43)) {
    t.match(
      req,
      { authenticatorOk: true, messageAuthenticatorOk: true, messageAuthenticatorIndex: 0 },
      'signed with the router secret, Message-Authenticator first',
    );
    const attrs = decode(req);
    out.set(String(attrs.find(([name]) => name === 'Acct-Session-Id')?.[1]), attrs);
  }
  return out;
}

// --- Set-up ---

interface Router {
  listener: CoaListener;
  /** What the router answers next (a CoA-Request, or a Disconnect-Request). */
  answer: Answer;
}

/** A router's CoA endpoint: answers with `router.answer`, which a test may change. */
async function aRouter(t: Test, secret: string, answer: Answer = { ack: true }) {
  const router: Router = { listener: new CoaListener(secret, () => router.answer), answer };
  const port = await router.listener.listen();
  t.teardown(() => router.listener.close());
  return { router, port };
}

/** The app with the lobby router (NAS lobby-01) of `model`, whose CoA port is a CoaListener. */
async function speedApp(t: Test, model: string, options: { answer?: Answer; clock?: ManualClock } = {}) {
  const { router, port } = await aRouter(t, SECRET, options.answer);
  const app = await quietRadiusApp(t, {
    device: { model, radius_client_ip: '127.0.0.1', coa_port: port },
    ...(options.clock && { clock: options.clock }),
  });
  return { app, router };
}

/** A second router (NAS bar-01, its own secret) with its own CoA endpoint. */
async function aBarRouter(t: Test, app: RadiusTestApp, model: string, answer?: Answer) {
  const { router, port } = await aRouter(t, BAR_SECRET, answer);
  await aDevice(app.app, {
    name: 'Bar AP',
    model,
    mac_address: 'aa:bb:cc:dd:ee:02',
    radius_nas_id: BAR_NAS_ID,
    radius_secret: BAR_SECRET,
    radius_client_ip: '127.0.0.1',
    coa_port: port,
  });
  return router;
}

/** A guest who bought `plan` (an existing one): the grant's credentials. */
async function guestOf(app: RadiusTestApp, plan: PlanRow) {
  const purchase = await aPaidPurchase(app, plan);
  const live = await findLiveForPurchase(app.app.deps, purchase.invoiceId, sha256Hex(purchase.key));
  if (live.kind !== 'live') throw new Error(`expected a live grant, got ${live.kind}`);
  return {
    username: live.grant.username,
    password: live.password,
    grantId: live.grant.id,
    invoiceId: purchase.invoiceId,
  };
}

/** An Accounting-Request from a router, answered (radclient is the router). */
async function account(
  t: Test,
  app: RadiusTestApp,
  username: string,
  session: string,
  lines: string[],
  options: { nasId?: string; secret?: string; framedIp?: boolean } = {},
): Promise<void> {
  let request = acctRequest(username, session, lines);
  if (options.nasId)
    request = request.replace(`NAS-Identifier = "${NAS_ID}"`, `NAS-Identifier = "${options.nasId}"`);
  if (options.framedIp === false) request = request.replace('Framed-IP-Address = 10.1.0.5\n', '');
  const run = await radclient(app.acct, 'acct', request, { secret: options.secret ?? SECRET });
  t.match(run.replies, [{ code: 'Accounting-Response' }], run.output);
}

/** The rate attributes of an Access-Accept a guest gets now, as radclient prints them. */
async function loginRate(t: Test, app: RadiusTestApp, guest: { username: string; password: string }) {
  const run = await radclient(app.auth, 'auth', papRequest(guest.username, guest.password));
  t.match(run.replies, [{ code: 'Access-Accept' }], run.output);
  return Object.fromEntries(
    Object.entries(run.replies[0]?.attributes ?? {}).filter(([name]) => /Rate-Limit|Bandwidth/.test(name)),
  );
}

const grantSpeeds = async (app: RadiusTestApp) =>
  Object.fromEntries(
    (await app.app.deps.db.selectFrom('grants').select(['id', 'download_kbps', 'upload_kbps']).execute()).map(
      (g) => [g.id, [g.download_kbps, g.upload_kbps]],
    ),
  );

const sessionId = (app: RadiusTestApp, acctSessionId: string) =>
  app.app.deps.db
    .selectFrom('radius_sessions')
    .select('id')
    .where('acct_session_id', '=', acctSessionId)
    .executeTakeFirstOrThrow()
    .then((r) => r.id);

// --- Access-Accept ---

const BASE_ACCEPT = { 'Session-Timeout': '3600', 'Acct-Interim-Interval': '300', 'Idle-Timeout': '600' };
const MIKROTIK_RATE = { 'Mikrotik-Rate-Limit': '"1000k/4000k"' };
const CHILLI_RATE = {
  'ChilliSpot-Bandwidth-Max-Up': '1000',
  'ChilliSpot-Bandwidth-Max-Down': '4000',
  'WISPr-Bandwidth-Max-Up': '1000000',
  'WISPr-Bandwidth-Max-Down': '4000000',
};

for (const [model, rate] of [
  [MIKROTIK, MIKROTIK_RATE],
  [CHILLI, CHILLI_RATE],
  [OTHER_MAKE, { ...MIKROTIK_RATE, ...CHILLI_RATE }],
] as const) {
  t.test(
    `${model}: the Access-Accept of a 4M/1M plan carries the speed in ${model === OTHER_MAKE ? 'every' : 'its'} make's attributes`,
    async (t) => {
      const app = await quietRadiusApp(t, { device: { model } });
      const g = await aGuest(app, FAST);
      const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
      t.equal(run.exitCode, 0, run.output);
      t.same(run.replies, [
        {
          code: 'Access-Accept',
          attributes: {
            'Message-Authenticator': run.replies[0]?.attributes['Message-Authenticator'],
            ...BASE_ACCEPT,
            ...rate,
          },
        },
      ]);
    },
  );
}

t.test('a plan without a speed limit sends no rate attributes to any make', async (t) => {
  for (const model of [MIKROTIK, CHILLI, OTHER_MAKE]) {
    const app = await quietRadiusApp(t, { device: { model } });
    const g = await aGuest(app);
    const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
    t.same(
      Object.keys(run.replies[0]?.attributes ?? {}),
      ['Message-Authenticator', 'Session-Timeout', 'Acct-Interim-Interval', 'Idle-Timeout'],
      model,
    );
  }
});

t.test(
  'a speed limited one way: MikroTik gets 0 for the open direction, ChilliSpot and WISPr only the limited one',
  async (t) => {
    const app = await quietRadiusApp(t, { device: { model: OTHER_MAKE } });
    const down = await aGuest(app, { download_kbps: 4000 });
    t.same(await loginRate(t, app, down), {
      'Mikrotik-Rate-Limit': '"0/4000k"',
      'ChilliSpot-Bandwidth-Max-Down': '4000',
      'WISPr-Bandwidth-Max-Down': '4000000',
    });
    const up = await aGuest(app, { upload_kbps: 1000 });
    t.same(await loginRate(t, app, up), {
      'Mikrotik-Rate-Limit': '"1000k/0"',
      'ChilliSpot-Bandwidth-Max-Up': '1000',
      'WISPr-Bandwidth-Max-Up': '1000000',
    });
  },
);

t.test(
  "the ends of the range: 64 kbit/s and 4000000 kbit/s (4 Gbit/s still fits WISPr's 32-bit bit/s)",
  async (t) => {
    const app = await quietRadiusApp(t, { device: { model: OTHER_MAKE } });
    const g = await aGuest(app, { download_kbps: 4_000_000, upload_kbps: 64 });
    t.same(await loginRate(t, app, g), {
      'Mikrotik-Rate-Limit': '"64k/4000000k"',
      'ChilliSpot-Bandwidth-Max-Up': '64',
      'ChilliSpot-Bandwidth-Max-Down': '4000000',
      'WISPr-Bandwidth-Max-Up': '64000',
      'WISPr-Bandwidth-Max-Down': '4000000000',
    });
  },
);

// --- Plans: admin API, public list, CLI ---

const DOWNLOAD_INVALID = 'download_kbps must be a whole number of kbit/s from 64 to 4000000, or null';
const UPLOAD_INVALID = 'upload_kbps must be a whole number of kbit/s from 64 to 4000000, or null';

t.test(
  'admin plans take download_kbps and upload_kbps from 64 to 4000000 or null; a bad one is 422 and changes nothing',
  async (t) => {
    const app = await quietRadiusApp(t);
    const admin = await staffClient(app, 'admin');
    const plan = { name: 'Fast hour', price_tzs: 1500, duration_seconds: 3600 };
    const created = await admin.post('/api/v1/admin/plans', { ...plan, ...FAST });
    t.equal(created.status, 201);
    t.match(created.body.data, { ...plan, download_kbps: 4000, upload_kbps: 1000 });
    const id = created.body.data.id as string;
    const plain = await admin.post('/api/v1/admin/plans', { ...plan, name: 'Hour' });
    t.match(plain.body.data, { name: 'Hour', download_kbps: null, upload_kbps: null }, 'none by default');

    const before = await wifiRows(app.app.deps.db);
    for (const [body, message] of [
      [{ download_kbps: 63 }, DOWNLOAD_INVALID],
      [{ download_kbps: 4_000_001 }, DOWNLOAD_INVALID],
      [{ download_kbps: 1000.5 }, DOWNLOAD_INVALID],
      [{ download_kbps: '4M' }, DOWNLOAD_INVALID],
      [{ upload_kbps: 0 }, UPLOAD_INVALID],
      [{ upload_kbps: -1000 }, UPLOAD_INVALID],
      [{ upload_kbps: true }, UPLOAD_INVALID],
    ] as const) {
      const posted = await admin.post('/api/v1/admin/plans', { ...plan, name: 'Bad', ...body });
      t.same([posted.status, posted.body], [422, { message }], `POST ${JSON.stringify(body)}`);
      const patched = await admin.patch(`/api/v1/admin/plans/${id}`, body);
      t.same([patched.status, patched.body], [422, { message }], `PATCH ${JSON.stringify(body)}`);
    }
    t.same(await wifiRows(app.app.deps.db), before, 'the refused requests changed nothing');

    const cleared = await admin.patch(`/api/v1/admin/plans/${id}`, { download_kbps: null });
    t.match(cleared.body.data, { download_kbps: null, upload_kbps: 1000 }, 'null clears; the other stays');
    const raised = await admin.patch(`/api/v1/admin/plans/${id}`, { upload_kbps: 64 });
    t.match(raised.body.data, { download_kbps: null, upload_kbps: 64 });
    const listed = (await admin.get('/api/v1/admin/plans')).body.data as { id: string }[];
    t.match(
      listed.find((p) => p.id === id),
      { download_kbps: null, upload_kbps: 64 },
    );
  },
);

t.test('the public plan list shows each speed only when the plan has one', async (t) => {
  const app = await quietRadiusApp(t);
  await aPlan(app.app, { name: 'A both', sort_order: 1, ...FAST });
  await aPlan(app.app, { name: 'B down', sort_order: 2, download_kbps: 8000 });
  await aPlan(app.app, { name: 'C none', sort_order: 3 });
  const res = await jsonRequest(`${app.base}/api/v1/public/plans`);
  t.equal(res.status, 200);
  const plans = (res.body as { data: Record<string, unknown>[] }).data;
  t.same(
    plans.map((p) => [p.name, p.download_kbps, p.upload_kbps, 'download_kbps' in p, 'upload_kbps' in p]),
    [
      ['A both', 4000, 1000, true, true],
      ['B down', 8000, undefined, true, false],
      ['C none', undefined, undefined, false, false],
    ],
  );
});

t.test(
  'plans add and update take --download/--upload in kbit/s or with k, M, G (1M = 1000k), and none',
  async (t) => {
    const env = await boxEnv(path.join(t.testdir(), 'data'));
    const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
    const added = await runCli(
      [
        'plans',
        'add',
        '--name',
        'Fast',
        '--price',
        '1500',
        '--duration',
        '1h',
        '--download',
        '4M',
        '--upload',
        '1M',
        '--json',
      ],
      env,
    );
    t.equal(added.code, 0, added.stderr);
    t.match(json(added.stdout), { name: 'Fast', download_kbps: 4000, upload_kbps: 1000 });
    const id = String(json(added.stdout).id);

    const human = await runCli(['plans', 'list'], env);
    t.match(human.stdout, /^ID\s+NAME\s+.*\sDOWNLOAD\s+UPLOAD\s+REMEMBER_DEVICE\n/);
    t.match(human.stdout, /\sFast\s.*\s4M\s+1M\s+false\n/);

    const speeds = async (args: string[]) => {
      const res = await runCli(['plans', 'update', id, ...args, '--json'], env);
      t.equal(res.code, 0, res.stderr);
      const plan = json(res.stdout);
      return [plan.download_kbps, plan.upload_kbps];
    };
    t.same(await speeds(['--download', '1.5M', '--upload', '512k']), [1500, 512]);
    t.same(await speeds(['--download', '1G']), [1_000_000, 512], 'the other direction stays');
    t.same(await speeds(['--download', '2048', '--upload', 'none']), [2048, null]);
    t.same(await speeds(['--download', 'NONE', '--upload', '64k']), [null, 64]);
    t.match(
      (await runCli(['plans', 'list'], env)).stdout,
      /\sFast\s.*\s64k\s+false\n/,
      'an unlimited direction is blank',
    );
  },
);

t.test(
  'a malformed --download is a usage error (exit 2); one out of range exits 1 with the domain message; nothing changes',
  async (t) => {
    const env = await boxEnv(path.join(t.testdir(), 'data'));
    const added = await runCli(
      ['plans', 'add', '--name', 'Fast', '--price', '1500', '--duration', '1h', '--json'],
      env,
    );
    t.equal(added.code, 0, added.stderr);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const list = async () => JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout) as unknown;
    const before = await list();
    const add = ['plans', 'add', '--name', 'New', '--price', '1500', '--duration', '1h'];

    for (const args of [
      [...add, '--download', 'fast'],
      [...add, '--download', '4X'],
      [...add, '--upload', '0.5k'],
      [...add, '--download', '-4M'],
      ['plans', 'update', id, '--download', ''],
      ['plans', 'update', id, '--upload', '1.0001M'],
    ]) {
      const res = await runCli(args, env);
      t.equal(res.code, 2, `${args.join(' ')}: usage error`);
      t.equal(res.stdout, '');
    }
    for (const [args, message] of [
      [[...add, '--download', '63k'], DOWNLOAD_INVALID],
      [[...add, '--download', '0'], DOWNLOAD_INVALID],
      [[...add, '--upload', '5G'], UPLOAD_INVALID],
      [['plans', 'update', id, '--download', '63'], DOWNLOAD_INVALID],
      [['plans', 'update', id, '--upload', '4000001k'], UPLOAD_INVALID],
    ] as const) {
      const res = await runCli([...args], env);
      t.same([res.code, res.stdout, res.stderr], [1, '', `error: ${message}\n`], args.join(' '));
    }
    t.same(await list(), before, 'no plan added or changed');
  },
);

// --- What was sold keeps its speed ---

t.test(
  'a changed plan speed changes nothing sold: the old guest keeps the old rate, a new purchase gets the new',
  async (t) => {
    const { app, router } = await speedApp(t, MIKROTIK);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, SLOW);
    const early = await guestOf(app, plan);
    await account(t, app, early.username, 'early-1', ['Acct-Status-Type = Start']);

    const patched = await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    t.equal(patched.status, 200);
    t.same(await loginRate(t, app, early), { 'Mikrotik-Rate-Limit': '"512k/2000k"' }, 'the old rate');
    t.same(router.listener.received, [], 'no CoA-Request: the live session keeps its rate');

    const late = await guestOf(app, plan);
    t.same(await loginRate(t, app, late), { 'Mikrotik-Rate-Limit': '"1000k/4000k"' }, 'the new rate');
    const invoices = await app.app.deps.db
      .selectFrom('invoices')
      .select(['id', 'download_kbps', 'upload_kbps'])
      .execute();
    t.same(
      Object.fromEntries(invoices.map((i) => [i.id, [i.download_kbps, i.upload_kbps]])),
      { [early.invoiceId]: [2000, 512], [late.invoiceId]: [4000, 1000] },
      'each invoice copied the plan at purchase',
    );
    t.same(
      await grantSpeeds(app),
      { [early.grantId]: [2000, 512], [late.grantId]: [4000, 1000] },
      'and each grant',
    );
  },
);

// --- --apply-to-live ---

t.test(
  'apply-to-live: the live grants of the plan take its speed; each live session gets a signed CoA-Request with its identifiers and Mikrotik-Rate-Limit',
  async (t) => {
    const { app, router } = await speedApp(t, MIKROTIK);
    // The router ACKs CoA-Requests and refuses Disconnect-Requests (the revoked guest stays online).
    router.listener.answer = (req) => (req.code === 40 ? { nak: 404 } : router.answer);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, { ...SLOW, name: 'Slow hour' });
    const other = await aPlan(app.app, { name: 'Other hour', download_kbps: 3000, upload_kbps: 3000 });

    const expired = await guestOf(app, plan);
    await account(t, app, expired.username, 'expired-1', ['Acct-Status-Type = Start']);
    app.clock.advance('50m');
    const a = await guestOf(app, plan);
    await account(t, app, a.username, 'a-1', ['Acct-Status-Type = Start']);
    app.clock.advance('1s');
    const b = await guestOf(app, plan);
    await account(t, app, b.username, 'b-1', ['Acct-Status-Type = Start'], { framedIp: false });
    const revoked = await guestOf(app, plan);
    await account(t, app, revoked.username, 'revoked-1', ['Acct-Status-Type = Start']);
    t.match(await revoke(app.app.deps, revoked.grantId, 'refund'), { disconnect: { status: 'nak' } });
    const o = await guestOf(app, other);
    await account(t, app, o.username, 'other-1', ['Acct-Status-Type = Start']);
    app.clock.advance('10m'); // 10:00:01: the first guest's hour is over, its session still open
    const speedsBefore = await grantSpeeds(app);

    t.equal((await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST)).status, 200);
    const applied = await admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`);
    t.equal(applied.status, 200);
    t.same(applied.body, {
      data: {
        grants_updated: 2,
        status: 'changed',
        sessions: [
          { session_id: await sessionId(app, 'a-1'), nas_id: NAS_ID, acct_session_id: 'a-1', answer: 'ack' },
          { session_id: await sessionId(app, 'b-1'), nas_id: NAS_ID, acct_session_id: 'b-1', answer: 'ack' },
        ],
      },
    });

    t.same(
      router.listener.received.map((r) => r.code),
      [40, 43, 43],
      "the revocation's Disconnect-Request, then one CoA-Request per live session of a live grant",
    );
    const coa = coaRequests(t, router.listener);
    t.same(coa.get('a-1'), [
      ['User-Name', a.username],
      ['Acct-Session-Id', 'a-1'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', NAS_ID],
      ['Mikrotik-Rate-Limit', '1000k/4000k'],
    ]);
    t.same(
      coa.get('b-1'),
      [
        ['User-Name', b.username],
        ['Acct-Session-Id', 'b-1'],
        ['NAS-Identifier', NAS_ID],
        ['Mikrotik-Rate-Limit', '1000k/4000k'],
      ],
      'no Framed-IP-Address when the router never reported one',
    );

    t.same(
      await grantSpeeds(app),
      { ...speedsBefore, [a.grantId]: [4000, 1000], [b.grantId]: [4000, 1000] },
      "only the live grants of the plan changed: not the expired, the revoked or the other plan's",
    );
    t.same(
      await loginRate(t, app, a),
      { 'Mikrotik-Rate-Limit': '"1000k/4000k"' },
      'the next login gets the new rate',
    );
    t.same(
      await loginRate(t, app, o),
      { 'Mikrotik-Rate-Limit': '"3000k/3000k"' },
      "the other plan's guest keeps its own",
    );
  },
);

t.test(
  'apply-to-live to a CoovaChilli restates the session: Session-Timeout and data limit counted from its start, interim, idle, ChilliSpot and WISPr speeds',
  async (t) => {
    const { app, router } = await speedApp(t, CHILLI);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, { ...SLOW, data_limit_bytes: 10_000_000, max_devices: 2 });
    const g = await guestOf(app, plan);
    await account(t, app, g.username, 'phone', ['Acct-Status-Type = Start']);
    app.clock.advance('5m');
    await account(t, app, g.username, 'laptop', ['Acct-Status-Type = Start'], { framedIp: false });
    app.clock.advance('5m'); // 09:10
    await account(t, app, g.username, 'phone', [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 600',
      'Acct-Input-Octets = 1000',
      'Acct-Output-Octets = 2000',
    ]);
    await account(
      t,
      app,
      g.username,
      'laptop',
      [
        'Acct-Status-Type = Interim-Update',
        'Acct-Session-Time = 300',
        'Acct-Input-Octets = 400',
        'Acct-Output-Octets = 100',
      ],
      { framedIp: false },
    );

    await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    const applied = await admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`);
    t.match(applied.body.data, {
      grants_updated: 1,
      status: 'changed',
      sessions: [{ answer: 'ack' }, { answer: 'ack' }],
    });

    // 3000 s are left on the grant and 10 MB − 3500 octets of its allowance.
    const rate: Decoded[] = [
      ['ChilliSpot-Bandwidth-Max-Up', 1000],
      ['ChilliSpot-Bandwidth-Max-Down', 4000],
      ['WISPr-Bandwidth-Max-Up', 1_000_000],
      ['WISPr-Bandwidth-Max-Down', 4_000_000],
    ];
    const coa = coaRequests(t, router.listener);
    t.equal(router.listener.received.length, 2);
    t.same(coa.get('phone'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 'phone'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', NAS_ID],
      ['Session-Timeout', 600 + 3000],
      ['Acct-Interim-Interval', 300],
      ['Idle-Timeout', 600],
      ['ChilliSpot-Max-Total-Octets', 3000 + 9_996_500],
      ...rate,
    ]);
    t.same(coa.get('laptop'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 'laptop'],
      ['NAS-Identifier', NAS_ID],
      ['Session-Timeout', 300 + 3000],
      ['Acct-Interim-Interval', 300],
      ['Idle-Timeout', 600],
      ['ChilliSpot-Max-Total-Octets', 500 + 9_996_500],
      ...rate,
    ]);
  },
);

t.test(
  'apply-to-live to a router of unknown make sends the CoovaChilli set and Mikrotik-Rate-Limit',
  async (t) => {
    const { app, router } = await speedApp(t, OTHER_MAKE);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, SLOW);
    const g = await guestOf(app, plan);
    await account(t, app, g.username, 's-1', ['Acct-Status-Type = Start']);
    app.clock.advance('10m');
    await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    t.match((await admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`)).body.data, {
      status: 'changed',
    });
    t.same(coaRequests(t, router.listener).get('s-1'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 's-1'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', NAS_ID],
      ['Session-Timeout', 3600],
      ['Acct-Interim-Interval', 300],
      ['Idle-Timeout', 600],
      ['Mikrotik-Rate-Limit', '1000k/4000k'],
      ['ChilliSpot-Bandwidth-Max-Up', 1000],
      ['ChilliSpot-Bandwidth-Max-Down', 4000],
      ['WISPr-Bandwidth-Max-Up', 1_000_000],
      ['WISPr-Bandwidth-Max-Down', 4_000_000],
    ]);
  },
);

t.test(
  'apply-to-live of a speed removed: MikroTik is told "0/0", CoovaChilli gets its terms without bandwidth; the next login has no rate',
  async (t) => {
    const { app, router: lobby } = await speedApp(t, MIKROTIK);
    const bar = await aBarRouter(t, app, CHILLI);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, { ...SLOW, max_devices: 2 });
    const g = await guestOf(app, plan);
    await account(t, app, g.username, 'on-lobby', ['Acct-Status-Type = Start']);
    await account(t, app, g.username, 'on-bar', ['Acct-Status-Type = Start'], {
      nasId: BAR_NAS_ID,
      secret: BAR_SECRET,
    });

    await admin.patch(`/api/v1/admin/plans/${plan.id}`, { download_kbps: null, upload_kbps: null });
    const applied = await admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`);
    t.match(applied.body.data, { grants_updated: 1, status: 'changed' });
    t.same(
      (applied.body.data.sessions as { nas_id: string; acct_session_id: string; answer: string }[])
        .map((s) => [s.nas_id, s.acct_session_id, s.answer])
        .sort(),
      [
        [BAR_NAS_ID, 'on-bar', 'ack'],
        [NAS_ID, 'on-lobby', 'ack'],
      ],
    );
    t.same(coaRequests(t, lobby.listener).get('on-lobby'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 'on-lobby'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', NAS_ID],
      ['Mikrotik-Rate-Limit', '0/0'],
    ]);
    t.same(coaRequests(t, bar.listener).get('on-bar'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 'on-bar'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', BAR_NAS_ID],
      ['Session-Timeout', 3600],
      ['Acct-Interim-Interval', 300],
      ['Idle-Timeout', 600],
    ]);
    t.same(await grantSpeeds(app), { [g.grantId]: [null, null] });
    t.same(await loginRate(t, app, g), {}, 'no rate attributes any more');
  },
);

t.test(
  'routers that NAK or stay silent are reported (nak with Error-Cause, no_answer after three sends, partial); the grants keep the new speed',
  async (t) => {
    const { app, router: lobby } = await speedApp(t, MIKROTIK);
    const bar = await aBarRouter(t, app, MIKROTIK);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, SLOW);
    const a = await guestOf(app, plan);
    const b = await guestOf(app, plan);
    await account(t, app, a.username, 'a-1', ['Acct-Status-Type = Start']);
    await account(t, app, b.username, 'b-1', ['Acct-Status-Type = Start'], {
      nasId: BAR_NAS_ID,
      secret: BAR_SECRET,
    });
    const answers = (body: {
      data: { sessions: { acct_session_id: string; answer: string; error_cause?: unknown }[] };
    }) =>
      body.data.sessions
        .map((s) => [s.acct_session_id, s.answer, s.error_cause])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    const apply = () => admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`);

    await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    lobby.answer = { nak: 404 };
    bar.answer = { nak: 503 };
    const naked = await apply();
    t.match(naked.body.data, { grants_updated: 2, status: 'nak' });
    t.same(answers(naked.body), [
      ['a-1', 'nak', 'Invalid-Request'],
      ['b-1', 'nak', 'Session-Context-Not-Found'],
    ]);
    t.same(
      await grantSpeeds(app),
      { [a.grantId]: [4000, 1000], [b.grantId]: [4000, 1000] },
      'a NAK undoes nothing',
    );
    t.same(await loginRate(t, app, a), { 'Mikrotik-Rate-Limit': '"1000k/4000k"' });

    lobby.answer = 'silent';
    bar.answer = 'silent';
    const pending = apply();
    for (let sent = 2; sent <= 4; sent++) {
      await Promise.all([lobby.listener.receivedCount(sent), bar.listener.receivedCount(sent)]);
      app.clock.advance('2s');
    }
    const silent = await pending;
    t.match(silent.body.data, { grants_updated: 2, status: 'no_answer' });
    t.same(answers(silent.body), [
      ['a-1', 'no_answer', undefined],
      ['b-1', 'no_answer', undefined],
    ]);
    const [, first, ...resent] = lobby.listener.received;
    t.equal(resent.length, 2, 'three sends in all');
    for (const r of resent)
      t.same(
        [r.code, r.identifier, r.authenticator, r.from],
        [43, first?.identifier, first?.authenticator, first?.from],
        'the same request resent',
      );

    lobby.answer = { ack: true };
    bar.answer = 'silent';
    const mixed = apply();
    // The lobby's ACK is taken (the app logs each answer) before the clock moves on.
    const answered = () => app.logs.events('coa.change').filter((e) => e.nas_id === NAS_ID).length;
    await waitFor(() => answered() === 3, "the lobby's ACK");
    for (let sent = 5; sent <= 7; sent++) {
      await bar.listener.receivedCount(sent);
      app.clock.advance('2s');
    }
    const partial = await mixed;
    t.match(partial.body.data, { grants_updated: 2, status: 'partial' });
    t.same(answers(partial.body), [
      ['a-1', 'ack', undefined],
      ['b-1', 'no_answer', undefined],
    ]);
  },
);

t.test(
  'apply-to-live with nothing online: the live grants are counted and changed, no_sessions, nothing sent',
  async (t) => {
    const { app, router } = await speedApp(t, MIKROTIK);
    const admin = await staffClient(app, 'admin');
    const plan = await aPlan(app.app, SLOW);
    const g = await guestOf(app, plan);
    await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    t.same((await admin.post(`/api/v1/admin/plans/${plan.id}/apply-to-live`)).body, {
      data: { grants_updated: 1, status: 'no_sessions', sessions: [] },
    });
    t.same(router.listener.received, []);
    t.same(await grantSpeeds(app), { [g.grantId]: [4000, 1000] });
    const unsold = await aPlan(app.app, { name: 'Unsold' });
    t.same((await admin.post(`/api/v1/admin/plans/${unsold.id}/apply-to-live`)).body, {
      data: { grants_updated: 0, status: 'no_sessions', sessions: [] },
    });
  },
);

t.test(
  'apply-to-live is for admins: 401 without a session, 403 for viewers and operators, 404 for an unknown plan; each changes nothing',
  async (t) => {
    const { app, router } = await speedApp(t, MIKROTIK);
    const plan = await aPlan(app.app, SLOW);
    const g = await guestOf(app, plan);
    await account(t, app, g.username, 's-1', ['Acct-Status-Type = Start']);
    const admin = await staffClient(app, 'admin');
    await admin.patch(`/api/v1/admin/plans/${plan.id}`, FAST);
    const before = await wifiRows(app.app.deps.db);
    const path = `/api/v1/admin/plans/${plan.id}/apply-to-live`;
    for (const [who, client, status, message] of [
      ['nobody', new Client(app.base), 401, 'not authenticated'],
      ['viewer', await staffClient(app, 'viewer'), 403, 'your staff role does not allow this'],
      ['operator', await staffClient(app, 'operator'), 403, 'your staff role does not allow this'],
    ] as const) {
      const res = await client.post(path);
      t.same([res.status, res.body], [status, { message }], who);
    }
    const unknown = await admin.post(
      '/api/v1/admin/plans/00000000-0000-4000-8000-000000000000/apply-to-live',
    );
    t.same([unknown.status, unknown.body], [404, { message: 'plan not found' }]);
    t.same(await wifiRows(app.app.deps.db), before, 'no grant changed');
    t.same(router.listener.received, [], 'no CoA-Request sent');
  },
);

t.test(
  'hotspot-ctl plans update --apply-to-live changes the live grants and reports each router; without it nothing sold changes',
  async (t) => {
    // The CLI reads the wall clock: the app's starts there too, so the grant is live for both.
    const { app, router } = await speedApp(t, MIKROTIK, { clock: new ManualClock(new Date()) });
    const env = cliEnv(app.dataDir);
    const plan = await aPlan(app.app, SLOW);
    const g = await guestOf(app, plan);
    await account(t, app, g.username, 's-1', ['Acct-Status-Type = Start']);
    const session = await sessionId(app, 's-1');

    const changed = await runCli(
      ['plans', 'update', plan.id, '--download', '4M', '--upload', '1M', '--json'],
      env,
    );
    t.equal(changed.code, 0, changed.stderr);
    const shown = JSON.parse(changed.stdout) as Record<string, unknown>;
    t.match(shown, { id: plan.id, download_kbps: 4000, upload_kbps: 1000 });
    t.notOk('apply_to_live' in shown, 'no apply_to_live without the flag');
    t.same(router.listener.received, [], 'no CoA-Request');
    t.same(await grantSpeeds(app), { [g.grantId]: [2000, 512] }, 'the grant sold keeps its speed');

    const applied = await runCli(['plans', 'update', plan.id, '--apply-to-live', '--json'], env);
    t.equal(applied.code, 0, applied.stderr);
    t.match(JSON.parse(applied.stdout), {
      id: plan.id,
      download_kbps: 4000,
      upload_kbps: 1000,
      apply_to_live: {
        grants_updated: 1,
        status: 'changed',
        sessions: [{ session_id: session, nas_id: NAS_ID, acct_session_id: 's-1', answer: 'ack' }],
      },
    });
    t.same(await grantSpeeds(app), { [g.grantId]: [4000, 1000] });
    t.match(coaRequests(t, router.listener).get('s-1'), [
      ['User-Name', g.username],
      ['Acct-Session-Id', 's-1'],
      ['Framed-IP-Address', '10.1.0.5'],
      ['NAS-Identifier', NAS_ID],
      ['Mikrotik-Rate-Limit', '1000k/4000k'],
    ]);

    const human = await runCli(['plans', 'update', plan.id, '--download', '8M', '--apply-to-live'], env);
    t.equal(human.code, 0, human.stderr);
    t.match(human.stdout, /^live grants changed\s+1$/m);
    t.match(human.stdout, /^routers\s+changed$/m);
    t.match(human.stdout, new RegExp(`^${session}\\s+${NAS_ID}\\s+s-1\\s+ack`, 'm'));
    t.equal(router.listener.received.length, 2);
    t.same(decode(router.listener.received[1]!).at(-1), ['Mikrotik-Rate-Limit', '1000k/8000k']);

    const before = await wifiRows(app.app.deps.db);
    const low = await runCli(
      ['plans', 'update', plan.id, '--download', '63k', '--apply-to-live', '--json'],
      env,
    );
    t.same([low.code, low.stdout, low.stderr], [1, '', `error: ${DOWNLOAD_INVALID}\n`]);
    const malformed = await runCli(
      ['plans', 'update', plan.id, '--download', 'fast', '--apply-to-live'],
      env,
    );
    t.same([malformed.code, malformed.stdout], [2, '']);
    t.same(
      await wifiRows(app.app.deps.db),
      before,
      'a refused update changes neither the plan nor its grants',
    );
    t.equal(router.listener.received.length, 2, 'and sends nothing');
  },
);
