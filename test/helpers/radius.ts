import { execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Test } from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase, type DeviceRequest, type PlanRequest } from '../../src/wifi/index.js';
import { startTestApp, waitFor, type TestApp, type TestAppOptions } from './app.js';
import { aDevice, aPaidPurchase, aPlan } from './wifi.js';

/** The shared secret the test router is registered with. */
export const SECRET = 'radius-test-secret-0001';
export const NAS_ID = 'lobby-01';

export interface RadiusTestApp extends TestApp {
  auth: number;
  acct: number;
  deviceId: string;
}

/** The app with RADIUS on free loopback ports and one registered router (NAS id lobby-01). */
export async function startRadiusApp(
  t: Test,
  options: TestAppOptions & { device?: DeviceRequest } = {},
): Promise<RadiusTestApp> {
  const { device, ...rest } = options;
  const app = await startTestApp(t, { ...rest, radius: true });
  const registered = await aDevice(app.app, { radius_secret: SECRET, radius_nas_id: NAS_ID, ...device });
  return {
    ...app,
    auth: app.config.radiusAuthPort,
    acct: app.config.radiusAcctPort,
    deviceId: registered.device.id,
  };
}

/**
 * The RADIUS test app without its scheduled jobs: they run on the wall clock (node-schedule), and
 * one firing mid-test (the sightings flush every 30 s, grant expiry every minute on the moved
 * clock) would change what a test compares. The tests run those jobs' functions by hand.
 */
export async function quietRadiusApp(
  t: Test,
  options: Parameters<typeof startRadiusApp>[1] = {},
): Promise<RadiusTestApp> {
  const app = await startRadiusApp(t, options);
  await app.app.scheduler.stop();
  return app;
}

/** A paid purchase's Wi-Fi credentials, read back through the access-grant service. */
export async function aGuest(app: TestApp, plan: PlanRequest = {}) {
  const purchase = await aPaidPurchase(app, await aPlan(app.app, plan));
  const live = await findLiveForPurchase(app.app.deps, purchase.invoiceId, sha256Hex(purchase.key));
  if (live.kind !== 'live') throw new Error(`expected a live grant, got ${live.kind}`);
  return { username: live.grant.username, password: live.password, grantId: live.grant.id };
}

/** FreeRADIUS's radclient version, e.g. [3, 2, 7]. */
export const RADCLIENT_VERSION: readonly number[] = (() => {
  const out = execFileSync('radclient', ['-v'], { encoding: 'utf8' });
  return (/version (\d+)\.(\d+)\.(\d+)/.exec(out)?.slice(1) ?? []).map(Number);
})();

/** radclient 3.2.5+ has `-b`: replies without Message-Authenticator are discarded, not first → WARNING. */
export const BLAST_CHECKS =
  (RADCLIENT_VERSION[0] ?? 0) * 10_000 + (RADCLIENT_VERSION[1] ?? 0) * 100 + (RADCLIENT_VERSION[2] ?? 0) >=
  30_205;

export interface RadclientReply {
  code: string;
  attributes: Record<string, string>;
}

export interface RadclientRun {
  exitCode: number | null;
  output: string;
  replies: RadclientReply[];
}

/**
 * Runs `radclient -x` with `input` (attribute lines) and collects the replies it accepted. Like a
 * router, it waits five seconds and resends the same packet, three tries in all: a reply is taken
 * as soon as it comes, and on a loaded CI box (the suite runs with both cores busy, and a commit
 * waits for its WAL sync) one answer once took longer than five seconds. The resend is a real
 * duplicate, answered from the duplicate cache. A test that expects silence passes `tries: 1`.
 */
export function radclient(
  port: number,
  type: 'auth' | 'acct' | 'status',
  input: string,
  options: { secret?: string; extra?: string[]; tries?: number } = {},
): Promise<RadclientRun> {
  const args = [
    '-x',
    ...(BLAST_CHECKS && type === 'auth' ? ['-b'] : []),
    '-r',
    String(options.tries ?? 3),
    '-t',
    '5',
    ...(options.extra ?? []),
    `127.0.0.1:${String(port)}`,
    type,
    options.secret ?? SECRET,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('radclient', args);
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, output, replies: parseReplies(output) }));
    child.stdin.end(input);
  });
}

