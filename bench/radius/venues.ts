import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';

/**
 * The "500 venues" accounting load (run as its own process, so the sender's timing is not
 * disturbed by the server under test): one UDP socket per router, as each venue's router has its
 * own address and port, then two phases.
 *
 * 1. Accounting Start of every session, with at most WINDOW outstanding: the Interim-Updates
 *    that follow update real, open rows.
 * 2. Interim-Updates sent open loop at RATE per second, by the clock: every TICK_MS milliseconds
 *    the packets due by then go out (RATE × TICK_MS / 1000 a tick), whatever the server answers
 *    or fails to answer, as routers do. Latency is taken from each packet's actual send to its
 *    reply; `lag_*` says how late the sender was against its schedule (a late sender would hide
 *    load from the server).
 *
 * Usage: venues.ts STARTS_FILE INTERIMS_FILE PORT RATE TICK_MS WINDOW
 * Each file holds one request a line: `VENUE_INDEX HEX_PACKET`, encoded beforehand (run.ts) so
 * encoding costs nothing here. A request unanswered after TIMEOUT_MS is lost (no resends: a
 * router's resend would be a second measurement of the same request). Prints one JSON line:
 * `{ starts: {...}, interims: {...} }`. A reply other than Accounting-Response counts in
 * `unexpected` (run.ts refuses such a run).
 */

const [startsFile, interimsFile, portArg, rateArg, tickArg, windowArg] = process.argv.slice(2);
const port = Number(portArg);
const RATE = Number(rateArg ?? 2000);
const TICK_MS = Number(tickArg ?? 10);
const WINDOW = Number(windowArg ?? 64);
const TIMEOUT_NS = 2_000_000_000n;
const ACCOUNTING_RESPONSE = 5;

interface Request {
  venue: number;
  packet: Buffer;
}

const read = (file: string | undefined): Request[] =>
  readFileSync(file ?? '', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [venue, hex] = line.split(' ');
      return { venue: Number(venue), packet: Buffer.from(hex ?? '', 'hex') };
    });

const starts = read(startsFile);
const interims = read(interimsFile);
const venueCount = Math.max(0, ...starts.map((r) => r.venue + 1), ...interims.map((r) => r.venue + 1));

export interface PhaseResult {
  sent: number;
  received: number;
  unexpected: number;
  lost: number;
  codes: Record<string, number>;
  seconds: number;
  /** Requests sent per second over the sending span. */
  send_rate: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** How late sends were against the schedule (open loop only). */
  lag_p99_ms: number;
  lag_max_ms: number;
  /** p99 latency of each whole second of the run, in order (open loop only). */
  p99_by_second_ms: number[];
}

/** One phase's bookkeeping: outstanding requests by (venue, identifier), latencies, reply codes. */
class Phase {
  readonly outstanding: Map<number, { at: bigint }>[];
  readonly latencies: number[] = [];
  /** Per second since the phase began: latencies of the requests sent in it. */
  readonly bySecond: number[][] = [];
  readonly lags: number[] = [];
  readonly codes: Record<string, number> = {};
  sent = 0;
  received = 0;
  unexpected = 0;
  lost = 0;
  readonly began = process.hrtime.bigint();
  lastSend = this.began;
  onSettled: () => void = () => undefined;

  constructor(venues: number) {
    this.outstanding = Array.from({ length: venues }, () => new Map());
  }

  send(sockets: readonly Socket[], r: Request): void {
    const id = r.packet[1] ?? 0;
    const waiting = this.outstanding[r.venue];
    if (!waiting) throw new Error(`no socket for venue ${String(r.venue)}`);
    // Identifiers repeat every 256 requests of a router: one still unanswered that far back is lost.
    if (waiting.delete(id)) this.lost++;
    const at = process.hrtime.bigint();
    waiting.set(id, { at });
    this.sent++;
    this.lastSend = at;
    sockets[r.venue]?.send(r.packet, port, '127.0.0.1');
  }

  reply(venue: number, msg: Buffer): void {
    const id = msg[1] ?? 0;
    const waiting = this.outstanding[venue];
    const sent = waiting?.get(id);
    if (!waiting || !sent) return;
    waiting.delete(id);
    const ms = Number(process.hrtime.bigint() - sent.at) / 1e6;
    this.latencies.push(ms);
    const second = Math.floor(Number(sent.at - this.began) / 1e9);
    (this.bySecond[second] ??= []).push(ms);
    const code = msg[0] ?? 0;
    this.codes[String(code)] = (this.codes[String(code)] ?? 0) + 1;
    if (code !== ACCOUNTING_RESPONSE) this.unexpected++;
    this.received++;
    this.onSettled();
  }

