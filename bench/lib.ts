import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A UDP port free on loopback now (asked of a child process, so it can be called synchronously). */
export const freeUdpPortSync = (): number =>
  Number(
    execFileSync(
      process.execPath,
      [
        '-e',
        "const s=require('dgram').createSocket('udp4');s.bind(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
      ],
      { encoding: 'utf8' },
    ).trim(),
  );

export interface Daemon {
  base: string;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The real daemon (bin/hotspot-ctl serve) on a temp data dir, as an operator would run it. */
export async function startDaemon(env: Record<string, string> = {}): Promise<Daemon> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hotspot-bench-'));
  const base = `http://127.0.0.1:${String(port)}`;
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the daemon.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'bin/hotspot-ctl'), 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOTSPOT_DATA_DIR: dataDir,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      PUBLIC_BASE_URL: base,
      RADIUS_AUTH_PORT: '0',
      RADIUS_ACCT_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // A bench that fails or is interrupted (startPgCluster exits on SIGINT/SIGTERM) leaves no
  // daemon and no data directory behind; after stop() this finds nothing left to do.
  process.once('exit', () => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('hotspot-ctl is running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`daemon exited ${String(code)}: ${err}`)));
  });
  return {
    base,
    dataDir,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          rmSync(dataDir, { recursive: true, force: true }); // a temp dir: nothing to keep
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a keep-alive connection. */
export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * A lean HTTP/1.1 client for the load phases: one keep-alive connection, one request at a time,
 * the request written as one string and the reply read by its Content-Length (every answer of
 * the daemon has one). Node's http client costs the load generator 300-450 µs of CPU a request
 * on these 2-core boxes, CPU the daemon under test then does not get; this one costs a fraction.
 */
export class LeanConnection {
  readonly #socket: Socket;
  #buffer = '';
  #waiting: {
    resolve: (reply: { status: number; body: string }) => void;
    reject: (err: Error) => void;
  } | null = null;

  constructor(base: string) {
    const url = new URL(base);
    this.#socket = connect(Number(url.port), url.hostname);
    this.#socket.setNoDelay(true);
    this.#socket.setEncoding('latin1'); // one char per byte: lengths compare with Content-Length
    this.#socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#parse();
    });
    this.#socket.on('error', (err) => this.#fail(err));
    this.#socket.on('close', () => this.#fail(new Error('connection closed')));
  }

  /** `head` is the request line and headers, each line ending in CRLF, without the blank line. */
  request(head: string, body = ''): Promise<{ status: number; body: string }> {
    if (this.#waiting) throw new Error('one request at a time');
    const length = body === '' ? '' : `Content-Length: ${String(Buffer.byteLength(body))}\r\n`;
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(`${head}${length}\r\n${body}`);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #parse(): void {
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0 || !this.#waiting) return;
    const head = this.#buffer.slice(0, end);
    const match = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!match) {
      this.#fail(new Error(`reply without Content-Length: ${head}`));
      return;
    }
    const size = Number(match[1]);
    if (this.#buffer.length < end + 4 + size) return;
    const body = Buffer.from(this.#buffer.slice(end + 4, end + 4 + size), 'latin1').toString('utf8');
    this.#buffer = this.#buffer.slice(end + 4 + size);
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting.resolve({ status: Number(head.slice(9, 12)), body });
  }

  #fail(err: Error): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.reject(err);
  }
}

let address = 0;
/** A different client address per request (X-Forwarded-For, trusted from loopback): the per-IP limiters stay out of the way. */
export const nextAddress = (): string => {
  address++;
  return `10.${String((address >> 16) & 255)}.${String((address >> 8) & 255)}.${String(address & 255)}`;
};

