import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CODE, encodeRequest, type EncodeAttribute } from '../../src/radius/codec.js';
import type { CounterName } from '../../src/radius/index.js';
import { revoke } from '../../src/wifi/index.js';
import { freeUdpPorts, waitFor } from '../helpers/app.js';
import { cliEnv, startCli } from '../helpers/cli.js';
import { CoaListener, attrText } from '../helpers/coa-listener.js';
import { rawRequest } from '../helpers/http.js';
import {
  NAS_ID,
  SECRET,
  acctRequest,
  aGuest,
  papRequest,
  radclient,
  routerSocket,
  startRadiusApp,
  type RadiusTestApp,
} from '../helpers/radius.js';

/**
 * RADIUS_WORKERS=2 (src/radius/workers.ts), whatever HOTSPOT_TEST_RADIUS_WORKERS says: two worker
 * processes share the authorization port and answer it; the daemon (this test's process) answers
 * accounting itself, sums what the workers count, and replaces one that dies.
 */

const withWorkers = (t: Parameters<typeof startRadiusApp>[0]) =>
  startRadiusApp(t, { env: { RADIUS_WORKERS: '2', METRICS: 'on' } });

/** A counter with every worker's tally gathered first. */
async function counted(app: RadiusTestApp, name: CounterName): Promise<number> {
  await app.app.radius.tally();
  return app.app.radius.counters.get(name);
}

t.test('two workers answer a login and its accounting, and /metrics sums what they counted', async (t) => {
  const app = await withWorkers(t);
  t.equal(app.app.radius.workers()?.pids.length, 2, 'two worker processes');
  t.ok(
    app.app.radius.workers()?.pids.every((pid) => pid !== process.pid),
    'the workers are processes of their own',
  );
  const g = await aGuest(app);

  const login = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(
    login.replies,
    [{ code: 'Access-Accept', attributes: { 'Acct-Interim-Interval': '300' } }],
    login.output,
  );
  const wrong = await radclient(app.auth, 'auth', papRequest(g.username, 'not-the-password'));
  t.match(wrong.replies, [{ code: 'Access-Reject' }], wrong.output);
  for (const [status, extra] of [
    ['Start', ''],
    ['Interim-Update', 'Acct-Session-Time = 60\nAcct-Input-Octets = 1000\nAcct-Output-Octets = 5000\n'],
    ['Stop', 'Acct-Session-Time = 90\nAcct-Input-Octets = 1500\nAcct-Output-Octets = 7000\n'],
  ] as const) {
    const r = await radclient(
      app.acct,
      'acct',
      `${acctRequest(g.username)}Acct-Status-Type = ${status}\n${extra}`,
    );
    t.match(r.replies, [{ code: 'Accounting-Response' }], `${status} answered`);
  }
  t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().execute(), [
    {
      grant_id: g.grantId,
      input_octets: 1500,
      output_octets: 7000,
      started_at: '2026-01-15T09:00:00.000Z',
      stopped_at: '2026-01-15T09:00:00.000Z',
    },
  ]);

  const metrics = await rawRequest(`${app.base}/metrics`);
  t.equal(metrics.status, 200);
  t.match(metrics.body, /hotspot_radius_requests_total\{kind="access",result="accept"\} 1\n/);
  t.match(metrics.body, /hotspot_radius_requests_total\{kind="access",result="reject"\} 1\n/);
  t.match(metrics.body, /hotspot_radius_requests_total\{kind="accounting",result="answered"\} 3\n/);
  t.equal(app.app.radius.counters.get('auth_requests'), 2, 'the daemon holds the sum');

  // The routers' sightings reach the daemon, which writes them.
  await app.app.radius.flushLastSeen();
  const device = await app.app.deps.db
    .selectFrom('devices')
    .select('last_seen_at')
    .where('id', '=', app.deviceId)
    .executeTakeFirstOrThrow();
  t.equal(device.last_seen_at, '2026-01-15T09:00:00.000Z', 'last seen, by the test clock the workers follow');
});

