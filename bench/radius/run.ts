import { execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { finalizeConfig, loadConfig } from '../../src/config/index.js';
import { ensureDataDir, loadOrCreateSecrets } from '../../src/config/secrets.js';
import { uuid } from '../../src/lib/crypto.js';
import { createLogger } from '../../src/lib/log.js';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { createPlan, issue, registerDevice } from '../../src/wifi/index.js';
import { freeUdpPortSync, startPgCluster, type PgCluster } from '../lib.js';
import { configure, cpuSeconds, logFile, loggedErrors, logSize, start, type Guest } from './freeradius.js';
import type { PhaseResult } from './venues.js';

/**
 * RADIUS benchmark: Access-Request (PAP with Message-Authenticator) and Accounting-Request
 * (Interim-Update) throughput and latency over loopback, against our daemon with GRANTS grants in
 * SQLite, then on PostgreSQL (a durable throwaway cluster, scripts/pg-test-cluster with
 * PG_DURABLE=1, stopped at the end), and, in the same run, against FreeRADIUS 3 with the same
 * guests in a users file. Two loads for each: radclient (-c/-p, the usual FreeRADIUS load tool)
 * for throughput, and load.ts (a window of outstanding requests) for p50/p99 latency. Prints all
 * three, the ratios ours/FreeRADIUS (SQLite) and PostgreSQL/SQLite; then the same loads against
 * each store's daemon with RADIUS worker processes (RADIUS_WORKERS=WORKERS, a second run with a
 * fresh store), its CPU being the daemon's and its workers', with the ratios to FreeRADIUS and to
 * the one-process run. Then, on each store (one process), the
 * "500 venues" accounting load (venues.ts): VENUES routers, SESSIONS sessions opened by
 * Accounting Start, then Interim-Updates sent open loop at VENUE_RATE a second for VENUE_SECONDS,
 * with p50/p99/max latency and losses against the 50 ms p99 target.
 *
 *   npm run bench:radius            (GRANTS=20000 REQUESTS=20000 WINDOW=64 VENUES=500
 *                                    SESSIONS=10000 VENUE_RATE=2000 VENUE_SECONDS=20 by default)
 *   STORES=sqlite npm run bench:radius
 *                                   one store only (sqlite, postgres; both by default)
 *   WORKERS=2 npm run bench:radius  the second run of each store with RADIUS_WORKERS=2 (auto by
 *                                   default: one worker per core; WORKERS=1 leaves it out)
 *   ONLY_OURS=1 [PROFILE=/tmp/pap.cpuprofile] npm run bench:radius
 *                                   the window loads and the venues load against our server only
 *                                   (each store of STORES), with its CPU per request (and a CPU
 *                                   profile of the PAP load per store, for DevTools)
 *
 * Both modes end with three floors: under the same PAP window load, a bare Node UDP echo (what the
 * datagram path costs) and a Node process doing only the protocol's mandatory hashing (see FLOORS);
 * under the Interim-Update window load, a Node process that commits each packet's counters to
 * SQLite before answering and does nothing else (sqlite-floor.ts).
 */

const GRANTS = Number(process.env.GRANTS ?? 20_000);
const REQUESTS = Number(process.env.REQUESTS ?? 20_000);
const WINDOW = Number(process.env.WINDOW ?? 64);
const SAMPLE = 1000; // distinct guests in the request files
const SECRET = 'bench-secret-0123456789';
const NAS_ID = 'venue-01';
/** The venues load: routers, sessions spread over them, Interim-Updates a second, for how long. */
const VENUES = Number(process.env.VENUES ?? 500);
const SESSIONS = Number(process.env.SESSIONS ?? 10_000);
const VENUE_RATE = Number(process.env.VENUE_RATE ?? 2000);
const VENUE_SECONDS = Number(process.env.VENUE_SECONDS ?? 20);
const VENUE_TICK_MS = Number(process.env.VENUE_TICK_MS ?? 10);
/** The latency target of the venues load: p99 under this. */
const TARGET_P99_MS = 50;
const STORES = (process.env.STORES ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === 'sqlite' || s === 'postgres');
type StoreKind = 'sqlite' | 'postgres';
const STORE_LABEL: Record<StoreKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const venueNasId = (v: number) => `bench-venue-${String(v).padStart(4, '0')}`;
const venueSecret = (v: number) => `venue-secret-${String(v).padStart(4, '0')}-0123456789`;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

const freePort = freeUdpPortSync;
/**
 * RADIUS_WORKERS of the second run of each store (src/radius/workers.ts), beside the one-process
 * run: `auto` by default (one worker per core); `1` or `off` leaves the workers run out.
 */
const WORKERS = (process.env.WORKERS ?? 'auto').trim();
const WITH_WORKERS = WORKERS !== '1' && WORKERS !== 'off' && WORKERS !== '';

async function ourServer(dir: string, kind: StoreKind, databaseUrl: string | null, workers: string) {
  const env = {
    HOTSPOT_DATA_DIR: path.join(dir, `data-${kind}-${workers}`),
    RADIUS_WORKERS: workers,
    ...(databaseUrl !== null && { DATABASE_URL: databaseUrl }),
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    RADIUS_HOST: '127.0.0.1',
    RADIUS_AUTH_PORT: String(freePort()),
    RADIUS_ACCT_PORT: String(freePort()),
    LOG_LEVEL: 'warn',
  };
  const loaded = loadConfig({ env, defaultConfigFile: '/nonexistent' });
  ensureDataDir(loaded.dataDir);
  const config = finalizeConfig(loaded, loadOrCreateSecrets(loaded.dataDir));
  const app = await buildApp(config, { log: createLogger('warn') });
  await registerDevice(app.deps, {
    name: 'bench',
    model: 'CoovaChilli on OpenWrt',
    mac_address: 'aa:bb:cc:dd:ee:01',
    local_network: '10.1.0.0/16',
    uam_server: 'http://10.1.0.10/portal',
    radius_nas_id: NAS_ID,
    radius_client_ip: '127.0.0.1',
    radius_secret: SECRET,
  });
  const plan = await createPlan(app.deps, {
    name: 'bench',
    price_tzs: 1000,
    duration_seconds: 86_400,
    data_limit_bytes: 1_000_000_000,
  });
  // The venues load's routers, each with its own NAS-Identifier, MAC and secret.
  for (let v = 0; v < VENUES; v++)
    await registerDevice(app.deps, {
      name: `venue ${String(v)}`,
      model: 'CoovaChilli on OpenWrt',
      mac_address: `aa:bb:cc:d0:${((v >> 8) & 255).toString(16).padStart(2, '0')}:${(v & 255).toString(16).padStart(2, '0')}`,
      local_network: '10.1.0.0/16',
      uam_server: 'http://10.1.0.10/portal',
      radius_nas_id: venueNasId(v),
      radius_client_ip: '127.0.0.1',
      radius_secret: venueSecret(v),
    });
  const guests: Guest[] = [];
  /** Every grant's username (the venues load's sessions use those past the SAMPLE guests). */
  const usernames: string[] = [];
  const now = app.deps.clock.now();
  await app.deps.db.transaction().execute(async (tx) => {
    for (let i = 0; i < GRANTS; i++) {
      const invoice = {
        id: uuid(),
        number: `BN-${String(i).padStart(6, '0')}-BENCH000`,
        sequence: i + 1,
        plan_id: plan.id,
        phone: '+255712345678',
        amount_tzs: 1000,
        duration_seconds: 86_400,
        data_limit_bytes: 1_000_000_000,
        max_devices: 1,
        download_kbps: null,
        upload_kbps: null,
        status: 'paid',
        purchase_key_hash: uuid(),
        provider: 'sandbox',
        provider_reference: null,
        failure_reason: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        paid_at: now.toISOString(),
        site_id: plan.site_id,
        channel: 'mobile_money',
        sold_by: null,
      };
      await tx.insertInto('invoices').values(invoice).execute();
      const { grant, password } = await issue(tx, app.deps, { invoice, paidAt: now });
      if (guests.length < SAMPLE) guests.push({ username: grant.username, password });
      usernames.push(grant.username);
    }
  });
  const { radius } = await app.start();
  return { kind, app, guests, usernames, auth: radius.auth?.port ?? 0, acct: radius.acct?.port ?? 0 };
}

/** CPU seconds of our server: this process, plus its RADIUS workers when it has some. */
const serverCpu = (server: OurServer) => () =>
  usage() + (server.app.radius.workers()?.pids ?? []).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
type OurServer = Awaited<ReturnType<typeof ourServer>>;

/** REQUESTS pre-encoded packets, one hex line each, for load.ts. */
function packetFile(dir: string, name: string, make: (i: number) => Buffer): string {
  const file = path.join(dir, `${name}.hex`);
  const lines: string[] = [];
  for (let i = 0; i < REQUESTS; i++) lines.push(make(i).toString('hex'));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const papPacket = (guests: readonly Guest[]) => (i: number) => {
  const g = guests[i % guests.length] as Guest;
  return encodeRequest(
    CODE.accessRequest,
    i % 256,
    [
      ['User-Name', g.username],
      ['User-Password', g.password],
      ['NAS-Identifier', NAS_ID],
      ['Calling-Station-Id', `02-00-00-00-${(i % 250).toString(16).padStart(2, '0')}-01`],
    ],
    SECRET,
  );
};

const interimPacket = (guests: readonly Guest[]) => (i: number) => {
  const g = guests[i % guests.length] as Guest;
  return encodeRequest(
    CODE.accountingRequest,
    i % 256,
    [
      ['User-Name', g.username],
      ['NAS-Identifier', NAS_ID],
      ['Acct-Status-Type', 'Interim-Update'],
      ['Acct-Session-Id', `bench-${String(i % guests.length)}`],
      ['Acct-Session-Time', Math.floor(i / guests.length) * 300],
      ['Acct-Input-Octets', i * 1000],
      ['Acct-Output-Octets', i * 5000],
    ],
    SECRET,
  );
};

/** Attribute text for radclient -f: one request per blank-line-separated block. */
function radclientFile(dir: string, name: string, guests: readonly Guest[], kind: 'auth' | 'acct'): string {
  const file = path.join(dir, `${name}.txt`);
  const blocks = guests.map((g, i) =>
    kind === 'auth'
      ? `User-Name = "${g.username}"\nUser-Password = "${g.password}"\nNAS-Identifier = "${NAS_ID}"\nMessage-Authenticator = 0x00\n`
      : `User-Name = "${g.username}"\nNAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Interim-Update\nAcct-Session-Id = "rc-${String(i)}"\nAcct-Session-Time = 300\nAcct-Input-Octets = 1000\n`,
  );
  writeFileSync(file, blocks.join('\n'));
  return file;
}

interface LoadResult {
  sent: number;
  received: number;
  /** Replies whose code was not the success answer (Access-Accept / Accounting-Response). */
  unexpected: number;
  /** Reply codes seen, by code. */
  codes: Record<string, number>;
  rate: number;
  p50_ms: number;
  p99_ms: number;
  lost: number;
}

/** Stops the run: figures of a load that was not answered with success measure something else. */
function fail(what: string, detail: string): never {
  throw new Error(`bench/radius: ${what}: ${detail}; the figures would not measure what they claim`);
}

function runLoad(file: string, port: number, what: string): Promise<LoadResult> {
  const loader = path.join(root, 'node_modules/@tapjs/typescript/dist/esm/import.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      '--import',
      loader,
      path.join(here, 'load.ts'),
      file,
      String(port),
      String(WINDOW),
    ]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => process.stderr.write(c));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        if (code !== 0) fail(what, `load.ts exited ${String(code)}`);
        const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Partial<LoadResult>;
        if (typeof result.unexpected !== 'number' || typeof result.received !== 'number')
          fail(what, `load.ts printed no result: ${out.trim()}`);
        const r = result as LoadResult;
        if (r.unexpected > 0)
          fail(
            what,
            `${String(r.unexpected)} of ${String(r.received)} replies were not the success answer (reply codes ${JSON.stringify(r.codes)})`,
          );
        if (r.received === 0) fail(what, 'no reply at all');
        resolve(r);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/**
 * radclient -c N -p WINDOW over the file; requests per second and how many were lost. Spawned
 * asynchronously: our server runs in this process and must keep answering meanwhile. `-s` prints
 * radclient's summary (Accepted counts Access-Accept and Accounting-Response alike); anything
 * rejected, or a summary that does not add up to the requests sent, fails the run.
 */
function runRadclient(file: string, port: number, kind: 'auth' | 'acct', count: number, what: string) {
  const args = ['-q', '-s', '-f', file, '-c', String(count), '-p', String(WINDOW), '-t', '5', '-r', '2'];
  const total = SAMPLE * count;
  return new Promise<{ rate: number; lost: number }>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('radclient', [...args, `127.0.0.1:${String(port)}`, kind, SECRET]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const field = (name: string): number => {
          const m = new RegExp(`^\\s*${name}\\s*:\\s*(\\d+)\\s*$`, 'm').exec(out);
          if (!m?.[1]) fail(what, `radclient printed no "${name}" summary: ${out.trim()}`);
          return Number(m[1]);
        };
        const [accepted, rejected, lost] = [field('Accepted'), field('Rejected'), field('Lost')];
        const expected = kind === 'auth' ? 'Access-Accept' : 'Accounting-Response';
        if (rejected > 0)
          fail(what, `radclient: ${String(rejected)} of ${String(total)} replies were not ${expected}`);
        if (accepted + lost !== total)
          fail(
            what,
            `radclient: ${String(accepted)} accepted + ${String(lost)} lost of ${String(total)} sent`,
          );
        if (accepted === 0) fail(what, 'radclient: no reply at all');
        resolve({ rate: (SAMPLE * count) / seconds, lost });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/**
 * Two ceilings of any Node RADIUS server on this box, each a Node process driven by the same
 * window load, whose rate and CPU per request show what that much work alone costs:
 * - `echo` turns each datagram around as an Access-Accept (no decoding, hashing or database);
 * - `crypto` does only what RFC 2865 and BlastRADIUS make every server do: verify the request's
 *   Message-Authenticator (HMAC-MD5 over the packet), reveal the User-Password's first block
 *   (MD5), and sign an Access-Accept with a Message-Authenticator and the Response
 *   Authenticator, all through node:crypto (no attribute decoding, policy or database).
 */
const FLOORS = {
  echo: `s.on('message',(m,r)=>{const o=Buffer.from(m);o[0]=2;s.send(o,r.port,r.address)})`,
  crypto: `const {createHmac,hash,timingSafeEqual}=require('node:crypto');const k=process.argv[1];
s.on('message',(m,r)=>{let ma=-1;for(let at=20;at+2<=m.length&&m[at+1]>=2;at+=m[at+1])if(m[at]===80)ma=at+2;if(ma<0)return;
const c=Buffer.from(m);c.fill(0,ma,ma+16);if(!timingSafeEqual(createHmac('md5',k).update(c).digest(),m.subarray(ma,ma+16)))return;
hash('md5',Buffer.concat([Buffer.from(k),m.subarray(4,20)]),'buffer');
const o=Buffer.alloc(38);o[0]=2;o[1]=m[1];o.writeUInt16BE(38,2);m.copy(o,4,4,20);o[20]=80;o[21]=18;
createHmac('md5',k).update(o).digest().copy(o,22);hash('md5',Buffer.concat([o,Buffer.from(k)]),'buffer').copy(o,4);s.send(o,r.port,r.address)})`,
} as const;

async function nodeFloor(
  kind: keyof typeof FLOOR_LABELS,
  file: string,
  dir: string,
): Promise<{ rate: number; cpuUs: number }> {
  const port = freePort();
  const loader = path.join(root, 'node_modules/@tapjs/typescript/dist/esm/import.mjs');
  const args =
    kind === 'sqlite'
      ? [
          '--import',
          loader,
          path.join(here, 'sqlite-floor.ts'),
          String(port),
          SECRET,
          mkdtempSync(path.join(dir, 'floor-')),
        ]
      : [
          '-e',
          `const s=require('node:dgram').createSocket('udp4');${FLOORS[kind]};s.bind(${String(port)},'127.0.0.1',()=>console.log('ready'))`,
          SECRET,
        ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`Node ${kind} floor exited ${String(code)}`)));
    });
    const pid = child.pid ?? 0;
    const c0 = cpuSeconds(pid);
    const result = await runLoad(file, port, `Node ${kind} floor`);
    return { rate: result.rate, cpuUs: ((cpuSeconds(pid) - c0) / result.received) * 1e6 };
  } finally {
    child.kill();
  }
}

