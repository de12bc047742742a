import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import radius from 'radius';
import t, { type Test } from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { ManualClock } from '../../src/lib/clock.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  acctRequest,
  papRequest,
  radclient,
  sendExpectingDrop,
  startRadiusApp,
  type RadclientReply,
  type RadiusTestApp,
  quietRadiusApp,
} from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import { failEveryUpdate } from '../helpers/store.js';
import { aDevice, aLiveSession, wifiRows } from '../helpers/wifi.js';

/**
 * Router health (DESIGN.md §4.7): each device's last_seen_at is the arrival of its last valid
 * RADIUS packet and it is online within 2.5 interim intervals of it; Accounting-On/-Off close
 * that router's open sessions. radclient plays the routers; the listener's sightings are written
 * with flushLastSeen() (the daemon's 30 s job) before they are read.
 */

const BAR_NAS_ID = 'bar-01';
const BAR_SECRET = 'radius-test-secret-bar-0002';

/** A second router, "Bar AP" (listed before "Lobby AP"), with its own secret. */
const aBarRouter = (app: RadiusTestApp) =>
  aDevice(app.app, {
    name: 'Bar AP',
    mac_address: 'aa:bb:cc:dd:ee:02',
    radius_nas_id: BAR_NAS_ID,
    radius_secret: BAR_SECRET,
  });

/** Attribute lines of an Accounting-Request from `nasId` for one session. */
const acctFrom = (nasId: string, username: string, session: string, extra: string[]): string =>
  acctRequest(username, session, extra).replace(
    `NAS-Identifier = "${NAS_ID}"`,
    `NAS-Identifier = "${nasId}"`,
  );

/** radclient's Status-Server probe (it adds the Message-Authenticator RFC 5997 requires). */
function radclientStatus(port: number, nasId: string, secret: string): Promise<RadclientReply[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('radclient', [
      '-x',
      '-r',
      '3',
      '-t',
      '5',
      `127.0.0.1:${String(port)}`,
      'status',
      secret,
    ]);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', () =>
      resolve(
        [...output.matchAll(/^Received (\S+) Id/gm)].map((m) => ({ code: m[1] ?? '', attributes: {} })),
      ),
    );
    child.stdin.end(`NAS-Identifier = "${nasId}"\nMessage-Authenticator = 0x00\n`);
  });
}

/** Each router's health as the admin API shows it, after the listener's sightings are written. */
async function health(app: RadiusTestApp, viewer: Awaited<ReturnType<typeof staffClient>>) {
  await app.app.radius.flushLastSeen();
  const res = await viewer.get('/api/v1/admin/devices');
  return (res.body.data as { radius_nas_id: string; last_seen_at: string | null; online: boolean }[]).map(
    (d) => ({ nas_id: d.radius_nas_id, last_seen_at: d.last_seen_at, online: d.online }),
  );
}

t.test(
  'last_seen_at is the arrival of the last valid Access-Request, Accounting-Request or Status-Server',
  async (t) => {
    const app = await quietRadiusApp(t);
    await aBarRouter(app);
    const viewer = await staffClient(app, 'viewer');
    const g = await aGuest(app);
    t.same(
      await health(app, viewer),
      [
        { nas_id: BAR_NAS_ID, last_seen_at: null, online: false },
        { nas_id: NAS_ID, last_seen_at: null, online: false },
      ],
      'never heard from: no last_seen_at, offline',
    );

    // A rejected login is still a valid packet from the router.
    const rejected = await radclient(app.auth, 'auth', papRequest(g.username, 'wrong-pass'));
    t.match(rejected.replies, [{ code: 'Access-Reject' }], rejected.output);
    t.same(await health(app, viewer), [
      { nas_id: BAR_NAS_ID, last_seen_at: null, online: false },
      { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:00:00.000Z', online: true },
    ]);

    app.clock.advance('1m');
    const start = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, 's1', ['Acct-Status-Type = Start']),
    );
    t.match(start.replies, [{ code: 'Accounting-Response' }], start.output);
    t.same(await health(app, viewer), [
      { nas_id: BAR_NAS_ID, last_seen_at: null, online: false },
      { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:01:00.000Z', online: true },
    ]);

    app.clock.advance('1m');
    t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }], 'auth port');
    app.clock.advance('1m');
    t.match(
      await radclientStatus(app.acct, BAR_NAS_ID, BAR_SECRET),
      [{ code: 'Accounting-Response' }],
      'acct port',
    );
    t.same(await health(app, viewer), [
      { nas_id: BAR_NAS_ID, last_seen_at: '2026-01-15T09:03:00.000Z', online: true },
      { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:02:00.000Z', online: true },
    ]);

    t.same(
      await health(app, viewer),
      [
        { nas_id: BAR_NAS_ID, last_seen_at: '2026-01-15T09:03:00.000Z', online: true },
        { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:02:00.000Z', online: true },
      ],
      'a flush with nothing new heard keeps what was written',
    );
  },
);

