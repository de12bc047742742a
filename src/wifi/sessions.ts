import { idleWriteTransaction, type Db } from '../db/index.js';
import { uuid } from '../lib/crypto.js';
import { isoAt } from '../lib/time.js';
import type { WifiDeps } from './deps.js';
import { disconnectSessions, type CoaOutcome } from './disconnect.js';
import { wifiErrors } from './errors.js';
import { recordAudit, type WifiActor } from './audit.js';
import { rememberedGrant, revoke } from './grants.js';
import { ADMIN_LIST_LIMIT } from './limits.js';
import { plainList, type ListFilter } from './list-filter.store.js';
import { EVERY_SITE, inScope, sitesOf, type SiteScope, type SiteView } from './sites.js';
import { findGrantByUsername, type GrantRow } from './grants.store.js';
import { setFirstRouter, setFirstRouters } from './purchases.store.js';
import {
  closeDeviceSessions,
  closeSilentSessions,
  findLiveSession,
  findSession,
  grantUsage,
  insertSession,
  insertSessions,
  selectRecentSessions,
  siteOfSession,
  touchBatches,
  touchLightSession,
  touchSession,
  touchSessions,
  usedUpGrants,
  closeSupersededSession,
  closeSupersededSessions,
  type ListedSessionRow,
  type SessionUpdate,
  type TouchPacket,
  type SessionRow,
} from './sessions.store.js';

/**
 * RADIUS sessions, from the accounting the routers send (RFC 2866, RFC 2869 §5.6 for
 * Interim-Update): one row per device + Acct-Session-Id. See docs/decisions/0021-radius-sessions.md.
 */

export type { SessionRow, ListedSessionRow } from './sessions.store.js';

/** One Accounting-Request, as radius/accounting.ts read it: the session's values plus what happened. */
export interface AccountingRecord extends SessionUpdate {
  /** Acct-Status-Type by name: Start, Stop, Interim-Update, Accounting-On, Accounting-Off, … */
  statusType: string;
  terminateCause: string | null;
  /** Acct-Delay-Time: how long the router held the packet before sending it. */
  delaySeconds: number;
}

/** What was done: `session` for Start/Interim/Stop, `device` for On/Off, `ignored` otherwise. */
export type AccountingResult =
  | {
      kind: 'session';
      created: boolean;
      /**
       * The grant whose sessions must be disconnected (again): set when this packet opened a
       * session for a grant that is already revoked or expired (the router accepted the login
       * just before, and its Start came after the disconnects went out), or when a session is
       * still reporting more than a minute after its grant ended (the Disconnect-Request went
       * unanswered or the router ignored it): each such report brings a new one. Also set when
       * the grant's sessions together have used up its data allowance (several devices).
       */
      ofEndedGrant?: string;
    }
  | { kind: 'device'; closed: number }
  | { kind: 'ignored' };

const SESSION_TYPES = new Set(['Start', 'Interim-Update', 'Stop']);
const DEVICE_TYPES = new Set(['Accounting-On', 'Accounting-Off']);

/**
 * Records a batch of accounting packets in ONE transaction, so the caller may acknowledge each of
 * them (Accounting-Response) once this resolves: the records are committed and on disk. Batching
 * lets many routers' packets share one commit (and one fsync) under load. On SQLite the batch's
 * leading Interim-Updates may commit first, in a transaction of their own (`lightInterims`); when
 * the transaction of the rest then fails, this rejects, and a caller that retries the records one
 * by one applies those again, as a router's resend would be applied (counters only grow).
 *
 * Records are applied in order. On PostgreSQL, a run of Starts, Interim-Updates and Stops of
 * different sessions closes what its Starts supersede in one round trip and updates its sessions
 * in one more (sessions.store.ts `closeSupersededSessions`, `touchSessions`); the records whose
 * sessions are not known yet then open them, after the run, in one more (`openSessions`). Each
 * statement still sees what the ones before it wrote, so what a batch does is what its records one
 * by one would do, except which record of a run reports a grant's data allowance used up when
 * several of its sessions report or begin together (one of them does).
 */