const FLOOR_LABELS = {
  echo: ['bare Node UDP echo, window', 'the datagram path alone'],
  crypto: [
    'Node, RFC crypto only',
    'verify M-A, reveal password, sign reply: the least any Node server here does',
  ],
  sqlite: [
    'Node + SQLite, Interim only',
    'check the authenticator, upsert the counters, group commit synced, answer (sqlite-floor.ts): the least a Node server committing each Interim-Update to SQLite does',
  ],
} as const;
/** Which load each floor is driven by: the PAP window load, or the Interim-Update one. */
const FLOOR_LOAD = { echo: 'auth', crypto: 'auth', sqlite: 'acct' } as const;

/**
 * The venues load's packets (venues.ts), one `VENUE_INDEX HEX` line each: an Accounting Start for
 * each of SESSIONS sessions (session s at router s mod VENUES, for the grant of a guest past the
 * SAMPLE ones), then VENUE_RATE × VENUE_SECONDS Interim-Updates going round the sessions with
 * growing counters. Identifiers count per router, as each router numbers its own requests.
 */
function venueFiles(dir: string, server: OurServer): { starts: string; interims: string } {
  const ids = new Array<number>(VENUES).fill(0);
  const spare = server.usernames.slice(SAMPLE);
  if (spare.length === 0)
    throw new Error(`bench/radius: GRANTS must exceed ${String(SAMPLE)} for the venues load`);
  const packet = (s: number, status: 'Start' | 'Interim-Update', round: number): string => {
    const venue = s % VENUES;
    const id = (ids[venue] ?? 0) % 256;
    ids[venue] = id + 1;
    const hex = encodeRequest(
      CODE.accountingRequest,
      id,
      [
        ['User-Name', spare[s % spare.length] as string],
        ['NAS-Identifier', venueNasId(venue)],
        ['Acct-Status-Type', status],
        ['Acct-Session-Id', `v${String(venue)}-s${String(s)}`],
        ['Framed-IP-Address', `10.1.${String((s >> 8) & 255)}.${String(s & 255)}`],
        [
          'Calling-Station-Id',
          `02-00-${((s >> 16) & 255).toString(16).padStart(2, '0')}-${((s >> 8) & 255).toString(16).padStart(2, '0')}-${(s & 255).toString(16).padStart(2, '0')}-02`,
        ],
        ['Acct-Session-Time', round * 300],
        ['Acct-Input-Octets', round * 100_000],
        ['Acct-Output-Octets', round * 500_000],
      ],
      venueSecret(venue),
    ).toString('hex');
    return `${String(venue)} ${hex}`;
  };
  const starts: string[] = [];
  for (let s = 0; s < SESSIONS; s++) starts.push(packet(s, 'Start', 0));
  const interims: string[] = [];
  const total = Math.round(VENUE_RATE * VENUE_SECONDS);
  for (let k = 0; k < total; k++)
    interims.push(packet(k % SESSIONS, 'Interim-Update', 1 + Math.floor(k / SESSIONS)));
  const write = (name: string, lines: string[]) => {
    const file = path.join(dir, `${server.kind}-${name}.txt`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  return { starts: write('venue-starts', starts), interims: write('venue-interims', interims) };
}

/** One phase of the venues load, as venues.ts prints it. */
type VenuePhase = PhaseResult;

/** What the database did during the Interim-Update phase (PostgreSQL: its own statistics). */
interface DbActivity {
  commits: number;
  /** Rows of radius_sessions updated: one per Interim-Update committed. */
  updates: number;
  walSyncs: number;
  walSyncMs: number;
  walWrites: number;
}

interface VenueResult {
  starts: VenuePhase;
  interims: VenuePhase;
  /** Our server's CPU (this process) and the database server's, µs per Interim-Update. */
  serverCpuUs: number;
  dbCpuUs: number | null;
  db: DbActivity | null;
  /** How long after the load's end the server took to answer a last request (its backlog). */
  backlogSeconds?: number;
}

/**
 * Waits for the server to work off what the venues load left queued (requests given up as lost
 * are still in its accounting queue): one more Interim-Update, answered once everything queued
 * before it is committed (the queue is first in, first out). Seconds waited (at most 300).
 */
async function drained(server: OurServer): Promise<number> {
  const socket = createSocket('udp4');
  const started = performance.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('bench/radius: the server did not drain in 300 s')),
        300_000,
      );
      socket.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      const packet = encodeRequest(
        CODE.accountingRequest,
        0,
        [
          ['User-Name', server.usernames[0] ?? ''],
          ['NAS-Identifier', venueNasId(0)],
          ['Acct-Status-Type', 'Interim-Update'],
          ['Acct-Session-Id', 'drain'],
          ['Acct-Session-Time', 1],
        ],
        venueSecret(0),
      );
      socket.send(packet, server.acct, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
  return (performance.now() - started) / 1000;
}

/** PostgreSQL's cumulative commit and WAL counters (track_wal_io_timing is turned on at start). */
async function pgActivity(server: OurServer): Promise<DbActivity> {
  const { rows } = await sql<{
    commits: number;
    updates: number;
    wal_sync: number;
    wal_sync_time: number;
    wal_write: number;
  }>`
    select (select xact_commit from pg_stat_database where datname = current_database()) as commits,
           (select n_tup_upd from pg_stat_user_tables where relname = 'radius_sessions') as updates,
           wal_sync, wal_sync_time, wal_write from pg_stat_wal`.execute(server.app.deps.db);
  const r = rows[0];
  return {
    commits: Number(r?.commits),
    updates: Number(r?.updates),
    walSyncs: Number(r?.wal_sync),
    walSyncMs: Number(r?.wal_sync_time),
    walWrites: Number(r?.wal_write),
  };
}

/** venues.ts against `server`, with CPU per Interim-Update and, on PostgreSQL, commit statistics. */
function runVenues(dir: string, server: OurServer, pg: PgCluster | null, what: string): Promise<VenueResult> {
  const files = venueFiles(dir, server);
  const loader = path.join(root, 'node_modules/@tapjs/typescript/dist/esm/import.mjs');
  const args = [
    files.starts,
    files.interims,
    String(server.acct),
    String(VENUE_RATE),
    String(VENUE_TICK_MS),
    String(WINDOW),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, path.join(here, 'venues.ts'), ...args]);
    // The sender keeps its schedule even when the server and the database take both cores
    // (a raised priority needs root; without it the sender's lag is reported all the same).
    try {
      setPriority(child.pid ?? 0, -10);
    } catch {
      // Not permitted: run at normal priority.
    }
    let out = '';
    let marks: { cpu: number; db: number | null; activity: Promise<DbActivity | null> } | null = null;
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      // venues.ts says when the Starts are all answered and the Interim-Updates begin.
      if (!marks && out.includes('interims begin\n'))
        marks = {
          cpu: cpu(),
          db: pg?.cpuSeconds() ?? null,
          activity: pg ? pgActivity(server) : Promise.resolve(null),
        };
    });
    child.stderr.on('data', (c: Buffer) => process.stderr.write(c));
    child.on('error', reject);
    child.on('close', (code) => {
      void (async () => {
        const cpuEnd = cpu();
        const dbEnd = pg?.cpuSeconds() ?? null;
        const activityEnd = pg ? await pgActivity(server) : null;
        if (code !== 0) fail(what, `venues.ts exited ${String(code)}`);
        const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Partial<VenueResult>;
        if (!result.starts || !result.interims) fail(what, `venues.ts printed no result: ${out.trim()}`);
        const { starts, interims } = result;
        if (starts.unexpected > 0 || starts.lost > 0)
          fail(
            what,
            `Accounting Start: ${String(starts.unexpected)} unexpected replies (codes ${JSON.stringify(starts.codes)}), ${String(starts.lost)} lost`,
          );
        if (interims.unexpected > 0)
          fail(
            what,
            `${String(interims.unexpected)} of ${String(interims.received)} Interim-Update replies were not Accounting-Response`,
          );
        if (interims.received === 0) fail(what, 'no reply at all');
        if (!marks) fail(what, 'venues.ts never began the Interim-Updates');
        const activityStart = await marks.activity;
        const per = (a: number, b: number) => ((b - a) / interims.sent) * 1e6;
        resolve({
          starts,
          interims,
          serverCpuUs: per(marks.cpu, cpuEnd),
          dbCpuUs: marks.db === null || dbEnd === null ? null : per(marks.db, dbEnd),
          db:
            activityStart && activityEnd
              ? {
                  commits: activityEnd.commits - activityStart.commits,
                  updates: activityEnd.updates - activityStart.updates,
                  walSyncs: activityEnd.walSyncs - activityStart.walSyncs,
                  walSyncMs: activityEnd.walSyncMs - activityStart.walSyncMs,
                  walWrites: activityEnd.walWrites - activityStart.walWrites,
                }
              : null,
        });
      })().catch((err: unknown) => reject(err instanceof Error ? err : new Error(String(err))));
    });
  });
}

