import {
  isExpression,
  PostgresAdapter,
  sql,
  type Expression,
  type ExpressionBuilder,
  type OnConflictBuilder,
  type Selectable,
  type SqlBool,
} from 'kysely';
import { marker, prepared, type Db, type SyncExec } from '../db/index.js';
import { searchAny, type ListFilter } from './list-filter.store.js';
import type { DB } from '../db/schema.js';
import type { RadiusSessionsTable } from '../db/tables/radius.js';
import { isoAt, isoPlus } from '../lib/time.js';

export type SessionRow = Selectable<RadiusSessionsTable>;

/** Counters and identity an accounting packet carries for one session (64-bit totals). */
export interface SessionUpdate {
  deviceId: string;
  acctSessionId: string;
  username: string;
  framedIp: string | null;
  mac: string | null;
  inputOctets: number;
  outputOctets: number;
  sessionTime: number;
}

type Touch = [
  deviceId: string,
  acctSessionId: string,
  inputOctets: number,
  outputOctets: number,
  sessionTime: number,
  framedIp: string | null,
  mac: string | null,
  at: string,
  closedAfter: string,
  begunBy: string,
  stoppedAt: string | null,
  cause: string | null,
  endedBy: string,
  username: string,
  begunSince: string,
];

/** The names of Touch's values, in order: the batch form's columns (`v.p_…`, unlike any column of radius_sessions). */
const TOUCH_COLUMN_NAMES = [
  'p_device',
  'p_acct',
  'p_input',
  'p_output',
  'p_time',
  'p_ip',
  'p_mac',
  'p_at',
  'p_closed_after',
  'p_begun_by',
  'p_stopped',
  'p_cause',
  'p_ended_by',
  'p_username',
  'p_begun_since',
] as const;

/** Their PostgreSQL types (the batch sends one array of each). */
const TOUCH_TYPES: Readonly<Record<number, string>> = { 2: 'bigint', 3: 'bigint', 4: 'bigint' };

const TOUCH_MARKERS = TOUCH_COLUMN_NAMES.map(marker) as unknown as Touch;

/** Each of Touch's values as a value or as an expression (the batch form's column). */
type ArgsOf<T> = { [K in keyof T]: T[K] | Expression<T[K]> };
type TouchArgs = ArgsOf<Touch>;

const BATCH_COLUMNS = TOUCH_COLUMN_NAMES.map((name) => sql.ref(`v.${name}`)) as unknown as TouchArgs;

/** A value as a statement parameter; an expression as itself. */
const valueOf = <T>(eb: ExpressionBuilder<DB, 'radius_sessions'>, x: T | Expression<T>): Expression<T> =>
  isExpression(x) ? x : (eb.val(x) as unknown as Expression<T>);

/** The cause of a session closed by closeSilentSessions: our guess, not the router's word. */
export const STALE = 'Stale';

/**
 * The cause of a session ended by a Disconnect-Request (RFC 5176 §3): ours when the router
 * acknowledged one (disconnect.ts), or the router's own Stop after it.
 */
export const ADMIN_RESET = 'Admin-Reset';

/**
 * Whether the session row being updated was closed and is still going, so it is open again: closed
 * as silent (`Stale`, our guess), or ended by a Disconnect-Request (`Admin-Reset`) that the router
 * acknowledged but did not carry out, shown by a report of the same session (it began before the
 * close, give or take BEGUN_SLACK_SECONDS of the router's clock: `begunSince`) whose event time
 * is more than ENDED_GRANT_GRACE_SECONDS after the close (`endedBy`; a report the router sent
 * before it acted on the request can still arrive in that minute). Not when the router has since
 * opened another session under the same id.
 */
const reopens = (
  eb: ExpressionBuilder<DB, 'radius_sessions'>,
  endedBy: TouchArgs[12],
  begunSince: TouchArgs[14],
) =>
  eb.and([
    // An open session's cause is null, and `null = 'Stale'` is unknown, not false: `unknown AND x`
    // still evaluates x, so PostgreSQL ran the subquery below for every row of a batch. A false
    // first term ends the AND there.
    eb('terminate_cause', 'is not', null),
    eb.or([
      eb('terminate_cause', '=', STALE),
      eb.and([
        eb('terminate_cause', '=', ADMIN_RESET),
        eb('stopped_at', '<', valueOf(eb, endedBy)),
        eb('stopped_at', '>', valueOf(eb, begunSince)),
      ]),
    ]),
    eb.not(
      eb.exists(
        eb
          .selectFrom('radius_sessions as o')
          .select('o.id')
          .whereRef('o.device_id', '=', 'radius_sessions.device_id')
          .whereRef('o.acct_session_id', '=', 'radius_sessions.acct_session_id')
          .where('o.stopped_at', 'is', null)
          // Always true (this row is closed), but not an equality: PostgreSQL then looks the
          // row's id up when the row was closed, instead of hashing every open session once per
          // batch UPDATE for the few rows that were.
          .whereRef('o.id', '<>', 'radius_sessions.id'),
      ),
    ),
  ]);

