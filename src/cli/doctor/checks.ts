import { readdirSync, statSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { RADIUS_SECRET_MIN_LENGTH, type Config } from '../../config/index.js';
import type { Clock } from '../../lib/clock.js';
import { africasTalkingCredentialCheck, beemCredentialCheck } from '../../notify/index.js';
import { providerOrder } from '../../payments/gateway.js';
import {
  bindTcp,
  bindUdp,
  isIpLiteral,
  isLoopback,
  lookupHost,
  probeHttp,
  type ClockSample,
  type HttpProbe,
} from './probes.js';

/** One line of `hotspot-ctl doctor` (docs/decisions/0033-doctor.md). */
export type CheckStatus = 'ok' | 'warn' | 'fail';
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** One line saying what to do; only on warn and fail. */
  fix?: string;
}

export const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
const warn = (name: string, detail: string, fix: string): Check => ({ name, status: 'warn', detail, fix });
const fail = (name: string, detail: string, fix: string): Check => ({ name, status: 'fail', detail, fix });

/** Clock skew beyond the TOTP tolerance (±30 s, identity/totp.ts) breaks two-step sign-in. */
export const SKEW_FAIL_S = 30;
/** A skew worth a look, well above the Date header's one-second resolution. */
export const SKEW_WARN_S = 5;
/** Older backups are a warning (the timer takes one every night), much older a failure. */
export const BACKUP_WARN_DAYS = 2;
export const BACKUP_FAIL_DAYS = 7;
/** Free space on the data directory's file system. */
export const DISK_FAIL_BYTES = 200 * 1024 * 1024;
export const DISK_WARN_BYTES = 1024 * 1024 * 1024;

export const BACKUPS_DIR = 'backups';

const formatSeconds = (s: number): string =>
  s < 120
    ? `${String(Math.round(s))} s`
    : s < 7200
      ? `${String(Math.round(s / 60))} min`
      : s < 172800
        ? `${String(Math.round(s / 3600))} h`
        : `${String(Math.round(s / 86400))} days`;

const mb = (bytes: number): string => `${String(Math.round(bytes / (1024 * 1024)))} MB`;

/** The HTTP listener: the daemon's own, free for it, or taken by another program. */
/**
 * The daemon of this data directory: `answers` its /healthz, `silent` (it holds the data
 * directory's lock, so it runs, but did not answer in time: busy, stuck, or on another HTTP_PORT),
 * or `none`.
 */
export type DaemonState = 'answers' | 'silent' | 'none';

export async function httpPortCheck(config: Config, daemon: DaemonState): Promise<Check> {
  const name = 'http port';
  const where = `${config.httpHost}:${String(config.httpPort)}`;
  if (daemon === 'answers') return ok(name, `${where} listening (the daemon answers /healthz)`);
  if (config.httpPort === 0) return ok(name, 'HTTP_PORT 0: a free port is picked at start');
  const bound = await bindTcp(config.httpHost, config.httpPort);
  if (daemon === 'silent')
    return bound === 'EADDRINUSE'
      ? fail(
          name,
          `${where}: the daemon runs on this data directory but did not answer /healthz within 2 s (busy or stuck)`,
          'read its log: journalctl -u hotspot-ctl -n 200; if it stays so: systemctl restart hotspot-ctl',
        )
      : warn(
          name,
          `${where} ${bound === 'free' ? 'free' : `cannot be bound (${bound})`}, yet a daemon holds this data directory: it is starting, or runs with another HTTP_PORT`,
          "run doctor with the daemon's settings: sudo -u hotspot-ctl hotspot-ctl doctor",
        );
  if (bound === 'free')
    return warn(name, `${where} free: the daemon is not running`, 'start it: systemctl start hotspot-ctl');
  return fail(
    name,
    `${where} ${bound === 'EADDRINUSE' ? 'taken by another program' : `cannot be bound (${bound})`}`,
    portFix('HTTP_PORT', 'tcp', config.httpPort, bound),
  );
}

function portFix(setting: string, proto: 'tcp' | 'udp', port: number, code: string): string {
  return code === 'EACCES'
    ? `the port needs privilege: run under the packaged systemd unit, or set ${setting} to a port above 1023`
    : `find it with: ss -${proto === 'tcp' ? 't' : 'u'}lnp 'sport = :${String(port)}', then stop it or set ${setting} to another port`;
}

