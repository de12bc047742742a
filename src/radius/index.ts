import type { AddressInfo } from 'node:net';
import type { Config } from '../config/index.js';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Background } from '../lib/background.js';
import type { Vault } from '../lib/vault.js';
import { disconnectGrant, markRoutersSeen, type CoaClient, type WifiDeps } from '../wifi/index.js';
import { accessRoute } from './access.js';
import { AccountingWriter, accountingRoute } from './accounting.js';
import { CODE } from './codec.js';
import { createCoaClient, type CoaOptions } from './coa.js';
import { Counters } from './counters.js';
import { addCounters, selectCounters } from './counters.store.js';
import { LastSeen } from './last-seen.js';
import { NasDirectory } from './nas.js';
import { RadsecListener } from './radsec.js';
import { RadiusListener, type CodeRoute, type ListenerOptions, type ServerDeps } from './server.js';
import { radiusProcesses, RadiusWorkers, type WorkersStatus } from './workers.js';

/** The RADIUS edge as app.ts and the CLI see it. */

export { COUNTERS, type CounterName } from './counters.js';
export type { CoaOptions } from './coa.js';

export interface RadiusDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  vault: Vault;
  /** Follow-up disconnects run here, so shutdown lets them finish. */
  background: Background;
}

export interface Radius {
  readonly counters: Counters;
  readonly coa: CoaClient;
  /** Binds the ports that are not 0; resolves with the bound addresses. */
  start(
    wifi: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>,
  ): Promise<{ auth?: AddressInfo; acct?: AddressInfo; radsec?: AddressInfo }>;
  /** The sockets bound right now: none before start, after close, or for a port set to 0. */
  listening(): { auth: AddressInfo | null; acct: AddressInfo | null; radsec: AddressInfo | null };
  /** Gathers what the RADIUS workers counted and heard so far into `counters` (nothing without workers). */
  tally(): Promise<void>;
  /** The RADIUS worker processes (RADIUS_WORKERS > 1), or null when this process answers RADIUS itself. */
  workers(): WorkersStatus | null;
  /** Adds what was counted since the last flush to the stored totals, and logs it. */
  flushCounters(): Promise<void>;
  /** Writes when each router was last heard from (devices' last_seen_at). */
  flushLastSeen(): Promise<void>;
  close(): Promise<void>;
}

const wildcard = (host: string): boolean => host === '0.0.0.0' || host === '::';

export function createRadius(deps: RadiusDeps, coaOptions: CoaOptions = {}): Radius {
  const log = deps.log.child({ feature: 'radius' });
  const nas = new NasDirectory(deps);
  const counters = new Counters();
  const lastSeen = new LastSeen(deps.clock);
  const coa = createCoaClient(
    {
      clock: deps.clock,
      log,
      nas,
      bindHost: wildcard(deps.config.radiusHost) ? '0.0.0.0' : deps.config.radiusHost,
      config: deps.config,
    },
    coaOptions,
  );
  const listeners: (RadiusListener | RadsecListener)[] = [];
  const server = { clock: deps.clock, log, nas, counters, lastSeen };
  const processes = radiusProcesses(deps.config);
  const workers =
    processes > 1 && deps.config.radiusAuthPort !== 0
      ? new RadiusWorkers({
          config: deps.config,
          clock: deps.clock,
          log,
          counters,
          lastSeen,
          count: processes,
        })
      : null;
  let bound: ReturnType<Radius['listening']> = { auth: null, acct: null, radsec: null };

  return {
    counters,
    coa,
    async start(wifi) {
      const { radiusHost: host } = deps.config;
      const ended = (grantId: string): void =>
        disconnectEnded({ ...wifi, coa, log, background: deps.background }, grantId);
      const access = accessCodeRoute(wifi);
      const accounting = accountingCodeRoute({ ...wifi, log }, ended);
      // With RADIUS_WORKERS > 1 the authorization port is the workers' (workers.ts); accounting
      // and RadSec stay here, so one process commits every Accounting-Request in its batches and
      // decides the disconnects they call for (docs/decisions/0046-radius-workers.md).
      const { auth, acct } = workers
        ? { ...(await workers.start()), ...(await openUdp(server, deps.config, { accounting }, listeners)) }
        : await openUdp(server, deps.config, { access, accounting }, listeners);
      let radsec: AddressInfo | undefined;
      if (deps.config.radsecPort !== 0) {
        // RFC 6614 §2.5: both kinds on one connection; Status-Server is answered as on 1812.
        const listener = new RadsecListener(server, {
          host,
          port: deps.config.radsecPort,
          certFile: deps.config.radsecCertFile,
          keyFile: deps.config.radsecKeyFile,
          caFile: deps.config.radsecCaFile,
          routes: new Map([
            [CODE.accessRequest, access],
            [CODE.accountingRequest, accounting],
            [CODE.statusServer, access],
          ]),
        });
        listeners.push(listener);
        radsec = await listener.listen();
      }
      bound = { auth: auth ?? null, acct: acct ?? null, radsec: radsec ?? null };
      const out = { ...(auth && { auth }), ...(acct && { acct }), ...(radsec && { radsec }) };
      if (out.auth || out.acct || out.radsec)
        log.info(
          { event: 'radius.listening', auth: out.auth?.port, acct: out.acct?.port, radsec: out.radsec?.port },
          'RADIUS listening',
        );
      return out;
    },
    tally: () => workers?.tally() ?? Promise.resolve(),
    workers: () => workers?.status() ?? null,
    async flushCounters() {
      await workers?.tally();
      const deltas = counters.drain();
      if (Object.keys(deltas).length === 0) return;
      try {
        await addCounters(deps.db, deltas, deps.clock.now().toISOString());
      } catch (err) {
        counters.undrain(deltas); // the database was busy or failing: the next flush retries them
        throw err;
      }
      log.info({ event: 'radius.counters', ...deltas }, 'RADIUS counters');
    },
    async flushLastSeen() {
      await workers?.tally();
      const seen = lastSeen.drain();
      try {
        await markRoutersSeen(deps, seen);
      } catch (err) {
        lastSeen.undrain(seen); // the next flush retries them
        throw err;
      }
    },
    listening: () => bound,
    async close() {
      bound = { auth: null, acct: null, radsec: null };
      await Promise.all([...listeners.splice(0).map((l) => l.close()), workers?.stop()]);
    },
  };
}

