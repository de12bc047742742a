import type { AddressInfo } from 'node:net';
import { ConfigError, type Config } from './config/index.js';
import type { CoreDeps } from './deps.js';
import { GroupCommit, migrateToLatest, openStore, type Store } from './db/index.js';
import { checkVault } from './db/vault-check.js';
import { healthRoutes } from './http/health.routes.js';
import { metricsRoutes } from './metrics/metrics.routes.js';
import { consoleRoutes, type ClientGrantStats } from './console/index.js';
import {
  identityRoutes,
  pruneExpiredSessions,
  pruneResetCodeMisses,
  type BearerVerifier,
} from './identity/index.js';
import {
  grantStats,
  Keyring,
  makeKeyPair,
  oauthRoutes,
  pruneOAuthGrants,
  verifyBearer,
} from './oauth/index.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './http/rate-limit.js';
import { SqlRateLimitStore } from './http/rate-limit.sql.js';
import type { Route } from './http/route.js';
import { RequestCounts } from './http/request-counts.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { Background } from './lib/background.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './lib/log.js';
import { openVault } from './lib/vault.js';
import { listenErrorCode, listenProblem, type ListenSettings } from './lib/listen-problem.js';
import { createNotifier } from './notify/index.js';
import {
  createPaymentAdapters,
  createPaymentGateway,
  sandboxAutopay,
  type PaymentProviders,
} from './payments/index.js';
import { webhookRoutes } from './payments/webhook.routes.js';
import { Scheduler, type ScheduledJob } from './scheduler.js';
import { createRadius, type CoaOptions, type Radius } from './radius/index.js';
import {
  closeStaleSessions,
  expireDue,
  expireInvoices,
  reconcilePayments,
  remindGuests,
  watchRouters,
  pruneSmsLog,
  PaymentOutcomes,
  type CoaClient,
} from './wifi/index.js';
import {
  accessRoutes,
  adminRoutes,
  loggedSms,
  staffRoutes,
  smsDeliveryRoutes,
  voucherRoutes,
} from './wifi/index.js';
import { planRoutes } from './wifi/plans.routes.js';
import { purchaseRoutes } from './wifi/purchases.routes.js';
import { guestSmsTexts, webRoutes } from './web/index.js';

export { DATABASE_FILE } from './db/index.js';

/** The core dependencies plus the ports features need from each other's adapters. */
export type Deps = CoreDeps & {
  /** OAuth signing keys (shared state: cached key material). */
  keys: Keyring;
  /** console ← oauth: grant counts for client stats. */
  grantStats: ClientGrantStats;
  /** identity ← oauth: bearer tokens on /profile. */
  bearer: BearerVerifier;
  /** The mobile-money providers (PAYMENT_PROVIDERS, or PAYMENT_PROVIDER) and their site accounts. */
  payments: PaymentProviders;
  /** RADIUS CoA/Disconnect sender (radius/coa.ts), also in the CLI's app. */
  coa: CoaClient;
  /** Payment outcomes decided by this process (GET /metrics). */
  outcomes: PaymentOutcomes;
};

export interface BuildOptions {
  clock?: Clock;
  log?: Logger;
  /** Replaces the 30 s request timeout (tests). */
  requestTimeoutMs?: number;
  rateLimitStore?: RateLimitStore;
  /** false: open the database as it is (`status` reports pending migrations instead of applying them). */
  migrate?: boolean;
  /** Extra routes mounted after the product's own (tests). */
  extraRoutes?: (deps: Deps) => Route[];
  /** CoA retry timing (tests). */
  coa?: CoaOptions;
  /**
   * false: `start()` registers the scheduled jobs without timing them (tests on a hand-moved
   * clock run them with `scheduler.trigger` or their functions, never on the wall clock's time).
   */
  timeJobs?: boolean;
}