/** RADIUS UDP ports: the daemon binds both at start, so a running daemon holds them. */
export async function radiusPortChecks(config: Config, daemonRunning: boolean): Promise<Check[]> {
  const ports = [
    ['radius auth port', 'RADIUS_AUTH_PORT', config.radiusAuthPort],
    ['radius acct port', 'RADIUS_ACCT_PORT', config.radiusAcctPort],
  ] as const;
  return Promise.all(
    ports.map(async ([name, setting, port]): Promise<Check> => {
      const where = `udp ${config.radiusHost}:${String(port)}`;
      if (port === 0) return ok(name, `${setting} 0: RADIUS is off`);
      if (daemonRunning) return ok(name, `${where} held by the daemon`);
      const bound = await bindUdp(config.radiusHost, port);
      if (bound === 'free') return ok(name, `${where} free for the daemon`);
      return fail(
        name,
        `${where} ${bound === 'EADDRINUSE' ? 'taken by another program (another RADIUS server?)' : `cannot be bound (${bound})`}`,
        portFix(setting, 'udp', port, bound),
      );
    }),
  );
}

/**
 * RADIUS_SECRET against RFC 2865 §3's 16 octets. A short one still works (a venue upgraded with
 * one keeps running), so it is a warning; setup refuses a new one.
 */
export function radiusSecretCheck(config: Config): Check {
  const name = 'radius secret';
  const length = config.radiusSecret.length;
  const source = config.generatedSecrets.includes('RADIUS_SECRET') ? 'generated' : 'configured';
  if (length >= RADIUS_SECRET_MIN_LENGTH)
    return ok(name, `RADIUS_SECRET ${source}, ${String(length)} characters`);
  return warn(
    name,
    `RADIUS_SECRET ${source}, ${String(length)} characters: shorter than ${String(RADIUS_SECRET_MIN_LENGTH)} (RFC 2865 §3), easier to guess from captured RADIUS packets`,
    source === 'configured'
      ? 'drop it (hotspot-ctl setup --non-interactive --set RADIUS_SECRET=) to use the random one the box generated, or set a random one of 16+ characters; then enter it on the routers that use it'
      : 'delete the RADIUS_SECRET line of secrets.env in the data directory and restart: a random 24-character one is made; then enter it on the routers that use it',
  );
}

/** PUBLIC_BASE_URL answers /healthz: guests, routers and payment callbacks come through it. */
/** Whether a /healthz answer is hotspot-ctl's (`{success, data: {service: 'hotspot-ctl'}}`), not just any 200. */
export function isOurHealthz(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { data?: { service?: unknown } } | null;
    return parsed?.data?.service === 'hotspot-ctl';
  } catch {
    return false;
  }
}

export function publicUrlCheck(config: Config, probe: HttpProbe, daemonRunning: boolean): Check {
  const name = 'public url';
  const url = `${config.publicBaseUrl}/healthz`;
  if (probe.answered && probe.status === 200 && isOurHealthz(probe.body))
    return ok(name, `${config.publicBaseUrl} reachable`);
  if (probe.answered)
    return fail(
      name,
      `${url} answers HTTP ${String(probe.status)}, not this daemon`,
      'point PUBLIC_BASE_URL (or the reverse proxy in front) at this daemon',
    );
  const detail = `${config.publicBaseUrl} not reachable from this box (${probe.detail})`;
  return daemonRunning
    ? fail(name, detail, 'check PUBLIC_BASE_URL, its DNS name, the reverse proxy and the firewall')
    : warn(name, `${detail}; the daemon is not running`, 'start it: systemctl start hotspot-ctl');
}

/** Passkeys, Secure cookies and payment callbacks want https (plain http only on loopback). */
export function tlsCheck(config: Config): Check {
  const url = new URL(config.publicBaseUrl);
  if (url.protocol === 'https:') return ok('tls', 'PUBLIC_BASE_URL is https');
  if (isLoopback(url.hostname)) return ok('tls', 'PUBLIC_BASE_URL is http on loopback (a trial box)');
  return warn(
    'tls',
    `PUBLIC_BASE_URL is http on ${url.hostname}: no passkeys, no Secure cookies, payment callbacks in the clear`,
    'put a TLS reverse proxy (Caddy, nginx) in front and set PUBLIC_BASE_URL to its https:// address',
  );
}

