/**
 * Token endpoint (refresh_token grants) and userinfo throughput over loopback against the real
 * daemon, on SQLite and then on PostgreSQL (a durable throwaway cluster, scripts/pg-test-cluster
 * with PG_DURABLE=1, stopped at the end), next to the raw RS256 sign and verify rates of
 * node:crypto measured in the same run, with the ratios PostgreSQL/SQLite.
 *
 *   npm run bench:oauth            (BENCH_SECONDS, BENCH_CONCURRENCY to change the load;
 *                                   BENCH_STORES=sqlite or postgres for one store only)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import {
  cpuSeconds,
  fmt,
  freePort,
  http,
  lastOutboxCode,
  LeanConnection,
  load,
  nextAddress,
  startDaemon,
  startPgCluster,
  type LoadResult,
  type PgCluster,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// Enough connections to keep the daemon busy while each group of grants waits for its fsync.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const REDIRECT = 'https://bench.example/cb';
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is 'sqlite' | 'postgres' => s === 'sqlite' || s === 'postgres');
// BENCH_PHASES=userinfo (or refresh, floor, bare) runs only those phases, e.g. to profile one.
const PHASES = (process.env.BENCH_PHASES ?? 'refresh,userinfo,floor,bare').split(',');

type Phase = LoadResult & {
  cpuUs: { all: number; main: number } | undefined;
  clientCpuUs: number;
  /** The PostgreSQL server's CPU per request (all its processes), when the daemon runs on it. */
  dbCpuUs: number | undefined;
};

const SKIPPED: Phase = {
  requests: 0,
  seconds: 0,
  perSecond: 0,
  p50ms: 0,
  p99ms: 0,
  errors: 0,
  cpuUs: undefined,
  clientCpuUs: 0,
  dbCpuUs: undefined,
};

/**
 * Runs `run` as a phase named `name` (unless BENCH_PHASES leaves it out), with the CPU time per
 * request of the server process `pid` (all its threads, and the event loop alone), of this
 * process (the load generator, which shares the cores with it) and of PostgreSQL's server.
 */
async function phase(
  name: string,
  run: () => Promise<LoadResult>,
  pid: number | undefined,
  pg: PgCluster | null = null,
): Promise<Phase> {
  if (!PHASES.includes(name)) return SKIPPED;
  const before = cpuSeconds(pid);
  const db0 = pg?.cpuSeconds();
  const client = process.cpuUsage();
  const result = await run();
  const after = cpuSeconds(pid);
  const db1 = pg?.cpuSeconds();
  const clientUsed = process.cpuUsage(client);
  const perRequest = (a: number, b: number) => ((b - a) * 1e6) / result.requests;
  const cpuUs =
    before === undefined || after === undefined || result.requests === 0
      ? undefined
      : { all: perRequest(before.all, after.all), main: perRequest(before.main, after.main) };
  const clientCpuUs = result.requests === 0 ? 0 : (clientUsed.user + clientUsed.system) / result.requests;
  const dbCpuUs =
    db0 === undefined || db1 === undefined || result.requests === 0 ? undefined : perRequest(db0, db1);
  return { ...result, cpuUs, clientCpuUs, dbCpuUs };
}

interface RawRates {
  signs: number;
  verifies: number;
  /** CPU time (user + system) of one signature and one verification, in µs. */
  signCpuUs: number;
  verifyCpuUs: number;
}

/** RS256 with node:crypto, synchronously on this process's one thread. */
function rawRates(seconds: number): RawRates {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.from(`${'x'.repeat(120)}.${'y'.repeat(240)}`);
  let sig = Buffer.alloc(0);
  const timed = (work: () => void) => {
    let n = 0;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < seconds * 1000) {
      work();
      n++;
    }
    const used = process.cpuUsage(cpu);
    return { rate: n / ((performance.now() - t0) / 1000), cpuUs: (used.user + used.system) / n };
  };
  const signing = timed(() => {
    sig = sign('sha256', data, privateKey);
  });
  const verifying = timed(() => {
    verify('sha256', data, publicKey, sig);
  });
  return {
    signs: signing.rate,
    verifies: verifying.rate,
    signCpuUs: signing.cpuUs,
    verifyCpuUs: verifying.cpuUs,
  };
}

/** A node:http server doing nothing but answer, in its own process like the daemon. */
async function bareHttp(): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const script = `require('node:http').createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 15 }); res.end('{"status":"ok"}'); }).listen(${String(port)}, '127.0.0.1', () => console.log('listening'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`bare server exited ${String(code)}`)));
  });
  return { base: `http://127.0.0.1:${String(port)}`, child };
}

