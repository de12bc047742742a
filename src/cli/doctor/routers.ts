import type { Config } from '../../config/index.js';
import type { DeviceRow } from '../../wifi/devices.store.js';
import { downSince, ONLINE_WITHIN_INTERVALS } from '../../wifi/index.js';
import { formatSeconds, ok, type Check } from './checks.js';

/**
 * Each router's last RADIUS packet (DESIGN.md §4.7 router health). Its CoA port is named but not
 * probed: no RADIUS packet to it is both harmless and answered by the routers venues use
 * (docs/decisions/0033-doctor.md).
 */
export function routerChecks(
  config: Config,
  devices: readonly Pick<
    DeviceRow,
    'name' | 'radius_nas_id' | 'radius_client_ip' | 'coa_port' | 'last_seen_at' | 'down_since'
  >[],
  now: Date,
): Check[] {
  if (devices.length === 0)
    return [
      {
        name: 'routers',
        status: 'warn',
        detail: 'no router registered: no guest can log in',
        fix: 'register each router: hotspot-ctl devices add … (README: Connect a router)',
      },
    ];
  const window = config.radiusInterimInterval * ONLINE_WITHIN_INTERVALS;
  return devices.map((d): Check => {
    const name = `router ${d.name}`;
    const coa = `CoA ${d.radius_client_ip}:${String(d.coa_port)} not probed`;
    const fix = `check that ${d.radius_nas_id} is on and sends RADIUS here (hotspot-ctl devices router-config) with its NAS-Identifier and secret`;
    if (d.last_seen_at === null)
      return { name, status: 'warn', detail: `never sent a RADIUS packet; ${coa}`, fix };
    const silent = (now.getTime() - Date.parse(d.last_seen_at)) / 1000;
    // Down: the router-down job reported it silent with guests on it (docs/decisions/0038).
    const down = downSince(d) === null ? '' : 'DOWN with guests on it: ';
    if (silent > window || down !== '')
      return {
        name,
        status: 'warn',
        detail: `${down}silent for ${formatSeconds(silent)} (last RADIUS packet ${d.last_seen_at}); ${coa}`,
        fix,
      };
    return ok(name, `last RADIUS packet ${formatSeconds(Math.max(0, silent))} ago; ${coa}`);
  });
}