/** One of our stores under the same loads: its server, packet files and the figures measured. */
interface StoreRun {
  kind: StoreKind;
  server: OurServer;
  files: { auth: string; acct: string; rcAuth: string; rcAcct: string };
}

interface Measured {
  pap: LoadResult;
  interim: LoadResult;
  rcPap: { rate: number; lost: number };
  rcInterim: { rate: number; lost: number };
  papCpuUs: number;
  interimCpuUs: number;
  /** The database server's CPU per request (PostgreSQL), null for SQLite (in our process). */
  papDbCpuUs: number | null;
  interimDbCpuUs: number | null;
}

const usage = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

interface Row {
  label: string;
  of: (m: Measured) => number | null;
  sqlite: number | null;
  freeradius: number | null;
  postgres: number | null;
  unit: string;
  higherIsBetter: boolean;
}

const fmt = (n: number) =>
  n >= 100 || Number.isInteger(n) ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);
const cell = (n: number | null | undefined, unit: string, width = 14) =>
  (n === null || n === undefined ? '—' : `${fmt(n)} ${unit}`).padStart(width);
const ratio = (a: number | null | undefined, b: number | null | undefined, lower: boolean) =>
  a === null || a === undefined || b === null || b === undefined || b === 0
    ? '—'
    : `${(a / b).toFixed(2)}${lower ? ' (lower is better)' : ''}`;