/** Each configured payment provider, with its credentials where a harmless call can test them. */
export async function paymentChecks(
  config: Config,
  clock: Clock,
): Promise<{ checks: Check[]; samples: ClockSample[] }> {
  const samples: ClockSample[] = [];
  const checks = await Promise.all(
    providerOrder(config).map(async (provider): Promise<Check> => {
      const name = `payment ${provider}`;
      if (provider === 'sandbox') {
        if (config.sandboxAutopaySeconds > 0)
          return warn(
            name,
            `the sandbox pays every invoice after ${String(config.sandboxAutopaySeconds)} s: Wi-Fi is given away for free`,
            'set SANDBOX_AUTOPAY_SECONDS=0, and PAYMENT_PROVIDER to a real provider with its credentials',
          );
        return warn(
          name,
          'the sandbox takes no money: guests cannot pay',
          'set PAYMENT_PROVIDER to selcom or azampay with its credentials (hotspot-ctl setup)',
        );
      }
      if (provider === 'azampay') {
        // Asking for a token is AzamPay's cheapest authenticated call (the adapter does the same).
        const probe = await probeHttp(
          clock,
          'AzamPay',
          `${config.azampayAuthUrl}/AppRegistration/GenerateToken`,
          {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              Accept: 'application/json',
              'X-API-KEY': config.azampayApiKey ?? '',
            },
            body: JSON.stringify({
              appName: config.azampayAppName,
              clientId: config.azampayClientId,
              clientSecret: config.azampayClientSecret,
            }),
          },
        );
        if (probe.answered && probe.clock) samples.push(probe.clock);
        if (!probe.answered)
          return fail(
            name,
            `${config.azampayAuthUrl} unreachable (${probe.detail})`,
            'check the internet connection, the DNS and AZAMPAY_AUTH_URL',
          );
        if (probe.status >= 500)
          return fail(
            name,
            `AzamPay answers HTTP ${String(probe.status)}`,
            'retry later; AzamPay is having trouble',
          );
        if (probe.status >= 300 || !/"accessToken"\s*:\s*"[^"]+"/.test(probe.body))
          return fail(
            name,
            `AzamPay refuses the credentials (HTTP ${String(probe.status)})`,
            'check AZAMPAY_APP_NAME, AZAMPAY_CLIENT_ID, AZAMPAY_CLIENT_SECRET and AZAMPAY_API_KEY',
          );
        return ok(name, 'AzamPay reachable, credentials accepted');
      }
      // Selcom has no call that checks credentials without an order: reachability only.
      const probe = await probeHttp(clock, 'Selcom', config.selcomBaseUrl);
      if (probe.answered && probe.clock) samples.push(probe.clock);
      if (!probe.answered)
        return fail(
          name,
          `${config.selcomBaseUrl} unreachable (${probe.detail})`,
          'check the internet connection, the DNS and SELCOM_BASE_URL',
        );
      if (probe.status >= 500)
        return fail(
          name,
          `Selcom answers HTTP ${String(probe.status)}`,
          'retry later; Selcom is having trouble',
        );
      return ok(name, 'Selcom reachable (credentials are checked by the first payment)');
    }),
  );
  return { checks, samples };
}

/**
 * How doctor asks the SMS gateway, sending nothing: Beem and Africa's Talking with a GET that
 * needs the credentials (their balance, their user data); the http gateway with a GET on its URL
 * and its bearer token (it sends on POST only).
 */
function smsProbe(config: Config): { url: string; headers: Record<string, string>; settings: string } | null {
  if (config.smsProvider === 'http' && config.smsHttpUrl)
    return {
      url: config.smsHttpUrl,
      headers: config.smsHttpToken ? { Authorization: `Bearer ${config.smsHttpToken}` } : {},
      settings: 'SMS_HTTP_TOKEN',
    };
  if (config.smsProvider === 'beem')
    return {
      ...beemCredentialCheck({
        url: config.beemSmsUrl,
        apiKey: config.beemApiKey ?? '',
        secretKey: config.beemSecretKey ?? '',
      }),
      settings: 'BEEM_API_KEY and BEEM_SECRET_KEY',
    };
  if (config.smsProvider === 'africastalking')
    return {
      ...africasTalkingCredentialCheck({
        url: config.africastalkingSmsUrl,
        username: config.africastalkingUsername ?? '',
        apiKey: config.africastalkingApiKey ?? '',
      }),
      settings:
        'AFRICASTALKING_USERNAME and AFRICASTALKING_API_KEY (sandbox keys work only with the sandbox URL)',
    };
  return null;
}