t.test(
  'a router is online until 2.5 interim intervals (750 s) after its last packet, then offline',
  async (t) => {
    const app = await quietRadiusApp(t);
    const viewer = await staffClient(app, 'viewer');
    const g = await aGuest(app);
    const start = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, 's1', ['Acct-Status-Type = Start']),
    );
    t.match(start.replies, [{ code: 'Accounting-Response' }], start.output);
    const seen = { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:00:00.000Z' };
    t.same(await health(app, viewer), [{ ...seen, online: true }]);

    app.clock.advance(750_000);
    t.same(await health(app, viewer), [{ ...seen, online: true }], 'exactly 750 s later: still online');
    app.clock.advance('1s');
    t.same(
      await health(app, viewer),
      [{ ...seen, online: false }],
      '751 s later: offline, last_seen_at kept',
    );

    app.clock.advance('13m');
    const interim = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, 's1', ['Acct-Status-Type = Interim-Update', 'Acct-Session-Time = 1531']),
    );
    t.match(interim.replies, [{ code: 'Accounting-Response' }], interim.output);
    t.same(
      await health(app, viewer),
      [{ nas_id: NAS_ID, last_seen_at: '2026-01-15T09:25:31.000Z', online: true }],
      'heard again: online again',
    );
  },
);

t.test('the online window follows RADIUS_INTERIM_INTERVAL: 60 s → 150 s', async (t) => {
  const app = await quietRadiusApp(t, { env: { RADIUS_INTERIM_INTERVAL: '60' } });
  const viewer = await staffClient(app, 'viewer');
  t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
  app.clock.advance('150s');
  t.match(await health(app, viewer), [{ online: true }], '150 s later: online');
  app.clock.advance('1s');
  t.match(
    await health(app, viewer),
    [{ last_seen_at: '2026-01-15T09:00:00.000Z', online: false }],
    '151 s: offline',
  );
});

t.test('a flush that fails keeps the sightings for the next one, where a newer sighting wins', async (t) => {
  const app = await quietRadiusApp(t);
  const viewer = await staffClient(app, 'viewer');
  const stored = async () =>
    ((await viewer.get('/api/v1/admin/devices')).body.data as { last_seen_at: string | null }[]).map(
      (d) => d.last_seen_at,
    );
  // A database that refuses the write, the way a full disk would.
  let allow = (): Promise<void> => Promise.resolve();
  const refuse = async () => {
    allow = await failEveryUpdate(app.app.deps.db, 'devices', 'last_seen_at', 'disk full');
  };

  t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
  await refuse();
  await t.rejects(app.app.radius.flushLastSeen(), { message: 'disk full' });
  t.same(await stored(), [null], 'nothing written');
  await allow();
  await app.app.radius.flushLastSeen();
  t.same(await stored(), ['2026-01-15T09:00:00.000Z'], 'the next flush writes it');

  app.clock.advance('1m');
  t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
  await refuse();
  await t.rejects(app.app.radius.flushLastSeen());
  app.clock.advance('1m');
  t.match(await radclientStatus(app.acct, NAS_ID, SECRET), [{ code: 'Accounting-Response' }]);
  await allow();
  await app.app.radius.flushLastSeen();
  t.same(await stored(), ['2026-01-15T09:02:00.000Z'], 'the newer sighting, not the one given back');
});