/**
 * How touchQuery changes the session: `open` (a Start or Interim-Update), `stop` (adds the stop
 * time and cause), or `light`: the common Interim-Update, of a session that is open, was never
 * closed as silent and has its User-Name. On such a row `open` changes only the counters, the
 * address and `updated_at`, so `light` sets only those and leaves the row alone otherwise (no
 * row: the caller runs `open`). SQLite then rewrites one of the table's indexes instead of five.
 */
type TouchMode = 'open' | 'stop' | 'light';

/**
 * The UPDATE of an accounting packet, as `mode` says. Each argument is a value (a marker, for
 * `prepared`) or, in the batch form, a column of the batch's rows (`v.…`).
 */
const touchQuery = (db: Db, args: TouchArgs, mode: TouchMode, target?: Expression<string>) => {
  const [
    deviceId,
    acctSessionId,
    inputOctets,
    outputOctets,
    sessionTime,
    framedIp,
    mac,
    at,
    closedAfter,
    begunBy,
    stoppedAt,
    cause,
    endedBy,
    username,
    begunSince,
  ] = args;
  const counters = (eb: ExpressionBuilder<DB, 'radius_sessions'>) => ({
    input_octets: greatest(eb, 'input_octets', inputOctets),
    output_octets: greatest(eb, 'output_octets', outputOctets),
    session_time: greatest(eb, 'session_time', sessionTime),
    framed_ip: eb.fn.coalesce(valueOf(eb, framedIp), eb.ref('framed_ip')),
    mac: eb.fn.coalesce(valueOf(eb, mac), eb.ref('mac')),
    updated_at: at,
  });
  const stop = mode === 'stop';
  const update =
    mode === 'light'
      ? db
          .updateTable('radius_sessions')
          .set(counters)
          .where('stopped_at', 'is', null)
          .where('terminate_cause', 'is', null)
          .where('username', '<>', '')
      : db.updateTable('radius_sessions').set((eb) => ({
          ...counters(eb),
          // A session first reported without User-Name (RFC 2866 allows it) takes the first one
          // a later packet brings, and that user's grant: it then counts for the grant's limits
          // and can be disconnected (CoovaChilli wants the User-Name in a Disconnect-Request).
          username: eb
            .case()
            .when('username', '=', '')
            .then(valueOf(eb, username))
            .else(eb.ref('username'))
            .end(),
          grant_id: eb
            .case()
            .when(eb.and([eb('username', '=', ''), eb('grant_id', 'is', null)]))
            .then(
              eb
                .selectFrom('grants as n')
                .select('n.id')
                .where('n.username', '=', sql<string>`lower(trim(${username}))`),
            )
            .else(eb.ref('grant_id'))
            .end(),
          ...(stop
            ? {
                // A session we closed as silent keeps the router's own stop time.
                stopped_at: eb
                  .case()
                  .when('terminate_cause', '=', STALE)
                  .then(valueOf(eb, stoppedAt))
                  .else(eb.fn.coalesce(eb.ref('stopped_at'), valueOf(eb, stoppedAt)))
                  .end(),
                terminate_cause: cause,
                // Closed now (or already): its final octets are its octets.
                final_input_octets: greatest(eb, 'input_octets', inputOctets),
                final_output_octets: greatest(eb, 'output_octets', outputOctets),
              }
            : {
                // A session we closed as silent, or that outlived a Disconnect-Request its router
                // acknowledged, is still going: it is open again (unless the router has since
                // opened another under the same id).
                stopped_at: eb
                  .case()
                  .when(reopens(eb, endedBy, begunSince))
                  .then(null)
                  .else(eb.ref('stopped_at'))
                  .end(),
                terminate_cause: eb
                  .case()
                  .when(reopens(eb, endedBy, begunSince))
                  .then(null)
                  .else(eb.ref('terminate_cause'))
                  .end(),
                // Null while open (an open session's stay null, so PostgreSQL's update stays in
                // its page); a closed one's follow its octets (a late packet can only raise them).
                final_input_octets: finalWhileOpen(
                  eb,
                  greatest(eb, 'input_octets', inputOctets),
                  reopens(eb, endedBy, begunSince),
                ),
                final_output_octets: finalWhileOpen(
                  eb,
                  greatest(eb, 'output_octets', outputOctets),
                  reopens(eb, endedBy, begunSince),
                ),
              }),
        }));
  return (
    update
      // In the batch form the session is found in the FROM list (`v.p_target`), so that the
      // planner joins on the primary key.
      .where('id', '=', target ?? sessionOf(db, deviceId, acctSessionId, closedAfter, begunBy))
      .returning((eb) => [
        'id',
        // The session's grant when it was revoked or ran out by `endedBy`, or when its sessions
        // together have used up its data allowance (each router only enforces what was left
        // when its own session began), in the same statement.
        eb
          .selectFrom('grants as g')
          .select('g.id')
          .whereRef('g.id', '=', 'radius_sessions.grant_id')
          .where((w) =>
            w.or([
              w('g.revoked_at', '<=', endedBy),
              w('g.expires_at', '<=', endedBy),
              w.and([
                w('g.data_limit_bytes', 'is not', null),
                // The other sessions' octets plus this row's new ones: a subquery in RETURNING
                // sees this row before the update on some databases (PostgreSQL), after it on
                // others (SQLite).
                w(
                  'g.data_limit_bytes',
                  '<=',
                  sql<number>`${w
                    .selectFrom('radius_sessions as u')
                    .select(sql<number>`coalesce(sum(u.input_octets + u.output_octets), 0)`.as('used'))
                    .whereRef('u.grant_id', '=', 'g.id')
                    .whereRef(
                      'u.id',
                      '<>',
                      'radius_sessions.id',
                    )} + radius_sessions.input_octets + radius_sessions.output_octets`,
                ),
              ]),
            ]),
          )
          .as('ended_grant_id'),
      ])
  );
};