/** The stored totals, for `hotspot-ctl status`. */
export async function storedCounters(db: Db): Promise<Record<string, number>> {
  return Object.fromEntries((await selectCounters(db)).map((r) => [r.name, r.value]));
}

/** The authorization route of a process answering RADIUS: the daemon (1812 and RadSec), or each worker. */
export const accessCodeRoute = (wifi: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>): CodeRoute => ({
  route: accessRoute(wifi),
  requests: 'auth_requests',
});

/**
 * The accounting route, the daemon's alone (workers.ts): `endedGrant` hears of a grant whose
 * session reported after the grant ended or used up its data (its sessions get a
 * Disconnect-Request again).
 */
function accountingCodeRoute(
  wifi: Pick<WifiDeps, 'db' | 'clock'> & { log: Logger },
  endedGrant: (grantId: string) => void,
): CodeRoute {
  return {
    route: accountingRoute(new AccountingWriter(wifi), (result) => {
      // A Start that reached us after its grant was revoked or expired (the login was
      // accepted just before), or a session still reporting after its grant ended (the
      // disconnect went unanswered), or a grant whose sessions used up its data allowance:
      // its sessions get a Disconnect-Request (again).
      if (result.kind === 'session' && result.ofEndedGrant !== undefined) endedGrant(result.ofEndedGrant);
    }),
    requests: 'acct_requests',
  };
}

/** Disconnects the sessions of an ended (or used-up) grant in the background. */
function disconnectEnded(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa'> & { log: Logger; background: Background },
  grantId: string,
): void {
  deps.background.run(
    'radius.late_session_disconnect_failed',
    'disconnecting a session of an ended grant failed',
    () => disconnectGrant(deps, grantId, 'session of an ended or used-up grant'),
    { grant_id: grantId },
  );
}

/**
 * Binds the UDP ports that are not 0 and whose route is given (pushing their listeners onto
 * `listeners`): authorization for `access`, accounting for `accounting`.
 */
export async function openUdp(
  server: ServerDeps,
  config: Pick<Config, 'radiusHost' | 'radiusAuthPort' | 'radiusAcctPort'>,
  routes: { access?: CodeRoute; accounting?: CodeRoute },
  listeners: { close(): Promise<void> }[],
): Promise<{ auth?: AddressInfo; acct?: AddressInfo }> {
  const open = async (
    name: ListenerOptions['name'],
    port: number,
    code: number,
    route: CodeRoute | undefined,
  ): Promise<AddressInfo | undefined> => {
    if (port === 0 || route === undefined) return undefined; // disabled, or another process's
    const routesOf = new Map([
      [code, route],
      [CODE.statusServer, route],
    ]);
    const listener = new RadiusListener(server, { name, port, routes: routesOf, host: config.radiusHost });
    listeners.push(listener);
    return listener.listen();
  };
  const auth = await open('auth', config.radiusAuthPort, CODE.accessRequest, routes.access);
  const acct = await open('acct', config.radiusAcctPort, CODE.accountingRequest, routes.accounting);
  return { ...(auth && { auth }), ...(acct && { acct }) };
}