/**
 * Sends the same datagram from one source port, one at a time, until two workers have each
 * processed it afresh (`requests` moved by two: a worker that saw it before answers from its
 * duplicate cache and counts a duplicate instead). Resolves with every reply.
 */
async function untilTwoWorkersSaw(
  app: RadiusTestApp,
  port: number,
  packet: Buffer,
  requests: CounterName,
): Promise<Buffer[]> {
  const before = await counted(app, requests);
  const router = await routerSocket(port);
  const replies: Buffer[] = [];
  try {
    for (let sent = 0; sent < 200; sent++) {
      replies.push(await router.send(packet));
      if ((await counted(app, requests)) >= before + 2) return replies;
    }
    throw new Error('200 sends and the same worker took each one');
  } finally {
    router.close();
  }
}

t.test(
  'a login resent to the other worker gets the same answer; accounting copies reach the daemon alone',
  async (t) => {
    const app = await withWorkers(t);
    const g = await aGuest(app, { data_limit_bytes: 100_000_000, remember_device: true, max_devices: 1 });
    const macs: EncodeAttribute[] = [['Calling-Station-Id', '11-22-33-44-55-66']];

    const access = encodeRequest(
      CODE.accessRequest,
      7,
      [['User-Name', g.username], ['User-Password', g.password], ['NAS-Identifier', NAS_ID], ...macs],
      SECRET,
    );
    const accessReplies = await untilTwoWorkersSaw(app, app.auth, access, 'auth_requests');
    t.equal(accessReplies[0]?.[0], CODE.accessAccept, 'accepted');
    t.ok(
      accessReplies.every((r) => r.equals(accessReplies[0] ?? Buffer.alloc(0))),
      `${String(accessReplies.length)} identical answers`,
    );
    t.equal(
      (await app.app.deps.db.selectFrom('remembered_devices').selectAll().execute()).length,
      1,
      'the device is remembered once',
    );

    const acct = (id: number, status: string, extra: EncodeAttribute[] = []): Buffer =>
      encodeRequest(
        CODE.accountingRequest,
        id,
        [
          ['User-Name', g.username],
          ['NAS-Identifier', NAS_ID],
          ['Acct-Session-Id', 'dup-0001'],
          ['Acct-Status-Type', status],
          ...macs,
          ...extra,
        ],
        SECRET,
      );
    const sessions = () => app.app.deps.db.selectFrom('radius_sessions').selectAll().execute();
    const steps: [string, Buffer, Record<string, unknown>][] = [
      ['Start', acct(1, 'Start'), { input_octets: 0, stopped_at: null }],
      [
        'Interim-Update',
        acct(2, 'Interim-Update', [
          ['Acct-Session-Time', 60],
          ['Acct-Input-Octets', 3_000_000],
          ['Acct-Output-Octets', 9_000_000],
        ]),
        { input_octets: 3_000_000, output_octets: 9_000_000, stopped_at: null },
      ],
      [
        'Stop',
        acct(3, 'Stop', [
          ['Acct-Session-Time', 90],
          ['Acct-Input-Octets', 4_000_000],
          ['Acct-Output-Octets', 10_000_000],
          ['Acct-Terminate-Cause', 'User-Request'],
        ]),
        { input_octets: 4_000_000, output_octets: 10_000_000, stopped_at: '2026-01-15T09:00:00.000Z' },
      ],
    ];
    // Accounting is the daemon's alone: every copy reaches its one duplicate cache, so a packet is
    // processed once and its copies are answered from the cache (RFC 5080).
    for (const [status, packet, expected] of steps) {
      const before = await counted(app, 'acct_requests');
      const answered = await counted(app, 'duplicates_answered');
      const router = await routerSocket(app.acct);
      t.teardown(() => router.close());
      const replies: Buffer[] = [];
      for (let copy = 1; copy <= 5; copy++) replies.push(await router.send(packet));
      t.ok(
        replies.every((r) => r[0] === CODE.accountingResponse && r.equals(replies[0] ?? Buffer.alloc(0))),
        `${status}: ${String(replies.length)} identical Accounting-Responses`,
      );
      t.equal(await counted(app, 'acct_requests'), before + 1, `${status}: processed once`);
      t.equal(
        await counted(app, 'duplicates_answered'),
        answered + 4,
        `${status}: four copies from the cache`,
      );
      t.match(await sessions(), [expected], `${status}: one session, counted once`);
      t.equal((await sessions()).length, 1);
    }
  },
);