/**
 * Among the sessions with this id that the packet can belong to (the open one, and closed ones
 * that stopped after `closedAfter`), the newest one that started by the time the packet's
 * session began: a late Interim-Update or Stop of an older session whose id the router reused
 * goes to that session. None: a new session.
 */
const sessionOf = (
  db: Db,
  deviceId: TouchArgs[0],
  acctSessionId: TouchArgs[1],
  closedAfter: TouchArgs[8],
  begunBy: TouchArgs[9],
) =>
  db
    .selectFrom('radius_sessions as c')
    .select('c.id')
    .where('c.device_id', '=', deviceId)
    .where('c.acct_session_id', '=', acctSessionId)
    .where((w) => w.or([w('c.stopped_at', 'is', null), w('c.stopped_at', '>', closedAfter)]))
    .orderBy(sql`c.started_at <= ${begunBy}`, 'desc')
    .orderBy('c.started_at', 'desc')
    .limit(1);

/** One packet's UPDATE, compiled once each. */
const touch = (mode: TouchMode) =>
  prepared((db, ...args: Touch) => touchQuery(db, args, mode), TOUCH_MARKERS);

/**
 * The same UPDATE for a batch of packets of different sessions (PostgreSQL): `UPDATE … FROM`
 * the batch's rows, one array per argument, each row matched to its session by the same rule.
 * Returns `ord`, the row's place in the batch (1-based).
 */
const touchBatch = (stop: boolean) =>
  prepared(
    (db, ...arrays: string[]) => {
      const rows = sql`unnest(${sql.join(
        arrays.map((a, i) => sql`${a}::${sql.raw(TOUCH_TYPES[i] ?? 'text')}[]`),
      )})`;
      const target = sessionOf(db, ...pick(BATCH_COLUMNS));
      return (
        touchQuery(db, BATCH_COLUMNS, stop ? 'stop' : 'open', sql.ref('v.p_target'))
          .from(
            sql<Record<string, unknown>>`(select v.*, (${target}) as p_target
          from ${rows} with ordinality as v(${BATCH_NAMES}, ord))`.as('v'),
          )
          // The same targets once more, as an array: PostgreSQL then fetches just those rows by
          // primary key, where joining on `v.p_target` alone lets it choose to read and hash the
          // whole table when it is small enough (tens of thousands of rows) for that to look cheap.
          .where(
            'radius_sessions.id',
            '=',
            sql<string>`any(array(select (${target}) from ${rows} as v(${BATCH_NAMES})))`,
          )
          .returning([sql<number | string>`v.ord`.as('ord'), 'radius_sessions.grant_id'])
      );
    },
    TOUCH_COLUMN_NAMES.map((name) => marker(`batch-${name}`)),
  );
