import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, finalizeConfig, loadConfig, type LoadOptions } from './load.js';
import {
  ForeignDataDirError,
  checkDataDirOwner,
  dataDirBefore,
  ensureDataDir,
  holdsBox,
  loadOrCreateSecrets,
} from './secrets.js';
import type { Config, LoadedConfig } from './settings.js';

export {
  ConfigError,
  DEFAULT_CONFIG_FILE,
  loadConfig,
  finalizeConfig,
  checkValues,
  didYouMean,
  readEnvFile,
  radsecDir,
  radsecFiles,
} from './load.js';
export type { LoadOptions } from './load.js';
export {
  settings,
  settingList,
  secretEnvNames,
  PAYMENT_PROVIDERS,
  RADIUS_SECRET_MIN_LENGTH,
  SITE_ACCOUNT_SETTINGS,
  SMS_PROVIDERS,
} from './settings.js';
export type { Config, LoadedConfig, PaymentProviderName, Setting, SettingKey } from './settings.js';
export type { TrustProxy } from './parsers.js';

export { holdsBox, removeAddedSince, type DataDirBefore } from './secrets.js';

/** The line every command but the ones that make a box says on a directory without one. */
export const noBoxProblem = (dataDir: string): string =>
  `no hotspot-ctl data in ${path.resolve(dataDir)} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it`;

/**
 * Loads and validates the configuration and reads the generated secrets. Only with `create`
 * (serve, setup, migrate) does a data directory without a box get one (the directory and its
 * secrets; the database is the store's): every other command refuses it and creates nothing, so
 * a mistyped HOTSPOT_DATA_DIR never becomes a new, empty box with new secrets. (`restore` makes
 * its box from the backup: resolveSettings.)
 */
export function resolveConfig(options: LoadOptions & { create?: boolean }): Config {
  const loaded = loadConfig(options);
  try {
    const newDataDir = !holdsBox(loaded.dataDir, { postgres: loaded.databaseUrl !== null });
    if (newDataDir && options.create !== true) throw new ConfigError([noBoxProblem(loaded.dataDir)]);
    const existed = existsSync(loaded.dataDir);
    ensureDataDir(loaded.dataDir);
    const before = newDataDir ? dataDirBefore(loaded.dataDir, existed) : undefined;
    return Object.freeze({
      ...finalizeConfig(loaded, loadOrCreateSecrets(loaded.dataDir)),
      newDataDir,
      ...(before && { newDataDirBefore: before }),
    });
  } catch (err) {
    throw dataDirProblem(loaded.dataDir, err);
  }
}

/**
 * The settings alone, for `restore`: it makes its box from the backup, so nothing (not the
 * directory, not secrets.env) may be made before the backup is checked; a refused restore leaves
 * the data directory as it was. Root is refused in another user's directory as resolveConfig does.
 */
export function resolveSettings(options: LoadOptions): LoadedConfig {
  const loaded = loadConfig(options);
  try {
    checkDataDirOwner(loaded.dataDir);
  } catch (err) {
    throw dataDirProblem(loaded.dataDir, err);
  }
  return loaded;
}

/** What went wrong with the data directory, as the one line naming HOTSPOT_DATA_DIR. */
function dataDirProblem(dataDir: string, err: unknown): ConfigError {
  if (err instanceof ConfigError) return err;
  if (err instanceof ForeignDataDirError)
    return new ConfigError([
      `HOTSPOT_DATA_DIR: ${dataDir} belongs to uid ${String(err.owner)}; run hotspot-ctl as that user (sudo -u <user> hotspot-ctl …), not as root`,
    ]);
  // A data directory we cannot create, enter or write (a file in the way, wrong owner…).
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  return new ConfigError([`HOTSPOT_DATA_DIR: cannot create or use ${dataDir}: ${code}`]);
}

/** The process environment: the one place outside tests that reads process.env. */
export const processEnv = (): Readonly<Record<string, string | undefined>> => process.env;
