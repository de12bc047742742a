import cluster from 'node:cluster';
import { openStore, type Store } from '../db/index.js';
import { FollowedClock, systemClock, type Clock } from '../lib/clock.js';
import { createLogger } from '../lib/log.js';
import { openVault } from '../lib/vault.js';
import { Counters } from './counters.js';
import { accessCodeRoute, openUdp } from './index.js';
import { LastSeen } from './last-seen.js';
import { NasDirectory } from './nas.js';
import type { RadiusListener } from './server.js';
import type { FromWorker, ToWorker } from './workers.js';

/**
 * A RADIUS worker process (workers.ts): `hotspot-ctl radius-worker`, forked by the daemon when
 * RADIUS_WORKERS > 1. It gets the daemon's configuration, opens the store on its own connection
 * (a small pool on PostgreSQL), binds the UDP authorization port (shared with the other workers
 * through the primary) and answers it with the same pipeline and route as a single process does.
 * Its caches (routers, grants) follow other processes' commits as they do in the daemon: SQLite's
 * data_version, PostgreSQL's change feed. Accounting is the daemon's (see workers.ts). It never
 * holds the data directory's lock, and it exits when the primary goes away.
 */

/** How often a worker sends its tally when nobody asked (counters are also asked for on demand). */
const TALLY_EVERY_MS = 250;
/** PostgreSQL connections per worker: the authorization reads and the device writes of logins. */
const WORKER_POOL_SIZE = 4;

function send(message: FromWorker): void {
  if (!process.connected || !process.send) return;
  try {
    process.send(message);
  } catch {
    // the primary is gone: `disconnect` stops this worker
  }
}

function firstMessage(): Promise<Extract<ToWorker, { t: 'start' }>> {
  return new Promise((resolve) => {
    const on = (message: ToWorker): void => {
      if (message.t !== 'start') return;
      process.off('message', on);
      resolve(message);
    };
    process.on('message', on);
    send({ t: 'ready' });
  });
}

/** Runs this worker until it is told to stop, its primary goes away, or a signal comes; then resolves. */
export async function runRadiusWorker(): Promise<void> {
  if (!cluster.isWorker || !process.send)
    throw new Error('radius-worker is started by `serve` when RADIUS_WORKERS > 1, not by hand');
  const exited = new Promise<void>((resolve) => process.once('disconnect', resolve));
  const start = await Promise.race([firstMessage(), exited]);
  if (!start) return;
  const { config } = start;
  // Lines go to the primary, which writes them with its own (journal, or a test's log sink).
  const log = createLogger(config.logLevel, { write: (line: string) => send({ t: 'log', line }) }).child({
    feature: 'radius',
  });
  const followed = start.clock === null ? null : new FollowedClock(start.clock);
  const clock: Clock = followed ?? systemClock;
  const counters = new Counters();
  const lastSeen = new LastSeen(clock);
  const listeners: RadiusListener[] = [];
  let store: Store | null = null;

  const tally = (seq?: number): void => {
    const deltas = counters.drain();
    const seen = [...lastSeen.drain()].map(([id, at]): [string, number] => [id, Date.parse(at)]);
    if (seq === undefined && Object.keys(deltas).length === 0 && seen.length === 0) return;
    send({ t: 'tally', ...(seq !== undefined && { seq }), counters: deltas, seen });
  };
  const ticker = setInterval(() => tally(), TALLY_EVERY_MS);
  let stopping: Promise<void> | null = null;
  let finished = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (finished = resolve));
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      clearInterval(ticker);
      await Promise.all(listeners.map((l) => l.close()));
      // What was read before the sockets closed is answered (or dropped) first.
      await Promise.all(listeners.map((l) => l.settled()));
      tally();
      send({ t: 'stopped' });
      await store?.close();
      finished();
    })());
  process.on('message', (message: ToWorker) => {
    if (message.t === 'clock') followed?.moveTo(message.now);
    else if (message.t === 'tally?') tally(message.seq);
    else if (message.t === 'stop') void stop();
  });
  // The primary killed (-9) or gone: finish what was read, then exit.
  void exited.then(stop);
  // A signal to the whole service (systemd's SIGTERM, Ctrl-C): the primary stops the workers too.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());

  try {
    store = await openStore(config, {
      now: () => clock.now(),
      poolSize: WORKER_POOL_SIZE,
      onListenError: (err) =>
        log.warn({ event: 'db.listen_failed', err }, 'database change feed interrupted'),
      checkpoints: {
        onError: (err) =>
          log.warn({ event: 'db.checkpoint_failed', err }, 'WAL checkpoints are back on the event loop'),
      },
    });
    const { db } = store;
    const vault = openVault(config.dataDir);
    const nas = new NasDirectory({ db, vault, config, clock });
    // On a test's clock the daemon's counters are exact when an answer arrives: the tally goes
    // out first, and the daemon reads its channel before the datagram that came after it.
    const beforeReply = followed ? () => tally() : undefined;
    const server = { clock, log, nas, counters, lastSeen, ...(beforeReply && { beforeReply }) };
    const access = accessCodeRoute({ db, clock, vault, config });
    const { auth } = await openUdp(server, config, { access }, listeners);
    send({ t: 'listening', auth: auth ?? null });
  } catch (err) {
    send({ t: 'failed', message: (err as Error).message });
    await stop();
    return;
  }
  await stopped;
}
