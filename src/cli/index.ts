import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { isAppError } from '../lib/errors.js';
import { packageVersion } from '../lib/paths.js';
import { registerBackup } from './commands/backup.js';
import { registerClients } from './commands/clients.js';
import { registerGrants } from './commands/grants.js';
import { registerKeys } from './commands/keys.js';
import { registerMetrics } from './commands/metrics.js';
import { registerDevices } from './commands/devices.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMigrate } from './commands/migrate.js';
import { registerOutbox } from './commands/outbox.js';
import { registerPlans } from './commands/plans.js';
import { registerReport } from './commands/report.js';
import { registerRadiusWorker, registerServe } from './commands/serve.js';
import { registerSetup } from './commands/setup.js';
import { registerSites } from './commands/sites.js';
import { registerSocial } from './commands/social.js';
import { registerSessions } from './commands/sessions.js';
import { registerStaff } from './commands/staff.js';
import { registerStatus } from './commands/status.js';
import { registerVouchers } from './commands/vouchers.js';
import { CliExit } from './output.js';

export const EXIT = { ok: 0, error: 1, usage: 2 } as const;

/** The whole command tree; every leaf registers itself from cli/commands/<noun>.ts. */
export function buildProgram(): Command {
  const program = new Command()
    .name('hotspot-ctl')
    .description('Wi-Fi hotspot controller: daemon and operator commands')
    .version(packageVersion())
    .option('--config <file>', 'env file with settings (default /etc/hotspot-ctl/hotspot.env when it exists)')
    .option('--json', 'print one JSON document on stdout')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerServe(program);
  registerRadiusWorker(program);
  registerSetup(program);
  registerMigrate(program);
  registerStatus(program);
  registerDoctor(program);
  registerMetrics(program);
  registerOutbox(program);
  registerStaff(program);
  registerKeys(program);
  registerClients(program);
  registerSocial(program);
  registerSites(program);
  registerPlans(program);
  registerDevices(program);
  registerSessions(program);
  registerGrants(program);
  registerVouchers(program);
  registerReport(program);
  registerBackup(program);
  // Subcommands inherit the usage-error behaviour.
  for (const cmd of allCommands(program)) cmd.exitOverride().showHelpAfterError();
  return program;
}

export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Runs the CLI and returns the exit code: 0 success, 1 error (one line on stderr), 2 usage. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CliExit) return err.code;
    if (err instanceof CommanderError) {
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0
        ? EXIT.ok
        : EXIT.usage;
    }
    if (err instanceof ConfigError) {
      for (const problem of err.problems) process.stderr.write(`error: ${problem}\n`);
      return EXIT.error;
    }
    const message = isAppError(err) ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    return EXIT.error;
  }
}
