import type { Db } from '../db/index.js';
import { recordAudit, type WifiActor } from './audit.js';
import { presentDevice } from './devices.present.js';
import { viewDevice, type DeviceView } from './devices.js';
import {
  deleteDeviceRow,
  deviceEverUsed,
  findDevice,
  updateDeviceRow,
  type DeviceRow,
} from './devices.store.js';
import type { WifiDeps } from './deps.js';
import { disconnectSessions, type CoaOutcome } from './disconnect.js';
import { wifiErrors } from './errors.js';
import { presentPlan } from './plans.present.js';
import { deletePlanRow, findPlan, planEverUsed, updatePlanRow, type PlanRow } from './plans.store.js';
import { closeDeviceSessions, selectLiveSessionsOfDevice } from './sessions.store.js';
import { inScope, type SiteScope } from './sites.js';

/**
 * Archiving and deleting plans and routers (issue 21 item 4, docs/decisions/0037-archive.md).
 * An archived record stays in the database, so every invoice, grant, session and report that
 * names it still does; it leaves the lists (unless asked for) and what guests and routers see.
 * Deleting is for a record nothing ever named: a plan never sold, a router that never had a
 * session. Each change and its audit entry are one transaction.
 */

/** Who asks, and within which sites (null: every site). */
export interface ArchiveActor {
  scope?: SiteScope;
  actor?: WifiActor | undefined;
}

type PlanDeps = Pick<WifiDeps, 'db' | 'clock'>;
type DeviceDeps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'coa' | 'log'>;

interface Change<Row> {
  action: string;
  before: Row;
  after: Row | null;
}

/** The audit entry of one change; before/after as the admin API presents them. */
async function audit<Row extends { id: string; site_id: string }>(
  tx: Db,
  deps: Pick<WifiDeps, 'clock'>,
  who: ArchiveActor,
  type: 'plan' | 'device',
  change: Change<Row>,
  present: (row: Row) => unknown,
): Promise<void> {
  if (!who.actor) return;
  await recordAudit(tx, deps.clock, {
    actor: who.actor,
    action: `${type}.${change.action}`,
    target: { type, id: change.before.id },
    siteId: change.before.site_id,
    before: present(change.before),
    ...(change.after !== null && { after: present(change.after) }),
  });
}

async function planInScope(tx: Db, id: string, who: ArchiveActor): Promise<PlanRow> {
  const plan = await findPlan(tx, id);
  if (!plan || !inScope(who.scope ?? null, plan.site_id)) throw wifiErrors.planNotFound();
  return plan;
}

async function deviceInScope(tx: Db, id: string, who: ArchiveActor): Promise<DeviceRow> {
  const device = await findDevice(tx, id);
  if (!device || !inScope(who.scope ?? null, device.site_id)) throw wifiErrors.deviceNotFound();
  return device;
}

/**
 * Archives a plan: off sale (`active` false) and out of the lists; invoices, grants and vouchers
 * already sold on it keep working and keep naming it. 409 when it is archived already.
 */
export function archivePlan(deps: PlanDeps, id: string, who: ArchiveActor = {}): Promise<PlanRow> {
  return deps.db.transaction().execute(async (tx) => {
    const before = await planInScope(tx, id, who);
    if (before.archived_at !== null) throw wifiErrors.planAlreadyArchived();
    const now = deps.clock.now().toISOString();
    await updatePlanRow(tx, id, { active: 0, archived_at: now, updated_at: now });
    const after = (await findPlan(tx, id)) as PlanRow;
    await audit(tx, deps, who, 'plan', { action: 'archive', before, after }, presentPlan);
    return after;
  });
}

/**
 * Brings an archived plan back, still off sale: the operator puts it on sale (PATCH `active`,
 * `plans update --active`) once its price and terms are checked. 409 when it is not archived.
 */
export function unarchivePlan(deps: PlanDeps, id: string, who: ArchiveActor = {}): Promise<PlanRow> {
  return deps.db.transaction().execute(async (tx) => {
    const before = await planInScope(tx, id, who);
    if (before.archived_at === null) throw wifiErrors.planNotArchived();
    await updatePlanRow(tx, id, { archived_at: null, updated_at: deps.clock.now().toISOString() });
    const after = (await findPlan(tx, id)) as PlanRow;
    await audit(tx, deps, who, 'plan', { action: 'unarchive', before, after }, presentPlan);
    return after;
  });
}