function parseReplies(output: string): RadclientReply[] {
  const replies: RadclientReply[] = [];
  let current: RadclientReply | undefined;
  for (const line of output.split('\n')) {
    const received = /^Received (\S+) Id/.exec(line);
    if (received?.[1]) {
      current = { code: received[1], attributes: {} };
      replies.push(current);
      continue;
    }
    const attr = /^\t(\S+) = (.*)$/.exec(line);
    if (current && attr?.[1] && attr[2] !== undefined) current.attributes[attr[1]] = attr[2];
    else if (!line.startsWith('\t')) current = undefined;
  }
  return replies;
}

/** Attribute lines of an Access-Request from our router, PAP. */
export const papRequest = (username: string, password: string, extra: string[] = []): string =>
  [
    `User-Name = "${username}"`,
    `User-Password = "${password}"`,
    `NAS-Identifier = "${NAS_ID}"`,
    'NAS-IP-Address = 127.0.0.1',
    'Calling-Station-Id = "11-22-33-44-55-66"',
    'Framed-IP-Address = 10.1.0.5',
    'Message-Authenticator = 0x00',
    ...extra,
  ].join('\n') + '\n';

/** Attribute lines of an Accounting-Request from our router for one session (add the status and counters). */
export const acctRequest = (username: string, session = '5f3a1b2c00000001', extra: string[] = []): string =>
  [
    `User-Name = "${username}"`,
    `NAS-Identifier = "${NAS_ID}"`,
    'NAS-IP-Address = 127.0.0.1',
    'Calling-Station-Id = "11-22-33-44-55-66"',
    'Framed-IP-Address = 10.1.0.5',
    `Acct-Session-Id = "${session}"`,
    ...extra,
  ].join('\n') + '\n';

/** Sends one datagram from a fresh socket and resolves with the first reply, or null after `timeoutMs`. */
export function exchange(port: number, packet: Buffer, timeoutMs = 1000): Promise<Buffer | null> {
  return exchangeMany(port, [packet], timeoutMs).then((r) => r[0] ?? null);
}

/**
 * Sends datagrams from ONE socket (same source port, as a router's retransmission would) and
 * collects every reply until `expected` arrived or `timeoutMs` passed (a failure guard).
 */
export function exchangeMany(port: number, packets: Buffer[], timeoutMs = 1000, expected = packets.length) {
  return new Promise<Buffer[]>((resolve, reject) => {
    const socket = createSocket('udp4');
    const replies: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.close();
      resolve(replies);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('error', reject);
    socket.on('message', (msg) => {
      replies.push(msg);
      if (replies.length >= expected) done();
    });
    socket.bind(0, '127.0.0.1', () => {
      for (const p of packets) socket.send(p, port, '127.0.0.1');
    });
  });
}

/**
 * One socket (one source port, as a router has) that sends a datagram and resolves with its
 * reply, one at a time: each copy goes after the previous answer, as a router whose answer got
 * lost resends.
 */
export async function routerSocket(
  port: number,
): Promise<{ send(packet: Buffer): Promise<Buffer>; close(): void }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    send: (packet) =>
      new Promise<Buffer>((resolve) => {
        socket.once('message', resolve);
        socket.send(packet, port, '127.0.0.1');
      }),
    close: () => socket.close(),
  };
}

/** Waits until a RADIUS counter of the app reaches `value`. */
export function counterReaches(
  app: TestApp,
  name: Parameters<TestApp['app']['radius']['counters']['get']>[0],
  value: number,
) {
  return waitFor(() => app.app.radius.counters.get(name) >= value, `${name} to reach ${String(value)}`);
}

/**
 * Sends a packet the server must drop and resolves once the drop counter moved (the server
 * decides synchronously after that point, so a reply would have been sent already), with the
 * replies that arrived: none, if the drop is silent.
 */
export async function sendExpectingDrop(
  app: TestApp,
  port: number,
  packet: Buffer,
  counter: Parameters<TestApp['app']['radius']['counters']['get']>[0],
): Promise<Buffer[]> {
  const before = app.app.radius.counters.get(counter);
  const socket = createSocket('udp4');
  const replies: Buffer[] = [];
  socket.on('message', (msg) => replies.push(msg));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  socket.send(packet, port, '127.0.0.1');
  try {
    await counterReaches(app, counter, before + 1);
    await new Promise((resolve) => setImmediate(resolve)); // let any datagram already sent arrive
  } finally {
    socket.close();
  }
  return replies;
}
