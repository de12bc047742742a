import { mapConcurrent } from '../lib/concurrent.js';
import { recordAudit, type WifiActor } from './audit.js';
import type { WifiDeps } from './deps.js';
import { summarise, toTarget, type SessionDisconnect } from './disconnect.js';
import { wifiErrors } from './errors.js';
import { setLiveGrantsSpeed } from './grants.store.js';
import { updatePlan, type PlanRow } from './plans.js';
import type { PlanRequest } from './plans.schema.js';
import { findPlan } from './plans.store.js';
import { inScope, type SiteScope } from './sites.js';
import { grantUsage, selectLiveSessionsOfPlan, type LiveSessionTermsRow } from './sessions.store.js';

/**
 * A plan's speed applied to access already sold (DESIGN.md §4.7 `--apply-to-live`): a grant keeps
 * the speed its plan had when it was bought, so a changed plan changes nothing sold until the
 * operator asks. Then the live grants of the plan take its speed (their next logins get it), and
 * each of their live sessions gets a CoA-Request (RFC 5176) with the new terms, so guests online
 * now are changed without being cut off. The outcome says what each router answered.
 */

/** CoA-Requests under way at once (each waits on its own router, up to three tries). */
const CHANGES_AT_ONCE = 16;

export interface SpeedChangeOutcome {
  /** Live grants of the plan that now have its speed. */
  grants: number;
  status: 'changed' | 'nak' | 'no_answer' | 'not_available' | 'partial' | 'no_sessions';
  sessions: SessionDisconnect[];
}

export async function applyPlanSpeedToLive(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  planId: string,
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<SpeedChangeOutcome> {
  const now = deps.clock.now();
  const { grants, sessions } = await deps.db.transaction().execute(async (tx) => {
    const plan = await findPlan(tx, planId);
    if (!plan || !inScope(scope, plan.site_id)) throw wifiErrors.planNotFound();
    const changed = await setLiveGrantsSpeed(tx, plan.id, now.toISOString(), plan);
    if (actor)
      await recordAudit(tx, deps.clock, {
        actor,
        action: 'plan.apply_to_live',
        target: { type: 'plan', id: plan.id },
        siteId: plan.site_id,
        after: { grants_updated: changed, download_kbps: plan.download_kbps, upload_kbps: plan.upload_kbps },
      });
    return { grants: changed, sessions: await selectLiveSessionsOfPlan(tx, plan.id, now.toISOString()) };
  });
  deps.log.info(
    { event: 'plan.speed_applied', plan_id: planId, grants, sessions: sessions.length },
    'plan speed applied to live grants',
  );
  // After the commit: a router's answer (or silence) cannot undo the grants' new speed.
  const used = new Map<string, number>();
  const results = await mapConcurrent(sessions, CHANGES_AT_ONCE, async (s): Promise<SessionDisconnect> => {
    if (!used.has(s.grant_id)) used.set(s.grant_id, (await grantUsage(deps.db, s.grant_id, null)).usedOctets);
    const answer = await deps.coa.change(toTarget(s), terms(s, now, used.get(s.grant_id) ?? 0));
    return { sessionId: s.id, nasId: s.radius_nas_id, acctSessionId: s.acct_session_id, ...answer };
  });
  return { grants, status: summarise(results, 'changed'), sessions: results };
}

/** The session's terms from now: time and data left on its grant, the grant's (new) speed. */
function terms(s: LiveSessionTermsRow, now: Date, grantUsedOctets: number) {
  const nowMs = now.getTime();
  return {
    sessionSeconds: Math.max(0, Math.floor((nowMs - Date.parse(s.started_at)) / 1000)),
    secondsLeft: Math.max(1, Math.floor((Date.parse(s.expires_at) - nowMs) / 1000)),
    sessionOctets: s.input_octets + s.output_octets,
    dataLeftBytes: s.data_limit_bytes === null ? null : Math.max(0, s.data_limit_bytes - grantUsedOctets),
    downloadKbps: s.download_kbps,
    uploadKbps: s.upload_kbps,
  };
}

/**
 * `plans update ID … --apply-to-live`: the plan's values changed (committed), then its speed given
 * to what was sold and the routers told; a refused change applies nothing.
 */
export async function updatePlanAndApply(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  id: string,
  request: PlanRequest,
  actor?: WifiActor,
): Promise<{ plan: PlanRow; applied: SpeedChangeOutcome }> {
  const plan = await updatePlan(deps, id, request, null, actor);
  return { plan, applied: await applyPlanSpeedToLive(deps, plan.id, null, actor) };
}
