import { parseDuration } from '../lib/duration.js';
import * as p from './parsers.js';
import { SettingError, type Parser } from './parsers.js';
import type { DataDirBefore } from './secrets.js';

/**
 * One row per configuration value. This table drives the loader (env file + environment), the
 * README's configuration table (a test keeps them equal), `hotspot-ctl setup` and log redaction.
 * Add a setting by adding a row here and nowhere else.
 */
export interface Setting<T> {
  /** Environment variable name. */
  readonly env: string;
  /** The raw default, as it would be written in the env file. */
  readonly default: string;
  /** What the README shows in the default column when the raw default is not the whole story. */
  readonly shownDefault?: string;
  readonly parse: Parser<T>;
  readonly doc: string;
  /** Redacted in logs and `status`; never printed. */
  readonly secret?: boolean;
}

const setting = <T>(s: Setting<T>): Setting<T> => s;

/** A positive duration in seconds, written as seconds or 30m / 1h / 1d. */
const duration: Parser<number> = (raw) => {
  try {
    const seconds = parseDuration(raw);
    if (seconds > 0) return seconds;
  } catch {
    // reported below
  }
  throw new SettingError('must be a duration: seconds, or like 15m, 1h, 1d');
};

/** A duration of at least 60 s (CoovaChilli ignores a shorter Acct-Interim-Interval). */
const interimInterval: Parser<number> = (raw) => {
  const seconds = duration(raw);
  if (seconds < 60) throw new SettingError('must be at least 60 seconds');
  return seconds;
};

/** A duration, or 0 for "off". */
const durationOrOff: Parser<number> = (raw) => (raw.trim() === '0' ? 0 : duration(raw));

/**
 * How long to keep a log: at least a day, or `0`/`off` to keep it forever. A bare number is
 * seconds, as everywhere, so `365` (six minutes) is refused rather than emptying the log
 * (docs/decisions/0041-sms-retention.md).
 */
const retention: Parser<number> = (raw) => {
  if (['0', 'off'].includes(raw.trim().toLowerCase())) return 0;
  const seconds = duration(raw);
  if (seconds < 86_400)
    throw new SettingError('must be at least 1d (like 90d, 365d), or 0/off to keep it forever');
  return seconds;
};

/**
 * The shortest RADIUS shared secret setup and `devices` take (RFC 2865 §3: at least 16 octets).
 * A shorter one already stored still works; doctor and the daemon's start warn about it.
 */
export const RADIUS_SECRET_MIN_LENGTH = 16;

/** The most RADIUS worker processes (RADIUS_WORKERS). */
export const MAX_RADIUS_WORKERS = 64;

/** `auto` (0: one per core, resolved at start) or a count of processes, 1 to 64. */
const radiusWorkers: Parser<number | 'auto'> = (raw) => {
  const text = raw.trim().toLowerCase();
  if (text === 'auto') return 'auto';
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (n >= 1 && n <= MAX_RADIUS_WORKERS) return n;
  throw new SettingError(`must be auto or a whole number from 1 to ${String(MAX_RADIUS_WORKERS)}`);
};

export const SMS_PROVIDERS = ['outbox', 'http', 'beem', 'africastalking'] as const;
export const PAYMENT_PROVIDERS = ['sandbox', 'selcom', 'azampay'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];
/** The SMS reminders guests get (wifi/reminders.ts): before the end of their time, at 80 % of their data. */
export const GUEST_REMINDERS = ['ends', 'data'] as const;

/**
 * The settings a site's own provider account replaces, by provider (docs/decisions/0032): a
 * site may hold its own credentials; the base URLs and everything else stay the box's.
 */
export const SITE_ACCOUNT_SETTINGS = {
  selcom: ['SELCOM_API_KEY', 'SELCOM_API_SECRET', 'SELCOM_VENDOR'],
  azampay: ['AZAMPAY_APP_NAME', 'AZAMPAY_CLIENT_ID', 'AZAMPAY_CLIENT_SECRET', 'AZAMPAY_API_KEY'],
} as const satisfies Partial<Record<PaymentProviderName, readonly string[]>>;

