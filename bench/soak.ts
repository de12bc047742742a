/**
 * `npm run bench:soak` (issue 22): is the daemon's resident memory flat under a long mixed load?
 * The real daemon (`bin/hotspot-ctl serve`, SQLite, zero configuration) gets, for SOAK_MINUTES
 * (30), at once:
 * - RADIUS: PAP logins of SOAK_GUESTS paid guests and their accounting (Start, Interim-Updates,
 *   Stop, each session a new Acct-Session-Id), about SOAK_RADIUS_RATE requests a second;
 * - garbage at both RADIUS ports, about SOAK_FUZZ_RATE datagrams a second (noise, truncations and
 *   bit flips of valid packets, as test/radius/fuzz.test.ts sends): issue 22 saw a 400k-packet
 *   fuzz grow RSS by about 28 MB and asked whether that is a cache filling up or a leak;
 * - HTTP: /healthz, the public plans and the OpenID discovery document, about SOAK_HTTP_RATE a
 *   second.
 * VmRSS is read from /proc every 10 s. A cache fills and stops; a leak keeps growing with the
 * work done. So the run is cut in quarters and the growth of each quarter is printed, with the
 * least-squares slope of the second half in MB per 10 minutes: flat means the last quarters grow
 * by no more than the noise of the allocator (a few MB) while as much work is done in each.
 *
 * SOAK_STORE=postgres runs the same soak with the daemon and its CLI calls on PostgreSQL: a
 * durable throwaway cluster (startPgCluster, as bench:radius), stopped at the end, also when the
 * run fails. The daemon's RSS is printed as on SQLite, then the server's (all its processes),
 * sampled alongside: with a store out of process, memory may move there instead.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { CODE, encodeRequest } from '../src/radius/codec.js';
import { fmt, freeUdpPortSync, http, ROOT, startDaemon, startPgCluster, type PgCluster } from './lib.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const GUESTS = Number(process.env.SOAK_GUESTS ?? 20);
const RADIUS_RATE = Number(process.env.SOAK_RADIUS_RATE ?? 400);
const FUZZ_RATE = Number(process.env.SOAK_FUZZ_RATE ?? 200);
const HTTP_RATE = Number(process.env.SOAK_HTTP_RATE ?? 50);
const STORE = process.env.SOAK_STORE ?? 'sqlite';
const SAMPLE_MS = 10_000;
const SECRET = 'soak-secret-0001';
const NAS_ID = 'soak-01';
const BIN = path.join(ROOT, 'bin/hotspot-ctl');

const rssMb = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
  return Number(kb ?? NaN) / 1024;
};

/** `hotspot-ctl ARGS --json` on the daemon's data directory (and its PostgreSQL database, if any), parsed. */
function hotspotCtl(dataDir: string, databaseUrl: string | undefined, args: string[]): unknown {
  const out = execFileSync(process.execPath, [BIN, '--json', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOTSPOT_DATA_DIR: dataDir,
      ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
    },
    encoding: 'utf8',
  });
  return JSON.parse(out) as unknown;
}

/** What fuzz.test.ts sends: noise, every truncation of a valid packet, random attribute lists, bit flips. */
function garbage(valid: readonly Buffer[]): Buffer {
  const v = valid[randomInt(valid.length)] ?? Buffer.alloc(20);
  switch (randomInt(4)) {
    case 0:
      return randomBytes(randomInt(0, 300));
    case 1:
      return v.subarray(0, randomInt(v.length));
    case 2: {
      const body = randomBytes(randomInt(0, 200));
      for (let at = 0; at + 1 < body.length; at += Math.max(2, body[at + 1] ?? 2))
        body[at + 1] = randomInt(0, 40);
      const head = Buffer.from([[1, 4, 12, 40][randomInt(4)] ?? 1, randomInt(256), 0, 0]);
      head.writeUInt16BE(20 + body.length, 2);
      return Buffer.concat([head, randomBytes(16), body]);
    }
    default: {
      const flipped = Buffer.from(v);
      const at = randomInt(flipped.length);
      flipped[at] = (flipped[at] ?? 0) ^ (1 << randomInt(8));
      return flipped;
    }
  }
}

async function main(): Promise<void> {
  if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`SOAK_STORE=${STORE}: sqlite or postgres`);
  const loadBefore = loadavg()[0] ?? NaN;
  let pg: PgCluster | null = null;
  try {
    if (STORE === 'postgres') {
      process.stderr.write(
        'soak: starting a durable PostgreSQL cluster (scripts/pg-test-cluster, PG_DURABLE=1)\n',
      );
      pg = startPgCluster();
    }
    await soak(pg, loadBefore);
  } finally {
    pg?.stop();
  }
}

