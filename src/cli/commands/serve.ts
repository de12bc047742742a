import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { buildApp } from '../../app.js';
import { DatabaseUnreachable, lockForDaemon } from '../../db/index.js';
import { runRadiusWorker } from '../../radius/worker.js';
import { WORKER_COMMAND } from '../../radius/workers.js';
import { RADIUS_SECRET_MIN_LENGTH, removeAddedSince, settings } from '../../config/index.js';
import { listStaffWithSites, shortRadiusSecrets } from '../../wifi/index.js';
import { contextOf } from '../context.js';

const GRACE_MS = 10_000;

/** Where the Debian package installs the application (packaging/debian/hotspot-ctl). */
const PACKAGE_DIR = '/usr/lib/hotspot-ctl/';

/** How an operator runs the CLI on this box: the package's command, or the checkout's script. */
function cliCommand(): string {
  const script = process.argv[1] ?? '';
  if (script.startsWith(PACKAGE_DIR)) return 'sudo -u hotspot-ctl hotspot-ctl';
  return `node ${path.relative(process.cwd(), script) || 'bin/hotspot-ctl'}`;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the daemon: HTTP (both APIs and the pages), RADIUS and the scheduled jobs')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, { createsBox: true });
      const config = ctx.config();
      // Before anything touches the data: a second daemon (or one started during a restore)
      // refuses here. Held until the process ends; the kernel lets go if it is killed.
      const lock = lockForDaemon(config.dataDir);
      // A start that failed on a directory that held no box takes back what it made there
      // (secrets.env first of all), while it still holds the lock: no box is left half-made. On
      // PostgreSQL only while the database was not reached: then it holds this box's seals.
      const failed = (err: unknown): never => {
        if (config.newDataDirBefore)
          removeAddedSince(config.newDataDirBefore, {
            postgres: config.databaseUrl !== null,
            reached: !(err instanceof DatabaseUnreachable),
          });
        lock.release();
        throw err;
      };
      const app = await buildApp(config).catch(failed);
      const { http } = await app.start().catch(async (err: unknown) => {
        // A start that failed (a port taken, say) closes what it opened and leaves no mark behind.
        await app.close({ graceMs: 0 }).catch(() => undefined);
        return failed(err);
      });
      // HTTP_PORT 0 (tests, trials) with PUBLIC_BASE_URL unset: the loader could not know the port
      // (the default's 8080 stands there), so the banner shows the one this start took.
      const pickedPort = config.httpPort === 0 && config.publicBaseUrl === settings.publicBaseUrl.default;
      const base = pickedPort ? `http://${hostOf(http.address)}:${String(http.port)}` : config.publicBaseUrl;
      // A mistyped HOTSPOT_DATA_DIR starts an empty box with new secrets: say so before all else.
      if (config.newDataDir)
        ctx.out.note(
          [
            `NEW DATA DIRECTORY: ${path.resolve(config.dataDir)} held no hotspot-ctl data, so new secrets` +
              `${config.databaseUrl === null ? ' and a new, empty database' : ''} were made there.`,
            `  If this box already has its data elsewhere, stop now (Ctrl-C) and set HOTSPOT_DATA_DIR to it.`,
          ].join('\n'),
        );
      // Asked before the banner: from the banner on, the signal handlers are set in the same tick.
      await warnShortSecrets(app);
      const ownerless = !(await listStaffWithSites(app.deps)).some((s) => s.role === 'owner');
      const command = cliCommand();
      ctx.out.note(
        [
          `hotspot-ctl is running (HTTP on ${http.address}:${String(http.port)}, data in ${config.dataDir})`,
          `  captive portal   ${base}/portal`,
          `  staff admin UI   ${base}/admin`,
          `  account pages    ${base}/account`,
          `  health           ${base}/healthz`,
          ...(pickedPort
            ? [
                `HTTP_PORT is 0: port ${String(http.port)} was picked for this start only, and the pages' links and OIDC issuer say ${config.publicBaseUrl}; set HTTP_PORT (and PUBLIC_BASE_URL) for a fixed address`,
              ]
            : []),
          ...(ownerless
            ? [
                `no owner account yet: ${command} setup --first-run (or ${command} staff add --email you@example.com --role owner)`,
              ]
            : []),
        ].join('\n'),
      );
      // bin/hotspot-ctl held the young generation small for the start; traffic may grow it again
      // (V8's default factor, docs/decisions/0044-bundle.md).
      setFlagsFromString('--semi-space-growth-factor=2');
      await waitForSignal();
      app.deps.log.info({ event: 'daemon.stopping' }, 'shutting down');
      // A second signal while we wait for in-flight work means "now".
      const force = (): never => process.exit(1);
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      await app.close({ graceMs: GRACE_MS });
      lock.release();
      app.deps.log.info({ event: 'daemon.stopped' }, 'stopped');
    });
}

/**
 * One warning at start for RADIUS secrets shorter than RFC 2865 §3's 16 octets: stored before
 * setup and `devices` refused them, they keep working (refusing to start would cut off a venue
 * after an upgrade); doctor says how to replace each.
 */
async function warnShortSecrets(app: Awaited<ReturnType<typeof buildApp>>): Promise<void> {
  const short = await shortRadiusSecrets(app.deps).catch(() => null); // unreadable: the RADIUS log says so
  if (short === null || (!short.global && short.routers.length === 0)) return;
  const names = [
    ...(short.global ? ['RADIUS_SECRET'] : []),
    ...short.routers.map((r) => `router ${r.radius_nas_id}`),
  ];
  app.deps.log.warn(
    {
      event: 'radius.short_secret',
      radius_secret_short: short.global,
      routers: short.routers.map((r) => r.radius_nas_id),
    },
    `RADIUS secret shorter than ${String(RADIUS_SECRET_MIN_LENGTH)} characters (RFC 2865 §3): ${names.join(', ')}; hotspot-ctl doctor says how to replace it`,
  );
}

/** The listener's address as a URL host: localhost for every address, IPv6 in brackets. */
const hostOf = (address: string): string =>
  address === '0.0.0.0' || address === '::' ? 'localhost' : address.includes(':') ? `[${address}]` : address;

/** A RADIUS worker process (RADIUS_WORKERS > 1): forked by `serve`, never run by hand. */
export function registerRadiusWorker(program: Command): void {
  program
    .command(WORKER_COMMAND, { hidden: true })
    .description('A RADIUS worker process, forked by serve when RADIUS_WORKERS > 1')
    .action(runRadiusWorker);
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}