t.test('the daemon writes the sightings by itself: a job every 30 seconds of wall-clock time', async (t) => {
  const app = await startRadiusApp(t, { timeJobs: true });
  const { scheduler } = app.app;
  t.ok(scheduler.names.includes('radius.last-seen'), 'registered with the scheduler');
  const next = scheduler.nextRun('radius.last-seen');
  t.ok(next !== null && next.getTime() - Date.now() <= 30_000, 'node-schedule runs it within 30 s');
  t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
  await scheduler.trigger('radius.last-seen');
  const stored = await app.app.deps.db.selectFrom('devices').select('last_seen_at').executeTakeFirstOrThrow();
  t.equal(stored.last_seen_at, '2026-01-15T09:00:00.000Z', 'the job wrote it');
});

t.test('sightings not yet written are written when the daemon stops', async (t) => {
  const app = await quietRadiusApp(t);
  t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
  await app.app.close();
  const listed = await runCli(['devices', 'list', '--json'], cliEnv(app.dataDir));
  t.equal(listed.code, 0, listed.stderr);
  t.match(JSON.parse(listed.stdout), [{ radius_nas_id: NAS_ID, last_seen_at: '2026-01-15T09:00:00.000Z' }]);
});

/** Sends `packet`, which the listener must drop with `counter`; nothing is answered. */
async function dropped(
  t: Test,
  app: RadiusTestApp,
  port: number,
  packet: Buffer,
  counter: Parameters<RadiusTestApp['app']['radius']['counters']['get']>[0],
): Promise<void> {
  t.same(await sendExpectingDrop(app, port, packet, counter), [], `${counter}: unanswered`);
}

t.test(
  'a packet with a bad authenticator or from an unknown NAS is no sighting and changes nothing',
  async (t) => {
    const app = await quietRadiusApp(t);
    const viewer = await staffClient(app, 'viewer');
    const g = await aGuest(app);
    // An open session (recorded as a Start records it) the forged Accounting-On must leave open.
    await aLiveSession(app.app, { deviceId: app.deviceId, username: g.username, acctSessionId: 's1' });
    const before = await wifiRows(app.app.deps.db);
    app.clock.advance('1m');

    const access = (secret: string, nasId: string) =>
      encodeRequest(
        CODE.accessRequest,
        1,
        [
          ['User-Name', g.username],
          ['User-Password', g.password],
          ['NAS-Identifier', nasId],
        ],
        secret,
      );
    const accounting = (secret: string, nasId: string, status: string) =>
      encodeRequest(
        CODE.accountingRequest,
        2,
        [
          ['NAS-Identifier', nasId],
          ['Acct-Status-Type', status],
          ['Acct-Session-Id', 's2'],
          ['User-Name', g.username],
        ],
        secret,
      );
    await dropped(t, app, app.auth, access('not-the-secret', NAS_ID), 'dropped_bad_authenticator');
    await dropped(
      t,
      app,
      app.acct,
      accounting('not-the-secret', NAS_ID, 'Start'),
      'dropped_bad_authenticator',
    );
    await dropped(
      t,
      app,
      app.acct,
      accounting('not-the-secret', NAS_ID, 'Accounting-On'),
      'dropped_bad_authenticator',
    );
    await dropped(
      t,
      app,
      app.auth,
      encodeRequest(CODE.statusServer, 3, [['NAS-Identifier', NAS_ID]], 'not-the-secret'),
      'dropped_bad_authenticator',
    );
    await dropped(t, app, app.auth, access(SECRET, 'rogue-01'), 'dropped_unknown_nas');
    await dropped(t, app, app.acct, accounting(SECRET, 'rogue-01', 'Accounting-On'), 'dropped_unknown_nas');
    const wrongSecret = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, 's3', ['Acct-Status-Type = Start']),
      {
        secret: 'not-the-secret',
        tries: 1,
      },
    );
    t.same(wrongSecret.replies, [], 'radclient with the wrong secret gets no answer');

    t.same(await health(app, viewer), [{ nas_id: NAS_ID, last_seen_at: null, online: false }], 'not seen');
    t.same(
      await wifiRows(app.app.deps.db),
      before,
      'no row changed: the session is still open, no device added',
    );
  },
);

