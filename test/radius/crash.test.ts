import { createSocket } from 'node:dgram';
import path from 'node:path';
import radius from 'radius';
import t, { type Test } from 'tap';
import { openStore } from '../../src/db/index.js';
import { freePort, freeUdpPorts } from '../helpers/app.js';
import { boxEnv, runCli, startCli } from '../helpers/cli.js';
import { aPurchaseKey, postPurchase } from '../helpers/wifi.js';

/**
 * Nothing acknowledged is lost by a crash (kill -9) under load, on whichever store the suite runs
 * (SQLite, or PostgreSQL in its second pass): every accounting record a router got an
 * Accounting-Response for, and every purchase a guest got a 201 for, is in the store afterwards.
 */

const SECRET = 'crash-test-secret-0001';
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

/**
 * Loads a daemon (with `extra` settings), kills it with `kill` under load, and checks the store.
 * `kill` gets the daemon and what it printed; it must leave none of the daemon's processes running.
 */
async function crashUnderLoad(
  t: Test,
  extra: Record<string, string>,
  kill: (daemon: ReturnType<typeof startCli>) => void,
): Promise<number | null> {
  const dataDir = path.join(t.testdir(), 'data');
  const [auth, acct] = await freeUdpPorts(2);
  const httpPort = await freePort();
  const env = await boxEnv(dataDir, {
    HTTP_PORT: String(httpPort),
    RADIUS_HOST: '127.0.0.1',
    RADIUS_AUTH_PORT: String(auth),
    RADIUS_ACCT_PORT: String(acct),
    SANDBOX_AUTOPAY_SECONDS: '0',
    ...extra,
  });
  const plan = await runCli(
    ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'],
    env,
  );
  t.equal(plan.code, 0, plan.stderr);
  const planId = String(json(plan.stdout).id);
  const device = await runCli(
    [
      'devices',
      'add',
      '--name',
      'Lobby',
      '--model',
      'MikroTik hAP ax2',
      '--mac',
      'aa:bb:cc:dd:ee:01',
      '--network',
      '10.1.0.0/24',
      '--uam-server',
      'http://10.1.0.10:8080/portal',
      '--nas-id',
      'lobby-01',
      '--client-ip',
      '127.0.0.1',
      '--secret',
      SECRET,
      '--json',
    ],
    env,
  );
  t.equal(device.code, 0, device.stderr);

  const daemon = startCli(['serve'], env);
  t.teardown(() => daemon.child.kill('SIGKILL'));
  await daemon.waitFor(/HTTP on 127\.0\.0\.1:\d+/);
  const base = `http://127.0.0.1:${String(httpPort)}`;

  // Accounting as a busy router sends it: up to 64 requests outstanding, each answer letting the
  // next one go (identifiers cycle through 0-255; one is reused only long after its answer).
  const WINDOW = 64;
  const acknowledgedSessions: string[] = [];
  const outstanding = new Map<number, string>();
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.teardown(() => socket.close());
  let sent = 0;
  let sending = true;
  let progressed = (): void => undefined;
  const sendOne = (): void => {
    const id = sent % 256;
    const session = `s${String(sent)}`;
    sent++;
    outstanding.set(id, session);
    const packet = radius.encode({
      code: 'Accounting-Request',
      secret: SECRET,
      identifier: id,
      attributes: [
        ['User-Name', `guest-${String(id)}`],
        ['NAS-Identifier', 'lobby-01'],
        ['Acct-Status-Type', 'Start'],
        ['Acct-Session-Id', session],
        ['Framed-IP-Address', '10.1.0.5'],
      ],
    });
    socket.send(packet, acct, '127.0.0.1');
  };
  socket.on('message', (msg) => {
    const reply = radius.decode_without_secret({ packet: msg });
    const session = outstanding.get(reply.identifier);
    if (reply.code !== 'Accounting-Response' || session === undefined) return;
    outstanding.delete(reply.identifier);
    acknowledgedSessions.push(session);
    if (sending) sendOne();
    progressed();
  });

  // Purchases: a steady stream of HTTP 201s.
  const acknowledgedInvoices: string[] = [];
  const load = { stop: false };
  const buyer = (async () => {
    while (!load.stop) {
      const res = await postPurchase(base, { plan_id: planId, phone: '0712345678' }, aPurchaseKey()).catch(
        () => null,
      );
      if (res?.status === 201 && res.body.data) acknowledgedInvoices.push(res.body.data.invoice_id);
      progressed();
      if (!res) return; // the daemon is gone
    }
  })();

  // Load until enough was acknowledged of both, then kill the daemon with requests in flight.
  for (let i = 0; i < WINDOW; i++) sendOne();
  while (acknowledgedSessions.length < 1000 || acknowledgedInvoices.length < 20)
    await new Promise<void>((resolve) => (progressed = resolve));
  kill(daemon);
  const exitCode = await daemon.exited;
  sending = false;
  load.stop = true;
  await buyer;
  const sessions = [...acknowledgedSessions];
  const invoices = [...acknowledgedInvoices];
  t.ok(
    sessions.length >= 1000 && invoices.length >= 20,
    `${String(sessions.length)} records, ${String(invoices.length)} purchases acknowledged`,
  );

  // What the store holds after the crash, read as the next start would read it.
  const store = await openStore(
    { dataDir, databaseUrl: env.DATABASE_URL ?? null },
    { now: () => new Date() },
  );
  t.teardown(() => store.close());
  const stored = new Set(
    (await store.db.selectFrom('radius_sessions').select('acct_session_id').execute()).map(
      (r) => r.acct_session_id,
    ),
  );
  const lostSessions = sessions.filter((s) => !stored.has(s));
  t.same(lostSessions, [], 'every acknowledged accounting record is stored');
  const storedInvoices = new Set(
    (await store.db.selectFrom('invoices').select('id').execute()).map((r) => r.id),
  );
  t.same(
    invoices.filter((id) => !storedInvoices.has(id)),
    [],
    'every acknowledged purchase is stored',
  );
  return exitCode;
}

t.test('kill -9 under accounting and purchase load loses nothing that was acknowledged', async (t) => {
  await crashUnderLoad(t, {}, (daemon) => daemon.child.kill('SIGKILL'));
});

/** The daemon's process and its two workers', from the line it logs when they listen. */
function daemonAndWorkers(daemon: ReturnType<typeof startCli>): number[] {
  const pids = /"event":"radius\.workers".*?"pids":\[(\d+),(\d+)\]/.exec(daemon.stdout);
  if (!pids?.[1] || !pids[2]) throw new Error(`no workers in the daemon's output:\n${daemon.stdout}`);
  return [daemon.child.pid ?? 0, Number(pids[1]), Number(pids[2])];
}

t.test(
  'with two RADIUS workers, kill -9 of every process under load loses nothing acknowledged',
  async (t) => {
    // The workers (src/radius/workers.ts) answer the logins, the daemon commits the accounting;
    // all three die at once.
    await crashUnderLoad(t, { RADIUS_WORKERS: '2' }, (daemon) => {
      for (const pid of daemonAndWorkers(daemon)) process.kill(pid, 'SIGKILL');
    });
  },
);

t.test('with two RADIUS workers, SIGTERM to every process under load drains and stops cleanly', async (t) => {
  // As systemd stops the service: the signal reaches the daemon and its workers together.
  const code = await crashUnderLoad(t, { RADIUS_WORKERS: '2' }, (daemon) => {
    for (const pid of daemonAndWorkers(daemon)) process.kill(pid, 'SIGTERM');
  });
  t.equal(code, 0, 'the daemon exits 0 once its workers finished');
});