export interface App {
  readonly deps: Deps;
  /** The store `deps.db` runs on (its change feed and job locks on PostgreSQL). */
  readonly store: Store;
  readonly http: HttpServer;
  readonly radius: Radius;
  readonly scheduler: Scheduler;
  /** Starts the listeners and the scheduled jobs. */
  start(): Promise<{ http: AddressInfo; radius: { auth?: AddressInfo; acct?: AddressInfo } }>;
  /** Stops listeners (letting in-flight requests finish within `graceMs`), jobs, then the database. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The composition root: opens the database, applies migrations, and wires every feature's
 * routes, jobs and ports. The CLI builds the same app without starting it.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  // Built first: a provider without its credentials stops start-up before anything opens.
  const adapters = createPaymentAdapters({ config, clock, log });
  const vault = openVault(config.dataDir);
  // A new data directory's database will need its first signing key: made on the thread pool
  // while the database is created and migrated (bench/footprint.ts, first start).
  const spareKey = config.newDataDir === true && options.migrate !== false ? makeKeyPair() : undefined;
  spareKey?.catch(() => undefined); // unused when a shared database has keys; a failure: a new try
  const store = await openStore(config, {
    now: () => clock.now(),
    onListenError: (err) => log.warn({ event: 'db.listen_failed', err }, 'database change feed interrupted'),
    checkpoints: {
      onError: (err) =>
        log.warn({ event: 'db.checkpoint_failed', err }, 'WAL checkpoints are back on the event loop'),
    },
  });
  const { db } = store;
  try {
    if (options.migrate !== false) await migrateToLatest(db);
  } catch (err) {
    await store.close();
    throw err;
  }
  // Every SMS in the SMS log (sms_messages), which the admin SMS page lists.
  const notifier = loggedSms({ db, clock, log, config }, createNotifier({ config, clock, log }));
  const background = new Background(log);
  const core: CoreDeps = {
    config,
    db,
    clock,
    log,
    notifier,
    commits: new GroupCommit(db),
    vault,
    background,
  };
  const keys = new Keyring(core, spareKey === undefined ? {} : { spare: spareKey });
  // A new box's first key is still being made when the listeners open: start() and close() wait
  // for it, and so does every use of the keyring.
  let firstKey: Promise<void> | undefined;
  if (options.migrate !== false) {
    try {
      await checkVault(db, vault, clock);
    } catch (err) {
      await store.close();
      throw err;
    }
    if (spareKey === undefined) await keys.ensureKey();
    else firstKey = keys.firstKeyInBackground();
  }
  const radius = createRadius({ ...core, vault }, options.coa);
  const deps: Deps = {
    ...core,
    keys,
    grantStats: grantStats(core),
    bearer: (token: string) => verifyBearer({ ...core, keys }, token),
    payments: createPaymentGateway(core, adapters),
    coa: radius.coa,
    outcomes: new PaymentOutcomes(),
  };

  const scheduler = new Scheduler(log, store.exclusive);
  const limiter = new RateLimiter({
    store: options.rateLimitStore ?? defaultRateLimitStore(store),
    clock,
    log,
  });
  const requestCounts = new RequestCounts();
  const routes: Route[] = [
    ...healthRoutes(deps),
    ...identityRoutes(deps),
    ...consoleRoutes(deps),
    ...oauthRoutes(deps),
    ...planRoutes(deps),
    ...purchaseRoutes(deps),
    ...accessRoutes(deps),
    ...voucherRoutes(deps),
    ...webhookRoutes(deps),
    ...smsDeliveryRoutes(deps),
    ...staffRoutes(deps),
    ...adminRoutes({
      ...deps,
      portal: {
        radius: () => {
          const { auth, acct } = radius.listening();
          return {
            listening: auth !== null || acct !== null,
            auth_port: auth?.port ?? null,
            acct_port: acct?.port ?? null,
          };
        },
      },
    }),
    ...webRoutes(deps),
    ...metricsRoutes({
      ...deps,
      radius: radius.counters,
      radiusTally: () => radius.tally(),
      jobRuns: scheduler.runs,
      jobFailures: scheduler.failures,
      httpRequests: requestCounts,
    }),
    ...(options.extraRoutes?.(deps) ?? []),
  ];
  const http = createHttpServer({
    config,
    clock,
    log,
    limiter,
    routes,
    requestCounts,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  });

  let closed = false;

  return {
    deps,
    store,
    http,
    radius,
    scheduler,
    async start() {
      const address = await http.listen(config.httpPort, config.httpHost).catch((err: unknown) => {
        throw listenFailure(err, {
          hostSetting: 'HTTP_HOST',
          host: config.httpHost,
          portSetting: 'HTTP_PORT',
          port: config.httpPort,
        });
      });
      const radiusAddresses = await radius.start(deps).catch((err: unknown) => {
        const port = (err as { port?: unknown }).port;
        const portSetting =
          port === config.radsecPort
            ? 'RADSEC_PORT'
            : port === config.radiusAcctPort
              ? 'RADIUS_ACCT_PORT'
              : 'RADIUS_AUTH_PORT';
        throw listenFailure(err, {
          hostSetting: 'RADIUS_HOST',
          host: config.radiusHost,
          portSetting,
          port: typeof port === 'number' ? port : config.radiusAuthPort,
        });
      });
      await firstKey;
      // Each job at its own second: run together at :00 they took both cores of a small box at
      // once, and RADIUS answers waited behind them (bench/radius, 500 venues on PostgreSQL).
      scheduler.add({ name: 'rate-limit.prune', cron: '25 */5 * * * *', run: () => limiter.prune() });
      scheduler.add({ name: 'sessions.prune', cron: '45 17 * * * *', run: () => pruneExpiredSessions(deps) });
      scheduler.add({ name: 'resets.prune', cron: '45 19 * * * *', run: () => pruneResetCodeMisses(deps) });
      scheduler.add({ name: 'oauth.prune', cron: '45 23 * * * *', run: () => pruneOAuthGrants(deps) });
      scheduler.add({ name: 'oauth.keys', cron: '50 * * * * *', run: () => keys.dropUnpublished() });
      for (const job of wifiJobs(deps)) scheduler.add(job);
      // This daemon's own tallies, written by each daemon.
      scheduler.add({
        name: 'radius.counters',
        cron: '5 * * * * *',
        local: true,
        run: () => radius.flushCounters(),
      });
      scheduler.add({
        name: 'radius.last-seen',
        cron: '15,45 * * * * *',
        local: true,
        run: () => radius.flushLastSeen(),
      });
      // Timed only now: loading the cron library does not delay the first answers.
      if (options.timeJobs !== false) await scheduler.start();
      return { http: address, radius: radiusAddresses };
    },
    async close({ graceMs = 10_000 } = {}) {
      if (closed) return;
      closed = true;
      // The listeners start closing (and the grace timer starts) in this same turn.
      await Promise.all([http.close(graceMs), radius.close()]);
      await background.drain(); // mail and SMS the answers promised go out before the database closes
      await scheduler.stop(); // lets a job that is running finish before the database closes
      await radius.flushCounters().catch((err: unknown) => {
        log.warn({ event: 'radius.counters_flush_failed', err }, 'RADIUS counters not saved');
      });
      await radius.flushLastSeen().catch((err: unknown) => {
        log.warn({ event: 'radius.last_seen_flush_failed', err }, 'routers last seen not saved');
      });
      notifier.close();
      await firstKey?.catch(() => undefined); // a first start's key row is written before the database closes
      await store.close();
    },
  };
}