const BATCH_NAMES = sql.raw(TOUCH_COLUMN_NAMES.join(', '));
/** sessionOf's arguments out of Touch's. */
const pick = (a: TouchArgs) => [a[0], a[1], a[8], a[9]] as const;

const touchLight = touch('light');
const touchOpen = touch('open');
const touchStop = touch('stop');
const touchOpenBatch = touchBatch(false);
const touchStopBatch = touchBatch(true);

/** The router's session time and our clock may disagree by a few seconds. */
const BEGUN_SLACK_SECONDS = 60;

/**
 * How far apart in time packets with one Acct-Session-Id may still be one session, beyond what
 * their times say: a router resends a record without raising Acct-Delay-Time for a while (its
 * event time then moves on), and a router that loses power comes back after minutes.
 */
const SAME_SESSION_WINDOW_SECONDS = 5 * 60;

/**
 * How long after its grant ended a session may still report without being disconnected again:
 * the revocation's or the expiry job's own Disconnect-Request (with its resends) is under way.
 */
const ENDED_GRANT_GRACE_SECONDS = 60;

/**
 * Refreshes an existing session from an accounting packet; null when there is none yet.
 * `endedGrantId` is its grant's id when that grant was revoked or had expired more than
 * ENDED_GRANT_GRACE_SECONDS before `eventAt` (the session outlived its grant), or when its
 * sessions' octets together reached its data allowance; otherwise null.
 * Counters only grow (a late Interim-Update cannot undo a Stop's totals) and a closed session
 * stays closed, except one closed as silent (`Stale`, our guess): a Start or Interim-Update opens
 * it again, and a Stop gives it the router's stop time; and one ended by a Disconnect-Request
 * (`Admin-Reset`) that the same session reports on more than ENDED_GRANT_GRACE_SECONDS later: the
 * router acknowledged the request but did not carry it out, so the session opens again and, its
 * grant having ended, `endedGrantId` brings a new Disconnect-Request (see `reopens`). `begunAt`
 * is when the packet's session began (its event time less Acct-Session-Time). A Start after a
 * session with its Acct-Session-Id stopped is a new session (the router reused the id); an
 * Interim-Update or Stop still belongs to a closed session that stopped less than
 * SAME_SESSION_WINDOW_SECONDS before its session began (a resent Stop), otherwise it is a new one
 * whose Start was lost (docs/decisions/0021). Runs for every accounting packet, so compiled once.
 */
export async function touchSession(
  db: Db,
  u: SessionUpdate,
  at: string,
  packet: TouchPacket,
  stop: TouchStop,
): Promise<{ endedGrantId: string | null } | null> {
  const [touched] = await touchSessions(db, [{ u, at, packet, stop }], false);
  return touched ?? null;
}

/**
 * touchSession's light form alone (see TouchMode), for an Interim-Update, run synchronously by
 * `exec` (connect.ts `idleWriteTransaction`): the same statement touchSessions tries first. Null
 * when it changed nothing (a new session, one closed or without its User-Name): the packet then
 * goes through touchSession.
 */
export function touchLightSession(
  db: Db,
  exec: SyncExec,
  u: SessionUpdate,
  at: string,
  packet: TouchPacket,
): { endedGrantId: string | null } | null {
  const [row] = touchLight.sync(db, exec, ...touchArgs(u, at, packet, null));
  return row ? { endedGrantId: row.ended_grant_id } : null;
}

export interface TouchPacket {
  begunAt: string;
  start: boolean;
  eventAt: string;
  /** begunAt and eventAt in ms (the hot path has both: parsing them again cost more than the statement's JS). */
  begunMs: number;
  eventMs: number;
}
export type TouchStop = { at: string; cause: string | null } | null;

/**
 * touchSession for several packets of DIFFERENT sessions at once. With `batched` (PostgreSQL,
 * see `touchBatches`) one `UPDATE … FROM` for the open-session packets and one for the stops,
 * instead of a statement (and a round trip, and a plan) per packet; otherwise one by one. Answers
 * in the order of `items`.
 *
 * One statement sees the database as it was before it: a session's RETURNING does not see the
 * octets the same statement gives the grant's other sessions. So when a grant with a data
 * allowance has several sessions in the batch, its usage is summed once more afterwards, and if
 * the allowance is used up the last of its packets says so, as it would have one by one.
 */