/**
 * Every authorization load runs before any accounting load: Interim-Updates open a session
 * (without a MAC) for each sample guest, whose grant allows one device, so a login after them is
 * refused "too many devices" and would measure Access-Rejects. The venues load runs last.
 */
async function measure(
  name: string,
  files: StoreRun['files'],
  port: { auth: number; acct: number },
  cpu: () => number,
  dbCpu: (() => number) | null,
): Promise<Measured> {
  const count = Math.max(1, Math.round(REQUESTS / SAMPLE));
  const c0 = cpu();
  const d0 = dbCpu?.() ?? 0;
  const pap = await runLoad(files.auth, port.auth, `${name}, PAP window`);
  const c1 = cpu();
  const d1 = dbCpu?.() ?? 0;
  const rcPap = await runRadclient(files.rcAuth, port.auth, 'auth', count, `${name}, PAP radclient`);
  const c2 = cpu();
  const d2 = dbCpu?.() ?? 0;
  const interim = await runLoad(files.acct, port.acct, `${name}, Interim-Update window`);
  const c3 = cpu();
  const d3 = dbCpu?.() ?? 0;
  const rcInterim = await runRadclient(
    files.rcAcct,
    port.acct,
    'acct',
    count,
    `${name}, Interim-Update radclient`,
  );
  const per = (a: number, b: number) => ((b - a) / REQUESTS) * 1e6;
  return {
    pap,
    interim,
    rcPap,
    rcInterim,
    papCpuUs: per(c0, c1),
    interimCpuUs: per(c2, c3),
    papDbCpuUs: dbCpu ? per(d0, d1) : null,
    interimDbCpuUs: dbCpu ? per(d2, d3) : null,
  };
}