/** PAYMENT_PROVIDERS: the fallback order, e.g. `selcom,azampay`; each name once; the sandbox alone. */
const providerOrder: Parser<readonly PaymentProviderName[]> = (raw) => {
  const names = raw.split(',').map((n) => p.oneOf(...PAYMENT_PROVIDERS)(n));
  if (new Set(names).size !== names.length) throw new SettingError('names a provider twice');
  if (names.length > 1 && names.includes('sandbox'))
    throw new SettingError('the sandbox takes no money: it cannot be combined with real providers');
  return Object.freeze(names);
};

/** The secret path segment of a callback URL: long enough not to be guessed, safe in a URL. */
const callbackToken: Parser<string> = (raw) => {
  const v = raw.trim();
  if (!/^[A-Za-z0-9_-]{32,200}$/.test(v))
    throw new SettingError('must be 32 to 200 letters, digits, - or _ (e.g. openssl rand -hex 24)');
  return v;
};
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const settings = {
  dataDir: setting({
    env: 'HOTSPOT_DATA_DIR',
    default: './data',
    parse: p.nonEmpty,
    doc: 'database, keys, outbox spool (created with mode 0700)',
  }),
  databaseUrl: setting({
    env: 'DATABASE_URL',
    default: '',
    shownDefault: 'SQLite in HOTSPOT_DATA_DIR',
    parse: p.optional(p.postgresUrl),
    doc: 'PostgreSQL instead of SQLite: `postgres://user:pass@host:5432/db` (optional `?schema=name`); several daemons may share it',
    secret: true,
  }),
  publicBaseUrl: setting({
    env: 'PUBLIC_BASE_URL',
    default: 'http://localhost:8080',
    // Unset, it follows HTTP_PORT (load.ts): a trial box on another port links to itself.
    shownDefault: '`http://localhost:<HTTP_PORT>`',
    parse: p.baseUrl,
    doc: 'identity `{base_url}` and OIDC issuer; also the Wi-Fi `{api_base_url}`',
  }),
  httpHost: setting({ env: 'HTTP_HOST', default: '0.0.0.0', parse: p.host, doc: 'HTTP listener address' }),
  httpPort: setting({
    env: 'HTTP_PORT',
    default: '8080',
    parse: p.port,
    doc: 'HTTP listener port; `0` picks a free one at each start (tests only: `setup` refuses it, routers need a fixed port)',
  }),
  radiusHost: setting({
    env: 'RADIUS_HOST',
    default: '0.0.0.0',
    parse: p.host,
    doc: 'RADIUS listener address',
  }),
  radiusAuthPort: setting({
    env: 'RADIUS_AUTH_PORT',
    default: '1812',
    parse: p.port,
    doc: 'RADIUS authorization port; 0 disables it',
  }),
  radiusAcctPort: setting({
    env: 'RADIUS_ACCT_PORT',
    default: '1813',
    parse: p.port,
    doc: 'RADIUS accounting port; 0 disables it',
  }),
  radiusSecret: setting({
    env: 'RADIUS_SECRET',
    default: '',
    shownDefault: 'generated at first start, stored',
    parse: p.optional(p.nonEmpty),
    doc: 'shared secret for devices that have none of their own; `setup` takes one of 16 characters or more',
    secret: true,
  }),
  radiusInterimInterval: setting({
    env: 'RADIUS_INTERIM_INTERVAL',
    default: '300',
    parse: interimInterval,
    doc: 'Acct-Interim-Interval sent in Access-Accept (at least 60 s); sessions silent for 2.5 × this are closed as stale',
  }),
  radiusIdleTimeout: setting({
    env: 'RADIUS_IDLE_TIMEOUT',
    default: '600',
    parse: durationOrOff,
    doc: 'Idle-Timeout sent in Access-Accept: the router ends a session idle this long; 0 sends none',
  }),
  radiusWorkers: setting({
    env: 'RADIUS_WORKERS',
    default: '1',
    parse: radiusWorkers,
    doc: 'processes answering RADIUS logins over UDP (accounting stays in the daemon): `1` (the daemon itself), up to `64`, or `auto` (one per core); see docs/decisions/0046-radius-workers.md',
  }),
  radsecPort: setting({
    env: 'RADSEC_PORT',
    default: '0',
    shownDefault: '`0` (off)',
    parse: p.port,
    doc: 'RadSec (RADIUS over TLS, RFC 6614) listener port on RADIUS_HOST, beside UDP; 2083 is the standard one',
  }),
  radsecCertFile: setting({
    env: 'RADSEC_CERT_FILE',
    default: '',
    shownDefault: '`<data dir>/radsec/server.pem`',
    parse: p.optional(p.nonEmpty),
    doc: "RadSec: this box's TLS certificate (PEM, chain allowed); `devices radsec-cert` creates the default one",
  }),
  radsecKeyFile: setting({
    env: 'RADSEC_KEY_FILE',
    default: '',
    shownDefault: '`<data dir>/radsec/server.key`',
    parse: p.optional(p.nonEmpty),
    doc: 'RadSec: the private key of RADSEC_CERT_FILE (PEM)',
  }),
  radsecCaFile: setting({
    env: 'RADSEC_CA_FILE',
    default: '',
    shownDefault: '`<data dir>/radsec/ca.pem`',
    parse: p.optional(p.nonEmpty),
    doc: "RadSec: the CA routers' client certificates must chain to (PEM); each names its router's NAS id as CN",
  }),
  wireguardEndpoint: setting({
    env: 'WIREGUARD_ENDPOINT',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.hostPort),
    doc: 'WireGuard: `host:port` remote routers dial to reach this box (printed by `devices router-config`)',
  }),
  wireguardPublicKey: setting({
    env: 'WIREGUARD_PUBLIC_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.wireguardKey),
    doc: "WireGuard: this box's public key (`wg pubkey`); the private key stays with wg-quick",
  }),
  wireguardAddress: setting({
    env: 'WIREGUARD_ADDRESS',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.ipv4Interface),
    doc: "WireGuard: this box's tunnel address with the tunnel subnet, e.g. `10.99.0.1/24`; routers reach RADIUS and the portal on it",
  }),
  serviceName: setting({
    env: 'SERVICE_NAME',
    default: 'Hotspot',
    parse: p.nonEmpty,
    doc: 'display name: TOTP issuer label, mail sender name, page titles',
  }),
  invoicePrefix: setting({
    env: 'INVOICE_PREFIX',
    default: 'HS',
    parse: p.invoicePrefix,
    doc: 'invoice numbers `<PREFIX>-<6 digits>-<8 chars>` (upper-case letters and digits)',
  }),
  defaultCountryCode: setting({
    env: 'DEFAULT_COUNTRY_CODE',
    default: '255',
    parse: p.countryCode,
    doc: 'country calling code of phone numbers written without one (`0712…` becomes `+255712…`)',
  }),
  invoiceExpiry: setting({
    env: 'INVOICE_EXPIRY',
    default: '15m',
    parse: duration,
    doc: 'a pending invoice not paid within this time becomes `expired` (seconds or `15m`, `1h`)',
  }),
  uamSecret: setting({
    env: 'UAM_SECRET',
    default: '',
    parse: p.optional(p.text),
    doc: 'CoovaChilli uam secret for devices that have none of their own',
    secret: true,
  }),
  oidcIdToken: setting({
    env: 'OIDC_ID_TOKEN',
    default: 'on',
    parse: p.onOff,
    doc: 'issue an `id_token` for `openid` requests; `off` for strict spec parity',
  }),
  corsAllowedOrigins: setting({
    env: 'CORS_ALLOWED_ORIGINS',
    default: '',
    parse: p.originList,
    doc: 'identity API CORS allow-list (comma-separated origins)',
  }),
  adminOrigin: setting({
    env: 'ADMIN_ORIGIN',
    default: '',
    parse: p.optional(p.origin),
    doc: 'Wi-Fi API CORS origin of the staff admin UI; the admin cookie is Secure when it is https',
  }),
  portalOrigin: setting({
    env: 'PORTAL_ORIGIN',
    default: '',
    parse: p.optional(p.origin),
    doc: 'Wi-Fi API CORS origin of an external captive portal',
  }),
  trustProxy: setting({
    env: 'TRUST_PROXY',
    default: 'loopback',
    parse: p.trustProxy,
    doc: 'whose `X-Forwarded-For` is believed: `loopback`, `all`, `none`, or a CIDR list',
  }),
  webauthnRpId: setting({
    env: 'WEBAUTHN_RPID',
    default: '',
    shownDefault: 'host of PUBLIC_BASE_URL',
    parse: p.optional(p.host),
    doc: 'passkey relying-party id',
  }),
  webauthnOrigin: setting({
    env: 'WEBAUTHN_ORIGIN',
    default: '',
    shownDefault: 'origin of PUBLIC_BASE_URL',
    parse: p.optional(p.origin),
    doc: 'origin passkey ceremonies must come from',
  }),
  smtpUrl: setting({
    env: 'SMTP_URL',
    default: '',
    parse: p.optional(p.urlWithScheme('smtp', 'smtps')),
    doc: 'real SMTP (`smtp://user:pass@host:587`, `smtps://…`) when set; otherwise mail goes to the outbox',
    secret: true,
  }),
  mailFrom: setting({
    env: 'MAIL_FROM',
    default: 'hotspot@localhost',
    parse: p.mailAddress,
    doc: 'sender address of mail',
  }),
  smsProvider: setting({
    env: 'SMS_PROVIDER',
    default: 'outbox',
    parse: p.oneOf(...SMS_PROVIDERS),
    doc: 'SMS gateway: `outbox` (spool file), `http` (generic JSON gateway), `beem` or `africastalking`',
  }),
  smsHttpUrl: setting({
    env: 'SMS_HTTP_URL',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.urlWithScheme('http', 'https')),
    doc: '`http` provider: POST JSON `{to, message, sender_id}` here with `Authorization: Bearer`',
  }),
  smsHttpToken: setting({
    env: 'SMS_HTTP_TOKEN',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.text),
    doc: '`http` provider: the bearer token',
    secret: true,
  }),
  smsDeliveryToken: setting({
    env: 'SMS_DELIVERY_TOKEN',
    default: '',
    shownDefault: '—',
    parse: p.optional(callbackToken),
    doc: 'secret last segment of the delivery-report URL given to the SMS gateway, `PUBLIC_BASE_URL/sms/delivery/<token>` (32+ letters, digits, - or _; `setup` makes one); unset: reports are refused and a sent SMS never shows as delivered',
    secret: true,
  }),
  beemApiKey: setting({
    env: 'BEEM_API_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`beem` provider: API key (Beem Africa)',
    secret: true,
  }),
  beemSecretKey: setting({
    env: 'BEEM_SECRET_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`beem` provider: secret key',
    secret: true,
  }),
  beemSmsUrl: setting({
    env: 'BEEM_SMS_URL',
    default: 'https://apisms.beem.africa/v1/send',
    parse: p.urlWithScheme('http', 'https'),
    doc: '`beem` provider: the send endpoint',
  }),
  africastalkingUsername: setting({
    env: 'AFRICASTALKING_USERNAME',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: "`africastalking` provider: the app's username (`sandbox` for the sandbox)",
  }),
  africastalkingApiKey: setting({
    env: 'AFRICASTALKING_API_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`africastalking` provider: API key',
    secret: true,
  }),
  africastalkingSmsUrl: setting({
    env: 'AFRICASTALKING_SMS_URL',
    default: 'https://api.africastalking.com/version1/messaging',
    parse: p.urlWithScheme('http', 'https'),
    doc: '`africastalking` provider: the messaging endpoint (sandbox: `https://api.sandbox.africastalking.com/version1/messaging`)',
  }),
  smsSenderId: setting({
    env: 'SMS_SENDER_ID',
    default: '',
    shownDefault: 'SERVICE_NAME',
    parse: p.optional(p.nonEmpty),
    doc: 'default SMS sender id; http, beem, africastalking: 1-11 letters or digits (checked at start). Unset: the words of SERVICE_NAME that fit, e.g. `MamaNtilie`',
  }),
  guestReminders: setting({
    env: 'GUEST_REMINDERS',
    default: 'ends,data',
    parse: p.someOf(...GUEST_REMINDERS),
    doc: 'SMS reminders to guests: `ends` (10 minutes before their time ends), `data` (80 % of a data allowance used), or `off`',
  }),
  routerDownAfter: setting({
    env: 'ROUTER_DOWN_AFTER',
    default: '10m',
    // Unset, it follows a long RADIUS_INTERIM_INTERVAL (config/load.ts, routerDownAfter).
    shownDefault: '`10m`, or 1.5 × RADIUS_INTERIM_INTERVAL if longer',
    parse: duration,
    doc: 'a router silent this long with guests on it is down: one log warning (and SMS) per outage; at least 1.5 × RADIUS_INTERIM_INTERVAL',
  }),
  routerDownSmsTo: setting({
    env: 'ROUTER_DOWN_SMS_TO',
    default: '',
    shownDefault: '— (no SMS)',
    parse: p.phoneList,
    doc: "the owner's phone numbers (comma-separated, up to 5): one SMS when a router is down, one when it is back",
  }),
  smsLogRetention: setting({
    env: 'SMS_LOG_RETENTION',
    default: '365d',
    parse: retention,
    doc: 'SMS log (admin SMS page) rows older than this are deleted each night; at least 1d, or `0`/`off` to keep them forever',
  }),
  paymentProvider: setting({
    env: 'PAYMENT_PROVIDER',
    default: 'sandbox',
    parse: p.oneOf(...PAYMENT_PROVIDERS),
    doc: 'mobile-money provider adapter: `sandbox`, `selcom` or `azampay` (see docs/payments.md)',
  }),
  paymentProviders: setting({
    env: 'PAYMENT_PROVIDERS',
    default: '',
    shownDefault: 'PAYMENT_PROVIDER',
    parse: p.optional(providerOrder),
    doc: 'fallback order, e.g. `selcom,azampay`: a purchase whose payment prompt the first refuses or cannot send goes to the next; replaces PAYMENT_PROVIDER',
  }),
  paymentWebhookSecret: setting({
    env: 'PAYMENT_WEBHOOK_SECRET',
    default: '',
    shownDefault: 'generated at first start, stored',
    parse: p.optional(p.nonEmpty),
    doc: 'HMAC secret of the payment webhook signature',
    secret: true,
  }),
  sandboxAutopaySeconds: setting({
    env: 'SANDBOX_AUTOPAY_SECONDS',
    default: '0',
    shownDefault: '`0` (off)',
    parse: p.nonNegativeInt,
    doc: 'sandbox only: pay every pending invoice after N seconds, through the real webhook path',
  }),
  selcomBaseUrl: setting({
    env: 'SELCOM_BASE_URL',
    default: 'https://apigw.selcommobile.com/v1',
    parse: p.baseUrl,
    doc: '`selcom` provider: API gateway base URL (test: `https://apigwtest.selcommobile.com/v1`)',
  }),
  selcomApiKey: setting({
    env: 'SELCOM_API_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`selcom` provider: API key issued by Selcom',
    secret: true,
  }),
  selcomApiSecret: setting({
    env: 'SELCOM_API_SECRET',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`selcom` provider: API secret (HMAC key of requests and callbacks)',
    secret: true,
  }),
  selcomVendor: setting({
    env: 'SELCOM_VENDOR',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`selcom` provider: vendor (till) id allocated by Selcom',
  }),
  azampayAuthUrl: setting({
    env: 'AZAMPAY_AUTH_URL',
    default: 'https://authenticator.azampay.co.tz',
    parse: p.baseUrl,
    doc: '`azampay` provider: token service base URL (sandbox: `https://authenticator-sandbox.azampay.co.tz`)',
  }),
  azampayCheckoutUrl: setting({
    env: 'AZAMPAY_CHECKOUT_URL',
    default: 'https://checkout.azampay.co.tz',
    parse: p.baseUrl,
    doc: '`azampay` provider: checkout API base URL (sandbox: `https://sandbox.azampay.co.tz`)',
  }),
  azampayAppName: setting({
    env: 'AZAMPAY_APP_NAME',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`azampay` provider: name of the app registered with AzamPay',
  }),
  azampayClientId: setting({
    env: 'AZAMPAY_CLIENT_ID',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`azampay` provider: client id of the app',
  }),
  azampayClientSecret: setting({
    env: 'AZAMPAY_CLIENT_SECRET',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`azampay` provider: client secret of the app',
    secret: true,
  }),
  azampayApiKey: setting({
    env: 'AZAMPAY_API_KEY',
    default: '',
    shownDefault: '—',
    parse: p.optional(p.nonEmpty),
    doc: '`azampay` provider: API key (token) of the app, sent as `X-API-KEY`',
    secret: true,
  }),
  azampayCallbackToken: setting({
    env: 'AZAMPAY_CALLBACK_TOKEN',
    default: '',
    shownDefault: '—',
    parse: p.optional(callbackToken),
    doc: '`azampay` provider: secret last segment of the callback URL registered at AzamPay, `PUBLIC_BASE_URL/webhooks/azampay/<token>` (32+ letters, digits, - or _; `setup` makes one)',
    secret: true,
  }),
  venueTimezone: setting({
    env: 'VENUE_TIMEZONE',
    default: 'Africa/Dar_es_Salaam',
    parse: p.timeZone,
    doc: 'the venue\'s time zone: where the admin overview\'s "today" starts',
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    default: 'info',
    parse: p.oneOf(...LOG_LEVELS),
    doc: 'pino log level',
  }),
  metrics: setting({
    env: 'METRICS',
    default: 'off',
    parse: p.oneOf('off', 'on'),
    doc: '`on` serves `GET /metrics` (Prometheus text format) to loopback clients, signed-in staff and the scrape token (`hotspot-ctl metrics token`)',
  }),
};

