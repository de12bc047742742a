import { isIPv4 } from 'node:net';
import { RADIUS_SECRET_MIN_LENGTH } from '../config/index.js';
import { wifiErrors } from './errors.js';
import { isHttpUrl, isIpAddress, parseIpv4Cidr, parseMac } from './net.js';
import { must, parseChanges, type Checks } from './values.js';

/**
 * The Device request of wifi-access-api.md §2 plus the settings only this box needs: the RADIUS
 * shared secret, the CoovaChilli uam secret, the uam-login password encoding, and the switch for
 * legacy routers that send no Message-Authenticator (DESIGN.md §4.5), and the optional site_id
 * (DESIGN.md §4.9; checked against the sites by the domain, wifi/sites.ts).
 */
export const DEVICE_FIELDS = [
  'name',
  'model',
  'mac_address',
  'local_network',
  'uam_server',
  'radius_nas_id',
  'radius_client_ip',
  'coa_port',
  'radius_secret',
  'uam_secret',
  'uam_auth',
  'require_message_authenticator',
  'gateway_ip',
  'tunnel_address',
  'tunnel_public_key',
  'site_id',
] as const;
export type DeviceField = (typeof DEVICE_FIELDS)[number];
export type DeviceRequest = Partial<Record<DeviceField, unknown>>;

export type UamAuth = 'chap' | 'pap';

export interface DeviceValues {
  name: string;
  model: string;
  macAddress: string;
  localNetwork: string;
  uamServer: string;
  radiusNasId: string;
  radiusClientIp: string;
  coaPort: number;
  /**
   * The device's own RADIUS secret. undefined: generate one (create) or keep it (update); null:
   * none of its own, RADIUS_SECRET applies (DESIGN.md §4.5).
   */
  radiusSecret: string | null | undefined;
  /** null: none (the global UAM_SECRET applies). */
  uamSecret: string | null;
  uamAuth: UamAuth;
  requireMessageAuthenticator: boolean;
  /** null: the network's first address (DESIGN.md §4.7, docs/decisions/0023). */
  gatewayIp: string | null;
  /** Remote over WireGuard: its tunnel address; null: not remote (docs/decisions/0025). */
  tunnelAddress: string | null;
  /** The WireGuard public key the router generated; null: not known yet. */
  tunnelPublicKey: string | null;
}

export const DEFAULT_COA_PORT = 3799;

/** A WireGuard public key: 32 octets in base64, 44 characters ending in "=". */
export const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

const text = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.trim() !== '' && v.trim().length <= max ? v.trim() : null;
const secret = (v: unknown, min: number): string | null =>
  typeof v === 'string' && new RegExp(`^[\\x21-\\x7e]{${String(min)},128}$`).test(v) ? v : null;

const checks: Checks<DeviceValues> = {
  name: must((v) => text(v, 100), wifiErrors.deviceNameInvalid),
  model: must((v) => text(v, 100), wifiErrors.deviceModelInvalid),
  macAddress: must((v) => (typeof v === 'string' ? parseMac(v) : null), wifiErrors.deviceMacInvalid),
  localNetwork: must(
    (v) => (typeof v === 'string' ? (parseIpv4Cidr(v)?.text ?? null) : null),
    wifiErrors.deviceNetworkInvalid,
  ),
  uamServer: must(
    (v) => (typeof v === 'string' && isHttpUrl(v.trim()) ? v.trim() : null),
    wifiErrors.deviceUamServerInvalid,
  ),
  radiusNasId: must(
    (v) => (typeof v === 'string' && /^[\x21-\x7e]{1,253}$/.test(v) ? v : null),
    wifiErrors.deviceNasIdInvalid,
  ),
  radiusClientIp: must(
    (v) => (typeof v === 'string' && isIpAddress(v.trim()) ? v.trim() : null),
    wifiErrors.deviceClientIpInvalid,
  ),
  coaPort: must(
    (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65_535 ? v : null),
    wifiErrors.deviceCoaPortInvalid,
  ),
  radiusSecret: (v) =>
    v === undefined || v === null
      ? v
      : must((s) => secret(s, RADIUS_SECRET_MIN_LENGTH), wifiErrors.deviceSecretInvalid)(v),
  uamSecret: (v) => (v === null ? null : must((s) => secret(s, 1), wifiErrors.deviceUamSecretInvalid)(v)),
  uamAuth: must((v) => (v === 'chap' || v === 'pap' ? v : null), wifiErrors.deviceUamAuthInvalid),
  requireMessageAuthenticator: must(
    (v) => (typeof v === 'boolean' ? v : null),
    wifiErrors.deviceMessageAuthInvalid,
  ),
  // Whether it lies in the network is checked with the network (devices.ts).
  gatewayIp: (v) =>
    v === null
      ? null
      : must(
          (s) => (typeof s === 'string' && isIPv4(s.trim()) ? s.trim() : null),
          wifiErrors.deviceGatewayInvalid,
        )(v),
  tunnelAddress: (v) =>
    v === null
      ? null
      : must(
          (s) => (typeof s === 'string' && isIPv4(s.trim()) ? s.trim() : null),
          wifiErrors.deviceTunnelAddressInvalid,
        )(v),
  tunnelPublicKey: (v) =>
    v === null
      ? null
      : must(
          (s) => (typeof s === 'string' && WIREGUARD_KEY.test(s.trim()) ? s.trim() : null),
          wifiErrors.deviceTunnelKeyInvalid,
        )(v),
};

const WIRE: { readonly [K in keyof DeviceValues]: DeviceField } = {
  name: 'name',
  model: 'model',
  macAddress: 'mac_address',
  localNetwork: 'local_network',
  uamServer: 'uam_server',
  radiusNasId: 'radius_nas_id',
  radiusClientIp: 'radius_client_ip',
  coaPort: 'coa_port',
  radiusSecret: 'radius_secret',
  uamSecret: 'uam_secret',
  uamAuth: 'uam_auth',
  requireMessageAuthenticator: 'require_message_authenticator',
  gatewayIp: 'gateway_ip',
  tunnelAddress: 'tunnel_address',
  tunnelPublicKey: 'tunnel_public_key',
};

/** A new device: every Device request field but coa_port is required. */
export function parseDeviceCreate(request: DeviceRequest): DeviceValues {
  return {
    name: checks.name(request.name),
    model: checks.model(request.model),
    macAddress: checks.macAddress(request.mac_address),
    localNetwork: checks.localNetwork(request.local_network),
    uamServer: checks.uamServer(request.uam_server),
    radiusNasId: checks.radiusNasId(request.radius_nas_id),
    radiusClientIp: checks.radiusClientIp(request.radius_client_ip),
    coaPort: checks.coaPort(request.coa_port ?? DEFAULT_COA_PORT),
    radiusSecret: checks.radiusSecret(request.radius_secret),
    uamSecret: checks.uamSecret(request.uam_secret ?? null),
    uamAuth: checks.uamAuth(request.uam_auth ?? 'chap'),
    requireMessageAuthenticator: checks.requireMessageAuthenticator(
      request.require_message_authenticator ?? true,
    ),
    gatewayIp: checks.gatewayIp(request.gateway_ip ?? null),
    tunnelAddress: checks.tunnelAddress(request.tunnel_address ?? null),
    tunnelPublicKey: checks.tunnelPublicKey(request.tunnel_public_key ?? null),
  };
}

/** The values a change supplies; absent (undefined) fields stay as they are. */
export const parseDeviceChanges = (request: DeviceRequest): Partial<DeviceValues> =>
  parseChanges(checks, WIRE, request);