export async function recordAccounting(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  records: readonly AccountingRecord[],
): Promise<AccountingResult[]> {
  const now = deps.clock.now();
  const light = lightInterims(deps.db, records, now);
  if (!light) return inTransaction(deps.db, records, now);
  const rest = records.slice(light.results.length);
  const results = rest.length > 0 ? await inTransaction(deps.db, rest, now) : [];
  await light.durable;
  return [...light.results, ...results];
}

/**
 * On SQLite, the batch's leading Interim-Updates of sessions that are open and whole (the light
 * form of sessions.store.ts, the most common packet by far) in one transaction run synchronously
 * when the connection is free (connect.ts `idleWriteTransaction`): the same statement the
 * transaction below tries first for them, without kysely's path and a promise per statement. It
 * ends at the first record that is anything else; that record and the ones after it go through
 * the transaction below, after this one, so the records are still applied in order. Null when it
 * does not apply: PostgreSQL (its batch form already takes the run together), the connection in
 * use, or a batch that does not begin with an Interim-Update.
 */
function lightInterims(
  db: Db,
  records: readonly AccountingRecord[],
  now: Date,
): { results: AccountingResult[]; durable: Promise<void> } | null {
  if (records[0]?.statusType !== 'Interim-Update') return null;
  const heard = now.toISOString();
  const done = idleWriteTransaction(db, (exec) => {
    const results: AccountingResult[] = [];
    for (const r of records) {
      if (r.statusType !== 'Interim-Update') break;
      const touched = touchLightSession(db, exec, r, heard, { ...packetTimes(now, r), start: false });
      if (!touched) break;
      results.push(sessionResult(touched.endedGrantId, false));
    }
    return results;
  });
  return done && { results: done.result, durable: done.durable };
}

/** When a packet's event happened and when its session began, from when it was heard. */
function packetTimes(now: Date, r: AccountingRecord): PacketTimes {
  // When it happened: the router held the packet Acct-Delay-Time seconds (RFC 2866 §5.2).
  const eventMs = now.getTime() - r.delaySeconds * 1000;
  // A session first seen mid-way (its Start was lost) started Acct-Session-Time ago.
  const begunMs = eventMs - r.sessionTime * 1000;
  return { eventMs, begunMs, eventAt: isoAt(eventMs), begunAt: isoAt(begunMs) };
}

/** recordAccounting's records in one transaction through kysely. */
async function inTransaction(
  db: Db,
  records: readonly AccountingRecord[],
  now: Date,
): Promise<AccountingResult[]> {
  const batched = touchBatches(db);
  return db.transaction().execute(async (tx) => {
    const results: AccountingResult[] = [];
    const grants = new Map<string, GrantRow | undefined>();
    /** Sessions of the run being gathered (device + Acct-Session-Id), and its records. */
    let run: { record: AccountingRecord; index: number; times: PacketTimes }[] = [];
    const inRun = new Set<string>();
    const heard = now.toISOString();

    const flush = async () => {
      if (run.length === 0) return;
      const taken = run;
      run = [];
      inRun.clear();
      // Each Start first closes the older session it supersedes, as one by one (the run's
      // sessions are distinct, so no Start's close touches another record's session).
      await closeSupersededSessions(
        tx,
        taken.flatMap(({ record: r, times }) =>
          r.statusType === 'Start' ? [{ u: r, begunAt: times.begunAt }] : [],
        ),
      );
      const touched = await touchSessions(
        tx,
        taken.map(({ record: r, times }) => ({
          u: r,
          at: heard,
          packet: { ...times, start: r.statusType === 'Start' },
          stop: stopOf(r, times.eventAt),
        })),
        batched,
      );
      const fresh: (OpenItem & { index: number })[] = [];
      for (const [k, { record, index, times }] of taken.entries()) {
        const t = touched[k] ?? null;
        if (t) results[index] = sessionResult(t.endedGrantId, false);
        else fresh.push({ r: record, times: { heard, ...times }, index });
      }
      // The sessions not known yet begin, after the run, in its order.
      for (const { item, result } of await openSessions(tx, fresh, grants, batched))
        results[item.index] = result;
    };

    for (const [index, r] of records.entries()) {
      const times = packetTimes(now, r);
      const { eventAt, begunAt } = times;
      const key = `${r.deviceId}\u0000${r.acctSessionId}`;
      const joins = batched && SESSION_TYPES.has(r.statusType) && !inRun.has(key);
      if (joins) {
        run.push({ record: r, index, times });
        inRun.add(key);
        continue;
      }
      await flush();
      if (DEVICE_TYPES.has(r.statusType)) {
        // The router restarted (On) or is going down (Off) at eventAt, like a Stop of each session.
        const closed = await closeDeviceSessions(tx, r.deviceId, eventAt, r.statusType);
        results[index] = { kind: 'device', closed };
        continue;
      }
      if (!SESSION_TYPES.has(r.statusType)) {
        results[index] = { kind: 'ignored' };
        continue;
      }
      const start = r.statusType === 'Start';
      if (start) await closeSupersededSession(tx, r, begunAt);
      const touched = await touchSession(tx, r, heard, { ...times, start }, stopOf(r, eventAt));
      results[index] = touched
        ? sessionResult(touched.endedGrantId, false)
        : await openSession(tx, { r, times: { heard, ...times } }, grants);
    }
    await flush();
    return results;
  });
}

