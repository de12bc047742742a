import type { Command } from 'commander';
import { pino } from 'pino';
import { buildApp, type App, type BuildOptions } from '../app.js';
import {
  processEnv,
  resolveConfig,
  resolveSettings,
  type Config,
  type LoadedConfig,
} from '../config/index.js';
import { createLogger } from '../lib/log.js';
import { Output } from './output.js';

export interface GlobalOptions {
  config?: string;
  json?: boolean;
}

export interface CliContext {
  out: Output;
  /** Loads and validates the configuration (a command that makes a box: and creates the data directory). */
  config(): Config;
  /**
   * The same, checking only what reaching the data needs (backup, restore): an incomplete payment
   * or SMS provider configuration, which stops the daemon, does not stop these.
   */
  dataConfig(): Config;
  /**
   * The settings `dataConfig` checks, touching nothing in the data directory (no directory, no
   * secrets.env): for `restore`, which makes its box from the backup once the backup is checked.
   */
  dataSettings(): LoadedConfig;
}

/**
 * `createsBox`: the commands meant to make a box (serve, setup, migrate) make one in a data
 * directory that holds none; every other command refuses such a directory with one line and
 * creates nothing (config/index.ts, resolveConfig). `restore` makes its box from the backup
 * (dataSettings).
 */
export function contextOf(cmd: Command, options: { createsBox?: boolean } = {}): CliContext {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const create = options.createsBox === true;
  let config: Config | undefined;
  let dataConfig: Config | undefined;
  return {
    out: new Output(opts.json === true),
    config: () => (config ??= resolveConfig({ env: processEnv(), configFile: opts.config, create })),
    dataConfig: () =>
      (dataConfig ??= resolveConfig({ env: processEnv(), configFile: opts.config, purpose: 'data', create })),
    dataSettings: () => resolveSettings({ env: processEnv(), configFile: opts.config, purpose: 'data' }),
  };
}

/**
 * Runs `fn` against the app without listeners (same database, same domain functions as the
 * daemon), then closes it. Logs go to stderr at warn level so stdout stays the result.
 */
export async function withApp<T>(
  ctx: CliContext,
  fn: (app: App) => Promise<T>,
  options: Omit<BuildOptions, 'log'> = {},
): Promise<T> {
  const config = ctx.config();
  const app = await buildApp(config, { ...options, log: createLogger('warn', pino.destination(2)) });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