/** The SMS gateway: reachable, and whether it takes the configured credentials. */
export async function smsCheck(
  config: Config,
  clock: Clock,
): Promise<{ check: Check; samples: ClockSample[] }> {
  const name = 'sms';
  const target = smsProbe(config);
  if (target === null)
    return {
      check: ok(name, 'outbox: messages are spooled, read them with hotspot-ctl outbox'),
      samples: [],
    };
  const probe = await probeHttp(clock, `SMS gateway`, target.url, { headers: target.headers });
  const samples = probe.answered && probe.clock ? [probe.clock] : [];
  // Only the origin: a gateway URL may carry a key in its query or user part.
  const origin = new URL(target.url).origin;
  if (!probe.answered)
    return {
      check: fail(
        name,
        `${config.smsProvider} gateway ${origin} unreachable (${probe.detail.split(target.url).join(origin)})`,
        'check the internet connection, the DNS and the gateway URL',
      ),
      samples,
    };
  if (probe.status === 401 || probe.status === 403)
    return {
      check: fail(
        name,
        `${config.smsProvider} gateway refuses the credentials (HTTP ${String(probe.status)})`,
        `check ${target.settings}`,
      ),
      samples,
    };
  if (probe.status >= 500)
    return {
      check: fail(
        name,
        `the gateway answers HTTP ${String(probe.status)}`,
        'retry later; the gateway is having trouble',
      ),
      samples,
    };
  const checked = config.smsProvider !== 'http';
  if (checked && (probe.status < 200 || probe.status >= 300))
    return {
      check: warn(
        name,
        `${config.smsProvider} gateway answers HTTP ${String(probe.status)} to the credential check: not known to be accepted`,
        `check ${target.settings} and the gateway URL`,
      ),
      samples,
    };
  const reachable = checked
    ? `${config.smsProvider} gateway reachable, credentials accepted`
    : `${config.smsProvider} gateway reachable (HTTP ${String(probe.status)})`;
  if (config.smsDeliveryToken === null)
    return {
      check: warn(
        name,
        `${reachable}; no delivery reports: SMS_DELIVERY_TOKEN is unset, so no SMS ever shows as delivered`,
        'run hotspot-ctl setup --non-interactive: it makes SMS_DELIVERY_TOKEN and prints the URL to give the gateway',
      ),
      samples,
    };
  return { check: ok(name, `${reachable}; delivery reports at /sms/delivery/<token>`), samples };
}

/** The host names the box must resolve to reach its providers. */
export async function dnsCheck(config: Config): Promise<Check> {
  const urls: string[] = [];
  for (const provider of providerOrder(config)) {
    if (provider === 'azampay') urls.push(config.azampayAuthUrl, config.azampayCheckoutUrl);
    if (provider === 'selcom') urls.push(config.selcomBaseUrl);
  }
  if (config.smsProvider === 'http' && config.smsHttpUrl) urls.push(config.smsHttpUrl);
  if (config.smsProvider === 'beem') urls.push(config.beemSmsUrl);
  if (config.smsProvider === 'africastalking') urls.push(config.africastalkingSmsUrl);
  const hosts = [...new Set(urls.map((u) => new URL(u).hostname))].filter(
    (h) => !isIpLiteral(h) && !isLoopback(h),
  );
  if (hosts.length === 0) return ok('dns', 'no provider host name to resolve');
  const results = await Promise.all(hosts.map(async (h) => ({ host: h, result: await lookupHost(h) })));
  const bad = results.filter((r) => !r.result.ok);
  if (bad.length === 0) return ok('dns', `resolves ${hosts.join(', ')}`);
  return fail(
    'dns',
    `cannot resolve ${bad.map((r) => `${r.host} (${r.result.ok ? '' : r.result.detail})`).join(', ')}`,
    'check the resolver: resolvectl status (or /etc/resolv.conf) and the uplink',
  );
}

