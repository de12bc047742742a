import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { normalisePhone } from '../lib/phone.js';
import { baseUrl, SettingError } from './parsers.js';
import { senderIdFrom, senderIdProblem } from './sender-id.js';
import { settingList, type Config, type LoadedConfig } from './settings.js';

export const DEFAULT_CONFIG_FILE = '/etc/hotspot-ctl/hotspot.env';

/** Every configuration problem found, one line each, each naming its variable. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadOptions {
  /** The process environment (or a test's stand-in). */
  env: Readonly<Record<string, string | undefined>>;
  /** `--config FILE`: must exist when given. */
  configFile?: string | undefined;
  /** Read when no --config is given and the file exists. */
  defaultConfigFile?: string;
  /**
   * `data`: only what reaching the data needs is checked (backup, restore): the payment and SMS
   * providers' settings, which only a running daemon uses, may be incomplete, so a broken provider
   * configuration never stops the nightly backup or the restore that repairs a box.
   */
  purpose?: 'daemon' | 'data';
}

/**
 * Reads the env file and the environment (the environment wins), parses every setting and
 * reports every problem at once. Pure apart from reading the env file.
 */
export function loadConfig(options: LoadOptions): LoadedConfig {
  const problems: string[] = [];
  const fileValues = readEnvFile(options, problems);
  return checkValues(fileValues, options.env, problems, options.purpose ?? 'daemon');
}

/**
 * Parses env-file values under the environment (which wins) and reports every problem at once,
 * with the problems already found; `hotspot-ctl setup` checks what it is about to write with it.
 */
export function checkValues(
  fileValues: Readonly<Record<string, string>>,
  env: LoadOptions['env'],
  problems: string[] = [],
  purpose: 'daemon' | 'data' = 'daemon',
): LoadedConfig {
  const known = new Set(settingList().map((s) => s.env));
  for (const name of Object.keys(fileValues)) {
    if (!known.has(name)) {
      problems.push(`${name}: unknown setting in the config file${didYouMean(name)}`);
    }
  }

  const values: Record<string, unknown> = {};
  for (const s of settingList()) {
    const raw = env[s.env] ?? fileValues[s.env] ?? s.default;
    try {
      values[s.key] = s.parse(raw);
    } catch (err) {
      if (!(err instanceof SettingError)) throw err;
      const shown = s.secret ? '' : ` (got "${raw}")`;
      problems.push(`${s.env}: ${err.message}${shown}`);
    }
  }
  // PUBLIC_BASE_URL unset: this box on its own HTTP_PORT (not 0, which is known only once
  // listening: the default's 8080 stands), so a trial box's printed links and issuer reach it.
  const port = values.httpPort;
  if (
    (env.PUBLIC_BASE_URL ?? fileValues.PUBLIC_BASE_URL) === undefined &&
    typeof port === 'number' &&
    port !== 0
  )
    values.publicBaseUrl = baseUrl(`http://localhost:${String(port)}`); // normalised as if given: port 80 drops
  if (problems.length === 0) {
    const given = env.ROUTER_DOWN_AFTER ?? fileValues.ROUTER_DOWN_AFTER;
    routerDownAfter(values as Mutable<LoadedConfig>, given, problems, purpose);
    crossChecks(values as LoadedConfig, problems, purpose);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values) as LoadedConfig;
}