/** A listener's failure to open, as the one line naming its setting (lib/listen-problem.ts). */
function listenFailure(err: unknown, where: ListenSettings): unknown {
  const code = listenErrorCode(err);
  return code === undefined ? err : new ConfigError([listenProblem(where, code)]);
}

/** The purchase flow's, grants' and RADIUS sessions' jobs; tests call the same functions directly after moving the clock. */
function wifiJobs(deps: Deps): ScheduledJob[] {
  const atSecond = (s: number) => `${String(s)} * * * * *`; // every minute, at second s
  return [
    { name: 'grants.expire', cron: atSecond(0), run: () => expireDue(deps) },
    { name: 'sessions.stale', cron: atSecond(10), run: () => closeStaleSessions(deps) },
    { name: 'invoices.expire', cron: atSecond(20), run: () => expireInvoices(deps) },
    { name: 'payments.poll', cron: atSecond(30), run: () => reconcilePayments(deps) },
    { name: 'grants.remind', cron: atSecond(40), run: () => remindGuests(deps, guestSmsTexts) },
    { name: 'routers.down', cron: atSecond(55), run: () => watchRouters(deps) },
    // Once a day, at a quiet hour (docs/decisions/0041-sms-retention.md).
    { name: 'sms.prune', cron: '35 41 3 * * *', run: () => pruneSmsLog(deps) },
    ...(deps.payments.name === 'sandbox' && deps.config.sandboxAutopaySeconds > 0
      ? [{ name: 'sandbox.autopay', cron: '*/5 * * * * *', run: () => sandboxAutopay(deps) }]
      : []),
  ];
}

/**
 * Limiter windows live in memory next to SQLite (one daemon per file), and in the database when
 * daemons share PostgreSQL, so a client's guesses count across all of them.
 */
function defaultRateLimitStore(store: Store): RateLimitStore {
  return store.kind === 'postgres' ? new SqlRateLimitStore(store.db) : new MemoryRateLimitStore();
}