/** When a packet's event happened and when its session began, as text and in ms. */
type PacketTimes = Omit<TouchPacket, 'start'>;

const stopOf = (r: AccountingRecord, eventAt: string) =>
  r.statusType === 'Stop' ? { at: eventAt, cause: r.terminateCause } : null;

// Also on a Stop: the report that used up the allowance is often the Stop of the session its
// router cut at its limit, and the grant's other sessions must end too (disconnectGrant only
// reaches live sessions).
const sessionResult = (endedGrantId: string | null, created: boolean): AccountingResult => ({
  kind: 'session',
  created,
  ...(endedGrantId !== null && { ofEndedGrant: endedGrantId }),
});

/** When a packet of a session not known yet was heard, happened, and its session began. */
type OpenTimes = { heard: string; eventAt: string; begunAt: string };

/** A packet of a session not known yet, with its times. */
interface OpenItem {
  r: AccountingRecord;
  times: OpenTimes;
}

/**
 * Packets of sessions not known yet, in the run's order: each session begins (its Start may have
 * been lost). With `batched` (PostgreSQL, see `touchBatches`) the sessions are written in one
 * INSERT, the sales' first routers in one UPDATE and the data allowances checked in one query,
 * instead of two or three round trips per session. The sessions are distinct (a run holds each
 * once), so that is what one by one would write; a grant whose allowance the new sessions used up
 * is reported by its last new session, as touchSessions reports the sessions it updates together.
 */
async function openSessions<T extends OpenItem>(
  tx: Db,
  items: readonly T[],
  grants: Map<string, GrantRow | undefined>,
  batched: boolean,
): Promise<{ item: T; result: AccountingResult }[]> {
  if (!batched || items.length < 2) {
    const out: { item: T; result: AccountingResult }[] = [];
    for (const item of items) out.push({ item, result: await openSession(tx, item, grants) });
    return out;
  }
  const opened: { item: T; grant: GrantRow | undefined }[] = [];
  for (const item of items) opened.push({ item, grant: await grantOf(tx, item.r, grants, item.times.heard) });
  await insertSessions(
    tx,
    opened.map(({ item, grant }) => sessionRow(item.r, grant, item.times)),
  );
  // The sale's first router, for revenue by router: its first session's, in the run's order.
  const firstRouters = new Map<string, string>();
  for (const { item, grant } of opened)
    if (grant !== undefined && !firstRouters.has(grant.invoice_id))
      firstRouters.set(grant.invoice_id, item.r.deviceId);
  await setFirstRouters(tx, [...firstRouters]);
  const limited = new Set(
    opened.flatMap(({ grant }) => (grant !== undefined && grant.data_limit_bytes !== null ? [grant.id] : [])),
  );
  const usedUp = new Set(limited.size > 0 ? await usedUpGrants(tx, [...limited]) : []);
  /** Each used-up grant's last new session: the one that reports it. */
  const reporter = new Map<string, number>();
  for (const [k, { grant }] of opened.entries())
    if (grant !== undefined && usedUp.has(grant.id)) reporter.set(grant.id, k);
  return opened.map(({ item, grant }, k) => ({
    item,
    result: openedResult(item, grant, grant !== undefined && reporter.get(grant.id) === k),
  }));
}

