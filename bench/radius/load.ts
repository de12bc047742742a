import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';

/**
 * A RADIUS load generator (run as its own process): sends pre-encoded requests with at most
 * `window` outstanding, matches replies by identifier, and prints one JSON line with the
 * throughput, latency percentiles and the reply codes seen. Usage: load.ts PACKETS_FILE PORT WINDOW
 * PACKETS_FILE holds hex packets, one a line (encoded beforehand so encoding costs nothing here).
 * Each request gets a fresh identifier/authenticator pair from the file, so none is a duplicate.
 * Identifiers repeat every 256 packets: a packet whose identifier is still unanswered on the first
 * socket goes out from another source port (a socket opened when needed, up to SOCKETS), so a
 * slow answer is waited for rather than mistaken for a lost one, and the server never sees a new
 * request reuse an identifier it is still working on (RFC 2865 §3 keys a request by source address,
 * source port and identifier; FreeRADIUS drops the older one as a "conflicting packet").
 * A reply whose code is not the success answer to its request (Access-Accept to an
 * Access-Request, Accounting-Response to an Accounting-Request) is counted in `unexpected`:
 * a benchmark of rejects measures the wrong thing, so run.ts refuses such a run.
 */

const [file, portArg, windowArg] = process.argv.slice(2);
const packets = readFileSync(file ?? '', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((h) => Buffer.from(h, 'hex'));
const port = Number(portArg);
const window = Math.min(Number(windowArg ?? 64), 256);

/** Request code → the reply code that means success (RFC 2865 §4, RFC 2866 §4). */
const SUCCESS: Readonly<Record<number, number>> = { 1: 2, 4: 5 };

/** Source ports a run may use: enough that an identifier in flight on all of them means a loss. */
const SOCKETS = 8;
const sockets: Socket[] = [];
/** Requests in flight by socket × 256 + identifier. */
const sentAt = new Map<number, { at: bigint; expect: number }>();
const latencies: number[] = [];
/** Reply codes received, by code, e.g. { "2": 19990, "3": 10 }. */
const codes: Record<string, number> = {};
let next = 0;
let received = 0;
let unexpected = 0;
let lost = 0;
/** Requests sent from a second (or later) socket because their identifier was in flight. */
let moved = 0;
const TIMEOUT_NS = 2_000_000_000n;
let start = 0n;

function openSocket(): Socket {
  const s = sockets.length;
  const socket = createSocket('udp4');
  socket.on('message', (msg) => answered(s, msg));
  sockets.push(socket);
  return socket;
}

function send(): void {
  const p = packets[next];
  if (!p) return;
  next++;
  const id = p[1] ?? 0;
  let s = 0;
  while (s < sockets.length && sentAt.has(s * 256 + id)) s++;
  if (s === SOCKETS) {
    // In flight from every source port, 8 × 256 packets back: given up as lost (a datagram the
    // kernel dropped), or its slot and the run's total would never close.
    s = 0;
    sentAt.delete(id);
    lost++;
  }
  if (s > 0) moved++;
  const socket = sockets[s] ?? openSocket();
  sentAt.set(s * 256 + id, { at: process.hrtime.bigint(), expect: SUCCESS[p[0] ?? 0] ?? -1 });
  socket.send(p, port, '127.0.0.1');
}

function finishIfDone(): void {
  if (received + lost < packets.length) return;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ sent: packets.length, received, unexpected, codes, lost, moved, seconds, rate: received / seconds, p50_ms: pct(0.5), p99_ms: pct(0.99) })}\n`,
  );
  for (const socket of sockets) socket.close();
  clearInterval(sweeper);
}

function answered(s: number, msg: Buffer): void {
  const key = s * 256 + (msg[1] ?? 0);
  const sent = sentAt.get(key);
  if (sent === undefined) return;
  sentAt.delete(key);
  latencies.push(Number(process.hrtime.bigint() - sent.at) / 1e6);
  const code = msg[0] ?? 0;
  codes[String(code)] = (codes[String(code)] ?? 0) + 1;
  if (code !== sent.expect) unexpected++;
  received++;
  send();
  finishIfDone();
}

/** Requests unanswered for 2 s are counted lost and their slot reused. */
const sweeper = setInterval(() => {
  const now = process.hrtime.bigint();
  for (const [key, sent] of sentAt) {
    if (now - sent.at < TIMEOUT_NS) continue;
    sentAt.delete(key);
    lost++;
    send();
  }
  finishIfDone();
}, 200);

const first = openSocket();
first.bind(0, '127.0.0.1', () => {
  first.setRecvBufferSize(4 * 1024 * 1024);
  start = process.hrtime.bigint();
  for (let i = 0; i < window; i++) send();
});
