import type { Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { DevicesTable } from '../db/tables/wifi.js';
import { RADIUS_SECRET_MIN_LENGTH } from '../config/index.js';
import { uuid } from '../lib/crypto.js';
import { recordAudit, type WifiActor } from './audit.js';
import { newRadiusSecret } from './codes.js';
import { presentDevice } from './devices.present.js';
import type { WifiDeps } from './deps.js';
import {
  parseDeviceChanges,
  parseDeviceCreate,
  type DeviceRequest,
  type DeviceValues,
  type UamAuth,
} from './devices.schema.js';
import {
  findClash,
  findDevice,
  findDeviceByNasId,
  countSeenSince,
  insertDevice,
  markSeen,
  selectDevices,
  updateDeviceRow,
  type DeviceRow,
} from './devices.store.js';
import { wifiErrors } from './errors.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import type { ArchivedFilter } from './plans.store.js';
import { countOpenSessionsByDevice } from './router-health.store.js';
import { ipv4ToNumber, networkContains, numberToIpv4, parseIpv4Cidr, type Ipv4Network } from './net.js';
import {
  EVERY_SITE,
  inScope,
  siteForChange,
  siteForNew,
  sitesOf,
  type SiteScope,
  type SiteView,
} from './sites.js';

export type { DeviceRow } from './devices.store.js';

/**
 * A router is online when its last valid RADIUS packet came within this many interim intervals
 * (DESIGN.md §4.7): a router with guests reports every interval. One with none sends nothing,
 * so an idle router reads offline; `last_seen_at` says since when.
 */
export const ONLINE_WITHIN_INTERVALS = 2.5;

/**
 * A device as staff see it: its row and whether it is online now; in lists, its open sessions
 * too (issue 21).
 */
export type DeviceView = DeviceRow & { online: boolean; live_sessions?: number };

/**
 * When the router went quiet, for a router whose outage the router-down job reported and that
 * has not been heard from since (docs/decisions/0038); null otherwise.
 */
export const downSince = (row: Pick<DeviceRow, 'down_since' | 'last_seen_at'>): string | null =>
  row.down_since !== null && row.down_since === row.last_seen_at ? row.down_since : null;

/** Views of `rows` with each one's open sessions, counted in one query. */
async function withLiveSessions(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  rows: DeviceRow[],
): Promise<DeviceView[]> {
  const live = await countOpenSessionsByDevice(
    deps.db,
    rows.map((d) => d.id),
  );
  return rows.map((d) => ({ ...viewDevice(deps, d), live_sessions: live.get(d.id) ?? 0 }));
}

const onlineSince = (deps: Pick<WifiDeps, 'clock' | 'config'>): string =>
  new Date(
    deps.clock.now().getTime() - deps.config.radiusInterimInterval * ONLINE_WITHIN_INTERVALS * 1000,
  ).toISOString();

export function viewDevice(deps: Pick<WifiDeps, 'clock' | 'config'>, row: DeviceRow): DeviceView {
  return { ...row, online: row.last_seen_at !== null && row.last_seen_at >= onlineSince(deps) };
}

/**
 * Records when routers were last heard from (radius/ calls this with what its listener saw since
 * the last time, device id → ISO time).
 */
export async function markRoutersSeen(
  deps: Pick<WifiDeps, 'db'>,
  seen: ReadonlyMap<string, string>,
): Promise<void> {
  await markSeen(deps.db, seen);
}

/**
 * Whether a router is up as the devices page shows it (docs/decisions/0038): heard from within the
 * online window and with no outage the router-down job reported. The page's Down pill is
 * `down_since`; Online/Offline is `online`.
 */
export const routerUp = (view: DeviceView): boolean => view.online && downSince(view) === null;

/** For GET /metrics (`hotspot_router_online`): every router not archived, and whether it is up. */
export async function routersUp(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
): Promise<{ id: string; name: string; site_id: string; up: boolean }[]> {
  const rows = await selectDevices(deps.db, { limit: null, sites: null, archived: 'current' });
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    site_id: row.site_id,
    up: routerUp(viewDevice(deps, row)),
  }));
}