/** The latest 6-digit code spooled to `to`; the daemon writes it just after answering, so wait for it (2 s at most). */
export async function lastOutboxCode(dataDir: string, to: string): Promise<string> {
  for (let tries = 0; tries < 200; tries++) {
    const file = path.join(dataDir, 'outbox.jsonl');
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
    const mine = lines.map((l) => JSON.parse(l) as { to: string; text: string }).filter((e) => e.to === to);
    const code = /\b(\d{6})\b/.exec(mine.at(-1)?.text ?? '')?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no code for ${to}`);
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

/** Runs `worker(i)` from `concurrency` loops for `seconds`; each call is one request. */
export async function load(
  seconds: number,
  concurrency: number,
  worker: (slot: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, slot) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await worker(slot);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50ms: pick(0.5),
    p99ms: pick(0.99),
    errors,
  };
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux; USER_HZ is 100
 * there): all its threads, and its main thread alone (the event loop; the rest is mostly
 * libuv's thread pool, where RS256 signing runs). Undefined elsewhere. On a shared box, CPU per
 * request moves far less with the neighbours' load than requests per second do.
 */
export function cpuSeconds(pid: number | undefined): { all: number; main: number } | undefined {
  if (pid === undefined) return undefined;
  const read = (file: string): number => {
    const stat = readFileSync(file, 'utf8');
    // The command name may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14 and 15)
  };
  try {
    return {
      all: read(`/proc/${String(pid)}/stat`),
      main: read(`/proc/${String(pid)}/task/${String(pid)}/stat`),
    };
  } catch {
    return undefined;
  }
}

export interface PgCluster {
  /** DATABASE_URL of the cluster's database. */
  url: string;
  /** CPU seconds the server has used so far: the postmaster and its live and exited backends. */
  cpuSeconds(): number;
  /**
   * The server's resident memory now, in MB, over the postmaster and its live children: the sum
   * of their VmRSS (each counts the pages of shared_buffers it has touched, so the sum counts
   * them once per process) and of their PSS (a shared page divided among the processes mapping
   * it: the sum is what the server holds).
   */
  residentMb(): { processes: number; rss: number; pss: number };
  /** Stops the cluster and removes its directory (idempotent, synchronous: safe in `finally` and on exit). */
  stop(): void;
}

/**
 * A throwaway PostgreSQL cluster for a benchmark, started by scripts/pg-test-cluster with
 * PG_DURABLE=1: fsync, synchronous_commit and full_page_writes on (the defaults), so a commit is
 * on disk before the server acknowledges it, as in production. Stopped by `stop()`, and also when
 * this process exits or is interrupted, so a failed run leaves no server behind.
 */
export function startPgCluster(): PgCluster {
  // This file runs from bench/ (bench:radius, TypeScript loader) or dist-bench/bench/ (bench:oauth).
  const here = path.dirname(fileURLToPath(import.meta.url));
  const script = [path.resolve(here, '..'), path.resolve(here, '../..')]
    .map((root) => path.join(root, 'scripts/pg-test-cluster'))
    .find((file) => existsSync(file));
  if (!script) throw new Error('scripts/pg-test-cluster not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'hotspot-bench-pg-'));
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    // PG_LOG=file keeps the server's log (with PG_SETTINGS, e.g. log_min_duration_statement).
    try {
      if (process.env.PG_LOG) copyFileSync(path.join(dir, 'server.log'), process.env.PG_LOG);
    } catch (err) {
      process.stderr.write(`PG_LOG not written: ${String(err)}\n`);
    }
    try {
      execFileSync(script, ['stop', dir], { stdio: 'ignore' });
    } catch {
      // Best effort: the directory is a temp one.
    }
  };
  const interrupted = (): void => {
    stop();
    process.exit(130);
  };
  process.once('exit', stop);
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let url: string;
  try {
    url = execFileSync(script, ['start', dir], {
      encoding: 'utf8',
      env: { ...process.env, PG_DURABLE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch (err) {
    stop();
    throw err;
  }
  const postmaster = Number(readFileSync(path.join(dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url,
    cpuSeconds: () => {
      let total = 0;
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const pid = Number(entry);
          // ppid is field 4; utime, stime, cutime, cstime fields 14-17 (the children's once reaped).
          if (pid === postmaster) total += fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
          else if (Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) / 100;
        } catch {
          // The process ended meanwhile.
        }
      }
      return total;
    },
    residentMb: () => {
      const sum = { processes: 0, rss: 0, pss: 0 };
      /** A `Name:   123 kB` line's number (kB), of /proc/PID/status or smaps_rollup. */
      const field = (text: string, name: string): number =>
        Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const status = readFileSync(`/proc/${entry}/status`, 'utf8');
          if (Number(entry) !== postmaster && field(status, 'PPid') !== postmaster) continue;
          const pss = field(readFileSync(`/proc/${entry}/smaps_rollup`, 'utf8'), 'Pss');
          sum.processes++;
          sum.rss += field(status, 'VmRSS') / 1024;
          sum.pss += pss / 1024;
        } catch {
          // The process ended meanwhile.
        }
      }
      return sum;
    },
    stop,
  };
}
