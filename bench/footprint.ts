/**
 * Footprint on a small box: how long the real daemon (`node bin/hotspot-ctl serve`, built dist/,
 * zero configuration: sandbox payments, outbox mail and SMS, SQLite) takes from spawn to its first
 * `GET /healthz` 200, and how much memory it holds once idle, next to a bare node:http server
 * answering the same /healthz, measured in the same run, rounds interleaved so the neighbours'
 * load falls on both alike.
 *
 * Each round: the bare server; a first start on a fresh data directory (creates the database,
 * applies every migration, makes the secrets and the signing key); a restart on that same
 * directory (migrations already applied: the everyday restart). Start time is wall time from
 * spawn() to the first 200, polling every 5 ms. Idle RSS is VmRSS from /proc/<pid>/status read
 * FOOTPRINT_IDLE_SECONDS (default 5) after that first 200, with no request in between; peak is
 * VmHWM at the same moment. Side figures: `hotspot-ctl --version` and `hotspot-ctl status` (on the
 * stopped restart directory), spawn to exit, next to `node -e 0`. One more restart per round runs
 * the daemon from dist/src instead of the bundle bin/hotspot-ctl loads (docs/decisions/0044): the
 * figures before the bundle, in the same rounds.
 *
 * FOOTPRINT_COLD=1 (root: it writes /proc/sys/vm/drop_caches) adds a restart after the kernel's
 * page cache was dropped, as after a reboot: node, the bundle, the addons and the database are
 * read from disk again.
 *
 *   npm run bench:footprint   (FOOTPRINT_RUNS, default 10; FOOTPRINT_IDLE_SECONDS, default 5;
 *                              FOOTPRINT_ROOT, another built checkout to measure instead;
 *                              BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the daemon)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, freePort } from './lib.js';

// This file runs from bench/ through the TypeScript loader; the daemon runs from the built dist/
// of this checkout, or of FOOTPRINT_ROOT (another checkout, built: a before/after on one box).
const ROOT = process.env.FOOTPRINT_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin/hotspot-ctl');
const RUNS = Number(process.env.FOOTPRINT_RUNS ?? 10);
const IDLE_SECONDS = Number(process.env.FOOTPRINT_IDLE_SECONDS ?? 5);
const POLL_MS = 5;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const COLD = process.env.FOOTPRINT_COLD === '1';

/** Empties the kernel's page cache (clean pages only, after a sync), as a reboot would. */
function dropPageCache(): void {
  execFileSync('sync');
  writeFileSync('/proc/sys/vm/drop_caches', '3\n');
}

/**
 * The same daemon loaded from dist/src's ~600 modules instead of the bundle bin/hotspot-ctl
 * prefers (docs/decisions/0044-bundle.md), and without its start-up V8 flag: how it started
 * before the bundle, measured in the same rounds.
 */
const UNBUNDLED = `
import(${JSON.stringify(path.join(ROOT, 'dist/src/cli/index.js'))}).then(async ({ main }) =>
  process.exit(await main(process.argv.slice(2))));
`;

/** The baseline: what any Node HTTP server costs before it does anything. */
const BARE_SERVER = `
import { createServer } from 'node:http';
const body = JSON.stringify({ success: true, data: { status: 'ok', service: 'hotspot-ctl' } });
createServer((req, res) => {
  if (req.url === '/healthz') res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  else res.writeHead(404).end();
}).listen(Number(process.env.HTTP_PORT), process.env.HTTP_HOST);
process.on('SIGTERM', () => process.exit(0));
`;

interface Sample {
  startMs: number;
  rssMb: number;
  peakMb: number;
}

function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.once('error', reject);
    probe.bind(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** One GET /healthz; resolves with its status, or 0 when nothing listens yet. */
function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS and VmHWM of `pid` in MB (MiB, as /proc counts kB). */
function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Spawns `args` with `env`, waits for the first /healthz 200, lets it idle, reads its memory, stops it. */
async function measureServer(args: string[], env: Record<string, string>): Promise<Sample> {
  const port = await freePort();
  const [auth, acct] = [await freeUdpPort(), await freeUdpPort()];
  let output = '';
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      RADIUS_HOST: '127.0.0.1',
      RADIUS_AUTH_PORT: String(auth),
      RADIUS_ACCT_PORT: String(acct),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited ${String(child.exitCode)}: ${output}`);
      if ((await healthz(port)) === 200) break;
      await sleep(POLL_MS);
    }
    const startMs = performance.now() - started;
    await sleep(IDLE_SECONDS * 1000);
    if (child.pid === undefined) throw new Error('no pid');
    return { startMs, ...memory(child.pid) };
  } finally {
    await stop(child);
  }
}

/** Wall time from spawn to exit of a short command; it must exit 0. */
function measureCommand(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${args.join(' ')} exited ${String(code)}: ${err}`));
    });
  });
}

interface Spread {
  median: number;
  min: number;
  max: number;
  p25: number;
  p75: number;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))] ?? NaN;
  const median =
    sorted.length % 2 === 1
      ? at(0.5)
      : ((sorted[sorted.length / 2 - 1] ?? NaN) + (sorted[sorted.length / 2] ?? NaN)) / 2;
  return { median, min: at(0), max: at(1), p25: at(0.25), p75: at(0.75) };
}

