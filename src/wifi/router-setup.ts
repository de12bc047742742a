import { isIPv4 } from 'node:net';
import type { WifiDeps } from './deps.js';
import { deviceRadiusSecret, deviceUamSecret, gatewayOf, type DeviceRow } from './devices.js';
import { findDevice } from './devices.store.js';
import { wifiErrors } from './errors.js';
import {
  isRouterConfigFormat,
  renderRouterConfig,
  routerConfigFileName,
  type RouterConfigInput,
} from './router-config.js';
import { hostOf } from './router-config-facts.js';
import { splitEndpoint, type TunnelInput } from './router-config-wireguard.js';
import { siteRemembersDevices } from './plans.store.js';
import { inScope, type SiteScope } from './sites.js';

/**
 * `hotspot-ctl devices router-config ID` and GET /api/v1/admin/devices/{id}/router-config
 * (DESIGN.md §4.7): a router's ready-to-paste configuration, from its registration and this box's
 * settings. The router's own secrets are printed (admins may see them: they enter them on the
 * router); RADIUS_SECRET and UAM_SECRET never are.
 */
export async function routerConfig(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config' | 'payments'>,
  id: string,
  options: { format?: unknown; radiusAddress?: unknown; scope?: SiteScope },
): Promise<{ text: string; fileName: string }> {
  const format = options.format ?? 'routeros';
  if (typeof format !== 'string' || !isRouterConfigFormat(format))
    throw wifiErrors.routerConfigFormatInvalid();
  const address = options.radiusAddress;
  if (address !== undefined && (typeof address !== 'string' || !isIPv4(address)))
    throw wifiErrors.radiusAddressInvalid();
  const device = await findDevice(deps.db, id);
  if (!device || !inScope(options.scope ?? null, device.site_id)) throw wifiErrors.deviceNotFound();
  const { config } = deps;
  if (config.radiusAuthPort === 0 || config.radiusAcctPort === 0) throw wifiErrors.radiusDisabled();
  const uamSecret = deviceUamSecret(deps, device);
  const tunnel = tunnelOf(config, device);
  const input: RouterConfigInput = {
    device: {
      name: device.name,
      nasId: device.radius_nas_id,
      localNetwork: device.local_network,
      gatewayIp: gatewayOf(device),
      uamServer: device.uam_server,
      coaPort: device.coa_port,
      uamAuth: device.uam_auth === 'pap' ? 'pap' : 'chap',
      clientIp: device.radius_client_ip,
    },
    radiusSecret: deviceRadiusSecret(deps, device),
    uamSecret:
      uamSecret !== null
        ? { source: 'own', value: uamSecret }
        : config.uamSecret
          ? { source: 'global' }
          : { source: 'none' },
    radius: {
      // A remote router reaches RADIUS (and the portal) at the box's end of its tunnel.
      address: address ?? tunnel?.box.address ?? boxAddress(config, device.uam_server),
      authPort: config.radiusAuthPort,
      acctPort: config.radiusAcctPort,
      interimSeconds: config.radiusInterimInterval,
    },
    // The portal's host comes first by itself (router-config-facts.ts).
    walledGarden: [hostOf(config.publicBaseUrl), ...deps.payments.guestHosts].filter(reachable),
    serviceName: config.serviceName,
    generatedAt: deps.clock.now(),
    tunnel,
    macAuth: await siteRemembersDevices(deps.db, device.site_id),
  };
  return {
    text: renderRouterConfig(input, format),
    fileName: routerConfigFileName(device.radius_nas_id, format),
  };
}

/**
 * The WireGuard tunnel of a router marked remote (a tunnel address), from the box's WIREGUARD_*
 * settings; null for a router on the LAN. A remote router's set-up cannot be made without them.
 */
function tunnelOf(config: WifiDeps['config'], device: DeviceRow): TunnelInput | null {
  if (device.tunnel_address === null) return null;
  const { wireguardEndpoint: endpoint, wireguardPublicKey: publicKey, wireguardAddress: own } = config;
  if (endpoint === null || publicKey === null || own === null) throw wifiErrors.wireguardNotConfigured();
  const [boxAddress = '', prefix = '24'] = own.split('/');
  const { host, port } = splitEndpoint(endpoint);
  return {
    address: device.tunnel_address,
    prefix: Number(prefix),
    box: { address: boxAddress, endpointHost: host, endpointPort: port, publicKey },
    routerPublicKey: device.tunnel_public_key,
  };
}

/** A host a router could reach: not a name or address of the box's own loopback. */
const reachable = (host: string | null): host is string =>
  host !== null && host !== 'localhost' && !host.startsWith('127.') && host !== '[::1]';

/**
 * The IPv4 address a router reaches this box on, as far as the settings tell: RADIUS_HOST when it
 * is one address, else the host of the router's portal URL (the portal runs on this box), else
 * of PUBLIC_BASE_URL, when either is an IPv4 address; null (a placeholder is printed) otherwise.
 */
function boxAddress(config: WifiDeps['config'], uamServer: string): string | null {
  const candidates = [
    config.radiusHost === '0.0.0.0' ? null : config.radiusHost,
    hostOf(uamServer),
    hostOf(config.publicBaseUrl),
  ];
  return candidates.find((c): c is string => reachable(c) && isIPv4(c)) ?? null;
}