/** Deletes a plan nothing was ever sold on (no invoice, no voucher batch); 409 otherwise. */
export function deletePlan(deps: PlanDeps, id: string, who: ArchiveActor = {}): Promise<PlanRow> {
  return deps.db.transaction().execute(async (tx) => {
    const before = await planInScope(tx, id, who);
    if (await planEverUsed(tx, id)) throw wifiErrors.planInUse();
    await deletePlanRow(tx, id);
    await audit(tx, deps, who, 'plan', { action: 'delete', before, after: null }, presentPlan);
    return before;
  });
}

export interface ArchivedDevice {
  device: DeviceView;
  /** What each router said to the Disconnect-Requests (`no_sessions` when none was live). */
  disconnect: CoaOutcome;
}

/**
 * Archives a router: RADIUS and the portal treat it as unknown from now on. A router with live
 * sessions is refused (409) unless `force`: its open sessions are then closed here, in the
 * archiving's transaction (its accounting is dropped from now on), and each gets a
 * Disconnect-Request after the commit; the guests' grants stay, so they can sign in elsewhere.
 */
export async function archiveDevice(
  deps: DeviceDeps,
  id: string,
  who: ArchiveActor & { force?: boolean } = {},
): Promise<ArchivedDevice> {
  const now = deps.clock.now().toISOString();
  const { after, live } = await deps.db.transaction().execute(async (tx) => {
    const before = await deviceInScope(tx, id, who);
    if (before.archived_at !== null) throw wifiErrors.deviceAlreadyArchived();
    const live = await selectLiveSessionsOfDevice(tx, id);
    if (live.length > 0 && who.force !== true) throw wifiErrors.deviceHasLiveSessions();
    await updateDeviceRow(tx, id, { archived_at: now, updated_at: now });
    await closeDeviceSessions(tx, id, now, 'Admin-Reset');
    const after = (await findDevice(tx, id)) as DeviceRow;
    await audit(tx, deps, who, 'device', { action: 'archive', before, after }, (row) =>
      presentDevice(viewDevice(deps, row)),
    );
    return { after, live };
  });
  deps.coa.forgetRouter?.(after.radius_nas_id);
  const disconnect = await disconnectSessions(deps, live, 'router archived');
  return { device: viewDevice(deps, after), disconnect };
}

/** Brings an archived router back: RADIUS answers it again from its next packet. 409 when not archived. */
export async function unarchiveDevice(
  deps: DeviceDeps,
  id: string,
  who: ArchiveActor = {},
): Promise<DeviceView> {
  const after = await deps.db.transaction().execute(async (tx) => {
    const before = await deviceInScope(tx, id, who);
    if (before.archived_at === null) throw wifiErrors.deviceNotArchived();
    await updateDeviceRow(tx, id, { archived_at: null, updated_at: deps.clock.now().toISOString() });
    const after = (await findDevice(tx, id)) as DeviceRow;
    await audit(tx, deps, who, 'device', { action: 'unarchive', before, after }, (row) =>
      presentDevice(viewDevice(deps, row)),
    );
    return after;
  });
  deps.coa.forgetRouter?.(after.radius_nas_id);
  return viewDevice(deps, after);
}

/** Deletes a router that never had a session; 409 otherwise (archive it instead). */
export async function deleteDevice(
  deps: DeviceDeps,
  id: string,
  who: ArchiveActor = {},
): Promise<DeviceView> {
  const before = await deps.db.transaction().execute(async (tx) => {
    const before = await deviceInScope(tx, id, who);
    if (await deviceEverUsed(tx, id)) throw wifiErrors.deviceInUse();
    await deleteDeviceRow(tx, id);
    await audit(tx, deps, who, 'device', { action: 'delete', before, after: null }, (row) =>
      presentDevice(viewDevice(deps, row)),
    );
    return before;
  });
  deps.coa.forgetRouter?.(before.radius_nas_id);
  return viewDevice(deps, before);
}