const cell = (s: Spread, unit: string, digits: number) =>
  `${fmt(s.median, digits)} ${unit} (${fmt(s.min, digits)}-${fmt(s.max, digits)}, IQR ${fmt(s.p25, digits)}-${fmt(s.p75, digits)})`;

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'hotspot-footprint-'));
  const bare = path.join(work, 'bare.mjs');
  writeFileSync(bare, BARE_SERVER);
  const unbundled = path.join(work, 'unbundled.cjs');
  writeFileSync(unbundled, UNBUNDLED);
  const load0 = loadavg()[0] ?? 0;
  const samples = {
    bare: [] as Sample[],
    first: [] as Sample[],
    restart: [] as Sample[],
    cold: [] as Sample[],
    unbundled: [] as Sample[],
  };
  const side = { node: [] as number[], version: [] as number[], status: [] as number[] };
  try {
    for (let round = 0; round < RUNS; round++) {
      const dataDir = path.join(work, `data-${String(round)}`);
      const daemon = [...NODE_ARGS, BIN, 'serve'];
      samples.bare.push(await measureServer([...NODE_ARGS, bare], {}));
      samples.first.push(await measureServer(daemon, { HOTSPOT_DATA_DIR: dataDir }));
      samples.restart.push(await measureServer(daemon, { HOTSPOT_DATA_DIR: dataDir }));
      if (COLD) {
        dropPageCache();
        samples.cold.push(await measureServer(daemon, { HOTSPOT_DATA_DIR: dataDir }));
      }
      samples.unbundled.push(
        await measureServer([...NODE_ARGS, unbundled, 'serve'], { HOTSPOT_DATA_DIR: dataDir }),
      );
      side.node.push(await measureCommand(['-e', '0'], {}));
      side.version.push(await measureCommand([BIN, '--version'], {}));
      side.status.push(
        await measureCommand([BIN, 'status'], {
          HOTSPOT_DATA_DIR: dataDir,
          HTTP_PORT: String(await freePort()),
        }),
      );
      rmSync(dataDir, { recursive: true, force: true });
      process.stderr.write(`round ${String(round + 1)}/${String(RUNS)} done\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const load1 = loadavg()[0] ?? 0;

  const rows: [string, Sample[]][] = [
    ['bare node:http', samples.bare],
    ['hotspot-ctl, first start', samples.first],
    ['hotspot-ctl, restart', samples.restart],
    ...(COLD
      ? [['hotspot-ctl, restart with the page cache dropped (a reboot)', samples.cold] as [string, Sample[]]]
      : []),
    ['hotspot-ctl, restart from dist/src (no bundle)', samples.unbundled],
  ];
  const bareStart = spread(samples.bare.map((s) => s.startMs)).median;
  const bareRss = spread(samples.bare.map((s) => s.rssMb)).median;
  const lines = [
    `hotspot-ctl footprint (${ROOT}): ${String(RUNS)} rounds, ${String(cpus().length)} cores, Node ${process.version}, ` +
      `load average (1 min) ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end`,
    `start = spawn to first GET /healthz 200 (polled every ${String(POLL_MS)} ms); ` +
      `idle RSS = VmRSS ${String(IDLE_SECONDS)} s after that 200, no request in between; peak = VmHWM then`,
    `median (min-max, IQR)`,
    '',
  ];
  for (const [name, list] of rows) {
    const start = spread(list.map((s) => s.startMs));
    const rss = spread(list.map((s) => s.rssMb));
    const peak = spread(list.map((s) => s.peakMb));
    lines.push(
      name,
      `  start     ${cell(start, 'ms', 0)}   ${fmt(start.median / bareStart, 2)}× bare`,
      `  idle RSS  ${cell(rss, 'MB', 1)}   ${fmt(rss.median / bareRss, 2)}× bare`,
      `  peak RSS  ${cell(peak, 'MB', 1)}`,
    );
  }
  const node = spread(side.node).median;
  lines.push(
    '',
    'side figures, spawn to exit:',
    `  node -e 0               ${cell(spread(side.node), 'ms', 0)}`,
    `  hotspot-ctl --version   ${cell(spread(side.version), 'ms', 0)}   ${fmt(spread(side.version).median / node, 2)}× node -e 0`,
    `  hotspot-ctl status      ${cell(spread(side.status), 'ms', 0)}   ${fmt(spread(side.status).median / node, 2)}× node -e 0`,
    '',
  );
  const target = (name: string, list: Sample[]) => {
    const start = spread(list.map((s) => s.startMs)).median;
    const rss = spread(list.map((s) => s.rssMb)).median;
    return `${name}: start ${start < 500 ? 'yes' : 'NO'} (${fmt(start, 0)} ms), idle RSS ${rss < 80 ? 'yes' : 'NO'} (${fmt(rss, 1)} MB)`;
  };
  lines.push(
    `targets (start < 500 ms, idle RSS < 80 MB, medians): ${target('first start', samples.first)}; ${target('restart', samples.restart)}`,
    '',
  );
  process.stdout.write(lines.join('\n'));
}

await main();
