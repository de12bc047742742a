import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError, type Config } from '../../config/index.js';
import { databaseCreatedAt, dataDirHeld, migrationState } from '../../db/index.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { listAllDevices, shortRadiusSecrets } from '../../wifi/index.js';
import { contextOf, withApp, type CliContext } from '../context.js';
import {
  backupCheck,
  clockCheck,
  diskCheck,
  dnsCheck,
  httpPortCheck,
  isOurHealthz,
  paymentChecks,
  publicUrlCheck,
  radiusPortChecks,
  radiusSecretCheck,
  smsCheck,
  tlsCheck,
  type Check,
  type DaemonState,
} from '../doctor/checks.js';
import { ntpSynchronized, probeHttp } from '../doctor/probes.js';
import { databaseFailed, databaseOpened, DATABASE_TIMEOUT_MS, withinTime } from '../doctor/database.js';
import { routerChecks } from '../doctor/routers.js';
import { CliExit } from '../output.js';
import { localUrl } from './status.js';

/** `--now`: a time to start the clock at, or seconds to move it by. */
type NowFlag = Date | { seconds: number };

/**
 * The system clock moved to `now` (tests: `--now`), still ticking: doctor compares it with
 * peers' Date headers, so it must run like a clock, not stand still.
 */
function clockFrom(now: NowFlag | undefined): Clock {
  if (now === undefined) return systemClock;
  const offset = now instanceof Date ? now.getTime() - systemClock.now().getTime() : now.seconds * 1000;
  return { ...systemClock, now: () => new Date(systemClock.now().getTime() + offset) };
}

/**
 * An ISO-8601 time, or `+N`/`-N` seconds from the real clock: a test that means "20 s ahead" must
 * not lose the seconds a loaded box takes to start the process and read its settings.
 */
const parseNow = (raw: string): NowFlag => {
  const offset = /^([+-]\d+)$/.exec(raw);
  if (offset) return { seconds: Number(offset[1]) };
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError('must be an ISO-8601 time or +/- seconds');
  return at;
};

/**
 * The database's line and the routers' (read from it, their CoA ports probed), and when the
 * database was created (the backup check forgives a fresh install). A database that does not
 * open, or does not answer in time, is a failed line; the routers then go unread, and say so.
 */
async function storeChecks(
  ctx: CliContext,
  config: Config,
  clock: Clock,
): Promise<{ database: Check; routers: Check[]; createdAt: Date | null }> {
  try {
    return await withinTime(
      withApp(
        ctx,
        async (app) => {
          const state = await migrationState(app.deps.db);
          const database = databaseOpened(config, state);
          const createdAt = await databaseCreatedAt(app.deps.db);
          if (state.pending.length > 0)
            return {
              database,
              createdAt,
              routers: [
                {
                  name: 'routers',
                  status: 'warn',
                  detail: 'not read: the schema is behind',
                  fix: 'apply the pending migrations first: hotspot-ctl migrate',
                },
              ],
            };
          // A secret that cannot be read (vault.key changed) is no short one: the CoA probe says so.
          const short = await shortRadiusSecrets(app.deps).catch(() => ({ routers: [] }));
          // A probe that throws (the router's secret unreadable) leaves its port "not probed".
          const routers = await routerChecks(
            config,
            await listAllDevices(app.deps),
            clock.now(),
            (d) =>
              Promise.resolve(
                app.deps.coa.probe?.({
                  nasId: d.radius_nas_id,
                  clientIp: d.radius_client_ip,
                  coaPort: d.coa_port,
                }),
              ).catch(() => undefined),
            new Set(short.routers.map((r) => r.id)),
          );
          return { database, createdAt, routers };
        },
        { migrate: false, clock },
      ),
      DATABASE_TIMEOUT_MS,
    );
  } catch (err) {
    return {
      database: databaseFailed(config, err),
      createdAt: null,
      routers: [
        {
          name: 'routers',
          status: 'warn',
          detail: 'not read: the database did not open',
          fix: 'fix the database line first',
        },
      ],
    };
  }
}