/** An Access-Request without Message-Authenticator, signed with nothing anyone needs to know. */
const unsignedAccessRequest = (username: string, nasId: string): Buffer =>
  radius.encode({
    code: 'Access-Request',
    secret: 'anyone-at-all',
    identifier: 9,
    attributes: [
      ['User-Name', username],
      ['User-Password', 'guess'],
      ['NAS-Identifier', nasId],
    ],
  });

/** A Status-Server without Message-Authenticator (RFC 5997 requires one): header + NAS-Identifier. */
function unsignedStatusServer(nasId: string): Buffer {
  const nas = Buffer.concat([Buffer.from([32, 2 + nasId.length]), Buffer.from(nasId)]);
  const head = Buffer.from([CODE.statusServer, 10, 0, 0]);
  head.writeUInt16BE(20 + nas.length, 2);
  return Buffer.concat([head, randomBytes(16), nas]);
}

t.test(
  'an Access-Request or Status-Server without the Message-Authenticator its router requires is no sighting',
  async (t) => {
    // Without Message-Authenticator nothing in these packets proves the router's secret: anyone
    // who knows its NAS-Identifier can send them. The listener drops them; they must not make a
    // dead router look online.
    for (const [kind, packet] of [
      ['Access-Request', unsignedAccessRequest('someone', NAS_ID)],
      ['Status-Server', unsignedStatusServer(NAS_ID)],
    ] as const) {
      const app = await quietRadiusApp(t);
      const viewer = await staffClient(app, 'viewer');
      const before = await wifiRows(app.app.deps.db);
      await dropped(t, app, app.auth, packet, 'dropped_no_message_authenticator');
      t.same(
        await health(app, viewer),
        [{ nas_id: NAS_ID, last_seen_at: null, online: false }],
        `an unsigned ${kind}: not seen`,
      );
      t.same(await wifiRows(app.app.deps.db), before, `an unsigned ${kind}: no row changed`);
    }
  },
);

t.test(
  "Accounting-On and -Off close the open sessions of the router that sent them, not another router's",
  async (t) => {
    const app = await quietRadiusApp(t);
    await aBarRouter(app);
    const g = await aGuest(app, { max_devices: 3 });
    const env = cliEnv(app.dataDir);
    const send = async (nasId: string, secret: string, lines: string) => {
      const run = await radclient(app.acct, 'acct', lines, { secret });
      t.match(run.replies, [{ code: 'Accounting-Response' }], run.output);
    };
    await send(NAS_ID, SECRET, acctRequest(g.username, 'lobby-1', ['Acct-Status-Type = Start']));
    await send(NAS_ID, SECRET, acctRequest(g.username, 'lobby-2', ['Acct-Status-Type = Start']));
    await send(
      BAR_NAS_ID,
      BAR_SECRET,
      acctFrom(BAR_NAS_ID, g.username, 'bar-1', ['Acct-Status-Type = Start']),
    );
    app.clock.advance('1m');

    // The lobby router rebooted.
    await send(NAS_ID, SECRET, `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-On\n`);
    /** Each session as `sessions list --json` shows it: which router, whether and why it ended. */
    const sessions = async () => {
      const list = await runCli(['sessions', 'list', '--json'], env);
      t.equal(list.code, 0, list.stderr);
      type Listed = {
        acct_session_id: string;
        nas_id: string;
        stopped_at: string | null;
        terminate_cause: string | null;
        active: boolean;
      };
      return (JSON.parse(list.stdout) as Listed[])
        .map((s) => [s.acct_session_id, s.nas_id, s.active, s.stopped_at, s.terminate_cause])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    };
    t.same(await sessions(), [
      ['bar-1', BAR_NAS_ID, true, null, null],
      ['lobby-1', NAS_ID, false, '2026-01-15T09:01:00.000Z', 'Accounting-On'],
      ['lobby-2', NAS_ID, false, '2026-01-15T09:01:00.000Z', 'Accounting-On'],
    ]);

    // The bar router is switched off; the lobby's new session stays.
    await send(NAS_ID, SECRET, acctRequest(g.username, 'lobby-3', ['Acct-Status-Type = Start']));
    app.clock.advance('1m');
    await send(
      BAR_NAS_ID,
      BAR_SECRET,
      `NAS-Identifier = "${BAR_NAS_ID}"\nAcct-Status-Type = Accounting-Off\n`,
    );
    t.same(await sessions(), [
      ['bar-1', BAR_NAS_ID, false, '2026-01-15T09:02:00.000Z', 'Accounting-Off'],
      ['lobby-1', NAS_ID, false, '2026-01-15T09:01:00.000Z', 'Accounting-On'],
      ['lobby-2', NAS_ID, false, '2026-01-15T09:01:00.000Z', 'Accounting-On'],
      ['lobby-3', NAS_ID, true, null, null],
    ]);

    const viewer = await staffClient(app, 'viewer');
    t.same(
      await health(app, viewer),
      [
        { nas_id: BAR_NAS_ID, last_seen_at: '2026-01-15T09:02:00.000Z', online: true },
        { nas_id: NAS_ID, last_seen_at: '2026-01-15T09:01:00.000Z', online: true },
      ],
      'Accounting-On and -Off are sightings too',
    );
  },
);