t.test(
  'with workers, the daemon answers a Start of a revoked grant and sends its Disconnect-Request',
  async (t) => {
    const listener = new CoaListener(SECRET);
    const port = await listener.listen();
    t.teardown(() => listener.close());
    const app = await startRadiusApp(t, {
      env: { RADIUS_WORKERS: '2' },
      device: { radius_client_ip: '127.0.0.1', coa_port: port },
    });
    const g = await aGuest(app);
    t.match(await revoke(app.app.deps, g.grantId, 'refund'), { disconnect: { status: 'no_sessions' } });
    // The router accepted the login (in a worker) just before the revocation; its Start reaches the
    // daemon, which owns the accounting port and the CoA socket.
    const r = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, 'late-0001', ['Acct-Status-Type = Start']),
    );
    t.match(r.replies, [{ code: 'Accounting-Response' }], r.output);
    await app.app.deps.background.drain();
    t.equal(listener.received.length, 1, 'one Disconnect-Request');
    t.equal(attrText(listener.received[0]!, 44), 'late-0001');
  },
);

t.test('a worker that dies is replaced, and the ports keep answering', async (t) => {
  const app = await withWorkers(t);
  const g = await aGuest(app);
  const [victim, other] = app.app.radius.workers()?.pids ?? [];
  if (victim === undefined || other === undefined) throw new Error('expected two workers');
  process.kill(victim, 'SIGKILL');
  await waitFor(() => app.logs.events('radius.worker_replaced').length === 1, 'a replacement', 30_000);
  t.match(app.logs.events('radius.worker_exited'), [{ level: 40, worker_pid: victim, signal: 'SIGKILL' }]);
  const now = app.app.radius.workers();
  t.equal(now?.pids.length, 2);
  t.ok(now?.pids.includes(other) && !now.pids.includes(victim), 'the other one kept running');
  t.equal(now?.replaced, 1);
  for (let i = 0; i < 6; i++) {
    const r = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
    t.match(r.replies, [{ code: 'Access-Accept' }], r.output);
  }
});

/** Running: a process that exists and is not a zombie waiting to be reaped. */
const running = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  } catch {
    return false;
  }
};

t.test('the workers exit when the daemon is killed (-9), and leave the data directory free', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const [auth, acct] = await freeUdpPorts(2);
  const env = cliEnv(dataDir, {
    RADIUS_HOST: '127.0.0.1',
    RADIUS_AUTH_PORT: String(auth),
    RADIUS_ACCT_PORT: String(acct),
    RADIUS_WORKERS: '2',
  });
  const daemon = startCli(['serve'], env);
  t.teardown(() => daemon.child.kill('SIGKILL'));
  const [, first, second] = await daemon.waitFor(/"event":"radius\.workers".*?"pids":\[(\d+),(\d+)\]/);
  const workers = [Number(first), Number(second)];
  t.ok(workers.every(running), 'two workers run');
  daemon.child.kill('SIGKILL');
  await daemon.exited; // its output closes once the workers, which share it, are gone too
  await waitFor(() => !workers.some(running), 'the workers to exit', 10_000);
  t.pass('no worker outlived the daemon');

  // A new daemon takes the lock and binds the ports (a worker that cannot bind stops the start).
  const next = startCli(['serve'], env);
  t.teardown(() => next.child.kill('SIGKILL'));
  await next.waitFor(/"event":"radius\.workers"/);
  await next.waitFor(/HTTP on 127\.0\.0\.1:\d+/);
  t.pass('a new daemon started on the same data directory and ports');
});