/**
 * The RADIUS secrets shorter than RFC 2865 §3's 16 octets, for `doctor` and the daemon's start
 * warning: RADIUS_SECRET (any router may be moved to it) and each current router's own. Stored before the minimum was enforced, they still work; a new one is refused.
 */
export async function shortRadiusSecrets(
  deps: Pick<WifiDeps, 'db' | 'vault' | 'config'>,
): Promise<{ global: boolean; routers: { id: string; name: string; radius_nas_id: string }[] }> {
  const rows = await selectDevices(deps.db, { limit: null, sites: null, archived: 'current' });
  const short = (secret: string): boolean => secret.length < RADIUS_SECRET_MIN_LENGTH;
  return {
    global: short(deps.config.radiusSecret),
    routers: rows
      .filter((row) => {
        const own = deviceRadiusSecret(deps, row);
        return own !== null && short(own);
      })
      .map((row) => ({ id: row.id, name: row.name, radius_nas_id: row.radius_nas_id })),
  };
}

/**
 * For `hotspot-ctl status`: how many routers are registered, how many are up as the devices page
 * and GET /metrics count them (heard from within the window, no outage reported), and how many
 * are down (an outage reported and nothing heard since).
 */
export async function routersOnline(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
): Promise<{ registered: number; online: number; down: number }> {
  const { total, seen, down } = await countSeenSince(deps.db, onlineSince(deps));
  return { registered: total, online: seen, down };
}

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>;

/**
 * A device with its own RADIUS secret in the clear: shown once after `add` and `rotate-secret`;
 * null when the device has none of its own (RADIUS_SECRET applies, and is never shown here).
 */
export interface DeviceWithSecret {
  device: DeviceView;
  radiusSecret: string | null;
}

/** Whose shared secret a device's RADIUS packets are signed with (DESIGN.md §4.5). */
export type RadiusSecretSource = 'own' | 'global';

export const radiusSecretSource = (device: Pick<DeviceRow, 'radius_secret_enc'>): RadiusSecretSource =>
  device.radius_secret_enc === null ? 'global' : 'own';

const radiusContext = (id: string): string => `device-radius-secret:${id}`;
const uamContext = (id: string): string => `device-uam-secret:${id}`;

/** A device's own RADIUS secret in the clear, or null when it has none (RADIUS_SECRET applies). */
export const deviceRadiusSecret = (deps: Pick<WifiDeps, 'vault'>, device: DeviceRow): string | null =>
  device.radius_secret_enc === null
    ? null
    : deps.vault.open(device.radius_secret_enc, radiusContext(device.id));

/** A device's own uam secret in the clear, or null when it has none. */
export const deviceUamSecret = (deps: Pick<WifiDeps, 'vault'>, device: DeviceRow): string | null =>
  device.uam_secret_enc === null ? null : deps.vault.open(device.uam_secret_enc, uamContext(device.id));

/**
 * The router's own address on the guest network: the one set, else the network's first address
 * (where `/ip hotspot setup` and CoovaChilli put it).
 */
export function gatewayOf(device: Pick<DeviceRow, 'gateway_ip' | 'local_network'>): string {
  return device.gateway_ip ?? numberToIpv4(networkOf(device).base + 1);
}

/** A gateway given (or kept) must lie in the network given (or kept). */
function refuseGatewayOutside(values: Partial<DeviceValues>, existing?: DeviceRow): void {
  const gateway = values.gatewayIp === undefined ? (existing?.gateway_ip ?? null) : values.gatewayIp;
  if (gateway === null) return;
  const network = parseIpv4Cidr(values.localNetwork ?? existing?.local_network ?? '');
  const address = ipv4ToNumber(gateway);
  if (!network || address === null || !networkContains(network, address))
    throw wifiErrors.deviceGatewayInvalid();
}

