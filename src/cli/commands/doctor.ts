import { InvalidArgumentError, Option, type Command } from 'commander';
import { migrationState } from '../../db/index.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { listAllDevices } from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
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
  smsCheck,
  tlsCheck,
  type Check,
} from '../doctor/checks.js';
import { ntpSynchronized, probeHttp } from '../doctor/probes.js';
import { routerChecks } from '../doctor/routers.js';
import { CliExit } from '../output.js';
import { localUrl } from './status.js';

/**
 * The system clock moved to `start` (tests: `--now`), still ticking: doctor compares it with
 * peers' Date headers, so it must run like a clock, not stand still.
 */
function clockFrom(start: Date | undefined): Clock {
  if (start === undefined) return systemClock;
  const offset = start.getTime() - systemClock.now().getTime();
  return { ...systemClock, now: () => new Date(systemClock.now().getTime() + offset) };
}

const parseNow = (raw: string): Date => {
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError('must be an ISO-8601 time');
  return at;
};

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

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check what breaks venues (ports, clock, DNS, providers, routers, disk, backups) and say how to fix it',
    )
    .addOption(
      // Tests only (docs/decisions/0033-doctor.md): the injected clock, as the daemon's tests inject theirs.
      new Option('--now <time>', 'pretend the local clock reads this ISO-8601 time')
        .argParser(parseNow)
        .hideHelp(),
    )
    .action(async (flags: { now?: Date }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const clock = clockFrom(flags.now);
      const daemon = await probeHttp(clock, 'daemon', localUrl(config));
      // Ours only: another web server answering 200 on the port is no daemon of ours.
      const daemonRunning = daemon.answered && daemon.status === 200 && isOurHealthz(daemon.body);

      // The bind tests first: while one holds the HTTP port for a moment, a probe of
      // PUBLIC_BASE_URL on this box would reach it instead of an honest "refused".
      const [http, radius] = await Promise.all([
        httpPortCheck(config, daemonRunning),
        radiusPortChecks(config, daemonRunning),
      ]);
      const [publicProbe, payments, sms, dns, ntp, routers] = await Promise.all([
        probeHttp(clock, 'PUBLIC_BASE_URL', `${config.publicBaseUrl}/healthz`),
        paymentChecks(config, clock),
        smsCheck(config, clock),
        dnsCheck(config),
        ntpSynchronized(),
        withApp(
          ctx,
          async (app): Promise<Check[]> => {
            const migrations = await migrationState(app.deps.db);
            if (migrations.pending.length > 0)
              return [
                {
                  name: 'routers',
                  status: 'warn',
                  detail: `${String(migrations.pending.length)} migrations pending: routers not read`,
                  fix: 'apply them: hotspot-ctl migrate (the daemon does at start)',
                },
              ];
            return routerChecks(config, await listAllDevices(app.deps), clock.now());
          },
          { migrate: false, clock },
        ),
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
        publicUrlCheck(config, publicProbe, daemonRunning),
        tlsCheck(config),
        clockCheck(samples, ntp),
        dns,
        ...payments.checks,
        sms.check,
        ...routers,
        diskCheck(config.dataDir),
        backupCheck(config, clock.now()),
      ];
      const healthy = checks.every((c) => c.status !== 'fail');
      ctx.out.result({ checks, ok: healthy }, () => render(checks));
      if (!healthy) throw new CliExit(1);
    });
}
