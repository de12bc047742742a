import { finalizeConfig, loadConfig, type LoadOptions } from './load.js';
import { ensureDataDir, loadOrCreateSecrets } from './secrets.js';
import type { Config } from './settings.js';

export { ConfigError, DEFAULT_CONFIG_FILE, loadConfig, finalizeConfig } from './load.js';
export type { LoadOptions } from './load.js';
export { settings, settingList, secretEnvNames } from './settings.js';
export type { Config, LoadedConfig, Setting, SettingKey } from './settings.js';
export type { TrustProxy } from './parsers.js';

/** Loads and validates the configuration, creates the data directory and the generated secrets. */
export function resolveConfig(options: LoadOptions): Config {
  const loaded = loadConfig(options);
  ensureDataDir(loaded.dataDir);
  return finalizeConfig(loaded, loadOrCreateSecrets(loaded.dataDir));
}

/** The process environment: the one place outside tests that reads process.env. */
export const processEnv = (): Readonly<Record<string, string | undefined>> => process.env;
