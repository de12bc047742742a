import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';

/**
 * A RADIUS load generator (run as its own process): sends pre-encoded requests with at most
 * `window` outstanding, matches replies by identifier, and prints one JSON line with the
 * throughput, latency percentiles and the reply codes seen. Usage: load.ts PACKETS_FILE PORT WINDOW
 * PACKETS_FILE holds hex packets, one a line (encoded beforehand so encoding costs nothing here).
 * Each request gets a fresh identifier/authenticator pair from the file, so none is a duplicate.
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

const socket = createSocket('udp4');
const sentAt = new Map<number, { at: bigint; expect: number }>();
const latencies: number[] = [];
/** Reply codes received, by code, e.g. { "2": 19990, "3": 10 }. */
const codes: Record<string, number> = {};
let next = 0;
let received = 0;
let unexpected = 0;
let lost = 0;
const TIMEOUT_NS = 2_000_000_000n;
let start = 0n;

function send(): void {
  const p = packets[next];
  if (!p) return;
  next++;
  const id = p[1] ?? 0;
  // Identifiers repeat every 256 packets: one still unanswered that far back (a datagram the
  // kernel dropped) is given up as lost, or its slot and the run's total would never close.
  if (sentAt.delete(id)) lost++;
  sentAt.set(id, { at: process.hrtime.bigint(), expect: SUCCESS[p[0] ?? 0] ?? -1 });
  socket.send(p, port, '127.0.0.1');
}

function finishIfDone(): void {
  if (received + lost < packets.length) return;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ sent: packets.length, received, unexpected, codes, lost, seconds, rate: received / seconds, p50_ms: pct(0.5), p99_ms: pct(0.99) })}\n`,
  );
  socket.close();
  clearInterval(sweeper);
}

socket.on('message', (msg) => {
  const id = msg[1] ?? 0;
  const sent = sentAt.get(id);
  if (sent === undefined) return;
  sentAt.delete(id);
  latencies.push(Number(process.hrtime.bigint() - sent.at) / 1e6);
  const code = msg[0] ?? 0;
  codes[String(code)] = (codes[String(code)] ?? 0) + 1;
  if (code !== sent.expect) unexpected++;
  received++;
  send();
  finishIfDone();
});

/** Requests unanswered for 2 s are counted lost and their slot reused. */
const sweeper = setInterval(() => {
  const now = process.hrtime.bigint();
  for (const [id, sent] of sentAt) {
    if (now - sent.at < TIMEOUT_NS) continue;
    sentAt.delete(id);
    lost++;
    send();
  }
  finishIfDone();
}, 200);

socket.bind(0, '127.0.0.1', () => {
  socket.setRecvBufferSize(4 * 1024 * 1024);
  start = process.hrtime.bigint();
  for (let i = 0; i < window; i++) send();
});
