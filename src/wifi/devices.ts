import type { Updateable } from 'kysely';
import type { Db } from '../db/index.js';
import type { DevicesTable } from '../db/tables/wifi.js';
import { uuid } from '../lib/crypto.js';
import { newRadiusSecret } from './codes.js';
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
  insertDevice,
  selectDevices,
  updateDeviceRow,
  type DeviceRow,
} from './devices.store.js';
import { wifiErrors } from './errors.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import { ipv4ToNumber, networkContains, parseIpv4Cidr } from './net.js';

export type { DeviceRow } from './devices.store.js';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'vault'>;

/**
 * A device with its own RADIUS secret in the clear: shown once after `add` and `rotate-secret`;
 * null when the device has none of its own (RADIUS_SECRET applies, and is never shown here).
 */
export interface DeviceWithSecret {
  device: DeviceRow;
  radiusSecret: string | null;
}

/** Whose shared secret a device's RADIUS packets are signed with (DESIGN.md §4.5). */
export type RadiusSecretSource = 'own' | 'global';

export const radiusSecretSource = (device: Pick<DeviceRow, 'radius_secret_enc'>): RadiusSecretSource =>
  device.radius_secret_enc === null ? 'global' : 'own';

const radiusContext = (id: string): string => `device-radius-secret:${id}`;
const uamContext = (id: string): string => `device-uam-secret:${id}`;

/**
 * Registers a router; its RADIUS secret is the one given, a generated one, or (`radius_secret:
 * null`) none of its own, so RADIUS_SECRET applies.
 */
export async function registerDevice(deps: Deps, request: DeviceRequest): Promise<DeviceWithSecret> {
  const values = parseDeviceCreate(request);
  const id = uuid();
  const now = deps.clock.now().toISOString();
  const radiusSecret = values.radiusSecret === undefined ? newRadiusSecret() : values.radiusSecret;
  // Every value is present on create, so the columns are complete.
  const row = {
    id,
    ...toColumns(deps, id, { ...values, radiusSecret }),
    created_at: now,
    updated_at: now,
  } as DeviceRow;
  await deps.db.transaction().execute(async (tx) => {
    await refuseClash(tx, values, null);
    await insertDevice(tx, row);
  });
  return { device: row, radiusSecret };
}

/** Changes the settings the request supplies; 404 for an unknown device. */
export async function updateDevice(deps: Deps, id: string, request: DeviceRequest): Promise<DeviceRow> {
  const values = parseDeviceChanges(request);
  return deps.db.transaction().execute(async (tx) => {
    if (!(await findDevice(tx, id))) throw wifiErrors.deviceNotFound();
    await refuseClash(tx, values, id);
    await updateDeviceRow(tx, id, {
      ...toColumns(deps, id, values),
      updated_at: deps.clock.now().toISOString(),
    });
    return (await findDevice(tx, id)) as DeviceRow;
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
): Promise<DeviceWithSecret & { radiusSecret: string }> {
  const radiusSecret = parseDeviceChanges({ radius_secret: secret }).radiusSecret ?? newRadiusSecret();
  const device = await updateDevice(deps, id, { radius_secret: radiusSecret });
  return { device, radiusSecret };
}

/** GET /api/v1/admin/devices: devices by name, at most 200. */
export function listDevices(deps: Pick<WifiDeps, 'db'>): Promise<DeviceRow[]> {
  return selectDevices(deps.db, { limit: ADMIN_LIST_LIMIT });
}

/** `hotspot-ctl devices list`: every device, however many (docs/decisions/0007-admin-api.md). */
export function listAllDevices(deps: Pick<WifiDeps, 'db'>): Promise<DeviceRow[]> {
  return selectDevices(deps.db, { limit: null });
}

/** A router as RADIUS needs it: the shared secret its packets are signed with, in the clear. */
export interface NasDevice {
  device: DeviceRow;
  /** The device's own secret, or RADIUS_SECRET when it has none. */
  radiusSecret: string;
  secretSource: RadiusSecretSource;
}

/**
 * For RADIUS (listener and CoA): the router with this NAS-Identifier and its shared secret. A
 * device without a secret of its own uses RADIUS_SECRET as the configuration has it now, so a
 * changed RADIUS_SECRET applies from the next start without touching the devices.
 */
export async function deviceByNasId(
  deps: Pick<WifiDeps, 'db' | 'vault' | 'config'>,
  nasId: string,
): Promise<NasDevice | undefined> {
  const device = await findDeviceByNasId(deps.db, nasId);
  if (!device) return undefined;
  return device.radius_secret_enc === null
    ? { device, radiusSecret: deps.config.radiusSecret, secretSource: 'global' }
    : {
        device,
        radiusSecret: deps.vault.open(device.radius_secret_enc, radiusContext(device.id)),
        secretSource: 'own',
      };
}

/** The router a UAM request comes through, with what uam-login needs to encode the password. */
export interface UamDevice {
  device: DeviceRow;
  /** The device's own uam secret; null when it has none. */
  uamSecret: string | null;
  uamAuth: UamAuth;
}

/**
 * The registered router whose local network contains `uamip`; when networks overlap, the most
 * specific one (longest prefix), then the oldest registration.
 */
export async function deviceForUamIp(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  uamip: string,
): Promise<UamDevice | undefined> {
  const address = ipv4ToNumber(uamip);
  if (address === null) return undefined;
  let best: { device: DeviceRow; prefix: number } | undefined;
  for (const device of await selectDevices(deps.db, { limit: null })) {
    const network = parseIpv4Cidr(device.local_network);
    if (!network || !networkContains(network, address)) continue;
    if (
      !best ||
      network.prefix > best.prefix ||
      (network.prefix === best.prefix && device.created_at < best.device.created_at)
    )
      best = { device, prefix: network.prefix };
  }
  if (!best) return undefined;
  const { device } = best;
  return {
    device,
    uamSecret:
      device.uam_secret_enc === null ? null : deps.vault.open(device.uam_secret_enc, uamContext(device.id)),
    uamAuth: device.uam_auth === 'pap' ? 'pap' : 'chap',
  };
}

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
  if (v.requireMessageAuthenticator !== undefined)
    columns.require_message_authenticator = v.requireMessageAuthenticator ? 1 : 0;
  return columns;
}