/** One packet of a session not known yet: the session begins (its Start may have been lost). */
async function openSession(
  tx: Db,
  item: OpenItem,
  grants: Map<string, GrantRow | undefined>,
): Promise<AccountingResult> {
  const { r, times } = item;
  const grant = await grantOf(tx, r, grants, times.heard);
  await insertSession(tx, sessionRow(r, grant, times));
  // The sale's first router, for revenue by router: written by the grant's first session only.
  if (grant !== undefined) await setFirstRouter(tx, grant.invoice_id, r.deviceId);
  // A session first seen with octets (its Start was lost) can use up the grant's allowance
  // too; its other sessions must then end, as when an update of a known session does.
  const usedUp =
    grant !== undefined &&
    grant.data_limit_bytes !== null &&
    (await grantUsage(tx, grant.id, null)).usedOctets >= grant.data_limit_bytes;
  return openedResult(item, grant, usedUp);
}

/** The grant of a record's User-Name, looked up once per batch. */
async function grantOf(
  tx: Db,
  r: AccountingRecord,
  grants: Map<string, GrantRow | undefined>,
  heard: string,
): Promise<GrantRow | undefined> {
  const key = r.username.trim().toLowerCase();
  if (!grants.has(key))
    grants.set(
      key,
      (await findGrantByUsername(tx, key)) ??
        // A device logged in by MAC authentication, on a router that kept its MAC as User-Name.
        (r.mac !== null && key.replace(/[-:.]/g, '') === r.mac.replace(/:/g, '').toLowerCase()
          ? await rememberedGrant(tx, r.mac, heard)
          : undefined),
    );
  return grants.get(key);
}

/** The row of a session a packet opens. */
function sessionRow(r: AccountingRecord, grant: GrantRow | undefined, times: OpenTimes): SessionRow {
  const stop = stopOf(r, times.eventAt);
  return {
    id: uuid(),
    device_id: r.deviceId,
    acct_session_id: r.acctSessionId,
    username: r.username,
    grant_id: grant?.id ?? null,
    framed_ip: r.framedIp,
    mac: r.mac,
    input_octets: r.inputOctets,
    output_octets: r.outputOctets,
    session_time: r.sessionTime,
    started_at: times.begunAt,
    updated_at: times.heard,
    stopped_at: stop?.at ?? null,
    terminate_cause: stop?.cause ?? null,
    final_input_octets: stop === null ? null : r.inputOctets,
    final_output_octets: stop === null ? null : r.outputOctets,
  };
}

/**
 * What opening a session answers: its grant when that grant had already ended (and the packet is
 * not a Stop) or its allowance is used up (`usedUp`).
 */
function openedResult(
  { r, times }: OpenItem,
  grant: GrantRow | undefined,
  usedUp: boolean,
): AccountingResult {
  const ended = grant !== undefined && (grant.revoked_at !== null || grant.expires_at <= times.heard);
  const stop = stopOf(r, times.eventAt);
  return sessionResult(grant !== undefined && ((ended && stop === null) || usedUp) ? grant.id : null, true);
}

/** How long a session may stay silent, in interim intervals, before it is closed as stale. */
export const STALE_AFTER_INTERVALS = 2.5;

/**
 * The scheduled job: open sessions not heard of for 2.5 × the interim interval are closed with
 * terminate cause `Stale` (the router lost them, rebooted without Accounting-On, or the Stop was
 * lost), so they stop counting against the simultaneous-use limit.
 */