export type SettingKey = keyof typeof settings;

/** Configuration exactly as loaded: generated secrets may still be missing. */
export type LoadedConfig = {
  readonly [K in SettingKey]: (typeof settings)[K] extends Setting<infer T> ? T : never;
};

/** Configuration the daemon runs with: derived values filled in, generated secrets present. */
export type Config = Omit<
  LoadedConfig,
  | 'radiusSecret'
  | 'paymentWebhookSecret'
  | 'webauthnRpId'
  | 'webauthnOrigin'
  | 'smsSenderId'
  | 'radsecCertFile'
  | 'radsecKeyFile'
  | 'radsecCaFile'
> & {
  readonly radsecCertFile: string;
  readonly radsecKeyFile: string;
  readonly radsecCaFile: string;
  readonly radiusSecret: string;
  readonly paymentWebhookSecret: string;
  readonly webauthnRpId: string;
  readonly webauthnOrigin: string;
  readonly smsSenderId: string;
  /** Which secrets came from the data directory rather than the configuration. */
  readonly generatedSecrets: readonly ('RADIUS_SECRET' | 'PAYMENT_WEBHOOK_SECRET')[];
  /**
   * The data directory held no box when this configuration was resolved (its secrets were made
   * just now): `serve` says so loudly, as a mistyped HOTSPOT_DATA_DIR looks just like this.
   */
  readonly newDataDir?: boolean;
  /**
   * With newDataDir: what the directory held before (config/secrets.ts): a `serve` or `migrate`
   * that fails takes back what it added, so its leftovers are never taken for a box.
   */
  readonly newDataDirBefore?: DataDirBefore;
};

export const settingList = (): readonly (Setting<unknown> & { key: SettingKey })[] =>
  (Object.keys(settings) as SettingKey[]).map((key) => ({ key, ...(settings[key] as Setting<unknown>) }));

/** Environment names of settings whose values must never be printed or logged. */
export const secretEnvNames = (): string[] =>
  settingList()
    .filter((s) => s.secret)
    .map((s) => s.env);
