import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { buildApp } from '../../app.js';
import { lockForDaemon } from '../../db/index.js';
import { runRadiusWorker } from '../../radius/worker.js';
import { WORKER_COMMAND } from '../../radius/workers.js';
import { listStaffWithSites } from '../../wifi/index.js';
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
      const app = await buildApp(config).catch((err: unknown) => {
        lock.release();
        throw err;
      });
      const { http } = await app.start().catch(async (err: unknown) => {
        // A start that failed (a port taken, say) closes what it opened and leaves no mark behind.
        await app.close({ graceMs: 0 }).catch(() => undefined);
        lock.release();
        throw err;
      });
      const base = config.publicBaseUrl;
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
      const ownerless = !(await listStaffWithSites(app.deps)).some((s) => s.role === 'owner');
      const command = cliCommand();
      ctx.out.note(
        [
          `hotspot-ctl is running (HTTP on ${http.address}:${String(http.port)}, data in ${config.dataDir})`,
          `  captive portal   ${base}/portal`,
          `  staff admin UI   ${base}/admin`,
          `  account pages    ${base}/account`,
          `  health           ${base}/healthz`,
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
