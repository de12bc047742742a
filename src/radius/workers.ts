import cluster, { type Worker } from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { packageRoot } from '../lib/paths.js';
import type { CounterName, Counters } from './counters.js';
import type { LastSeen } from './last-seen.js';

/**
 * RADIUS on every core (RADIUS_WORKERS, docs/decisions/0046-radius-workers.md). The daemon stays
 * the cluster's primary: HTTP, the scheduled jobs, the UDP accounting port, RadSec, CoA and
 * Disconnect sending, the data directory's lock. It forks worker processes (worker.ts) that bind
 * the UDP authorization port: in cluster mode a datagram socket bound in a worker is one socket
 * the primary opened and handed to each, and the kernel gives each datagram to one of them. Each
 * worker has its own store connection and caches; it sends the primary what the primary owns:
 * counters and routers heard from (its tally), and its log lines. Accounting stays in one process
 * because accounting split over processes was slower on both stores (SQLite has one writer; on
 * PostgreSQL the batches shrink): the daemon's group commit keeps its batches whole.
 */

/** How many processes answer RADIUS over UDP: RADIUS_WORKERS, `auto` being one per core. */
export function radiusProcesses(config: Pick<Config, 'radiusWorkers'>): number {
  return config.radiusWorkers === 'auto' ? availableParallelism() : config.radiusWorkers;
}

/** The primary's messages to a worker. */
export type ToWorker =
  /** `clock`: the daemon's time when its clock is moved by hand (tests), null for the system clock. */
  | { t: 'start'; config: Config; clock: number | null }
  /** The daemon's hand-moved clock moved. */
  | { t: 'clock'; now: number }
  /** Send your tally now, answering with this `seq`. */
  | { t: 'tally?'; seq: number }
  /** Stop reading, finish what was read, send the last tally, exit. */
  | { t: 'stop' };

/** What a worker counted and heard since its previous tally. */
export interface Tally {
  counters: Partial<Record<CounterName, number>>;
  /** Device id → when its router was last heard from (ms). */
  seen: [string, number][];
}

/** A worker's messages to the primary. */
export type FromWorker =
  /** Listening for the primary's messages (one sent earlier, on 'online', would be lost). */
  | { t: 'ready' }
  | { t: 'listening'; auth: AddressInfo | null }
  | { t: 'failed'; message: string }
  | ({ t: 'tally'; seq?: number } & Tally)
  /** A log line (pino's JSON), to be written by the primary's logger. */
  | { t: 'log'; line: string }
  | { t: 'stopped' };

/**
 * The daemon's node flags for its workers (memory limits, --cpu-prof), without module loaders: a
 * test runner's or the bench's TypeScript loader has no business in bin/hotspot-ctl.
 */
export function workerExecArgv(argv: readonly string[]): string[] {
  const loader = /^(--import|--loader|--experimental-loader|--require|-r)$/;
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (loader.test(flag))
      i++; // and its value
    else if (!/^--(import|loader|experimental-loader|require)=/.test(flag)) out.push(flag);
  }
  return out;
}

/** The hidden command bin/hotspot-ctl runs in a worker (cli/commands/serve.ts). */
export const WORKER_COMMAND = 'radius-worker';

/** How long a start may take: forking, loading the bundle, opening the store, binding. */
const START_TIMEOUT_MS = 60_000;
/** How long a worker may take to answer what it read when told to stop. */
const STOP_TIMEOUT_MS = 15_000;
/** How long the primary waits for a worker's answer to `tally?`. */
const TALLY_TIMEOUT_MS = 2_000;
/** A worker that exits this soon after it was forked is replaced after a pause (a crash loop). */
const YOUNG_MS = 5_000;
const RESTART_PAUSE_MS = 1_000;

export interface WorkersStatus {
  /** Workers configured. */
  count: number;
  /** Workers running now, with their process ids. */
  pids: number[];
  /** Workers replaced after they exited on their own. */
  replaced: number;
}

const LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

interface Running {
  worker: Worker;
  forkedAt: number;
  listening: boolean;
  /** Tally requests waiting for this worker, by seq. */
  waiting: Map<number, () => void>;
}

export class RadiusWorkers {
  readonly #running = new Map<number, Running>();
  #stopping = false;
  #replaced = 0;
  #seq = 0;
  /** The first worker's bound address (every worker binds the same port). */
  #auth: AddressInfo | null = null;