const json = (body: string) => JSON.parse(body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- bench parses its own responses

interface StoreResult {
  refresh: Phase;
  userinfo: Phase;
  floor: Phase;
}

/**
 * The daemon on one store: an account, a confidential client and one refresh family per
 * connection through the HTTP API, then the refresh, floor and userinfo phases.
 */
async function measureStore(env: Record<string, string>, pg: PgCluster | null): Promise<StoreResult> {
  const daemon = await startDaemon(env);
  try {
    const base = daemon.base;
    const headers = (extra: Record<string, string> = {}) => ({
      'Content-Type': 'application/json',
      'X-Forwarded-For': nextAddress(),
      ...extra,
    });
    let cookie = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await http(`${base}${path}`, {
        method,
        headers: headers(cookie ? { Cookie: cookie } : {}),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const set = res.headers['set-cookie'];
      if (Array.isArray(set) && set[0]?.startsWith('svc_session=') && !set[0].startsWith('svc_session=;'))
        cookie = set[0].split(';')[0]!;
      return res;
    };
    await call('POST', '/auth/register', { email: 'bench@example.com', password: 'bench password 1' });
    await call('POST', '/auth/verify-email/check', {
      code: await lastOutboxCode(daemon.dataDir, 'bench@example.com'),
    });
    const project = json((await call('POST', '/console/projects', { name: 'Bench' })).body).data;
    const created = json(
      (
        await call('POST', `/console/projects/${String(project.id)}/clients`, {
          name: 'Bench',
          client_type: 'confidential',
          redirect_uris: [REDIRECT],
          allowed_scopes: ['openid', 'profile', 'email'],
        })
      ).body,
    ).data;
    const clientId = created.client.id as string;
    const secret = created.client_secret as string;

    const family = async (): Promise<{ refresh: string; access: string }> => {
      const verifier = randomBytes(32).toString('base64url');
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid profile email',
        state: 's',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      let location = (await call('GET', `/oauth/authorize?${q.toString()}`)).headers.location as string;
      if (location.startsWith('/consent')) {
        const params = Object.fromEntries(new URLSearchParams(location.slice('/consent?'.length)));
        location = json((await call('POST', '/oauth/consent', { ...params, approve: true })).body).data
          .redirect_uri as string;
      }
      const code = new URL(location).searchParams.get('code')!;
      const res = await http(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': nextAddress() },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: clientId,
          code_verifier: verifier,
          client_secret: secret,
        }).toString(),
      });
      const tokens = json(res.body);
      return { refresh: tokens.refresh_token as string, access: tokens.access_token as string };
    };
    const families = await Promise.all(Array.from({ length: CONCURRENCY }, () => family()));

    // One lean keep-alive connection per load slot (lib.ts): the load generator's CPU is CPU the
    // daemon does not get on a small box.
    const connections = Array.from({ length: CONCURRENCY }, () => new LeanConnection(base));
    const host = `Host: ${new URL(base).host}\r\n`;
    const pid = daemon.child.pid;
    const refresh = await phase(
      'refresh',
      () =>
        load(SECONDS, CONCURRENCY, async (slot) => {
          const f = families[slot]!;
          const res = await connections[slot]!.request(
            `POST /oauth/token HTTP/1.1\r\n${host}Content-Type: application/x-www-form-urlencoded\r\nX-Forwarded-For: ${nextAddress()}\r\n`,
            `grant_type=refresh_token&refresh_token=${f.refresh}&client_id=${clientId}&client_secret=${secret}`,
          );
          if (res.status !== 200) return false;
          const tokens = json(res.body);
          f.refresh = tokens.refresh_token as string;
          f.access = tokens.access_token as string;
          return true;
        }),
      pid,
      pg,
    );
    // The HTTP floor: the cheapest route through the same stack, with the same client.
    const floor = await phase(
      'floor',
      () =>
        load(
          SECONDS,
          CONCURRENCY,
          async (slot) =>
            (await connections[slot]!.request(`GET /healthz HTTP/1.1\r\n${host}`)).status === 200,
        ),
      pid,
      pg,
    );
    const userinfo = await phase(
      'userinfo',
      () =>
        load(SECONDS, CONCURRENCY, async (slot) => {
          const res = await connections[slot]!.request(
            `GET /oauth/userinfo HTTP/1.1\r\n${host}Authorization: Bearer ${families[slot]!.access}\r\n`,
          );
          return res.status === 200;
        }),
      pid,
      pg,
    );
    for (const c of connections) c.close();
    return { refresh, userinfo, floor };
  } finally {
    await daemon.stop();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  // The raw rates are measured before and after the phases and averaged: a shared box's speed
  // drifts, by a quarter or more within a minute, and the ratio should not hinge on one moment.
  const before = rawRates(2);
  const results: Partial<Record<'sqlite' | 'postgres', StoreResult>> = {};
  if (STORES.includes('sqlite')) results.sqlite = await measureStore({}, null);
  if (STORES.includes('postgres')) {
    process.stderr.write('starting a durable PostgreSQL cluster (scripts/pg-test-cluster, PG_DURABLE=1)…\n');
    const pg = startPgCluster();
    try {
      results.postgres = await measureStore({ DATABASE_URL: pg.url }, pg);
    } finally {
      pg.stop();
    }
  }
  // The ceiling of any one-process Node HTTP service on this box: a bare node:http server that
  // answers a fixed 15-byte JSON body, driven by the same client.
  const bare = PHASES.includes('bare') ? await bareHttp() : null;
  let bareLoad = SKIPPED;
  try {
    const bareConnections = bare
      ? Array.from({ length: CONCURRENCY }, () => new LeanConnection(bare.base))
      : [];
    const host = bare ? `Host: ${new URL(bare.base).host}\r\n` : '';
    bareLoad = await phase(
      'bare',
      () =>
        load(
          SECONDS,
          CONCURRENCY,
          async (slot) => (await bareConnections[slot]!.request(`GET / HTTP/1.1\r\n${host}`)).status === 200,
        ),
      bare?.child.pid,
    );
    for (const c of bareConnections) c.close();
  } finally {
    bare?.child.kill();
  }
  const after = rawRates(2);
  const mean = (pick: (r: RawRates) => number) => (pick(before) + pick(after)) / 2;
  const raw: RawRates = {
    signs: mean((r) => r.signs),
    verifies: mean((r) => r.verifies),
    signCpuUs: mean((r) => r.signCpuUs),
    verifyCpuUs: mean((r) => r.verifyCpuUs),
  };

  const pct = (part: number, whole: number) => `${fmt((100 * part) / whole, 1)}%`;
  const row = (name: string, r: Phase, baseline: number, baselineName: string, unitCpuUs: number) =>
    [
      `${name.padEnd(22)} ${fmt(r.perSecond).padStart(7)}/s`,
      `p50 ${fmt(r.p50ms, 2).padStart(6)} ms`,
      `p99 ${fmt(r.p99ms, 2).padStart(6)} ms`,
      `errors ${String(r.errors).padStart(3)}`,
      `${pct(r.perSecond, baseline).padStart(6)} of ${baselineName}`,
      r.cpuUs === undefined
        ? 'daemon CPU ?'
        : `daemon CPU ${fmt(r.cpuUs.all)} µs/request (event loop ${fmt(r.cpuUs.main)}) = ${fmt(r.cpuUs.all / unitCpuUs, 1)}× one raw ${baselineName.replace('raw ', '')}`,
      ...(r.dbCpuUs === undefined ? [] : [`PostgreSQL CPU ${fmt(r.dbCpuUs)} µs/request`]),
      `load generator CPU ${fmt(r.clientCpuUs)} µs/request`,
    ].join('   ');
  const storeRows = (label: string, r: StoreResult | undefined): string[] =>
    r
      ? [
          `${label}:`,
          row('refresh_token grants', r.refresh, raw.signs, 'raw sign', raw.signCpuUs),
          row('userinfo', r.userinfo, raw.verifies, 'raw verify', raw.verifyCpuUs),
          row('GET /healthz (floor)', r.floor, raw.verifies, 'raw verify', raw.verifyCpuUs),
          `HTTP floor ratio (rate): userinfo at ${pct(r.userinfo.perSecond, r.floor.perSecond)} of GET /healthz, refresh grants at ${pct(r.refresh.perSecond, r.floor.perSecond)}, GET /healthz at ${pct(r.floor.perSecond, bareLoad.perSecond)} of bare node:http`,
        ]
      : [];
  const ratios = (name: string, pgPhase: Phase, sqlitePhase: Phase) => {
    const x = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '—');
    const cpu = (p: Phase) => p.cpuUs?.all ?? 0;
    return `${name.padEnd(22)} rate ${x(pgPhase.perSecond, sqlitePhase.perSecond)}   p50 ${x(pgPhase.p50ms, sqlitePhase.p50ms)}   p99 ${x(pgPhase.p99ms, sqlitePhase.p99ms)}   daemon CPU/request ${x(cpu(pgPhase), cpu(sqlitePhase))}`;
  };
  const { sqlite, postgres } = results;
  process.stdout.write(
    [
      `hotspot-ctl OAuth benchmark — ${String(cpus().length)} cores, Node ${process.version}, ${String(CONCURRENCY)} connections, ${String(SECONDS)} s per phase, load average (1 min) ${fmt(loadBefore, 1)} at the start, ${fmt(loadavg()[0] ?? 0, 1)} at the end`,
      `baseline (node:crypto, one core, same run, mean of before and after the phases): RS256 sign ${fmt(raw.signs)}/s (${fmt(before.signs)} before, ${fmt(after.signs)} after; ${fmt(raw.signCpuUs)} µs CPU each), verify ${fmt(raw.verifies)}/s (${fmt(before.verifies)}, ${fmt(after.verifies)}; ${fmt(raw.verifyCpuUs, 1)} µs CPU each)`,
      ...storeRows('SQLite', sqlite),
      ...storeRows('PostgreSQL 15 (durable: fsync, synchronous_commit, full_page_writes on)', postgres),
      row('bare node:http (no work)', bareLoad, raw.verifies, 'raw verify', raw.verifyCpuUs).replace(
        'daemon',
        'server',
      ),
      ...(sqlite && postgres
        ? [
            'PostgreSQL/SQLite (rate: higher is better; latency and CPU: lower is better):',
            ratios('refresh_token grants', postgres.refresh, sqlite.refresh),
            ratios('userinfo', postgres.userinfo, sqlite.userinfo),
            ratios('GET /healthz (floor)', postgres.floor, sqlite.floor),
          ]
        : []),
      '',
    ].join('\n'),
  );
}

await main();