export async function touchSessions(
  db: Db,
  items: readonly { u: SessionUpdate; at: string; packet: TouchPacket; stop: TouchStop }[],
  batched: boolean,
): Promise<({ endedGrantId: string | null } | null)[]> {
  const out: ({ endedGrantId: string | null } | null)[] = items.map(() => null);
  if (!batched || items.length < 2) {
    for (const [i, { u, at, packet, stop }] of items.entries()) {
      const args = touchArgs(u, at, packet, stop);
      // An Interim-Update most often finds its session open and whole: the light form first.
      const [light] = stop || packet.start ? [] : await touchLight(db, ...args);
      const [row] = light ? [light] : await (stop ? touchStop : touchOpen)(db, ...args);
      if (row) out[i] = { endedGrantId: row.ended_grant_id };
    }
    return out;
  }
  /** The grant of each packet's session, by the packet's place. */
  const grantOf = new Map<number, string | null>();
  for (const [statement, isStop] of [
    [touchOpenBatch, false],
    [touchStopBatch, true],
  ] as const) {
    const picked = items.flatMap((item, i) => ((item.stop !== null) === isStop ? [i] : []));
    if (picked.length === 0) continue;
    const args = picked.map((i) => {
      const item = items[i];
      return item ? touchArgs(item.u, item.at, item.packet, item.stop) : null;
    });
    const columns = TOUCH_COLUMN_NAMES.map((_, c) => args.map((a) => a?.[c] ?? null));
    for (const row of await statement(db, ...(columns as unknown as string[]))) {
      const i = picked[Number(row.ord) - 1];
      if (i === undefined) continue;
      out[i] = { endedGrantId: row.ended_grant_id };
      grantOf.set(i, row.grant_id);
    }
  }
  const shared = new Map<string, number[]>();
  for (const [i, grantId] of grantOf)
    if (grantId !== null) shared.set(grantId, [...(shared.get(grantId) ?? []), i]);
  const several = [...shared].filter(([, places]) => places.length > 1).map(([id]) => id);
  if (several.length === 0) return out;
  for (const grantId of await usedUpGrants(db, several)) {
    const places = shared.get(grantId) ?? [];
    if (places.some((i) => out[i]?.endedGrantId === grantId)) continue;
    out[Math.max(...places)] = { endedGrantId: grantId };
  }
  return out;
}

/** Whether touchSessions can batch on this store: PostgreSQL's UPDATE … FROM. */
export const touchBatches = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Of these grants, those with a data allowance their sessions have used up. */
export async function usedUpGrants(db: Db, ids: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('grants as g')
    .select('g.id')
    .where('g.id', 'in', ids)
    .where('g.data_limit_bytes', 'is not', null)
    .where('g.data_limit_bytes', '<=', (eb) =>
      eb
        .selectFrom('radius_sessions as u')
        .select(sql<number>`coalesce(sum(u.input_octets + u.output_octets), 0)`.as('used'))
        .whereRef('u.grant_id', '=', 'g.id'),
    )
    .execute();
  return rows.map((r) => r.id);
}

const touchArgs = (u: SessionUpdate, at: string, packet: TouchPacket, stop: TouchStop): Touch => [
  u.deviceId,
  u.acctSessionId,
  u.inputOctets,
  u.outputOctets,
  u.sessionTime,
  u.framedIp,
  u.mac,
  at,
  packet.start ? packet.begunAt : isoAt(packet.begunMs - SAME_SESSION_WINDOW_SECONDS * 1000),
  isoAt(packet.begunMs + BEGUN_SLACK_SECONDS * 1000),
  stop?.at ?? null,
  stop?.cause ?? null,
  isoAt(packet.eventMs - ENDED_GRANT_GRACE_SECONDS * 1000),
  u.username,
  isoAt(packet.begunMs - BEGUN_SLACK_SECONDS * 1000),
];

/**
 * A session's final octets after an `open` update: null when it is open or opens again,
 * otherwise `octets` (its octets after the update).
 */
const finalWhileOpen = (
  eb: ExpressionBuilder<DB, 'radius_sessions'>,
  octets: Expression<number>,
  reopened: Expression<SqlBool>,
) => eb.case().when('stopped_at', 'is', null).then(null).when(reopened).then(null).else(octets).end();

