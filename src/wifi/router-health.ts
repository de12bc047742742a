import { mapConcurrent } from '../lib/concurrent.js';
import type { WifiDeps } from './deps.js';
import {
  claimOutage,
  rearmRouter,
  selectHeardAgain,
  selectSilentRouters,
  type RouterHeardAgain,
  type SilentRouter,
} from './router-health.store.js';

/**
 * The router-down warning (issue 21, docs/decisions/0038-router-down.md). A router silent for
 * ROUTER_DOWN_AFTER (10 min) while guests were on it is down: the job writes one warning to the
 * log and, when ROUTER_DOWN_SMS_TO names the owner's phones, sends each one SMS, once per outage
 * (`devices.down_since` records it, so a restart does not repeat it). When the router is heard
 * from again it is re-armed, with one "back online" line and SMS.
 */

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log'>;

/**
 * An outage whose last packet is older than this is not reported: a router retired long ago, or
 * a daemon that was off for days, is not news for the owner's phone.
 */
const LOOK_BACK_SECONDS = 86_400;
/** SMS under way at once. */
const SENDS_AT_ONCE = 4;

/**
 * How long a router must be silent, in seconds, to be down. The loader refuses a ROUTER_DOWN_AFTER
 * under 1.5 × RADIUS_INTERIM_INTERVAL (config/load.ts), so it is used as given.
 */
const downAfterSeconds = (config: Deps['config']): number => config.routerDownAfter;

export interface RouterWatch {
  /** Outages reported by this run. */
  down: { routerId: string; sessions: number; sms: SmsOutcome[] }[];
  /** Routers heard from again after a reported outage, re-armed by this run. */
  back: { routerId: string; sms: SmsOutcome[] }[];
}

/** What the gateway said, per phone of ROUTER_DOWN_SMS_TO. */
export interface SmsOutcome {
  to: string;
  sent: boolean;
}

/**
 * The scheduled job: first re-arms routers heard from again, then reports new outages. Each
 * change is a conditional UPDATE committed before the log line and the SMS, so of two runs (or
 * daemons) one reports it; a crash between the two loses that SMS rather than sending it twice.
 * An SMS the gateway refuses is logged and not tried again: the warning is in the log.
 */
export async function watchRouters(deps: Deps): Promise<RouterWatch> {
  const now = deps.clock.now();
  const back: RouterWatch['back'] = [];
  for (const router of await selectHeardAgain(deps.db)) {
    if (!(await rearmRouter(deps.db, router.id, router.down_since))) continue;
    logBack(deps, router);
    back.push({ routerId: router.id, sms: await smsOwner(deps, backText(deps, router)) });
  }
  const down: RouterWatch['down'] = [];
  const silent = await selectSilentRouters(deps.db, {
    since: new Date(now.getTime() - (downAfterSeconds(deps.config) + LOOK_BACK_SECONDS) * 1000).toISOString(),
    silentBefore: new Date(now.getTime() - downAfterSeconds(deps.config) * 1000).toISOString(),
  });
  for (const router of silent) {
    if (!(await claimOutage(deps.db, router.id, router.last_seen_at))) continue;
    logDown(deps, router, now);
    down.push({
      routerId: router.id,
      sessions: router.sessions,
      sms: await smsOwner(deps, downText(deps, router, now)),
    });
  }
  return { down, back };
}

const minutesBetween = (from: string, to: Date): number =>
  Math.floor((to.getTime() - Date.parse(from)) / 60_000);

function logDown(deps: Deps, router: SilentRouter, now: Date): void {
  deps.log.warn(
    {
      event: 'router.down',
      router_id: router.id,
      router: router.name,
      nas_id: router.radius_nas_id,
      site_id: router.site_id,
      last_seen_at: router.last_seen_at,
      silent_minutes: minutesBetween(router.last_seen_at, now),
      sessions: router.sessions,
    },
    'router down: silent with guests on it',
  );
}

function logBack(deps: Deps, router: RouterHeardAgain): void {
  deps.log.info(
    {
      event: 'router.back_online',
      router_id: router.id,
      router: router.name,
      nas_id: router.radius_nas_id,
      site_id: router.site_id,
      down_since: router.down_since,
      last_seen_at: router.last_seen_at,
    },
    'router back online',
  );
}

const guests = (n: number): string => (n === 1 ? '1 guest session' : `${String(n)} guest sessions`);

const downText = (deps: Deps, router: SilentRouter, now: Date): string =>
  `${deps.config.serviceName}: router ${router.name} (${router.radius_nas_id}) has been silent for ` +
  `${String(minutesBetween(router.last_seen_at, now))} minutes with ${guests(router.sessions)} on it. ` +
  'Check its power and internet link.';

const backText = (deps: Deps, router: RouterHeardAgain): string =>
  `${deps.config.serviceName}: router ${router.name} (${router.radius_nas_id}) is back online after ` +
  `${String(minutesBetween(router.down_since, new Date(router.last_seen_at)))} minutes of silence.`;

/** One SMS to each of ROUTER_DOWN_SMS_TO through the notifier (the path of every SMS); none unset. */
function smsOwner(deps: Deps, message: string): Promise<SmsOutcome[]> {
  return mapConcurrent(deps.config.routerDownSmsTo, SENDS_AT_ONCE, async (to) => {
    const result = await deps.notifier.sendSms({ to, message });
    if (!result.ok)
      deps.log.warn(
        { event: 'router.sms_failed', transport: result.transport, error: result.error },
        'router SMS to the owner not sent',
      );
    return { to, sent: result.ok };
  });
}
