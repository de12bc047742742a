import path from 'node:path';
import { ConfigError, finalizeConfig, loadConfig, type LoadOptions } from './load.js';
import { ForeignDataDirError, ensureDataDir, holdsBox, loadOrCreateSecrets } from './secrets.js';
import type { Config } from './settings.js';

export {
  ConfigError,
  DEFAULT_CONFIG_FILE,
  loadConfig,
  finalizeConfig,
  checkValues,
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
  SITE_ACCOUNT_SETTINGS,
  SMS_PROVIDERS,
} from './settings.js';
export type { Config, LoadedConfig, PaymentProviderName, Setting, SettingKey } from './settings.js';
export type { TrustProxy } from './parsers.js';

export { holdsBox } from './secrets.js';

/** The line every command but the ones that make a box says on a directory without one. */
export const noBoxProblem = (dataDir: string): string =>
  `no hotspot-ctl data in ${path.resolve(dataDir)} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it`;

/**
 * Loads and validates the configuration and reads the generated secrets. Only with `create`
 * (serve, setup, migrate, restore) does a data directory without a box get one (the directory
 * and its secrets; the database is the store's): every other command refuses it and creates
 * nothing, so a mistyped HOTSPOT_DATA_DIR never becomes a new, empty box with new secrets.
 */
export function resolveConfig(options: LoadOptions & { create?: boolean }): Config {
  const loaded = loadConfig(options);
  try {
    const newDataDir = !holdsBox(loaded.dataDir);
    if (newDataDir && options.create !== true) throw new ConfigError([noBoxProblem(loaded.dataDir)]);
    ensureDataDir(loaded.dataDir);
    return Object.freeze({ ...finalizeConfig(loaded, loadOrCreateSecrets(loaded.dataDir)), newDataDir });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof ForeignDataDirError)
      throw new ConfigError([
        `HOTSPOT_DATA_DIR: ${loaded.dataDir} belongs to uid ${String(err.owner)}; run hotspot-ctl as that user (sudo -u <user> hotspot-ctl …), not as root`,
      ]);
    // A data directory we cannot create, enter or write (a file in the way, wrong owner…).
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError([`HOTSPOT_DATA_DIR: cannot create or use ${loaded.dataDir}: ${code}`]);
  }
}

/** The process environment: the one place outside tests that reads process.env. */
export const processEnv = (): Readonly<Record<string, string | undefined>> => process.env;
