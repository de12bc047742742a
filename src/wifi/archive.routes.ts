import { defineRoute, type Route } from '../http/route.js';
import {
  archiveDevice,
  archivePlan,
  deleteDevice,
  deletePlan,
  unarchiveDevice,
  unarchivePlan,
  type ArchiveActor,
} from './archive.js';
import { NO_FIELDS } from './admin.schema.js';
import { staffActor } from './audit.js';
import type { WifiDeps } from './deps.js';
import { presentDevice } from './devices.present.js';
import { parseFlag } from './list-query.js';
import { presentPlan } from './plans.present.js';
import { presentAnswers } from './sessions.present.js';
import type { requireStaff } from './staff.http.js';
import type { StaffPrincipal } from './staff.js';

/**
 * Issue 21 item 4 (docs/decisions/0037-archive.md), additions to wifi-access-api.md §4.3, admin
 * role: archive, unarchive and delete a plan or a router. Each answers the record as it now is
 * (a deleted one as it was); archiving a router also says what its routers answered to the
 * Disconnect-Requests (`?force=true` only).
 */
export function archiveRoutes(deps: WifiDeps, admin: ReturnType<typeof requireStaff>): Route[] {
  const who = (principal: StaffPrincipal): ArchiveActor => ({
    scope: principal.sites,
    actor: staffActor(principal),
  });
  const action = (
    method: 'POST' | 'DELETE',
    path: string,
    run: (id: string, principal: StaffPrincipal, query: Readonly<Record<string, string>>) => Promise<unknown>,
  ): Route =>
    defineRoute({
      method,
      path,
      api: 'wifi',
      auth: admin,
      body: NO_FIELDS,
      handler: async ({ principal, params, query }) => ({
        data: await run(params.id ?? '', principal, query),
      }),
    });
  return [
    action('POST', '/api/v1/admin/plans/:id/archive', async (id, p) =>
      presentPlan(await archivePlan(deps, id, who(p))),
    ),
    action('POST', '/api/v1/admin/plans/:id/unarchive', async (id, p) =>
      presentPlan(await unarchivePlan(deps, id, who(p))),
    ),
    action('DELETE', '/api/v1/admin/plans/:id', async (id, p) =>
      presentPlan(await deletePlan(deps, id, who(p))),
    ),
    action('POST', '/api/v1/admin/devices/:id/archive', async (id, p, query) => {
      const force = parseFlag(query.force);
      const { device, disconnect } = await archiveDevice(deps, id, { ...who(p), force });
      return {
        ...presentDevice(device),
        disconnect: { status: disconnect.status, sessions: presentAnswers(disconnect.sessions) },
      };
    }),
    action('POST', '/api/v1/admin/devices/:id/unarchive', async (id, p) =>
      presentDevice(await unarchiveDevice(deps, id, who(p))),
    ),
    action('DELETE', '/api/v1/admin/devices/:id', async (id, p) =>
      presentDevice(await deleteDevice(deps, id, who(p))),
    ),
  ];
}