/**
 * A tunnel address given must lie in the WireGuard subnet (WIREGUARD_ADDRESS, when set) and not be
 * this box's own tunnel address.
 */
function refuseTunnelOutside(config: WifiDeps['config'], values: Partial<DeviceValues>): void {
  if (values.tunnelAddress === undefined || values.tunnelAddress === null) return;
  if (config.wireguardAddress === null) return;
  const subnet = parseIpv4Cidr(config.wireguardAddress);
  const address = ipv4ToNumber(values.tunnelAddress);
  const own = config.wireguardAddress.split('/')[0];
  if (!subnet || address === null || !networkContains(subnet, address) || values.tunnelAddress === own)
    throw wifiErrors.deviceTunnelAddressInvalid();
}

/**
 * Registers a router; its RADIUS secret is the one given, a generated one, or (`radius_secret:
 * null`) none of its own, so RADIUS_SECRET applies.
 */
export async function registerDevice(
  deps: Deps,
  request: DeviceRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<DeviceWithSecret> {
  const values = parseDeviceCreate(request);
  refuseGatewayOutside(values);
  refuseTunnelOutside(deps.config, values);
  const siteId = await siteForNew(deps.db, scope, request.site_id);
  const id = uuid();
  const now = deps.clock.now().toISOString();
  const radiusSecret = values.radiusSecret === undefined ? newRadiusSecret() : values.radiusSecret;
  // Every value is present on create, so the columns are complete.
  const row = {
    id,
    ...toColumns(deps, id, { ...values, radiusSecret }),
    created_at: now,
    updated_at: now,
    last_seen_at: null,
    down_since: null,
    radsec_cert_sha256: null,
    site_id: siteId,
    archived_at: null,
  } as DeviceRow;
  await deps.db.transaction().execute(async (tx) => {
    await refuseClash(tx, values, null);
    await insertDevice(tx, row);
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action: 'device.create',
        target: { type: 'device', id },
        siteId,
        after: presentDevice(viewDevice(deps, row)),
      });
  });
  return { device: viewDevice(deps, row), radiusSecret };
}

/** Changes the settings the request supplies; 404 for an unknown device or one outside the scope. */
export async function updateDevice(
  deps: Deps,
  id: string,
  request: DeviceRequest,
  scope: SiteScope = null,
  actor?: WifiActor,
  action = 'device.update',
): Promise<DeviceView> {
  const values = parseDeviceChanges(request);
  return deps.db.transaction().execute(async (tx) => {
    const existing = await findDevice(tx, id);
    if (!existing || !inScope(scope, existing.site_id)) throw wifiErrors.deviceNotFound();
    refuseGatewayOutside(values, existing);
    refuseTunnelOutside(deps.config, values);
    await refuseClash(tx, values, id);
    const siteId = await siteForChange(tx, scope, request.site_id);
    await updateDeviceRow(tx, id, {
      ...toColumns(deps, id, values),
      ...(siteId !== undefined && { site_id: siteId }),
      updated_at: deps.clock.now().toISOString(),
    });
    const updated = viewDevice(deps, (await findDevice(tx, id)) as DeviceRow);
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action,
        target: { type: 'device', id },
        siteId: updated.site_id,
        before: presentDevice(viewDevice(deps, existing)),
        after: presentDevice(updated),
      });
    return updated;
  });
}

/**
 * Gives the device a RADIUS secret of its own, `secret` or a generated one: replaces its old one,
 * or ends its use of RADIUS_SECRET.
 */