/** Our clock against the peers' Date headers, and what timedatectl says about NTP. */
export function clockCheck(samples: readonly ClockSample[], ntp: boolean | null): Check {
  const name = 'clock';
  const ntpText =
    ntp === null ? 'NTP state unknown (no timedatectl)' : ntp ? 'NTP synchronised' : 'NTP not synchronised';
  const ntpFix = 'turn NTP on: timedatectl set-ntp true (and let UDP 123 out)';
  // Fail only when every peer disagrees with us: the smallest skew.
  const best = [...samples].sort((a, b) => Math.abs(a.skewMs) - Math.abs(b.skewMs))[0];
  if (best) {
    const s = Math.abs(best.skewMs) / 1000;
    const says = `${formatSeconds(s)} ${best.skewMs > 0 ? 'ahead of' : 'behind'} ${best.source}`;
    if (s > SKEW_FAIL_S + 1)
      return fail(
        name,
        `${says}: two-step codes (±${String(SKEW_FAIL_S)} s) and payment webhooks fail; ${ntpText}`,
        ntpFix,
      );
    if (s > SKEW_WARN_S + 1) return warn(name, `${says}; ${ntpText}`, ntpFix);
    if (ntp === false)
      return warn(name, `within ${String(SKEW_WARN_S)} s of ${best.source} but ${ntpText}`, ntpFix);
    return ok(name, `within ${String(SKEW_WARN_S)} s of ${best.source}; ${ntpText}`);
  }
  if (ntp === true) return ok(name, `${ntpText} (no peer to compare with)`);
  return warn(name, `${ntpText}, and no peer to compare with`, ntpFix);
}

/** Free space where the database, keys and outbox live. */
export function diskCheck(dataDir: string): Check {
  const fs = statfsSync(dataDir);
  const free = fs.bavail * fs.bsize;
  const total = fs.blocks * fs.bsize;
  const detail = `${mb(free)} free of ${mb(total)} on ${dataDir}`;
  const fix = 'free some space (old logs: journalctl --vacuum-size=200M; old backups) or grow the disk';
  if (free < DISK_FAIL_BYTES) return fail('disk', detail, fix);
  if (free < DISK_WARN_BYTES || free < total / 10) return warn('disk', detail, fix);
  return ok('disk', detail);
}

/**
 * The newest backup in <data dir>/backups, where the nightly timer writes them. A database
 * younger than BACKUP_WARN_DAYS (its first migration, `createdAt`) with none yet is a fresh
 * install whose timer has not fired: a warning, not a failure.
 */
export function backupCheck(config: Config, now: Date, createdAt: Date | null): Check {
  const dir = path.join(config.dataDir, BACKUPS_DIR);
  const how = config.databaseUrl
    ? `back PostgreSQL up with pg_dump into ${dir} every night`
    : 'enable the nightly backup: systemctl enable --now hotspot-ctl-backup.timer';
  let newest: { file: string; at: number } | null = null;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // no directory: no backup
  }
  for (const file of names) {
    if (file.includes('.partial-')) continue; // a backup being written
    const st = statSync(path.join(dir, file), { throwIfNoEntry: false });
    if (st?.isFile() && (newest === null || st.mtimeMs > newest.at)) newest = { file, at: st.mtimeMs };
  }
  if (newest === null) {
    const young = createdAt !== null && now.getTime() - createdAt.getTime() < BACKUP_WARN_DAYS * 86400_000;
    if (!young) return fail('backup', `no backup in ${dir}`, how);
    const age = formatSeconds(Math.max(0, (now.getTime() - createdAt.getTime()) / 1000));
    return warn(
      'backup',
      `no backup yet in ${dir} (the database is ${age} old; the nightly timer has not run)`,
      config.databaseUrl
        ? how
        : `take the first one now: systemctl start hotspot-ctl-backup.service (or hotspot-ctl backup ${path.join(dir, 'hotspot-first.backup')})`,
    );
  }
  const age = (now.getTime() - newest.at) / 1000;
  const detail = `newest ${newest.file}, ${formatSeconds(Math.max(0, age))} old`;
  if (age > BACKUP_FAIL_DAYS * 86400) return fail('backup', detail, how);
  if (age > BACKUP_WARN_DAYS * 86400) return warn('backup', detail, how);
  return ok('backup', detail);
}

export { formatSeconds };