/** What a store's run (a child process) leaves in the shared directory for the parent. */
interface StoreReport {
  kind: StoreKind;
  /** RADIUS_WORKERS of the run, and how many processes answered RADIUS. */
  workers: string;
  processes: number;
  guests: Guest[];
  files: StoreRun['files'];
  measured: Measured | null;
  /** The venues load runs in the one-process run only. */
  venues: VenueResult | null;
}

const reportFile = (dir: string, kind: StoreKind, workers: string) =>
  path.join(dir, `${kind}-${workers}.json`);

/**
 * One store's run, in a process of its own (RADIUS_BENCH_STORE): `prepared` queries fix their
 * SQL for the first dialect a process uses (src/db/prepared.ts), so SQLite and PostgreSQL cannot
 * share one. Our server runs in this process (its CPU is this process's), PostgreSQL in a
 * durable throwaway cluster stopped before this process ends, even on failure.
 */
async function storeRun(kind: StoreKind, dir: string, workers: string): Promise<void> {
  let pg: PgCluster | null = null;
  let server: OurServer | null = null;
  try {
    let url: string | null = null;
    if (kind === 'postgres') {
      process.stderr.write(
        'starting a durable PostgreSQL cluster (scripts/pg-test-cluster, PG_DURABLE=1)…\n',
      );
      pg = startPgCluster();
      url = pg.url;
    }
    process.stderr.write(
      `seeding ${String(GRANTS)} grants and ${String(VENUES)} venues in ${STORE_LABEL[kind]}…\n`,
    );
    server = await ourServer(dir, kind, url, workers);
    const processes = server.app.radius.workers()?.count ?? 1;
    if (processes > 1) process.stderr.write(`${STORE_LABEL[kind]}: ${String(processes)} RADIUS workers\n`);
    const db = server.app.deps.db;
    if (pg)
      await sql`alter system set track_wal_io_timing = on`
        .execute(db)
        .then(() => sql`select pg_reload_conf()`.execute(db));
    const files = {
      auth: packetFile(dir, `${kind}-${workers}-pap`, papPacket(server.guests)),
      acct: packetFile(dir, `${kind}-${workers}-interim`, interimPacket(server.guests)),
      rcAuth: radclientFile(dir, `${kind}-${workers}-rc-auth`, server.guests, 'auth'),
      rcAcct: radclientFile(dir, `${kind}-${workers}-rc-acct`, server.guests, 'acct'),
    };
    const run: StoreRun = { kind, server, files };
    const label = processes > 1 ? `${STORE_LABEL[kind]} × ${String(processes)} workers` : STORE_LABEL[kind];
    const cpu = serverCpu(server);
    await runLoad(files.auth, server.auth, `${label}, PAP warm-up`); // JIT, caches
    const cluster: PgCluster | null = pg;
    const dbCpu = cluster ? () => cluster.cpuSeconds() : null;
    let measured: Measured | null = null;
    if (process.env.ONLY_OURS) {
      // Tuning aid: the PAP and Interim-Update window loads against our server only, with its CPU
      // per request; PROFILE=file also writes a CPU profile of the PAP load, or of
      // PROFILE_LOAD=Interim-Update, per store (the store's name goes before the extension; for
      // Chrome DevTools; profiling inflates the CPU figure).
      const { Session } = await import('node:inspector/promises');
      const session = new Session();
      const profile = process.env.PROFILE;
      const profiled = process.env.PROFILE_LOAD ?? 'PAP';
      if (profile) {
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 50 });
      }
      for (const [name, file, port] of [
        ['PAP', files.auth, server.auth],
        ['Interim-Update', files.acct, server.acct],
      ] as const) {
        if (profile && name === profiled) await session.post('Profiler.start');
        const c0 = cpu();
        const own0 = usage();
        const d0 = dbCpu?.() ?? 0;
        const result = await runLoad(file, port, `${label}, ${name}`);
        const perRequest = (a: number, b: number) => Math.round(((b - a) / result.received) * 1e6);
        const cpus = {
          server_cpu_us_per_request: perRequest(c0, cpu()),
          // With workers: the daemon's part of it (the rest is the workers').
          ...(processes > 1 && { daemon_cpu_us_per_request: perRequest(own0, usage()) }),
          ...(dbCpu && { postgres_cpu_us_per_request: perRequest(d0, dbCpu()) }),
        };
        process.stdout.write(`${label} ${name}: ${JSON.stringify({ ...result, ...cpus })}\n`);
        if (profile && name === profiled) {
          const { profile: taken } = await session.post('Profiler.stop');
          writeFileSync(profile.replace(/(\.[^./]*)?$/, `.${kind}$1`), JSON.stringify(taken));
        }
      }
    } else measured = await measure(label, files, server, cpu, dbCpu);
    let venues: VenueResult | null = null;
    if (processes === 1) {
      venues = await runVenues(dir, run.server, pg, `${label}, ${String(VENUES)} venues`);
      venues.backlogSeconds = await drained(run.server);
      if (process.env.ONLY_OURS)
        process.stdout.write(`${label} ${String(VENUES)} venues: ${JSON.stringify(venues)}\n`);
    }
    const report: StoreReport = { kind, workers, processes, guests: server.guests, files, measured, venues };
    writeFileSync(reportFile(dir, kind, workers), JSON.stringify(report));
  } finally {
    await server?.app.close();
    pg?.stop();
  }
}