/**
 * What every statement that closes a session sets beside `stopped_at` and `terminate_cause`: its
 * final octets (migration 0046), its octets as they stand.
 */
const closing = (eb: ExpressionBuilder<DB, 'radius_sessions'>) => ({
  final_input_octets: eb.ref('input_octets'),
  final_output_octets: eb.ref('output_octets'),
});

/** The larger of a column and a value, portably (SQLite's max() is GREATEST() elsewhere). */
const greatest = (
  eb: ExpressionBuilder<DB, 'radius_sessions'>,
  column: 'input_octets' | 'output_octets' | 'session_time',
  value: number | Expression<number>,
) => eb.case().when(column, '<', value).then(valueOf(eb, value)).else(eb.ref(column)).end();

/** Only open sessions are unique per router and id (migration 0016): a second open one is not written. */
const openOnce = (oc: OnConflictBuilder<DB, 'radius_sessions'>) =>
  oc.columns(['device_id', 'acct_session_id']).where('stopped_at', 'is', null).doNothing();

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await insertOne(db, ...SESSION_COLUMNS.map((c) => row[c]));
}

/** Every column of a session row, checked complete by the compiler. */
const SESSION_COLUMN_SET: Record<keyof SessionRow, true> = {
  id: true,
  device_id: true,
  acct_session_id: true,
  username: true,
  grant_id: true,
  framed_ip: true,
  mac: true,
  input_octets: true,
  output_octets: true,
  session_time: true,
  started_at: true,
  updated_at: true,
  stopped_at: true,
  terminate_cause: true,
  final_input_octets: true,
  final_output_octets: true,
};
const SESSION_COLUMNS = Object.keys(SESSION_COLUMN_SET) as (keyof SessionRow)[];

/** insertSession's statement, compiled once: a new session is opened for every Start. */
const insertOne = prepared(
  (db, ...values: unknown[]) =>
    db
      .insertInto('radius_sessions')
      .values(Object.fromEntries(SESSION_COLUMNS.map((c, i) => [c, values[i]])) as SessionRow)
      .onConflict(openOnce),
  SESSION_COLUMNS.map((c): unknown => marker(`session-${c}`)),
);

/** insertSession for several sessions, in one statement per thousand. */
export async function insertSessions(db: Db, rows: readonly SessionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000)
    await db
      .insertInto('radius_sessions')
      .values(rows.slice(i, i + 1000))
      .onConflict(openOnce)
      .execute();
}