  /** Gives up requests unanswered for TIMEOUT_NS. */
  sweep(): void {
    const now = process.hrtime.bigint();
    for (const waiting of this.outstanding)
      for (const [id, sent] of waiting) {
        if (now - sent.at < TIMEOUT_NS) continue;
        waiting.delete(id);
        this.lost++;
        this.onSettled();
      }
  }

  get settled(): number {
    return this.received + this.lost;
  }

  result(): PhaseResult {
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const pct = (xs: readonly number[], q: number) =>
      xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
    const latencies = sorted(this.latencies);
    const lags = sorted(this.lags);
    const spanSeconds = Number(this.lastSend - this.began) / 1e9;
    return {
      sent: this.sent,
      received: this.received,
      unexpected: this.unexpected,
      lost: this.lost,
      codes: this.codes,
      seconds: Number(process.hrtime.bigint() - this.began) / 1e9,
      send_rate: spanSeconds > 0 ? this.sent / spanSeconds : 0,
      p50_ms: pct(latencies, 0.5),
      p99_ms: pct(latencies, 0.99),
      max_ms: latencies.at(-1) ?? 0,
      lag_p99_ms: pct(lags, 0.99),
      lag_max_ms: lags.at(-1) ?? 0,
      p99_by_second_ms: this.bySecond.map((xs) => Math.round(pct(sorted(xs), 0.99) * 10) / 10),
    };
  }
}

let current: Phase | null = null;

async function openSockets(): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: venueCount },
      (_, venue) =>
        new Promise<Socket>((resolve) => {
          const socket = createSocket('udp4');
          socket.on('message', (msg) => current?.reply(venue, msg));
          socket.bind(0, '127.0.0.1', () => resolve(socket));
        }),
    ),
  );
}

/** Phase 1: every request sent with at most WINDOW outstanding; resolves when all are settled. */
function windowed(sockets: readonly Socket[], requests: readonly Request[]): Promise<PhaseResult> {
  const phase = new Phase(venueCount);
  current = phase;
  let next = 0;
  return new Promise((resolve) => {
    const sweeper = setInterval(() => phase.sweep(), 200);
    phase.onSettled = () => {
      while (next < requests.length && phase.sent - phase.settled < WINDOW)
        phase.send(sockets, requests[next++] as Request);
      if (phase.settled >= requests.length) {
        clearInterval(sweeper);
        resolve(phase.result());
      }
    };
    phase.onSettled();
  });
}

/** Phase 2: open loop, by the clock. */
function openLoop(sockets: readonly Socket[], requests: readonly Request[]): Promise<PhaseResult> {
  const phase = new Phase(venueCount);
  current = phase;
  const perTick = Math.max(1, Math.round((RATE * TICK_MS) / 1000));
  const tickNs = BigInt(Math.round(TICK_MS * 1e6));
  let next = 0;
  let tick = 0;
  return new Promise((resolve) => {
    let finished = false;
    const sweeper = setInterval(() => phase.sweep(), 100);
    const done = () => {
      if (finished || next < requests.length || phase.settled < requests.length) return;
      finished = true;
      clearInterval(sweeper);
      resolve(phase.result());
    };
    phase.onSettled = done;
    const wake = () => {
      const now = process.hrtime.bigint();
      // Every tick whose time has come: its packets go now (late ones count their lag).
      while (next < requests.length && phase.began + BigInt(tick) * tickNs <= now) {
        const due = phase.began + BigInt(tick) * tickNs;
        for (let i = 0; i < perTick && next < requests.length; i++) {
          phase.send(sockets, requests[next++] as Request);
          phase.lags.push(Number(now - due) / 1e6);
        }
        tick++;
      }
      if (next < requests.length) {
        const wait = Number(phase.began + BigInt(tick) * tickNs - process.hrtime.bigint()) / 1e6;
        setTimeout(wake, Math.max(0, wait));
      } else done();
    };
    wake();
  });
}

const sockets = await openSockets();
const startsResult = await windowed(sockets, starts);
process.stdout.write('interims begin\n'); // run.ts takes its CPU marks here
const interimsResult = await openLoop(sockets, interims);
process.stdout.write(
  `${JSON.stringify({ venues: venueCount, starts: startsResult, interims: interimsResult })}\n`,
);
for (const socket of sockets) socket.close();