/** Runs one store's part in a child process (this file again), its output passed through. */
function storeProcess(kind: StoreKind, dir: string, workers = '1'): Promise<StoreReport> {
  const loader = path.join(root, 'node_modules/@tapjs/typescript/dist/esm/import.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', loader, fileURLToPath(import.meta.url)], {
      env: { ...process.env, RADIUS_BENCH_STORE: kind, RADIUS_BENCH_DIR: dir, RADIUS_BENCH_WORKERS: workers },
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`bench/radius: the ${STORE_LABEL[kind]} run exited ${String(code)}`));
        return;
      }
      resolve(JSON.parse(readFileSync(reportFile(dir, kind, workers), 'utf8')) as StoreReport);
    });
  });
}

/** The box's 1-minute load average: on a shared box, what else ran during the figures. */
const load1 = () => loadavg()[0]?.toFixed(1) ?? '?';

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'radius-bench-'));
  const loadBefore = load1();
  try {
    const reports: Partial<Record<StoreKind, StoreReport>> = {};
    const withWorkers: Partial<Record<StoreKind, StoreReport>> = {};
    for (const kind of STORES) {
      reports[kind] = await storeProcess(kind, dir);
      if (WITH_WORKERS) withWorkers[kind] = await storeProcess(kind, dir, WORKERS);
    }
    const base = reports.sqlite ?? reports.postgres;
    if (!base) throw new Error('bench/radius: STORES names no store (sqlite, postgres)');

    if (process.env.ONLY_OURS) {
      for (const kind of ['echo', 'crypto', 'sqlite'] as const)
        process.stdout.write(
          `${FLOOR_LABELS[kind][0]}: ${JSON.stringify(await nodeFloor(kind, base.files[FLOOR_LOAD[kind]], dir))}\n`,
        );
      return;
    }

    // FreeRADIUS gets SQLite's guests and packet files (its users file and our grants agree).
    const fr = { auth: freePort(), acct: freePort() };
    const raddb = configure(path.join(dir, 'fr'), base.guests, SECRET, fr);
    const freeradius = start(raddb, fr);
    let b: Measured;
    try {
      await runLoad(base.files.auth, fr.auth, 'FreeRADIUS, PAP warm-up'); // and proof that it answers
      b = await measure('FreeRADIUS', base.files, fr, () => cpuSeconds(freeradius.pid), null);
    } finally {
      freeradius.stop();
    }
    const stored = process.env.FR_SQL === '0' ? null : await storingFreeRadius(base, dir);
    const a = reports.sqlite?.measured ?? undefined;
    const p = reports.postgres?.measured ?? undefined;

    const row = (
      label: string,
      f: (m: Measured) => number | null,
      unit: string,
      higherIsBetter: boolean,
    ): Row => ({
      label,
      of: f,
      sqlite: a ? f(a) : null,
      freeradius: f(b),
      postgres: p ? f(p) : null,
      unit,
      higherIsBetter,
    });
    const rows: Row[] = [
      row('PAP+M-A, radclient -p', (m) => m.rcPap.rate, 'req/s', true),
      row('PAP+M-A, window', (m) => m.pap.rate, 'req/s', true),
      row('PAP+M-A p50', (m) => m.pap.p50_ms, 'ms', false),
      row('PAP+M-A p99', (m) => m.pap.p99_ms, 'ms', false),
      row('PAP server CPU/request', (m) => m.papCpuUs, 'µs', false),
      row('PAP PostgreSQL CPU/req', (m) => m.papDbCpuUs, 'µs', false),
      row('Interim, radclient -p', (m) => m.rcInterim.rate, 'req/s', true),
      row('Interim, window', (m) => m.interim.rate, 'req/s', true),
      row('Interim p50', (m) => m.interim.p50_ms, 'ms', false),
      row('Interim p99', (m) => m.interim.p99_ms, 'ms', false),
      row('Interim server CPU/request', (m) => m.interimCpuUs, 'µs', false),
      row('Interim PostgreSQL CPU/req', (m) => m.interimDbCpuUs, 'µs', false),
    ];
    const version = execFileSync('freeradius', ['-v'], { encoding: 'utf8' }).split('\n')[0] ?? '';
    process.stdout.write(
      `RADIUS benchmark: ${String(GRANTS)} grants, ${String(REQUESTS)} requests per load, window/-p ${String(WINDOW)}, loopback\n` +
        `ours: hotspot-ctl on SQLite, and on PostgreSQL 15 (durable: fsync, synchronous_commit, full_page_writes on)\n` +
        `baseline: ${version.trim()} (files backend, accounting { ok }; for accounting also with rlm_sql on SQLite: "FreeRADIUS + SQL")\n` +
        `box: ${String(cpus().length)} cores, load average (1 min) ${loadBefore} at the start, ${load1()} at the end\n\n`,
    );
    process.stdout.write(
      `${'load'.padEnd(28)}${'ours, SQLite'.padStart(14)}${'FreeRADIUS'.padStart(14)}   ${'ratio (ours/theirs)'.padEnd(28)}${'ours, Postgres'.padStart(14)}   PostgreSQL/SQLite\n`,
    );
    for (const r of rows) {
      process.stdout.write(
        `${r.label.padEnd(28)}${cell(r.sqlite, r.unit)}${cell(r.freeradius, r.unit)}   ${ratio(r.sqlite, r.freeradius, !r.higherIsBetter).padEnd(28)}${cell(r.postgres, r.unit)}   ${ratio(r.postgres, r.sqlite, !r.higherIsBetter)}\n`,
      );
    }
    for (const kind of ['echo', 'crypto', 'sqlite'] as const) {
      const floor = await nodeFloor(kind, base.files[FLOOR_LOAD[kind]], dir);
      const [label, what] = FLOOR_LABELS[kind];
      // The SQLite floor against FreeRADIUS's Interim window rate: the most any such server could reach.
      const ofTheirs =
        kind === 'sqlite' ? ` (${ratio(floor.rate, b.interim.rate, false)}× FreeRADIUS's Interim)` : '';
      process.stdout.write(
        `${label.padEnd(28)}${`${fmt(floor.rate)} req/s`.padStart(14)}${`${fmt(floor.cpuUs)} µs`.padStart(14)}   CPU/request; ${what}${ofTheirs}\n`,
      );
    }
    if (stored) {
      // The like-for-like baseline for accounting: FreeRADIUS committing each record, as ours does.
      const { interim, cpuUs, errors } = stored;
      process.stdout.write(
        `${'Interim, FreeRADIUS + SQL'.padEnd(28)}${`${fmt(interim.rate)} req/s`.padStart(14)}${`${fmt(cpuUs)} µs`.padStart(14)}   ` +
          `p50 ${fmt(interim.p50_ms)} ms, p99 ${fmt(interim.p99_ms)} ms, lost ${String(interim.lost)}; ` +
          (errors.count > 0
            ? `its log has ${String(errors.count)} errors, the commonest: ${errors.commonest ?? ''}; `
            : '') +
          `rlm_sql on SQLite (WAL, each commit synced), stock radacct queries; ours (SQLite) ${ratio(a?.interim.rate, interim.rate, false)}× its rate\n`,
      );
    }
    const lost = (m: Measured | undefined) =>
      m ? String(m.pap.lost + m.interim.lost + m.rcPap.lost + m.rcInterim.lost) : '—';
    process.stdout.write(
      `\nevery reply was Access-Accept / Accounting-Response; lost requests: ${lost(a)} (SQLite), ${lost(p)} (PostgreSQL), ${lost(b)} (FreeRADIUS)\n`,
    );
    printWorkers(rows, b, withWorkers);
    printVenues(reports.sqlite?.venues ?? undefined, reports.postgres?.venues ?? undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * FreeRADIUS storing accounting (freeradius.ts `sqlAccounting`: rlm_sql on SQLite with Debian's
 * stock radacct schema and queries), under the same Interim-Update window load as ours. A first
 * pass opens each session's radacct row (an interim-update of an unknown session inserts it);
 * the second, measured, updates them, as ours does for open sessions. `FR_SQL=0` leaves it out.
 */
async function storingFreeRadius(base: StoreReport, dir: string) {
  const ports = { auth: freePort(), acct: freePort() };
  const raddb = configure(path.join(dir, 'fr-sql'), base.guests, SECRET, ports, { sqlAccounting: true });
  const server = start(raddb, ports);
  try {
    await runLoad(base.files.auth, ports.auth, 'FreeRADIUS + SQL, PAP warm-up'); // and proof that it answers
    await runLoad(base.files.acct, ports.acct, 'FreeRADIUS + SQL, Interim-Update first pass');
    const log = logFile(path.join(dir, 'fr-sql'));
    const logged = logSize(log);
    const c0 = cpuSeconds(server.pid);
    const interim = await runLoad(base.files.acct, ports.acct, 'FreeRADIUS + SQL, Interim-Update window');
    const cpuUs = ((cpuSeconds(server.pid) - c0) / REQUESTS) * 1e6;
    return { interim, cpuUs, errors: loggedErrors(log, logged) };
  } finally {
    server.stop();
  }
}

/**
 * The same loads against the workers runs (RADIUS_WORKERS=WORKERS), each store beside FreeRADIUS
 * in the same invocation, the ratio ours/theirs and the ratio workers/one process.
 */
function printWorkers(
  rows: Row[],
  freeradius: Measured,
  runs: Partial<Record<StoreKind, StoreReport>>,
): void {
  for (const kind of STORES) {
    const run = runs[kind];
    if (!run?.measured) continue;
    const m = run.measured;
    const one = (r: Row) => (kind === 'sqlite' ? r.sqlite : r.postgres);
    process.stdout.write(
      `\n${STORE_LABEL[kind]} with RADIUS_WORKERS=${run.workers}: ${String(run.processes)} worker processes (CPU: the daemon and its workers)\n` +
        `${'load'.padEnd(28)}${'ours, workers'.padStart(14)}${'FreeRADIUS'.padStart(14)}   ${'ratio (ours/theirs)'.padEnd(28)}${'one process'.padStart(14)}   workers/one process\n`,
    );
    for (const r of rows) {
      const w = r.of(m);
      process.stdout.write(
        `${r.label.padEnd(28)}${cell(w, r.unit)}${cell(r.of(freeradius), r.unit)}   ${ratio(w, r.of(freeradius), !r.higherIsBetter).padEnd(28)}${cell(one(r), r.unit)}   ${ratio(w, one(r), !r.higherIsBetter)}\n`,
      );
    }
    const lost = m.pap.lost + m.interim.lost + m.rcPap.lost + m.rcInterim.lost;
    process.stdout.write(`lost requests: ${String(lost)}\n`);
  }
}

/** The venues load's table: each store, the ratio PostgreSQL/SQLite, and the p99 target. */
function printVenues(sqlite: VenueResult | undefined, postgres: VenueResult | undefined): void {
  const any = sqlite ?? postgres;
  if (!any) return;
  process.stdout.write(
    `\n${String(VENUES)} venues' accounting: ${String(VENUES)} routers (own NAS-Identifier, secret and socket each), ` +
      `${String(SESSIONS)} sessions opened by Accounting Start (window ${String(WINDOW)}), then Interim-Updates open loop at ` +
      `${fmt(VENUE_RATE)}/s (${String(Math.max(1, Math.round((VENUE_RATE * VENUE_TICK_MS) / 1000)))} every ${String(VENUE_TICK_MS)} ms) for ${String(VENUE_SECONDS)} s, no resends, lost after 2 s\n\n`,
  );
  const rows: [string, (v: VenueResult) => number | null, string, boolean][] = [
    ['Start, window', (v) => v.starts.received / v.starts.seconds, 'req/s', true],
    ['Start p99', (v) => v.starts.p99_ms, 'ms', false],
    ['Interim sent', (v) => v.interims.sent, '', true],
    ['Interim send rate', (v) => v.interims.send_rate, 'req/s', true],
    ['Interim answered', (v) => v.interims.received, '', true],
    ['Interim lost', (v) => v.interims.lost, '', false],
    ['Interim p50', (v) => v.interims.p50_ms, 'ms', false],
    ['Interim p99', (v) => v.interims.p99_ms, 'ms', false],
    ['Interim max', (v) => v.interims.max_ms, 'ms', false],
    ['sender lag p99 / max', (v) => v.interims.lag_max_ms, 'ms', false],
    ['server CPU/Interim', (v) => v.serverCpuUs, 'µs', false],
    ['PostgreSQL CPU/Interim', (v) => v.dbCpuUs, 'µs', false],
    ['backlog left at the end', (v) => v.backlogSeconds ?? null, 's', false],
    ['commits/s', (v) => (v.db ? v.db.commits / v.interims.seconds : null), '', true],
    ['Interims committed/s', (v) => (v.db ? v.db.updates / v.interims.seconds : null), '', true],
    ['Interims per commit', (v) => (v.db && v.db.commits > 0 ? v.db.updates / v.db.commits : null), '', true],
    [
      'WAL fsync, mean',
      (v) => (v.db && v.db.walSyncs > 0 ? v.db.walSyncMs / v.db.walSyncs : null),
      'ms',
      false,
    ],
  ];
  process.stdout.write(
    `${'load'.padEnd(28)}${'ours, SQLite'.padStart(18)}${'ours, Postgres'.padStart(18)}   PostgreSQL/SQLite\n`,
  );
  for (const [label, f, unit, higher] of rows) {
    const s = sqlite ? f(sqlite) : null;
    const p = postgres ? f(postgres) : null;
    const show = (v: VenueResult | undefined, n: number | null) =>
      label === 'sender lag p99 / max' && v
        ? `${fmt(v.interims.lag_p99_ms)} / ${fmt(v.interims.lag_max_ms)} ms`
        : cell(n, unit).trim();
    // The lag row's ratio compares the p99s; the backlog's, none (often 0 on SQLite).
    const r =
      label === 'sender lag p99 / max'
        ? ratio(postgres?.interims.lag_p99_ms, sqlite?.interims.lag_p99_ms, true)
        : label.startsWith('backlog')
          ? '—'
          : ratio(p, s, !higher);
    process.stdout.write(
      `${label.padEnd(28)}${show(sqlite, s).padStart(18)}${show(postgres, p).padStart(18)}   ${r}\n`,
    );
  }
  // A lost request is one never answered: past 1% lost, no p99 of the answered ones meets the target.
  const verdict = (v: VenueResult | undefined) =>
    v
      ? `${v.interims.p99_ms < TARGET_P99_MS && v.interims.lost <= v.interims.sent / 100 ? 'yes' : 'NO'} (p99 ${fmt(v.interims.p99_ms)} ms, ${String(v.interims.lost)} of ${String(v.interims.sent)} lost)`
      : '—';
  process.stdout.write(
    `p99 < ${String(TARGET_P99_MS)} ms (and at most 1% lost) at ${fmt(VENUE_RATE)}/s: SQLite ${verdict(sqlite)}; PostgreSQL ${verdict(postgres)}\n`,
  );
  for (const [name, v] of [
    ['SQLite', sqlite],
    ['PostgreSQL', postgres],
  ] as const)
    if (v)
      process.stdout.write(`${name} Interim p99 by second (ms): ${v.interims.p99_by_second_ms.join(' ')}\n`);
}

const storeArg = process.env.RADIUS_BENCH_STORE;
if (storeArg === 'sqlite' || storeArg === 'postgres')
  await storeRun(storeArg, process.env.RADIUS_BENCH_DIR ?? tmpdir(), process.env.RADIUS_BENCH_WORKERS ?? '1');
else await main();