export function readEnvFile(options: LoadOptions, problems: string[]): Record<string, string> {
  const file = options.configFile ?? options.defaultConfigFile ?? DEFAULT_CONFIG_FILE;
  if (options.configFile === undefined && !existsSync(file)) return {};
  try {
    const parsed = parseEnv(readFileSync(file, 'utf8'));
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    // Name what the operator gave: the --config flag, or the default file the daemon found.
    const source = options.configFile === undefined ? 'env file' : '--config';
    problems.push(`${source}: cannot read ${file}: ${code}`);
    return {};
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A router with guests reports every RADIUS_INTERIM_INTERVAL, so a silence shorter than one and a
 * half of them is no outage (docs/decisions/0038-router-down.md).
 */
const ROUTER_DOWN_INTERVALS = 1.5;

/**
 * ROUTER_DOWN_AFTER against RADIUS_INTERIM_INTERVAL. Unset, it is 10 minutes or 1.5 intervals,
 * whichever is longer, so a box with a long interval starts on the default; set below 1.5
 * intervals, it is refused like any bad value rather than quietly raised (the router watch would
 * otherwise wait longer than the operator asked, and nothing would say so). Only the running
 * daemon's watch uses it, so `data` (backup, restore) does not check it.
 */
function routerDownAfter(
  c: Mutable<LoadedConfig>,
  given: string | undefined,
  problems: string[],
  purpose: 'daemon' | 'data',
): void {
  const least = Math.ceil(c.radiusInterimInterval * ROUTER_DOWN_INTERVALS);
  if (given === undefined) c.routerDownAfter = Math.max(c.routerDownAfter, least);
  else if (c.routerDownAfter < least && purpose === 'daemon')
    problems.push(
      `ROUTER_DOWN_AFTER: must be at least 1.5 × RADIUS_INTERIM_INTERVAL, ${String(least)} seconds with RADIUS_INTERIM_INTERVAL ${String(c.radiusInterimInterval)} (got "${given}")`,
    );
}

/** The credentials each real payment provider cannot work without. */
const PAYMENT_CREDENTIALS: Readonly<Record<string, readonly (keyof LoadedConfig)[]>> = {
  selcom: ['selcomApiKey', 'selcomApiSecret', 'selcomVendor'],
  azampay: [
    'azampayAppName',
    'azampayClientId',
    'azampayClientSecret',
    'azampayApiKey',
    'azampayCallbackToken',
  ],
};

/**
 * The payment providers' problems, worded as payments/gateway.ts words them when it builds the
 * adapters: checked here so `serve` refuses before anything opens and `setup` refuses to write
 * what `serve` would refuse.
 */
function paymentProblems(c: LoadedConfig, problems: string[]): void {
  const order = c.paymentProviders ?? [c.paymentProvider];
  if (c.paymentProviders !== null && c.paymentProvider !== 'sandbox' && c.paymentProvider !== order[0]) {
    problems.push(
      `PAYMENT_PROVIDER: is ${c.paymentProvider} but PAYMENT_PROVIDERS starts with ${String(order[0])}: set one of them`,
    );
    return;
  }
  for (const provider of order) {
    const keys = PAYMENT_CREDENTIALS[provider] ?? [];
    const why =
      c.paymentProviders === null ? `PAYMENT_PROVIDER is ${provider}` : `PAYMENT_PROVIDERS names ${provider}`;
    for (const s of settingList())
      if (keys.includes(s.key) && c[s.key] === null) problems.push(`${s.env}: must be set when ${why}`);
  }
}

/** The payment and SMS providers' settings: what only a running daemon uses. */
function providerProblems(c: LoadedConfig, problems: string[]): void {
  paymentProblems(c, problems);
  if (c.smsProvider === 'http' && c.smsHttpUrl === null) {
    problems.push('SMS_HTTP_URL: must be set when SMS_PROVIDER is http');
  }
  if (c.smsProvider === 'beem') {
    if (c.beemApiKey === null) problems.push('BEEM_API_KEY: must be set when SMS_PROVIDER is beem');
    if (c.beemSecretKey === null) problems.push('BEEM_SECRET_KEY: must be set when SMS_PROVIDER is beem');
  }
  if (c.smsProvider === 'africastalking') {
    if (c.africastalkingUsername === null)
      problems.push('AFRICASTALKING_USERNAME: must be set when SMS_PROVIDER is africastalking');
    if (c.africastalkingApiKey === null)
      problems.push('AFRICASTALKING_API_KEY: must be set when SMS_PROVIDER is africastalking');
  }
  if (c.smsSenderId !== null) {
    const problem = senderIdProblem(c.smsProvider, c.smsSenderId);
    if (problem) problems.push(`SMS_SENDER_ID: ${problem} (got "${c.smsSenderId}")`);
  } else if (c.smsProvider !== 'outbox' && senderIdFrom(c.serviceName) === '') {
    problems.push(
      `SMS_SENDER_ID: SERVICE_NAME "${c.serviceName}" has no letters or digits (A-Z, 0-9) to make an SMS sender id from: set SMS_SENDER_ID (1-11 letters or digits)`,
    );
  }
}

function crossChecks(c: LoadedConfig, problems: string[], purpose: 'daemon' | 'data'): void {
  if (purpose === 'daemon') providerProblems(c, problems);
  if (c.radiusAuthPort !== 0 && c.radiusAuthPort === c.radiusAcctPort) {
    problems.push('RADIUS_ACCT_PORT: must differ from RADIUS_AUTH_PORT');
  }
  if (c.radsecPort !== 0 && c.radsecPort === c.httpPort) {
    problems.push('RADSEC_PORT: must differ from HTTP_PORT');
  }
  for (const number of c.routerDownSmsTo)
    if (normalisePhone(number, c.defaultCountryCode) === null)
      problems.push(`ROUTER_DOWN_SMS_TO: "${number}" is not a phone number`);
  if ((c.radsecCertFile === null) !== (c.radsecKeyFile === null)) {
    problems.push('RADSEC_KEY_FILE: RADSEC_CERT_FILE and RADSEC_KEY_FILE are set together, or neither');
  }
}

/** Where the RadSec CA and this box's RadSec certificate live when the settings name none. */
export const radsecDir = (dataDir: string): string => path.join(dataDir, 'radsec');

/** The RadSec files: those the settings name, else `hotspot-ctl devices radsec-cert`'s (docs/decisions/0025). */
export function radsecFiles(
  loaded: LoadedConfig,
): Pick<Config, 'radsecCertFile' | 'radsecKeyFile' | 'radsecCaFile'> {
  return {
    radsecCertFile: loaded.radsecCertFile ?? path.join(radsecDir(loaded.dataDir), 'server.pem'),
    radsecKeyFile: loaded.radsecKeyFile ?? path.join(radsecDir(loaded.dataDir), 'server.key'),
    radsecCaFile: loaded.radsecCaFile ?? path.join(radsecDir(loaded.dataDir), 'ca.pem'),
  };
}

/** Fills in values derived from other settings and the generated secrets. */
export function finalizeConfig(
  loaded: LoadedConfig,
  generated: { radiusSecret: string; paymentWebhookSecret: string },
): Config {
  const base = new URL(loaded.publicBaseUrl);
  return Object.freeze({
    ...loaded,
    radiusSecret: loaded.radiusSecret ?? generated.radiusSecret,
    paymentWebhookSecret: loaded.paymentWebhookSecret ?? generated.paymentWebhookSecret,
    // Checked by crossChecks: each is a number.
    routerDownSmsTo: loaded.routerDownSmsTo.map((n) => normalisePhone(n, loaded.defaultCountryCode) ?? n),
    webauthnRpId: loaded.webauthnRpId ?? base.hostname,
    webauthnOrigin: loaded.webauthnOrigin ?? base.origin,
    // Unset: made from SERVICE_NAME to fit every provider (config/sender-id.ts).
    smsSenderId: loaded.smsSenderId ?? (senderIdFrom(loaded.serviceName) || 'Hotspot'),
    ...radsecFiles(loaded),
    generatedSecrets: Object.freeze([
      ...(loaded.radiusSecret === null ? (['RADIUS_SECRET'] as const) : []),
      ...(loaded.paymentWebhookSecret === null ? (['PAYMENT_WEBHOOK_SECRET'] as const) : []),
    ]),
  });
}

/** ` (did you mean NAME?)` for a misspelt setting name close to a known one, else ''. */
export function didYouMean(name: string): string {
  const guess = closest(
    name,
    settingList().map((s) => s.env),
  );
  return guess === undefined ? '' : ` (did you mean ${guess}?)`;
}

/** The known name nearest to a misspelt one, when it is close enough to be a typo. */
function closest(name: string, candidates: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(name.toUpperCase(), c);
    if (!best || d < best.d) best = { name: c, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