/** Closes every open session of a device (Accounting-On/Off: the router restarted). */
export async function closeDeviceSessions(
  db: Db,
  deviceId: string,
  at: string,
  cause: string,
): Promise<number> {
  const result = await db
    .updateTable('radius_sessions')
    .set((eb) => ({ stopped_at: at, terminate_cause: cause, ...closing(eb) }))
    .where('device_id', '=', deviceId)
    .where('stopped_at', 'is', null)
    // A session that started after `at` (its Start overtook a delayed Accounting-On) was not ended.
    .where('started_at', '<=', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Sessions the routers (of `sites`; null: every site) have not reported closed. */
export async function countOpenSessions(db: Db, sites: readonly string[] | null = null): Promise<number> {
  const row = await db
    .selectFrom('radius_sessions as s')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('s.stopped_at', 'is', null)
    .$if(sites !== null, (q) =>
      q.where('s.device_id', 'in', (eb) =>
        eb
          .selectFrom('devices')
          .select('devices.id')
          .where('devices.site_id', 'in', sites ?? []),
      ),
    )
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The site of a session's router. */
export async function siteOfSession(db: Db, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('radius_sessions as s')
    .innerJoin('devices as d', 'd.id', 's.device_id')
    .select('d.site_id')
    .where('s.id', '=', id)
    .executeTakeFirst();
  return row?.site_id;
}

/** Closes open sessions last heard of before `silentSince`. */
export async function closeSilentSessions(db: Db, silentSince: string, at: string): Promise<number> {
  const result = await db
    .updateTable('radius_sessions')
    .set((eb) => ({ stopped_at: at, terminate_cause: STALE, ...closing(eb) }))
    .where('stopped_at', 'is', null)
    .where('updated_at', '<', silentSince)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * A Start for an Acct-Session-Id whose session is still open here but began more than
 * SAME_SESSION_WINDOW_SECONDS before this one did: the router lost the old session without a Stop or
 * Accounting-On (a power cut) and reuses its id. The old session ends when the new one began,
 * cause `Superseded`.
 */
export async function closeSupersededSession(
  db: Db,
  u: Pick<SessionUpdate, 'deviceId' | 'acctSessionId'>,
  begunAt: string,
): Promise<void> {
  await supersede(db, u.deviceId, u.acctSessionId, begunAt, cutoffOf(begunAt)).execute();
}

/** Sessions that began before this are superseded by a Start that began at `begunAt`. */
const cutoffOf = (begunAt: string): string => isoPlus(begunAt, -SAME_SESSION_WINDOW_SECONDS);

/** closeSupersededSession's UPDATE; in the batch form each argument is a column of the batch's rows (`v.…`). */
const supersede = (
  db: Db,
  deviceId: string | Expression<string>,
  acctSessionId: string | Expression<string>,
  begunAt: string | Expression<string>,
  cutoff: string | Expression<string>,
) =>
  db
    .updateTable('radius_sessions')
    .set((eb) => ({ stopped_at: begunAt, terminate_cause: 'Superseded', ...closing(eb) }))
    .where('device_id', '=', deviceId)
    .where('acct_session_id', '=', acctSessionId)
    .where('stopped_at', 'is', null)
    .where('started_at', '<', cutoff);

/**
 * closeSupersededSession for the Starts of a batch run at once: on PostgreSQL (see
 * `touchBatches`) one `UPDATE … FROM unnest(…)` instead of a round trip per Start, elsewhere one
 * by one. A run holds each session (router + Acct-Session-Id) once, so every row is matched by at
 * most one Start, as one by one.
 */
export async function closeSupersededSessions(
  db: Db,
  starts: readonly { u: Pick<SessionUpdate, 'deviceId' | 'acctSessionId'>; begunAt: string }[],
): Promise<void> {
  if (starts.length < 2 || !touchBatches(db)) {
    for (const { u, begunAt } of starts) await closeSupersededSession(db, u, begunAt);
    return;
  }
  const column = (f: (s: (typeof starts)[number]) => string) => sql`${starts.map(f)}::text[]`;
  const rows = sql<Record<string, unknown>>`(select * from unnest(${sql.join([
    column((s) => s.u.deviceId),
    column((s) => s.u.acctSessionId),
    column((s) => s.begunAt),
    column((s) => cutoffOf(s.begunAt)),
  ])}) as r(p_device, p_acct, p_begun, p_cutoff))`;
  await supersede(db, sql.ref('v.p_device'), sql.ref('v.p_acct'), sql.ref('v.p_begun'), sql.ref('v.p_cutoff'))
    .from(rows.as('v'))
    .execute();
}

export async function closeSession(db: Db, id: string, at: string, cause: string): Promise<void> {
  await db
    .updateTable('radius_sessions')
    .set((eb) => ({ stopped_at: at, terminate_cause: cause, ...closing(eb) }))
    .where('id', '=', id)
    .where('stopped_at', 'is', null)
    .execute();
}

const usage = prepared(
  (db, grantId: string, mac: string) =>
    db
      .selectFrom('radius_sessions')
      .select((eb) => [
        eb.fn
          .sum<number | null>(
            eb
              .case()
              .when(
                eb.and([eb('stopped_at', 'is', null), eb.or([eb('mac', 'is', null), eb('mac', '!=', mac)])]),
              )
              .then(1)
              .else(0)
              .end(),
          )
          .as('live'),
        eb.fn.sum<number | null>(sql<number>`input_octets + output_octets`).as('octets'),
      ])
      .where('grant_id', '=', grantId),
  [marker('grant'), marker('mac')],
  // Deleting a router deletes its sessions (ON DELETE CASCADE).
  { cacheUntilWritten: { tables: ['radius_sessions', 'devices'], maxEntries: 50_000 } },
);

/**
 * What a grant has used: its open sessions on other devices than `mac` (a phone that reconnects
 * does not count against itself) and the octets of all its sessions. Asked at every login, so
 * compiled once, and kept until the next write to the sessions (a burst of logins between
 * accounting packets asks the database once per guest).
 */
export async function grantUsage(
  db: Db,
  grantId: string,
  mac: string | null,
): Promise<{ otherLiveSessions: number; usedOctets: number }> {
  // No MAC: no session can be the asker's own; '' matches no stored MAC.
  const [row] = await usage(db, grantId, mac ?? '');
  return { otherLiveSessions: row?.live ?? 0, usedOctets: row?.octets ?? 0 };
}

/** A live session with where its router takes Disconnect-Requests. */
export interface LiveSessionRow {
  id: string;
  device_id: string;
  acct_session_id: string;
  username: string;
  framed_ip: string | null;
  radius_nas_id: string;
  radius_client_ip: string;
  coa_port: number;
}

const liveSessions = (db: Db) =>
  db
    .selectFrom('radius_sessions as s')
    .innerJoin('devices as d', 'd.id', 's.device_id')
    .select([
      's.id',
      's.device_id',
      's.acct_session_id',
      's.username',
      's.framed_ip',
      'd.radius_nas_id',
      'd.radius_client_ip',
      'd.coa_port',
    ])
    .where('s.stopped_at', 'is', null);

export function selectLiveSessionsOfGrant(db: Db, grantId: string): Promise<LiveSessionRow[]> {
  return liveSessions(db).where('s.grant_id', '=', grantId).orderBy('s.started_at').execute();
}

export function selectLiveSessionsOfDevice(db: Db, deviceId: string): Promise<LiveSessionRow[]> {
  return liveSessions(db).where('s.device_id', '=', deviceId).orderBy('s.started_at').execute();
}

/** A live session of a live grant with what a CoA-Request needs to restate the grant's terms. */
export interface LiveSessionTermsRow extends LiveSessionRow {
  grant_id: string;
  started_at: string;
  input_octets: number;
  output_octets: number;
  expires_at: string;
  data_limit_bytes: number | null;
  download_kbps: number | null;
  upload_kbps: number | null;
}

/** The live sessions of the live grants (not revoked, not expired by `now`) bought on `planId`. */
export function selectLiveSessionsOfPlan(
  db: Db,
  planId: string,
  now: string,
): Promise<LiveSessionTermsRow[]> {
  return liveSessions(db)
    .innerJoin('grants as g', 'g.id', 's.grant_id')
    .innerJoin('invoices as i', 'i.id', 'g.invoice_id')
    .select([
      'g.id as grant_id',
      's.started_at',
      's.input_octets',
      's.output_octets',
      'g.expires_at',
      'g.data_limit_bytes',
      'g.download_kbps',
      'g.upload_kbps',
    ])
    .where('i.plan_id', '=', planId)
    .where('g.revoked_at', 'is', null)
    .where('g.ended_at', 'is', null)
    .where('g.expires_at', '>', now)
    .orderBy('s.started_at')
    .orderBy('s.id')
    .execute();
}

export function findLiveSession(db: Db, id: string): Promise<LiveSessionRow | undefined> {
  return liveSessions(db).where('s.id', '=', id).executeTakeFirst();
}

export function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('radius_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export type ListedSessionRow = SessionRow & { device_name: string; radius_nas_id: string; site_id: string };

/**
 * `limit` sessions of routers of `sites` (null: every site), newest first: every open one (up to `limit`) and then the most recently
 * started closed ones, so a guest online since long ago can still be found and cut.
 */
export function selectRecentSessions(
  db: Db,
  filter: ListFilter,
  sites: readonly string[] | null,
): Promise<ListedSessionRow[]> {
  const { q, status, router, from, to } = filter;
  const chosen = db
    .selectFrom('radius_sessions as s')
    .innerJoin('devices as d', 'd.id', 's.device_id')
    .selectAll('s')
    .select(['d.name as device_name', 'd.radius_nas_id', 'd.site_id'])
    .$if(sites !== null, (w) => w.where('d.site_id', 'in', sites ?? []))
    .$if(q !== undefined, (w) =>
      w.where(searchAny(q ?? '', ['s.username', 's.mac', 's.framed_ip', 'd.name', 'd.radius_nas_id'])),
    )
    .$if(status === 'active', (w) => w.where('s.stopped_at', 'is', null))
    .$if(status === 'ended', (w) => w.where('s.stopped_at', 'is not', null))
    .$if(router !== undefined, (w) => w.where('s.device_id', '=', router ?? ''))
    .$if(from !== undefined, (w) => w.where('s.started_at', '>=', from ?? ''))
    .$if(to !== undefined, (w) => w.where('s.started_at', '<', to ?? ''))
    .orderBy((eb) => eb.case().when('s.stopped_at', 'is', null).then(0).else(1).end())
    .orderBy('s.started_at', 'desc')
    .orderBy('s.id')
    .limit(filter.limit)
    .offset(filter.offset);
  return db.selectFrom(chosen.as('r')).selectAll().orderBy('r.started_at', 'desc').orderBy('r.id').execute();
}