export async function closeStaleSessions(deps: Pick<WifiDeps, 'db' | 'clock' | 'config' | 'log'>) {
  const now = deps.clock.now();
  const silentMs = deps.config.radiusInterimInterval * STALE_AFTER_INTERVALS * 1000;
  const closed = await closeSilentSessions(
    deps.db,
    new Date(now.getTime() - silentMs).toISOString(),
    now.toISOString(),
  );
  if (closed > 0) deps.log.info({ event: 'sessions.stale_closed', count: closed }, 'stale sessions closed');
  return closed;
}

/**
 * Recent RADIUS sessions of the sites in view, at most ADMIN_LIST_LIMIT (admin API and `sessions list` alike: sessions
 * grow without bound), newest first: every open one, then the most recently started closed ones.
 */
export async function listSessions(
  deps: Pick<WifiDeps, 'db'>,
  view: SiteView = EVERY_SITE,
  filter: ListFilter = plainList(ADMIN_LIST_LIMIT),
): Promise<ListedSessionRow[]> {
  return selectRecentSessions(deps.db, filter, await sitesOf(deps.db, view));
}

/**
 * The admin disconnect (wifi-access-api.md §3): revokes the session's grant (committed first)
 * and sends Disconnect-Requests to every live session of that grant; a session without a grant
 * (a user this box does not know) is disconnected on its own. The outcome reports what each
 * router said; the revocation stands whatever they said. A session of a router outside the
 * scope is not found (404).
 */
export async function disconnectSession(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  sessionId: string,
  reason = 'staff disconnect',
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<{ session: SessionRow; grantRevoked: boolean; disconnect: CoaOutcome }> {
  const { session, siteId } = await sessionInScope(deps, sessionId, scope);
  if (session.grant_id !== null) {
    const { disconnect } = await revoke(deps, session.grant_id, reason, actor && { actor });
    return { session: (await findSession(deps.db, sessionId)) ?? session, grantRevoked: true, disconnect };
  }
  // No grant to revoke: the disconnect itself is what staff did.
  return dropSession(deps, session, siteId, 'session.disconnect', reason, actor);
}

/**
 * Ends one session at its router and keeps the guest's paid time (issue 21): the grant stays
 * live, so the guest can sign in again; only the Disconnect-Request is sent. For a guest on a
 * stuck session, a device to move, or a router to clear, without taking away what they paid for.
 */
export async function disconnectSessionKeepGrant(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  sessionId: string,
  reason = 'staff disconnect (paid time kept)',
  scope: SiteScope = null,
  actor?: WifiActor,
): Promise<{ session: SessionRow; grantRevoked: boolean; disconnect: CoaOutcome }> {
  const { session, siteId } = await sessionInScope(deps, sessionId, scope);
  return dropSession(deps, session, siteId, 'session.disconnect_keep_grant', reason, actor);
}

/** The session and its site, or 404 when there is none or its router is outside the scope. */
async function sessionInScope(deps: Pick<WifiDeps, 'db'>, sessionId: string, scope: SiteScope) {
  const session = await findSession(deps.db, sessionId);
  const siteId = session && (await siteOfSession(deps.db, session.id));
  if (!session || siteId === undefined || !inScope(scope, siteId)) throw wifiErrors.sessionNotFound();
  return { session, siteId };
}

/** The audit entry (committed first), then the Disconnect-Request if the session is still live. */
async function dropSession(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  session: SessionRow,
  siteId: string,
  action: string,
  reason: string,
  actor: WifiActor | undefined,
): Promise<{ session: SessionRow; grantRevoked: boolean; disconnect: CoaOutcome }> {
  if (actor)
    await recordAudit(deps.db, deps.clock, {
      actor,
      action,
      target: { type: 'session', id: session.id },
      siteId,
      reason,
    });
  const live = await findLiveSession(deps.db, session.id);
  const disconnect = await disconnectSessions(deps, live ? [live] : [], reason);
  return { session: (await findSession(deps.db, session.id)) ?? session, grantRevoked: false, disconnect };
}
