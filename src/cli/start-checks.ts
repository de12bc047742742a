import { ConfigError, radsecFiles, type LoadedConfig } from '../config/index.js';
import { DatabaseUnreachable, openStore, postgresWhere } from '../db/index.js';
import { systemClock } from '../lib/clock.js';
import { listenProblem } from '../lib/listen-problem.js';
import { withinTime, DATABASE_TIMEOUT_MS } from './doctor/database.js';
import { bindTcp, bindUdp } from './doctor/probes.js';

/** The ports a running daemon of this box holds (TCP: HTTP and RadSec; UDP: RADIUS). */
export interface DaemonPorts {
  tcp: readonly number[];
  udp: readonly number[];
}

export const NO_PORTS: DaemonPorts = { tcp: [], udp: [] };

/**
 * What `serve` checks as it starts, beyond the settings' own parsers: the RadSec files, that
 * HTTP_HOST and RADIUS_HOST are addresses of this box (a bind on port 0), that no other program
 * holds a port setting's port, and that DATABASE_URL's server answers. `hotspot-ctl setup` runs
 * them before it writes anything, through the same code as the start (and doctor's bind probes),
 * so it refuses with the very line `serve` would stop on. A port `ours` names is not tried: the
 * running daemon of this box holds it, and its own settings are what is being changed.
 */
export async function startProblems(config: LoadedConfig, ours: DaemonPorts = NO_PORTS): Promise<string[]> {
  const problems: string[] = [];
  if (config.radsecPort !== 0) {
    const files = radsecFiles(config);
    const { radsecCredentials } = await import('../radius/radsec.js');
    try {
      radsecCredentials({
        certFile: files.radsecCertFile,
        keyFile: files.radsecKeyFile,
        caFile: files.radsecCaFile,
      });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  }
  const binds = [
    {
      where: { hostSetting: 'HTTP_HOST', host: config.httpHost, portSetting: 'HTTP_PORT', port: 0 },
      bind: bindTcp,
      on: true,
    },
    {
      where: {
        hostSetting: 'RADIUS_HOST',
        host: config.radiusHost,
        portSetting: 'RADIUS_AUTH_PORT',
        port: 0,
      },
      bind: bindUdp,
      on: config.radiusAuthPort !== 0 || config.radiusAcctPort !== 0,
    },
    {
      where: { hostSetting: 'RADIUS_HOST', host: config.radiusHost, portSetting: 'RADSEC_PORT', port: 0 },
      bind: bindTcp,
      on: config.radsecPort !== 0,
    },
  ];
  for (const { where, bind, on } of binds) {
    if (!on) continue;
    const bound = await bind(where.host, 0);
    const problem = bound === 'free' ? undefined : listenProblem(where, bound);
    if (problem !== undefined && !problems.includes(problem)) problems.push(problem);
  }
  problems.push(...(await takenPorts(config, ours)));
  if (config.databaseUrl !== null) {
    const url = config.databaseUrl;
    try {
      const store = await withinTime(
        openStore(
          { dataDir: config.dataDir, databaseUrl: url },
          { now: () => systemClock.now(), poolSize: 1 },
        ),
        DATABASE_TIMEOUT_MS,
      );
      await store.close();
    } catch (err) {
      // Unreachable or refused (openStore's line), or silent: no answer in time.
      const unreachable =
        err instanceof ConfigError
          ? err
          : new DatabaseUnreachable(postgresWhere(url), err instanceof Error ? err.message : String(err));
      problems.push(...unreachable.problems);
    }
  }
  return problems;
}

/** The port settings whose port another program holds: serve's EADDRINUSE line for each. */
async function takenPorts(config: LoadedConfig, ours: DaemonPorts): Promise<string[]> {
  const listeners = [
    {
      hostSetting: 'HTTP_HOST',
      host: config.httpHost,
      portSetting: 'HTTP_PORT',
      port: config.httpPort,
      proto: 'tcp',
    },
    {
      hostSetting: 'RADIUS_HOST',
      host: config.radiusHost,
      portSetting: 'RADIUS_AUTH_PORT',
      port: config.radiusAuthPort,
      proto: 'udp',
    },
    {
      hostSetting: 'RADIUS_HOST',
      host: config.radiusHost,
      portSetting: 'RADIUS_ACCT_PORT',
      port: config.radiusAcctPort,
      proto: 'udp',
    },
    {
      hostSetting: 'RADIUS_HOST',
      host: config.radiusHost,
      portSetting: 'RADSEC_PORT',
      port: config.radsecPort,
      proto: 'tcp',
    },
  ] as const;
  const problems: string[] = [];
  for (const { proto, ...where } of listeners) {
    // 0: off (RADIUS, RadSec) or picked at start (HTTP_PORT, tests only).
    if (where.port === 0 || ours[proto].includes(where.port)) continue;
    const bound = await (proto === 'tcp' ? bindTcp : bindUdp)(where.host, where.port);
    // Only a port taken: privilege (EACCES) is the systemd unit's to give, a bad host is said above.
    if (bound === 'EADDRINUSE') problems.push(listenProblem(where, bound));
  }
  return problems;
}
