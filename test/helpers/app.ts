import { createSocket, type Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import type { Test } from 'tap';
import { buildApp, DATABASE_FILE, type App, type BuildOptions } from '../../src/app.js';
import { finalizeConfig, loadConfig, type Config } from '../../src/config/index.js';
import { ensureDataDir, loadOrCreateSecrets } from '../../src/config/secrets.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/log.js';
import { onPostgres, storeEnv, workersEnv } from './store.js';

/** Collects pino's JSON lines so tests can assert on what was (and was not) logged. */
export class LogSink extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  readonly raw: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      this.raw.push(line);
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  }
  events(name: string): Record<string, unknown>[] {
    return this.lines.filter((l) => l.event === name);
  }
}

/** A configuration for a test: temp data dir, loopback listener on a free port, RADIUS off. */
export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  const loaded = loadConfig({
    env: {
      HOTSPOT_DATA_DIR: dataDir,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      RADIUS_AUTH_PORT: '0',
      RADIUS_ACCT_PORT: '0',
      LOG_LEVEL: 'info',
      ...storeEnv(dataDir),
      ...workersEnv(),
      ...env,
    },
    defaultConfigFile: '/nonexistent/hotspot.env',
  });
  ensureDataDir(loaded.dataDir);
  return finalizeConfig(loaded, loadOrCreateSecrets(loaded.dataDir));
}

export interface TestApp {
  app: App;
  config: Config;
  clock: ManualClock;
  logs: LogSink;
  /** http://127.0.0.1:<port> */
  base: string;
  dataDir: string;
}

/** A TCP port nobody listens on right now. */
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

export type TestAppOptions = {
  env?: Record<string, string>;
  clock?: ManualClock;
  /**
   * The box's data directory; by default one of its own, removed after the box closes (not
   * t.testdir(): tap empties that folder each time it is called, under a box still running).
   */
  dataDir?: string;
  /** PUBLIC_BASE_URL = the listener's own URL (for OAuth relying parties and passkeys). */
  selfIssuer?: boolean;
  /** Start the RADIUS listeners on free loopback UDP ports (off otherwise). */
  radius?: boolean;
} & Omit<BuildOptions, 'clock' | 'log'>;

/** A private temporary directory removed when the test ends (tap's t.testdir() is one a test shares). */
export function scratchDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hotspot-ctl-test-'));
  // Retried: on a loaded box a closed app's last background write (mail to the outbox, after its
  // close's grace) can land while the directory is being removed (ENOTEMPTY).
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));
  return dir;
}

/** The real app on a temp data dir with a manual clock, listening on a free loopback port. */
export async function startTestApp(t: Test, options: TestAppOptions = {}): Promise<TestApp> {
  // Teardowns run in the order they were registered, and the app must be closed (its background
  // mail written, its database shut) before its data directory goes.
  let started: App | null = null;
  t.teardown(() => started?.close({ graceMs: 1000 }));
  // A directory of its own: two boxes of one test get one each, and a test's own t.testdir()
  // (emptied each time it is called) leaves it alone.
  const dataDir = options.dataDir ?? scratchDir(t);
  const port = options.selfIssuer ? await freePort() : 0;
  const selfEnv = options.selfIssuer
    ? { HTTP_PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${String(port)}` }
    : {};
  const [authPort, acctPort] = options.radius ? await freeUdpPorts(2) : [];
  const radiusEnv = options.radius
    ? { RADIUS_HOST: '127.0.0.1', RADIUS_AUTH_PORT: String(authPort), RADIUS_ACCT_PORT: String(acctPort) }
    : {};
  const config = testConfig(dataDir, { ...selfEnv, ...radiusEnv, ...options.env });
  const clock = options.clock ?? new ManualClock();
  const logs = new LogSink();
  const {
    env: _env,
    clock: _clock,
    dataDir: _dataDir,
    selfIssuer: _self,
    radius: _radius,
    ...build
  } = options;
  // Jobs are registered but not timed unless a test asks (timeJobs): on the wall clock they would
  // run beside the test's own steps, on its hand-moved clock, and race them.
  const app = await buildApp(config, {
    ...build,
    timeJobs: build.timeJobs ?? false,
    clock,
    log: createLogger('info', logs),
  });
  started = app;
  const { http } = await app.start();
  return { app, config, clock, logs, base: `http://127.0.0.1:${String(http.port)}`, dataDir };
}

/**
 * `count` distinct UDP ports nobody listens on right now (on loopback). The probes are all bound
 * before any is closed: a port freed by one probe can be handed straight to the next.
 */
export async function freeUdpPorts(count: number): Promise<number[]> {
  const probes = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const probe = createSocket('udp4');
          probe.once('error', reject);
          probe.bind(0, '127.0.0.1', () => resolve(probe));
        }),
    ),
  );
  const ports = probes.map((p) => p.address().port);
  await Promise.all(probes.map((p) => new Promise<void>((resolve) => p.close(() => resolve()))));
  return ports;
}

/** Resolves when `predicate` holds, checking after every log line (no sleeping). */
export function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const tick = (): void => {
      if (check()) resolve();
      else if (Number(process.hrtime.bigint() - started) / 1e6 > timeoutMs)
        reject(new Error(`timed out waiting for ${what}`));
      else setImmediate(tick);
    };
    tick();
  });
}

/**
 * Which of `needles` occur, byte for byte, anywhere in the app's database files (the main file
 * and the WAL, where recent writes sit until a checkpoint), or on PostgreSQL in any row of the
 * test's schema: for "never stored in the clear".
 */
export async function foundInDatabase(
  app: Pick<TestApp, 'dataDir' | 'app'>,
  needles: string[],
): Promise<string[]> {
  if (onPostgres) {
    // No files of our own: every row of every table of the test's schema, as text.
    const db = app.app.deps.db;
    const { rows: tables } = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    const dumps: string[] = [];
    for (const { name } of tables) {
      const { rows } = await sql`select * from ${sql.table(name)}`.execute(db);
      dumps.push(JSON.stringify(rows));
    }
    return needles.filter((n) => dumps.some((text) => text.includes(JSON.stringify(n).slice(1, -1))));
  }
  const files = [DATABASE_FILE, `${DATABASE_FILE}-wal`]
    .map((f) => path.join(app.dataDir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f));
  return needles.filter((n) => files.some((bytes) => bytes.includes(Buffer.from(n, 'utf8'))));
}