  constructor(
    private readonly deps: {
      config: Config;
      clock: Clock;
      log: Logger;
      counters: Counters;
      lastSeen: LastSeen;
      count: number;
    },
  ) {
    // A test's clock: its moves reach the workers before any datagram the test sends after them
    // (the message is written to each worker's channel at once, and a worker reads its channel
    // before datagrams that arrived later).
    deps.clock.watch?.((now) => {
      for (const { worker } of this.#running.values()) this.#send(worker, { t: 'clock', now: now.getTime() });
    });
  }

  /** Forks the workers and resolves once each listens, with the authorization port's address. */
  async start(): Promise<{ auth?: AddressInfo }> {
    // bin/hotspot-ctl loads the bundle (or dist/src): the worker runs the same code as the CLI,
    // whichever process started the daemon (`serve`, or a test's or the bench's buildApp).
    cluster.setupPrimary({
      exec: path.join(packageRoot(), 'bin', 'hotspot-ctl'),
      args: [WORKER_COMMAND],
      execArgv: workerExecArgv(process.execArgv),
      serialization: 'advanced',
    });
    const started = Array.from({ length: this.deps.count }, () => this.#fork());
    await Promise.all(started);
    this.deps.log.info(
      { event: 'radius.workers', workers: this.deps.count, pids: this.status().pids },
      'RADIUS workers listening',
    );
    return this.#auth ? { auth: this.#auth } : {};
  }

  status(): WorkersStatus {
    return {
      count: this.deps.count,
      pids: [...this.#running.values()].flatMap((r) =>
        r.worker.process.pid === undefined ? [] : [r.worker.process.pid],
      ),
      replaced: this.#replaced,
    };
  }

  /** Asks every worker for its tally and resolves once each answered (or exited, or took too long). */
  async tally(): Promise<void> {
    const seq = ++this.#seq;
    await Promise.all(
      [...this.#running.values()]
        .filter((r) => r.listening && r.worker.isConnected())
        .map(
          (r) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(done, TALLY_TIMEOUT_MS);
              function done(): void {
                clearTimeout(timer);
                r.waiting.delete(seq);
                resolve();
              }
              r.waiting.set(seq, done);
              this.#send(r.worker, { t: 'tally?', seq });
            }),
        ),
    );
  }

  /** Tells every worker to stop and resolves once all have exited (killed past the timeout). */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      [...this.#running.values()].map(
        ({ worker }) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => worker.kill('SIGKILL'), STOP_TIMEOUT_MS);
            // Gone once it exited and its channel closed: its last tally, sent before it exits,
            // has been read by then ('exit' alone may come first).
            let left = worker.isConnected() ? 2 : 1;
            const gone = (): void => {
              if (--left > 0) return;
              clearTimeout(timer);
              resolve();
            };
            worker.once('exit', gone);
            if (left === 2) worker.once('disconnect', gone);
            if (!this.#send(worker, { t: 'stop' })) worker.kill('SIGKILL');
          }),
      ),
    );
  }

  #send(worker: Worker, message: ToWorker): boolean {
    if (!worker.isConnected()) return false;
    try {
      worker.send(message);
      return true;
    } catch {
      return false; // the worker is exiting: its 'exit' handler settles what waits for it
    }
  }

  /** Forks one worker; resolves once it listens, rejects if it fails to (before start resolved). */
  #fork(): Promise<void> {
    const worker = cluster.fork();
    const running: Running = { worker, forkedAt: performance.now(), listening: false, waiting: new Map() };
    this.#running.set(worker.id, running);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('a RADIUS worker did not start listening in time'));
        worker.kill('SIGKILL');
      }, START_TIMEOUT_MS);
      worker.on('message', (message: FromWorker) => {
        if (message.t === 'ready')
          this.#send(worker, {
            t: 'start',
            config: this.deps.config,
            clock: this.deps.clock.watch ? this.deps.clock.now().getTime() : null,
          });
        else if (message.t === 'listening') {
          running.listening = true;
          this.#auth ??= message.auth;
          clearTimeout(timer);
          resolve();
        } else if (message.t === 'failed') {
          clearTimeout(timer);
          reject(new Error(`RADIUS worker: ${message.message}`));
        } else this.#heard(running, message);
      });
      worker.on('exit', (code, signal) => {
        clearTimeout(timer);
        this.#running.delete(worker.id);
        for (const done of [...running.waiting.values()]) done();
        reject(
          new Error(`a RADIUS worker exited before it listened (code ${String(code)}, signal ${signal})`),
        );
        if (this.#stopping || !running.listening) return;
        this.#replace(running, code, signal);
      });
    });
  }

  /** A worker that exited while the daemon runs is replaced (after a pause if it died young). */
  #replace(gone: Running, code: number | null, signal: string | null): void {
    const young = performance.now() - gone.forkedAt < YOUNG_MS;
    this.deps.log.warn(
      { event: 'radius.worker_exited', worker_pid: gone.worker.process.pid, exit_code: code, signal },
      'RADIUS worker exited: starting another',
    );
    const again = (): void => {
      if (this.#stopping) return;
      this.#replaced++;
      this.#fork().then(
        () =>
          this.deps.log.info(
            { event: 'radius.worker_replaced', pids: this.status().pids },
            'RADIUS worker replaced',
          ),
        (err: unknown) =>
          this.deps.log.error({ event: 'radius.worker_failed', err }, 'RADIUS worker did not start'),
      );
    };
    // A clean exit (code 0) is a stop the primary was not asked for yet, a SIGTERM to the whole
    // service, say: waiting a moment lets the primary's own signal arrive first.
    if (young || code === 0) setTimeout(again, RESTART_PAUSE_MS).unref();
    else again();
  }

  #heard(running: Running, message: FromWorker): void {
    switch (message.t) {
      case 'tally': {
        for (const [name, n] of Object.entries(message.counters) as [CounterName, number][])
          this.deps.counters.bump(name, n);
        for (const [deviceId, at] of message.seen) this.deps.lastSeen.seenAt(deviceId, at);
        if (message.seq !== undefined)
          for (const [seq, done] of [...running.waiting]) if (seq <= message.seq) done();
        return;
      }
      case 'log':
        this.#relog(message.line, running.worker.process.pid);
        return;
      default:
        return;
    }
  }

  /** A worker's log line, through the primary's logger (its destination: stdout, or a test's sink). */
  #relog(line: string, pid: number | undefined): void {
    try {
      const {
        level,
        msg,
        time: _time,
        service: _service,
        feature: _feature,
        ...fields
      } = JSON.parse(line) as Record<string, unknown>;
      const name = LEVELS[Number(level)] ?? 'info';
      this.deps.log[name]({ ...fields, worker_pid: pid }, typeof msg === 'string' ? msg : '');
    } catch {
      this.deps.log.warn({ event: 'radius.worker_log', worker_pid: pid, line }, 'RADIUS worker wrote a line');
    }
  }
}