/** One line per check, aligned, with the fix indented below each warning and failure. */
function render(checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.flatMap((c) => [
    `${c.name.padEnd(width)}  ${c.status.padEnd(4)}  ${c.detail}`,
    ...(c.fix === undefined ? [] : [`${' '.repeat(width + 2)}fix: ${c.fix}`]),
  ]);
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  return `${lines.join('\n')}\n\n${String(failed)} failed, ${String(warned)} warnings, ${String(
    checks.length - failed - warned,
  )} ok\n`;
}

/**
 * The settings, or (when they do not load) the end of the run: with --json a monitoring job still
 * gets its one document, each problem a failed `config` check; without, the usual error lines.
 */
function configOrReport(ctx: CliContext): Config {
  try {
    return ctx.config();
  } catch (err) {
    if (!(err instanceof ConfigError) || !ctx.out.json) throw err;
    const checks = err.problems.map((detail): Check => ({
      name: 'config',
      status: 'fail',
      detail,
      fix: 'correct it where it is set (the config file or the environment), or run hotspot-ctl setup',
    }));
    ctx.out.result({ checks, ok: false }, () => render(checks));
    throw new CliExit(1);
  }
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check what breaks venues (ports, clock, DNS, providers, routers, disk, backups) and say how to fix it',
    )
    .addOption(
      // Tests only (docs/decisions/0033-doctor.md): the injected clock, as the daemon's tests inject theirs.
      new Option('--now <time>', 'pretend the local clock reads this ISO-8601 time, or +/- seconds from now')
        .argParser(parseNow)
        .hideHelp(),
    )
    .action(async (flags: { now?: NowFlag }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = configOrReport(ctx);
      const clock = clockFrom(flags.now);
      const daemon = await probeHttp(clock, 'daemon', localUrl(config));
      // Ours only: another web server answering 200 on the port is no daemon of ours.
      const daemonRunning = daemon.answered && daemon.status === 200 && isOurHealthz(daemon.body);
      // A daemon too busy to answer in time still holds the data directory's lock.
      const daemonState: DaemonState = daemonRunning
        ? 'answers'
        : dataDirHeld(config.dataDir)
          ? 'silent'
          : 'none';

      // The bind tests first: while one holds the HTTP port for a moment, a probe of
      // PUBLIC_BASE_URL on this box would reach it instead of an honest "refused".
      const [http, radius] = await Promise.all([
        httpPortCheck(config, daemonState),
        radiusPortChecks(config, daemonState !== 'none'),
      ]);
      const [publicProbe, payments, sms, dns, ntp, store] = await Promise.all([
        probeHttp(clock, 'PUBLIC_BASE_URL', `${config.publicBaseUrl}/healthz`),
        paymentChecks(config, clock),
        smsCheck(config, clock),
        dnsCheck(config),
        ntpSynchronized(),
        storeChecks(ctx, config, clock),
      ]);
      const samples = [
        // While the daemon answers here, PUBLIC_BASE_URL's Date header is this box's own clock
        // (directly or through a proxy on it): no witness. It counts only when answered from elsewhere.
        ...(publicProbe.answered && publicProbe.clock && !daemonRunning ? [publicProbe.clock] : []),
        ...payments.samples,
        ...sms.samples,
      ];
      const checks: Check[] = [
        http,
        ...radius,
        radiusSecretCheck(config),
        publicUrlCheck(config, publicProbe, daemonRunning),
        tlsCheck(config),
        clockCheck(samples, ntp),
        dns,
        ...payments.checks,
        sms.check,
        store.database,
        ...store.routers,
        diskCheck(config.dataDir),
        backupCheck(config, clock.now(), store.createdAt),
      ];
      const healthy = checks.every((c) => c.status !== 'fail');
      ctx.out.result({ checks, ok: healthy }, () => render(checks));
      if (!healthy) throw new CliExit(1);
    });
}
