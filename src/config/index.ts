import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, finalizeConfig, loadConfig, type LoadOptions } from './load.js';
import { ForeignDataDirError, SECRETS_FILE, ensureDataDir, loadOrCreateSecrets } from './secrets.js';
import type { Config } from './settings.js';

export {
  ConfigError,
  DEFAULT_CONFIG_FILE,
  loadConfig,
  finalizeConfig,
  checkValues,
  readEnvFile,
  radsecDir,
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

/** Loads and validates the configuration, creates the data directory and the generated secrets. */
export function resolveConfig(options: LoadOptions): Config {
  const loaded = loadConfig(options);
  try {
    ensureDataDir(loaded.dataDir);
    const newDataDir = !existsSync(path.join(loaded.dataDir, SECRETS_FILE));
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
