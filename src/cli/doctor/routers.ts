import { RADIUS_SECRET_MIN_LENGTH, type Config } from '../../config/index.js';
import type { DeviceRow } from '../../wifi/devices.store.js';
import { downSince, ONLINE_WITHIN_INTERVALS, type CoaProbeAnswer } from '../../wifi/index.js';
import { formatSeconds, ok, type Check, type CheckStatus } from './checks.js';

/**
 * Each router's last RADIUS packet (DESIGN.md §4.7 router health) and whether its CoA port
 * answers: a Disconnect-Request for a made-up session (radius/coa.ts `probe`), which a router
 * NAKs (or ACKs) without cutting anyone (docs/decisions/0033-doctor.md, 0050).
 */

export type RouterDevice = Pick<
  DeviceRow,
  'id' | 'name' | 'radius_nas_id' | 'radius_client_ip' | 'coa_port' | 'last_seen_at' | 'down_since'
>;

/** Asks a router's CoA port; undefined where this build has no CoA sender. */
export type CoaProber = (router: RouterDevice) => Promise<CoaProbeAnswer | undefined>;

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** What the CoA port's answer says: a phrase for the detail, and a status with its fix when wrong. */
function coaFinding(
  d: RouterDevice,
  answer: CoaProbeAnswer | undefined,
): { text: string; status: CheckStatus; fix?: string } {
  const where = `CoA ${d.radius_client_ip}:${String(d.coa_port)}`;
  if (answer === undefined || answer.answer === 'not_available')
    return { text: `${where} not probed`, status: 'ok' };
  if (answer.answer === 'ack') return { text: `${where} answers (ACK)`, status: 'ok' };
  if (answer.answer === 'nak')
    return {
      text: `${where} answers (NAK${answer.errorCause === null ? '' : ` ${answer.errorCause}`})`,
      status: 'ok',
    };
  if (answer.answer === 'unverified')
    return {
      text: `${where} answers, but not signed with this router's secret`,
      status: 'warn',
      fix: `set the same RADIUS secret on ${d.radius_nas_id} as here (hotspot-ctl devices router-config)`,
    };
  return {
    text: `${where} did not answer within 2 s: sessions cannot be cut or changed`,
    status: 'warn',
    fix: `let ${d.radius_nas_id} take CoA/Disconnect (RFC 5176) on UDP ${String(d.coa_port)} from this box with its secret (hotspot-ctl devices router-config), and no firewall drop it`,
  };
}

export async function routerChecks(
  config: Config,
  devices: readonly RouterDevice[],
  now: Date,
  probe: CoaProber,
  /** The ids of the routers whose own RADIUS secret is short (wifi shortRadiusSecrets). */
  shortSecrets: ReadonlySet<string> = new Set(),
): Promise<Check[]> {
  if (devices.length === 0)
    return [
      {
        name: 'routers',
        status: 'warn',
        detail: 'no router registered: no guest can log in',
        fix: 'register each router: hotspot-ctl devices add … (README: Register a router)',
      },
    ];
  const window = config.radiusInterimInterval * ONLINE_WITHIN_INTERVALS;
  return Promise.all(
    devices.map(async (d): Promise<Check> => {
      const name = `router ${d.name}`;
      const coa = coaFinding(d, await probe(d));
      const fix = `check that ${d.radius_nas_id} is on and sends RADIUS here (hotspot-ctl devices router-config) with its NAS-Identifier and secret`;
      const radius = ((): { text: string; status: CheckStatus; fix?: string } => {
        if (d.last_seen_at === null) return { text: 'never sent a RADIUS packet', status: 'warn', fix };
        const silent = (now.getTime() - Date.parse(d.last_seen_at)) / 1000;
        // Down: the router-down job reported it silent with guests on it (docs/decisions/0038).
        // Those guests are cut off now: a failure (0033's rule), not a quiet night.
        if (downSince(d) !== null)
          return {
            text: `DOWN with guests on it: silent for ${formatSeconds(silent)} (last RADIUS packet ${d.last_seen_at})`,
            status: 'fail',
            fix: `bring ${d.radius_nas_id} back: check its power and uplink, then that it sends RADIUS here (hotspot-ctl devices router-config)`,
          };
        if (silent > window)
          return {
            text: `silent for ${formatSeconds(silent)} (last RADIUS packet ${d.last_seen_at})`,
            status: 'warn',
            fix,
          };
        return { text: `last RADIUS packet ${formatSeconds(Math.max(0, silent))} ago`, status: 'ok' };
      })();
      const secret = shortSecrets.has(d.id)
        ? {
            text: `its own RADIUS secret is shorter than ${String(RADIUS_SECRET_MIN_LENGTH)} characters (RFC 2865 §3)`,
            status: 'warn' as const,
            fix: `give it a long random one: hotspot-ctl devices rotate-secret ${d.id}, then enter it on ${d.radius_nas_id}`,
          }
        : null;
      const detail = [radius.text, coa.text, ...(secret ? [secret.text] : [])].join('; ');
      // The RADIUS finding's fix first: a router that sends nothing answers no CoA either.
      const worst = [radius, coa, ...(secret ? [secret] : [])].reduce((a, b) =>
        RANK[b.status] > RANK[a.status] ? b : a,
      );
      if (worst.status === 'ok') return ok(name, detail);
      return { name, status: worst.status, detail, fix: worst.fix ?? fix };
    }),
  );
}
