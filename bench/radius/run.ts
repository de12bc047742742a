import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { finalizeConfig, loadConfig } from '../../src/config/index.js';
import { ensureDataDir, loadOrCreateSecrets } from '../../src/config/secrets.js';
import { uuid } from '../../src/lib/crypto.js';
import { createLogger } from '../../src/lib/log.js';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { createPlan, issue, registerDevice } from '../../src/wifi/index.js';
import { configure, cpuSeconds, start, type Guest } from './freeradius.js';

/**
 * RADIUS benchmark: Access-Request (PAP with Message-Authenticator) and Accounting-Request
 * (Interim-Update) throughput and latency over loopback, against our daemon with GRANTS grants in
 * SQLite and, in the same run, against FreeRADIUS 3 with the same guests in a users file. Two
 * loads for each: radclient (-c/-p, the usual FreeRADIUS load tool) for throughput, and
 * load.ts (a window of outstanding requests) for p50/p99 latency. Prints both and the ratios.
 *
 *   npm run bench:radius            (GRANTS=20000 REQUESTS=20000 WINDOW=64 by default)
 *   ONLY_OURS=1 [PROFILE=/tmp/pap.cpuprofile] npm run bench:radius
 *                                   the window loads against our server only, with its CPU per
 *                                   request (and a CPU profile of the PAP load, for DevTools)
 *
 * Both modes end with two floors under the same PAP window load: a bare Node UDP echo (what the
 * datagram path costs) and a Node process doing only the protocol's mandatory hashing (see FLOORS).
 */

const GRANTS = Number(process.env.GRANTS ?? 20_000);
const REQUESTS = Number(process.env.REQUESTS ?? 20_000);
const WINDOW = Number(process.env.WINDOW ?? 64);
const SAMPLE = 1000; // distinct guests in the request files
const SECRET = 'bench-secret-0123456789';
const NAS_ID = 'venue-01';
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

const freePort = (): number =>
  Number(
    execFileSync(
      process.execPath,
      ['-e', "const s=require('dgram').createSocket('udp4');s.bind(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"],
      { encoding: 'utf8' },
    ).trim(),
  );

async function ourServer(dir: string) {
  const env = {
    HOTSPOT_DATA_DIR: path.join(dir, 'data'),
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
  const guests: Guest[] = [];
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
      };
      await tx.insertInto('invoices').values(invoice).execute();
      const { grant, password } = await issue(tx, app.deps, { invoice, paidAt: now });
      if (guests.length < SAMPLE) guests.push({ username: grant.username, password });
    }
  });
  const { radius } = await app.start();
  return { app, guests, auth: radius.auth?.port ?? 0, acct: radius.acct?.port ?? 0 };
}

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
    const child = spawn(process.execPath, ['--import', loader, path.join(here, 'load.ts'), file, String(port), String(WINDOW)]);
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
          fail(what, `${String(r.unexpected)} of ${String(r.received)} replies were not the success answer (reply codes ${JSON.stringify(r.codes)})`);
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
        if (rejected > 0) fail(what, `radclient: ${String(rejected)} of ${String(total)} replies were not ${expected}`);
        if (accepted + lost !== total)
          fail(what, `radclient: ${String(accepted)} accepted + ${String(lost)} lost of ${String(total)} sent`);
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

async function nodeFloor(kind: keyof typeof FLOORS, file: string): Promise<{ rate: number; cpuUs: number }> {
  const port = freePort();
  const script = `const s=require('node:dgram').createSocket('udp4');${FLOORS[kind]};s.bind(${String(port)},'127.0.0.1',()=>console.log('ready'))`;
  const child = spawn(process.execPath, ['-e', script, SECRET], { stdio: ['ignore', 'pipe', 'inherit'] });
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
  crypto: ['Node, RFC crypto only', 'verify M-A, reveal password, sign reply: the least any Node server here does'],
} as const;