t.test(
  'devices list and status show last_seen_at and who is online by the clock the CLI reads',
  async (t) => {
    // The CLI reads the wall clock: the app's clock starts 20 minutes behind it and catches up.
    const clock = new ManualClock(new Date(Date.now() - 20 * 60_000));
    const app = await quietRadiusApp(t, { clock });
    await aBarRouter(app);
    await aDevice(app.app, {
      name: 'Cellar AP',
      mac_address: 'aa:bb:cc:dd:ee:03',
      radius_nas_id: 'cellar-01',
    });
    const barSeen = clock.now().toISOString();
    t.match(await radclientStatus(app.acct, BAR_NAS_ID, BAR_SECRET), [{ code: 'Accounting-Response' }]);
    clock.advance('20m');
    const lobbySeen = clock.now().toISOString();
    t.match(await radclientStatus(app.auth, NAS_ID, SECRET), [{ code: 'Access-Accept' }]);
    await app.app.radius.flushLastSeen();
    const env = cliEnv(app.dataDir);

    const json = await runCli(['devices', 'list', '--json'], env);
    t.equal(json.code, 0, json.stderr);
    t.same(
      (
        JSON.parse(json.stdout) as { radius_nas_id: string; last_seen_at: string | null; online: boolean }[]
      ).map((d) => [d.radius_nas_id, d.last_seen_at, d.online]),
      [
        [BAR_NAS_ID, barSeen, false],
        ['cellar-01', null, false],
        [NAS_ID, lobbySeen, true],
      ],
    );

    const human = await runCli(['devices', 'list'], env);
    t.equal(human.code, 0, human.stderr);
    const [header = '', ...rows] = human.stdout.trimEnd().split('\n');
    t.match(header, /\sONLINE\s+LAST_SEEN\s+LIVE\s+DOWN_SINCE$/);
    t.equal(rows.length, 3);
    // No live session and none down: LIVE 0, DOWN_SINCE `-` (an empty cell reads `-`, c28e9ff).
    t.match(rows, [
      new RegExp(`^\\S+\\s+Bar AP\\s.*\\sno\\s+${barSeen}\\s+0\\s+-$`),
      /^\S+\s+Cellar AP\s.*\sno\s+never\s+0\s+-$/,
      new RegExp(`^\\S+\\s+Lobby AP\\s.*\\syes\\s+${lobbySeen}\\s+0\\s+-$`),
    ]);

    const status = await runCli(['status', '--json'], env);
    t.equal(status.code, 0, status.stderr);
    t.same(JSON.parse(status.stdout).routers, { registered: 3, online: 1, down: 0 });
    const statusHuman = await runCli(['status'], env);
    t.match(statusHuman.stdout, /^routers\s+1 of 3 online \(RADIUS heard within 12\.5 min\)$/m);
  },
);