async function soak(pg: PgCluster | null, loadBefore: number): Promise<void> {
  const [auth, acct] = [freeUdpPortSync(), freeUdpPortSync()];
  const daemon = await startDaemon({
    RADIUS_HOST: '127.0.0.1',
    RADIUS_AUTH_PORT: String(auth),
    RADIUS_ACCT_PORT: String(acct),
    LOG_LEVEL: 'warn',
    ...(pg && { DATABASE_URL: pg.url }),
  });
  const pid = daemon.child.pid ?? 0;
  const cli = (args: string[]) => hotspotCtl(daemon.dataDir, pg?.url, args);
  try {
    cli([
      'devices',
      'add',
      '--name=soak',
      '--model=CoovaChilli',
      '--mac=AA:BB:CC:DD:EE:51',
      '--network=10.51.0.0/16',
      '--uam-server=http://10.51.0.1/portal',
      `--nas-id=${NAS_ID}`,
      '--client-ip=127.0.0.1',
      `--secret=${SECRET}`,
    ]);
    const plan = cli(['plans', 'add', '--name=soak', '--price=1000', '--duration=1d']) as {
      id: string;
    };
    const guests: { username: string; password: string }[] = [];
    for (let i = 0; i < GUESTS; i++)
      guests.push(
        (
          cli(['grants', 'issue', `--plan=${plan.id}`, '--complimentary']) as {
            credentials: { username: string; password: string };
          }
        ).credentials,
      );
    process.stderr.write(`soak: ${String(GUESTS)} guests ready; ${String(MINUTES)} minutes of load\n`);

    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    let answered = 0;
    /** Reply codes seen, e.g. { "2": 5000, "5": 15000 }: logins must be accepted, or the load measures rejects. */
    const codes: Record<string, number> = {};
    socket.on('message', (m: Buffer) => {
      answered++;
      const code = String(m[0] ?? 0);
      codes[code] = (codes[code] ?? 0) + 1;
    });
    let id = 0;
    let session = 0;
    let sent = 0;
    const radiusTick = () => {
      for (let n = 0; n < RADIUS_RATE / 10; n++) {
        const g = guests[randomInt(guests.length)] ?? { username: '', password: '' };
        id = (id + 1) & 255;
        const step = sent++ % 4;
        if (step === 0) {
          const p = encodeRequest(
            CODE.accessRequest,
            id,
            [
              ['User-Name', g.username],
              ['User-Password', g.password],
              ['NAS-Identifier', NAS_ID],
              ['Calling-Station-Id', 'AA-BB-CC-00-00-01'],
            ],
            SECRET,
          );
          socket.send(p, auth, '127.0.0.1');
        } else {
          if (step === 1) session++;
          const type = ['Start', 'Interim-Update', 'Stop'][step - 1] ?? 'Start';
          const p = encodeRequest(
            CODE.accountingRequest,
            id,
            [
              ['User-Name', g.username],
              ['Acct-Status-Type', type],
              ['Acct-Session-Id', `soak-${String(session)}`],
              ['NAS-Identifier', NAS_ID],
              ['Calling-Station-Id', 'AA-BB-CC-00-00-01'],
              ['Acct-Input-Octets', step * 1000],
              ['Acct-Output-Octets', step * 5000],
              ['Acct-Session-Time', step * 60],
            ],
            SECRET,
          );
          socket.send(p, acct, '127.0.0.1');
        }
      }
    };
    const valid = [
      encodeRequest(
        CODE.accessRequest,
        1,
        [
          ['User-Name', 'x'],
          ['User-Password', 'y'],
          ['NAS-Identifier', NAS_ID],
        ],
        SECRET,
      ),
      encodeRequest(
        CODE.accountingRequest,
        2,
        [
          ['User-Name', 'x'],
          ['Acct-Status-Type', 'Start'],
          ['Acct-Session-Id', 'f'],
          ['NAS-Identifier', NAS_ID],
        ],
        SECRET,
      ),
    ];
    let fuzzed = 0;
    const fuzzTick = () => {
      for (let n = 0; n < FUZZ_RATE / 10; n++) {
        socket.send(garbage(valid), randomInt(2) === 0 ? auth : acct, '127.0.0.1');
        fuzzed++;
      }
    };
    const paths = ['/healthz', '/api/v1/public/plans', '/.well-known/openid-configuration'];
    let requests = 0;
    /** Answers not 200, by path and status. */
    const httpErrors: Record<string, number> = {};
    const httpError = (key: string) => (httpErrors[key] = (httpErrors[key] ?? 0) + 1);
    const httpTick = () => {
      for (let n = 0; n < HTTP_RATE / 10; n++) {
        requests++;
        const where = paths[requests % paths.length] ?? '/healthz';
        http(`${daemon.base}${where}`).then(
          (r) => {
            if (r.status !== 200) httpError(`${where} ${String(r.status)}`);
          },
          () => httpError(`${where} (no answer)`),
        );
      }
    };
    const timer = setInterval(() => {
      radiusTick();
      fuzzTick();
      httpTick();
    }, 100);

    const samples: { minute: number; rss: number }[] = [{ minute: 0, rss: rssMb(pid) }];
    /** The PostgreSQL server's memory, sampled with the daemon's. */
    const pgSamples = pg ? [pg.residentMb()] : [];
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const sampler = setInterval(() => {
        const minute = (performance.now() - started) / 60_000;
        samples.push({ minute, rss: rssMb(pid) });
        if (pg) pgSamples.push(pg.residentMb());
        if (minute >= MINUTES) {
          clearInterval(sampler);
          resolve();
        }
      }, SAMPLE_MS);
    });
    clearInterval(timer);
    socket.close();

    const at = (minute: number): number =>
      samples.reduce((best, s) => (Math.abs(s.minute - minute) < Math.abs(best.minute - minute) ? s : best))
        .rss;
    const second = samples.filter((s) => s.minute >= MINUTES / 2);
    const mx = second.reduce((a, s) => a + s.minute, 0) / second.length;
    const my = second.reduce((a, s) => a + s.rss, 0) / second.length;
    const slope =
      second.reduce((a, s) => a + (s.minute - mx) * (s.rss - my), 0) /
      second.reduce((a, s) => a + (s.minute - mx) ** 2, 0);
    // About ten samples over the run, and a label that says how far apart they are.
    const every = Math.max(1, Math.round((MINUTES * 60_000) / SAMPLE_MS / 10));
    const everySeconds = (every * SAMPLE_MS) / 1000;
    const everyLabel = everySeconds < 60 ? `${String(everySeconds)} s` : `${String(everySeconds / 60)} min`;
    const lines = [
      `soak: ${String(MINUTES)} min, ${String(GUESTS)} guests; RADIUS ${fmt(sent)} requests (${fmt(answered)} answered, by code ${JSON.stringify(codes)}), ${fmt(fuzzed)} garbage datagrams, HTTP ${fmt(requests)} requests (not 200: ${JSON.stringify(httpErrors)})`,
      `RSS (MB): start ${fmt(samples[0]?.rss ?? NaN, 1)}, peak ${fmt(Math.max(...samples.map((s) => s.rss)), 1)}, end ${fmt(at(MINUTES), 1)}`,
      `growth by quarter (MB): ${[0, 1, 2, 3].map((q) => fmt(at(((q + 1) * MINUTES) / 4) - at((q * MINUTES) / 4), 1)).join(', ')}`,
      `second half: slope ${fmt(slope * 10, 2)} MB per 10 min (least squares over ${String(second.length)} samples)`,
      `RSS every ${everyLabel}: ${samples
        .filter((_, i) => i % every === 0)
        .map((s) => fmt(s.rss, 1))
        .join(' ')}`,
      '',
    ];
    const [pgStart, pgEnd] = [pgSamples[0], pgSamples.at(-1)];
    if (pgStart && pgEnd)
      lines.splice(
        -1,
        0,
        `store: PostgreSQL (durable throwaway cluster, PG_DURABLE=1); load average (1 min) ${fmt(loadBefore, 1)} at the start, ${fmt(loadavg()[0] ?? NaN, 1)} at the end`,
        `PostgreSQL server RSS (MB, sum of VmRSS over the postmaster and its children, each counting the shared buffers it touched): start ${fmt(pgStart.rss, 1)} (${String(pgStart.processes)} processes), peak ${fmt(Math.max(...pgSamples.map((m) => m.rss)), 1)}, end ${fmt(pgEnd.rss, 1)} (${String(pgEnd.processes)} processes)`,
        `PostgreSQL server PSS (MB, shared pages divided among the processes mapping them, so it adds up): start ${fmt(pgStart.pss, 1)}, peak ${fmt(Math.max(...pgSamples.map((m) => m.pss)), 1)}, end ${fmt(pgEnd.pss, 1)}`,
      );
    process.stdout.write(lines.join('\n'));
  } finally {
    await daemon.stop();
  }
}

await main();