interface Row {
  label: string;
  ours: number;
  theirs: number;
  unit: string;
  higherIsBetter: boolean;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'radius-bench-'));
  try {
    process.stderr.write(`seeding ${String(GRANTS)} grants…\n`);
    const ours = await ourServer(dir);
    const authFile = packetFile(dir, 'pap', papPacket(ours.guests));
    const acctFile = packetFile(dir, 'interim', interimPacket(ours.guests));
    const rcAuth = radclientFile(dir, 'rc-auth', ours.guests, 'auth');
    const rcAcct = radclientFile(dir, 'rc-acct', ours.guests, 'acct');
    const count = Math.max(1, Math.round(REQUESTS / SAMPLE));

    if (process.env.ONLY_OURS) {
      // Tuning aid: the PAP and Interim-Update window loads against our server only, with its CPU
      // per request; FreeRADIUS is not started. PROFILE=file also writes a CPU profile of the PAP
      // load, or of PROFILE_LOAD=Interim-Update (for Chrome DevTools; profiling inflates the CPU figure).
      await runLoad(authFile, ours.auth, 'ours, PAP warm-up');
      const cpu = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
      };
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
        ['PAP', authFile, ours.auth],
        ['Interim-Update', acctFile, ours.acct],
      ] as const) {
        if (profile && name === profiled) await session.post('Profiler.start');
        const c0 = cpu();
        const result = await runLoad(file, port, `ours, ${name}`);
        const cpuUs = Math.round(((cpu() - c0) / result.received) * 1e6);
        process.stdout.write(`${name}: ${JSON.stringify({ ...result, server_cpu_us_per_request: cpuUs })}\n`);
        if (profile && name === profiled) {
          const { profile: taken } = await session.post('Profiler.stop');
          writeFileSync(profile, JSON.stringify(taken));
        }
      }
      await ours.app.close();
      for (const kind of ['echo', 'crypto'] as const)
        process.stdout.write(`${FLOOR_LABELS[kind][0]}: ${JSON.stringify(await nodeFloor(kind, authFile))}\n`);
      return;
    }
    const fr = { auth: freePort(), acct: freePort() };
    const raddb = configure(path.join(dir, 'fr'), ours.guests, SECRET, fr);
    const freeradius = start(raddb, fr);
    await runLoad(authFile, fr.auth, 'FreeRADIUS, PAP warm-up'); // and proof that it answers

    /**
     * Every authorization load runs before any accounting load: Interim-Updates open a session
     * (without a MAC) for each sample guest, whose grant allows one device, so a login after them
     * is refused "too many devices" and would measure Access-Rejects.
     */
    const measure = async (name: string, port: { auth: number; acct: number }, cpu: () => number) => {
      const c0 = cpu();
      const pap = await runLoad(authFile, port.auth, `${name}, PAP window`);
      const c1 = cpu();
      const rcPap = await runRadclient(rcAuth, port.auth, 'auth', count, `${name}, PAP radclient`);
      const c2 = cpu();
      const interim = await runLoad(acctFile, port.acct, `${name}, Interim-Update window`);
      const c3 = cpu();
      const rcInterim = await runRadclient(rcAcct, port.acct, 'acct', count, `${name}, Interim-Update radclient`);
      return { pap, interim, rcPap, rcInterim, papCpuUs: ((c1 - c0) / REQUESTS) * 1e6, interimCpuUs: ((c3 - c2) / REQUESTS) * 1e6 };
    };
    await runLoad(authFile, ours.auth, 'ours, PAP warm-up'); // JIT, caches
    const usage = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };
    const measured = async () => {
      try {
        return {
          a: await measure('ours', ours, usage),
          b: await measure('FreeRADIUS', fr, () => cpuSeconds(freeradius.pid)),
        };
      } finally {
        freeradius.stop();
        await ours.app.close();
      }
    };
    const { a, b } = await measured();

    const rows: Row[] = [
      { label: 'PAP+M-A, radclient -p', ours: a.rcPap.rate, theirs: b.rcPap.rate, unit: 'req/s', higherIsBetter: true },
      { label: 'PAP+M-A, window', ours: a.pap.rate, theirs: b.pap.rate, unit: 'req/s', higherIsBetter: true },
      { label: 'PAP+M-A p50', ours: a.pap.p50_ms, theirs: b.pap.p50_ms, unit: 'ms', higherIsBetter: false },
      { label: 'PAP+M-A p99', ours: a.pap.p99_ms, theirs: b.pap.p99_ms, unit: 'ms', higherIsBetter: false },
      { label: 'PAP server CPU/request', ours: a.papCpuUs, theirs: b.papCpuUs, unit: 'µs', higherIsBetter: false },
      { label: 'Interim, radclient -p', ours: a.rcInterim.rate, theirs: b.rcInterim.rate, unit: 'req/s', higherIsBetter: true },
      { label: 'Interim, window', ours: a.interim.rate, theirs: b.interim.rate, unit: 'req/s', higherIsBetter: true },
      { label: 'Interim p50', ours: a.interim.p50_ms, theirs: b.interim.p50_ms, unit: 'ms', higherIsBetter: false },
      { label: 'Interim p99', ours: a.interim.p99_ms, theirs: b.interim.p99_ms, unit: 'ms', higherIsBetter: false },
      { label: 'Interim server CPU/request', ours: a.interimCpuUs, theirs: b.interimCpuUs, unit: 'µs', higherIsBetter: false },
    ];
    const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
    const version = execFileSync('freeradius', ['-v'], { encoding: 'utf8' }).split('\n')[0] ?? '';
    process.stdout.write(
      `RADIUS benchmark: ${String(GRANTS)} grants in SQLite, ${String(REQUESTS)} requests per load, window/-p ${String(WINDOW)}, loopback\n` +
        `baseline: ${version.trim()} (files backend, accounting { ok })\n\n`,
    );
    process.stdout.write(`${'load'.padEnd(28)}${'hotspot-ctl'.padStart(14)}${'FreeRADIUS'.padStart(14)}   ratio (ours/theirs)\n`);
    for (const r of rows) {
      const ratio = r.ours / r.theirs;
      process.stdout.write(
        `${r.label.padEnd(28)}${`${fmt(r.ours)} ${r.unit}`.padStart(14)}${`${fmt(r.theirs)} ${r.unit}`.padStart(14)}   ${ratio.toFixed(2)}${r.higherIsBetter ? '' : ' (lower is better)'}\n`,
      );
    }
    for (const kind of ['echo', 'crypto'] as const) {
      const floor = await nodeFloor(kind, authFile);
      const [label, what] = FLOOR_LABELS[kind];
      process.stdout.write(
        `${label.padEnd(28)}${`${fmt(floor.rate)} req/s`.padStart(14)}${`${fmt(floor.cpuUs)} µs`.padStart(14)}   CPU/request; ${what}\n`,
      );
    }
    const lost = (m: typeof a) => m.pap.lost + m.interim.lost + m.rcPap.lost + m.rcInterim.lost;
    process.stdout.write(
      `\nevery reply was Access-Accept / Accounting-Response; lost requests: ${String(lost(a))} (ours), ${String(lost(b))} (FreeRADIUS)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