export async function rotateDeviceSecret(
  deps: Deps,
  id: string,
  secret?: string,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<DeviceWithSecret & { radiusSecret: string }> {
  const radiusSecret = parseDeviceChanges({ radius_secret: secret }).radiusSecret ?? newRadiusSecret();
  const device = await updateDevice(
    deps,
    id,
    { radius_secret: radiusSecret },
    scope,
    actor,
    'device.rotate_secret',
  );
  return { device, radiusSecret };
}

/**
 * Pins the RadSec client certificate just issued to a router (`devices radsec-cert`): from now on
 * only that certificate identifies it, so issuing a new one retires the one before
 * (docs/decisions/0025). `fingerprint` is its SHA-256 as `AB:CD:…`.
 */
export async function pinRadsecCertificate(deps: Deps, id: string, fingerprint: string): Promise<DeviceView> {
  return deps.db.transaction().execute(async (tx) => {
    const updated = await updateDeviceRow(tx, id, {
      radsec_cert_sha256: fingerprint,
      updated_at: deps.clock.now().toISOString(),
    });
    if (!updated) throw wifiErrors.deviceNotFound();
    return viewDevice(deps, (await findDevice(tx, id)) as DeviceRow);
  });
}

/** A device by id, as staff see it; 404 when there is none. */
export async function getDevice(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  id: string,
): Promise<DeviceView> {
  const row = await findDevice(deps.db, id);
  if (!row) throw wifiErrors.deviceNotFound();
  return viewDevice(deps, row);
}

/**
 * GET /api/v1/admin/devices: the devices of the sites in view by name, at most 200, with their
 * open sessions. Archived ones only when asked (`?status=archived|all`, docs/decisions/0037).
 */
export async function listDevices(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  view: SiteView = EVERY_SITE,
  archived: ArchivedFilter = 'current',
): Promise<DeviceView[]> {
  const sites = await sitesOf(deps.db, view);
  return withLiveSessions(deps, await selectDevices(deps.db, { limit: ADMIN_LIST_LIMIT, sites, archived }));
}

/** `hotspot-ctl devices list`: every device (of one site), however many (docs/decisions/0007-admin-api.md). */
export async function listAllDevices(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'config'>,
  siteId?: string,
  archived: ArchivedFilter = 'current',
): Promise<DeviceView[]> {
  const sites = siteId === undefined ? null : [siteId];
  return withLiveSessions(deps, await selectDevices(deps.db, { limit: null, sites, archived }));
}

/** A router as RADIUS needs it: the shared secret its packets are signed with, in the clear. */
export interface NasDevice {
  device: DeviceRow;
  /** The device's own secret, or RADIUS_SECRET when it has none. */
  radiusSecret: string;
  secretSource: RadiusSecretSource;
}

/**
 * For RADIUS (listener and CoA): the router with this NAS-Identifier and its shared secret, archived
 * or not (`device.archived_at`: the listeners treat an archived one as unknown). A
 * device without a secret of its own uses RADIUS_SECRET as the configuration has it now, so a
 * changed RADIUS_SECRET applies from the next start without touching the devices.
 */
export async function deviceByNasId(
  deps: Pick<WifiDeps, 'db' | 'vault' | 'config'>,
  nasId: string,
): Promise<NasDevice | undefined> {
  const device = await findDeviceByNasId(deps.db, nasId);
  if (!device) return undefined;
  const own = deviceRadiusSecret(deps, device);
  return own === null
    ? { device, radiusSecret: deps.config.radiusSecret, secretSource: 'global' }
    : { device, radiusSecret: own, secretSource: 'own' };
}

/** The router a portal request comes through, with what the hand-off needs to encode the password. */
export interface PortalRouter {
  device: DeviceRow;
  network: Ipv4Network;
  /** Its own address on the guest network (gatewayOf), and whether staff set it (gateway_ip). */
  gateway: string;
  gatewayPinned: boolean;
  /** The device's own uam secret; null when it has none. */
  uamSecret: string | null;
  uamAuth: UamAuth;
}

/**
 * The router a portal request names (DESIGN.md §4.7): the device whose NAS id is `nasid`; without
 * one, the only device whose local network holds `uamip`. Several devices holding it (two sites
 * on CoovaChilli's default 10.1.0.0/24) is refused rather than guessed: each may have its own uam
 * secret. With both, `uamip` must lie in the named router's network (wifi-access-api.md §4.2).
 */
export async function findPortalRouter(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  request: { nasid: string | undefined; uamip: string | undefined },
): Promise<PortalRouter> {
  const address = request.uamip === undefined ? null : ipv4ToNumber(request.uamip);
  let device: DeviceRow;
  if (request.nasid !== undefined) {
    const named = await findDeviceByNasId(deps.db, request.nasid);
    // An archived router is unknown to the portal as to RADIUS (docs/decisions/0037).
    if (!named || named.archived_at !== null) throw wifiErrors.routerUnknown();
    if (address !== null && !networkContains(networkOf(named), address))
      throw wifiErrors.uamipOutsideRouter();
    device = named;
  } else {
    if (address === null) throw wifiErrors.routerParamsMissing();
    const current = await selectDevices(deps.db, { limit: null, sites: null, archived: 'current' });
    const holding = current.filter((d) => networkContains(networkOf(d), address));
    const [only, ...others] = holding;
    if (!only) throw wifiErrors.uamipUnknown();
    if (others.length > 0) throw wifiErrors.routerAmbiguous();
    device = only;
  }
  return {
    device,
    network: networkOf(device),
    gateway: gatewayOf(device),
    gatewayPinned: device.gateway_ip !== null,
    uamSecret: deviceUamSecret(deps, device),
    uamAuth: device.uam_auth === 'pap' ? 'pap' : 'chap',
  };
}

/** A stored network is canonical CIDR (checked when it was saved). */
const networkOf = (device: Pick<DeviceRow, 'local_network'>): Ipv4Network =>
  parseIpv4Cidr(device.local_network) ?? { base: 0, prefix: 32, text: device.local_network };

async function refuseClash(db: Db, values: Partial<DeviceValues>, exceptId: string | null): Promise<void> {
  if (values.radiusNasId === undefined && values.macAddress === undefined) return;
  const clash = await findClash(db, { nasId: values.radiusNasId, mac: values.macAddress }, exceptId);
  if (!clash) return;
  throw clash.radius_nas_id === values.radiusNasId
    ? wifiErrors.deviceNasIdTaken()
    : wifiErrors.deviceMacTaken();
}

function toColumns(
  deps: Pick<WifiDeps, 'vault'>,
  id: string,
  v: Partial<DeviceValues>,
): Updateable<DevicesTable> {
  const columns: Updateable<DevicesTable> = {};
  if (v.name !== undefined) columns.name = v.name;
  if (v.model !== undefined) columns.model = v.model;
  if (v.macAddress !== undefined) columns.mac_address = v.macAddress;
  if (v.localNetwork !== undefined) columns.local_network = v.localNetwork;
  if (v.uamServer !== undefined) columns.uam_server = v.uamServer;
  if (v.radiusNasId !== undefined) columns.radius_nas_id = v.radiusNasId;
  if (v.radiusClientIp !== undefined) columns.radius_client_ip = v.radiusClientIp;
  if (v.coaPort !== undefined) columns.coa_port = v.coaPort;
  if (v.radiusSecret !== undefined)
    columns.radius_secret_enc =
      v.radiusSecret === null ? null : deps.vault.seal(v.radiusSecret, radiusContext(id));
  if (v.uamSecret !== undefined)
    columns.uam_secret_enc = v.uamSecret === null ? null : deps.vault.seal(v.uamSecret, uamContext(id));
  if (v.uamAuth !== undefined) columns.uam_auth = v.uamAuth;
  if (v.gatewayIp !== undefined) columns.gateway_ip = v.gatewayIp;
  if (v.tunnelAddress !== undefined) columns.tunnel_address = v.tunnelAddress;
  if (v.tunnelPublicKey !== undefined) columns.tunnel_public_key = v.tunnelPublicKey;
  if (v.requireMessageAuthenticator !== undefined)
    columns.require_message_authenticator = v.requireMessageAuthenticator ? 1 : 0;
  return columns;
}
