import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { databaseFile } from '../../src/db/index.js';
import { recordAccounting, type AccountingRecord, type AccountingResult } from '../../src/wifi/index.js';
import { closeSession, closeSupersededSessions } from '../../src/wifi/sessions.store.js';
import { aGuest, quietRadiusApp, type RadiusTestApp } from '../helpers/radius.js';
import { aDevice } from '../helpers/wifi.js';

/**
 * The accounting writer commits the packets that arrive together as one batch, and on PostgreSQL
 * updates a run of Starts, Interim-Updates and Stops in one round trip (sessions.store.ts
 * touchSessions), after one more that closes what its Starts supersede.
 * Whatever the store, a batch must record exactly what its packets one by one would: two boxes
 * with the same guests get the same random packets, one box as one batch, the other one at a time.
 */

/** A small seeded generator (mulberry32): the same packets on both boxes, and a failure replays. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

const GUESTS = 4;
const SESSIONS = 10;

interface Box {
  app: RadiusTestApp;
  users: string[];
}

async function box(t: Parameters<typeof quietRadiusApp>[0], dataDir?: string): Promise<Box> {
  const app = await quietRadiusApp(t, dataDir === undefined ? {} : { dataDir });
  const users: string[] = [];
  // Guests 0 and 1 have a data allowance their sessions together can use up.
  for (let g = 0; g < GUESTS; g++)
    users.push((await aGuest(app, g < 2 ? { data_limit_bytes: 3_000_000 } : {})).username);
  return { app, users };
}

/** Packets that name guests and routers by index, turned into each box's records. */
interface Packet {
  type: 'Start' | 'Interim-Update' | 'Stop' | 'Accounting-On';
  session: number;
  guest: number;
  input: number;
  output: number;
  time: number;
  delay: number;
}

function packets(next: () => number, count: number, counters: Map<number, { input: number; time: number }>) {
  const out: Packet[] = [];
  for (let i = 0; i < count; i++) {
    const session = Math.floor(next() * SESSIONS);
    const roll = next();
    const type =
      roll < 0.15 ? 'Start' : roll < 0.8 ? 'Interim-Update' : roll < 0.97 ? 'Stop' : 'Accounting-On';
    const c = counters.get(session) ?? { input: 0, time: 0 };
    // Counters mostly grow; now and then a packet is an old resend with smaller ones.
    const stale = next() < 0.1;
    const next_ = stale ? c : { input: c.input + Math.floor(next() * 400_000), time: c.time + 60 };
    counters.set(session, next_);
    out.push({
      type,
      session,
      guest: session % GUESTS,
      input: stale ? Math.floor(c.input / 2) : next_.input,
      output: Math.floor(next_.input / 3),
      time: stale ? Math.floor(c.time / 2) : next_.time,
      delay: next() < 0.2 ? Math.floor(next() * 30) : 0,
    });
  }
  return out;
}

const record = (b: Box, p: Packet): AccountingRecord => ({
  deviceId: b.app.deviceId,
  statusType: p.type,
  acctSessionId: p.type === 'Accounting-On' ? '' : `sess-${String(p.session)}`,
  username: b.users[p.guest] ?? '',
  framedIp: `10.1.0.${String(10 + p.session)}`,
  mac: `AA:BB:CC:00:00:${String(10 + p.session)}`,
  inputOctets: p.input,
  outputOctets: p.output,
  sessionTime: p.time,
  terminateCause: p.type === 'Stop' ? 'User-Request' : null,
  delaySeconds: p.delay,
});

/** The box's sessions in terms both boxes share (guest indexes, not ids). */
async function state(b: Box) {
  const grants = await b.app.app.deps.db.selectFrom('grants').select(['id', 'username']).execute();
  const guestOf = (grantId: string | null) => {
    const username = grants.find((g) => g.id === grantId)?.username;
    return username === undefined ? null : b.users.indexOf(username);
  };
  const rows = await b.app.app.deps.db.selectFrom('radius_sessions').selectAll().execute();
  return rows
    .map((r) => ({
      acct: r.acct_session_id,
      guest: guestOf(r.grant_id),
      user: b.users.indexOf(r.username),
      input: r.input_octets,
      output: r.output_octets,
      time: r.session_time,
      started: r.started_at,
      stopped: r.stopped_at,
      cause: r.terminate_cause,
      ip: r.framed_ip,
      final: [r.final_input_octets, r.final_output_octets],
    }))
    .sort((x, y) =>
      `${x.acct}|${x.started}|${String(x.stopped)}` < `${y.acct}|${y.started}|${String(y.stopped)}` ? -1 : 1,
    );
}

t.test('a batch of accounting packets records what the same packets one by one record', async (t) => {
  const batched = await box(t);
  const single = await box(t);
  const counters = new Map<number, { input: number; time: number }>();
  const next = random(20261126);
  /** The sessions closed as by an acknowledged Disconnect after the last round, and how many opened again. */
  let cut: string[] = [];
  let cutIds: string[] = [];
  let cutAt = '';
  let reopened = 0;
  for (let round = 0; round < 6; round++) {
    for (const b of [batched, single]) b.app.clock.advance('2m');
    // The cut sessions' routers go on reporting them, first thing (see below).
    const load = [
      ...cut.map((acct): Packet => {
        const session = Number(acct.slice('sess-'.length));
        const c = counters.get(session) ?? { input: 0, time: 0 };
        const grown = { input: c.input + 100_000, time: c.time + 120 };
        counters.set(session, grown);
        const p = {
          session,
          guest: session % GUESTS,
          input: grown.input,
          output: Math.floor(grown.input / 3),
        };
        return { ...p, type: 'Interim-Update', time: grown.time, delay: 0 };
      }),
      ...packets(next, 40, counters),
    ];
    const batchResults = await recordAccounting(
      batched.app.app.deps,
      load.map((p) => record(batched, p)),
    );
    const singleResults: AccountingResult[] = [];
    for (const p of load)
      singleResults.push(...(await recordAccounting(single.app.app.deps, [record(single, p)])));
    t.same(await state(batched), await state(single), `round ${String(round)}: the same sessions`);
    t.same(
      (await state(batched)).filter((s) =>
        s.stopped === null
          ? s.final.some((f) => f !== null)
          : s.final[0] !== s.input || s.final[1] !== s.output,
      ),
      [],
      `round ${String(round)}: final octets (0046) null while open, the octets once closed`,
    );
    t.same(
      batchResults.map((r) => (r.kind === 'session' ? `session:${String(r.created)}` : r.kind)),
      singleResults.map((r) => (r.kind === 'session' ? `session:${String(r.created)}` : r.kind)),
      `round ${String(round)}: the same answer for each packet`,
    );
    t.equal(
      batchResults.some((r) => r.kind === 'session' && r.ofEndedGrant !== undefined),
      singleResults.some((r) => r.kind === 'session' && r.ofEndedGrant !== undefined),
      `round ${String(round)}: a used-up grant is reported either way`,
    );
    // Routers that acknowledge a Disconnect-Request and go on: some open sessions are closed as
    // an ACK closes them (Admin-Reset), and the next round's reports of them open them again.
    // Opened again by its report, whatever the mix did to it after: no longer stopped at the cut.
    for (const id of cutIds) {
      const row = await batched.app.app.deps.db
        .selectFrom('radius_sessions')
        .select('stopped_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      if (row.stopped_at !== cutAt) reopened++;
    }
    cutAt = batched.app.clock.now().toISOString();
    cut = (await state(batched)).filter((s) => s.stopped === null && next() < 0.5).map((s) => s.acct);
    cutIds = [];
    for (const b of [batched, single]) {
      const rows = await b.app.app.deps.db
        .selectFrom('radius_sessions')
        .select('id')
        .where('stopped_at', 'is', null)
        .where('acct_session_id', 'in', cut.length > 0 ? cut : [''])
        .execute();
      if (b === batched) cutIds = rows.map((r) => r.id);
      for (const { id } of rows) await closeSession(b.app.app.deps.db, id, cutAt, 'Admin-Reset');
    }
  }
  const used = (await state(batched)).filter((s) => s.guest === 0 || s.guest === 1);
  t.ok(used.length > 0, 'the allowance guests had sessions');
  t.ok(reopened > 0, 'sessions cut by an acknowledged Disconnect reported again and opened again');
});

/** A Start of `session` (its guest by the usual rule) with no counters, unless `p` says otherwise. */
const start = (p: Partial<Packet> & Pick<Packet, 'session'>): Packet => ({
  type: 'Start',
  guest: p.session % GUESTS,
  input: 0,
  output: 0,
  time: 0,
  delay: 0,
  ...p,
});

t.test('Starts batched together close the older sessions whose ids they reuse, as one by one', async (t) => {
  const batched = await box(t);
  const single = await box(t);
  // The routers opened sessions 1, 2 and 3, then lost them without a Stop (they restarted).
  const first = [start({ session: 1 }), start({ session: 2 }), start({ session: 3 })];
  for (const b of [batched, single])
    await recordAccounting(
      b.app.app.deps,
      first.map((p) => record(b, p)),
    );
  for (const b of [batched, single]) b.app.clock.advance('10m');
  // Ten minutes later they reuse ids 1 and 2 for new sessions; session 3 reports on.
  const load = [
    start({ session: 1 }),
    start({ session: 2 }),
    start({ session: 3, type: 'Interim-Update', input: 1000, time: 600 }),
  ];
  const results = await recordAccounting(
    batched.app.app.deps,
    load.map((p) => record(batched, p)),
  );
  for (const p of load) await recordAccounting(single.app.app.deps, [record(single, p)]);
  t.same(await state(batched), await state(single), 'the same sessions');
  t.same(
    results.map((r) => r.kind === 'session' && r.created),
    [true, true, false],
  );
  const sessions = await state(batched);
  for (const acct of ['sess-1', 'sess-2'])
    t.match(
      sessions.filter((s) => s.acct === acct),
      [{ cause: 'Superseded' }, { stopped: null, cause: null }],
      `${acct}: the old session closed as superseded, the new one open`,
    );
});

t.test(
  'closeSupersededSessions closes exactly the older open sessions of the ids given, either store',
  async (t) => {
    const b = await box(t);
    await recordAccounting(
      b.app.app.deps,
      [1, 2, 3].map((session) => record(b, start({ session }))),
    );
    b.app.clock.advance('10m');
    const now = b.app.clock.now();
    const begun = (acctSessionId: string, at: Date) => ({
      u: { deviceId: b.app.deviceId, acctSessionId },
      begunAt: at.toISOString(),
    });
    await closeSupersededSessions(b.app.app.deps.db, [
      begun('sess-1', now),
      begun('sess-2', now),
      // Begun only 4 minutes after it: not superseded (a resent Start, or a router's clock).
      begun('sess-3', new Date(now.getTime() - 6 * 60_000)),
    ]);
    t.match(
      (await state(b)).map((s) => [s.acct, s.stopped, s.cause]),
      [
        ['sess-1', now.toISOString(), 'Superseded'],
        ['sess-2', now.toISOString(), 'Superseded'],
        ['sess-3', null, null],
      ],
    );
  },
);

t.test(
  'sessions opened together: each sale’s first router is its first session’s, and a used-up allowance is reported',
  async (t) => {
    const batched = await box(t);
    const single = await box(t);
    const cellar = async (b: Box) =>
      (
        await aDevice(b.app.app, {
          name: 'Cellar AP',
          mac_address: 'aa:bb:cc:dd:ee:03',
          radius_nas_id: 'cellar-01',
        })
      ).device.id;
    const cellars = new Map([
      [batched, await cellar(batched)],
      [single, await cellar(single)],
    ]);
    /** The packets, in one batch: new sessions of guest 0 (3 MB allowance) and guest 2, the cellar's first. */
    const load = (b: Box): AccountingRecord[] => {
      const on = (p: Packet, router: 'cellar' | 'lobby') => ({
        ...record(b, p),
        deviceId: router === 'cellar' ? (cellars.get(b) ?? '') : b.app.deviceId,
      });
      return [
        // Their Starts were lost: first seen with 2 MB each, together over guest 0's allowance.
        on(
          { ...start({ session: 4 }), type: 'Interim-Update', input: 1_500_000, output: 500_000, time: 60 },
          'cellar',
        ),
        on(
          { ...start({ session: 8 }), type: 'Interim-Update', input: 1_500_000, output: 500_000, time: 60 },
          'lobby',
        ),
        on(start({ session: 2 }), 'cellar'),
        on(start({ session: 6 }), 'lobby'),
      ];
    };
    const results = await recordAccounting(batched.app.app.deps, load(batched));
    const one: AccountingResult[] = [];
    for (const r of load(single)) one.push(...(await recordAccounting(single.app.app.deps, [r])));
    t.same(
      results.map((r) => r.kind === 'session' && r.created),
      [true, true, true, true],
      'four new sessions',
    );
    t.same(await state(batched), await state(single), 'the same sessions');
    const firstRouters = async (b: Box) => {
      const rows = await b.app.app.deps.db
        .selectFrom('grants')
        .innerJoin('invoices', 'invoices.id', 'grants.invoice_id')
        .select(['grants.username', 'invoices.first_device_id'])
        .execute();
      return [0, 2].map((g) => {
        const device = rows.find((r) => r.username === b.users[g])?.first_device_id;
        return device === cellars.get(b) ? 'cellar' : device === b.app.deviceId ? 'lobby' : device;
      });
    };
    t.same(
      await firstRouters(batched),
      ['cellar', 'cellar'],
      'each sale’s first router: its first session’s',
    );
    t.same(await firstRouters(single), ['cellar', 'cellar'], 'as one by one');
    const grant0 = async (b: Box) =>
      (
        await b.app.app.deps.db
          .selectFrom('grants')
          .select('id')
          .where('username', '=', b.users[0] ?? '')
          .executeTakeFirstOrThrow()
      ).id;
    const ended = (rs: AccountingResult[]) =>
      rs.flatMap((r) => (r.kind === 'session' && r.ofEndedGrant !== undefined ? [r.ofEndedGrant] : []));
    t.same(
      ended(results),
      [await grant0(batched)],
      'the allowance used up together: reported once, by its last session',
    );
    t.same(ended(one), [await grant0(single)], 'one by one: by the session that used it up');
  },
);

t.test(
  'the leading Interim-Updates SQLite records synchronously record what the transaction records',
  async (t) => {
    // `light` takes the synchronous path where it applies (sessions.ts lightInterims); `reference`
    // runs the same packets through a second Kysely instance on the same connection, which the
    // synchronous path does not know (connect.ts idleWriteTransaction), so always through kysely.
    // Each its own folder: the reference box must not replace the light box's database file,
    // which another connection reads below.
    const dir = t.testdir();
    const light = await box(t, path.join(dir, 'light'));
    const reference = await box(t, path.join(dir, 'reference'));
    const deps = (b: Box) =>
      b === light ? b.app.app.deps : { ...b.app.app.deps, db: b.app.app.deps.db.withoutPlugins() };
    const file = databaseFile(light.app.app.deps.db);
    const other = file === null ? null : new Database(file, { readonly: true });
    t.teardown(() => other?.close());
    /** What another process sees committed: each session's octets and last report. */
    const committed = () =>
      other
        ?.prepare('select acct_session_id, input_octets, updated_at from radius_sessions order by 1, 3')
        .all();
    const counters = new Map<number, { input: number; time: number }>();
    const next = random(20261128);
    for (const b of [light, reference])
      await recordAccounting(
        deps(b),
        Array.from({ length: SESSIONS }, (_, session) => record(b, start({ session }))),
      );
    let synchronous = 0;
    for (let round = 0; round < 8; round++) {
      for (const b of [light, reference]) b.app.clock.advance('2m');
      // Interim-Updates of the sessions still open, as their routers report them, then a random
      // mix (which stops and starts some).
      const now = light.app.clock.now().getTime();
      const lead: Packet[] = (await state(light))
        .filter((s) => s.stopped === null)
        .map((s) => ({
          ...start({ session: Number(s.acct.slice('sess-'.length)) }),
          type: 'Interim-Update',
          input: s.input + 250_000,
          output: s.output + 1000,
          time: Math.floor((now - Date.parse(s.started)) / 1000),
        }));
      // Without Accounting-On, which would close every session for the rounds after it.
      const load = [...lead, ...packets(next, 20, counters).filter((p) => p.type !== 'Accounting-On')];
      const results: AccountingResult[][] = [];
      for (const b of [light, reference]) {
        const before = b === light ? committed() : null;
        const recording = recordAccounting(
          deps(b),
          load.map((p) => record(b, p)),
        );
        // Nothing of the reference box's has run yet: it waits for kysely's promises.
        if (b === light && before !== null && JSON.stringify(committed()) !== JSON.stringify(before))
          synchronous++;
        results.push(await recording);
      }
      t.same(await state(light), await state(reference), `round ${String(round)}: the same sessions`);
      const guestOf = async (b: Box, rs: AccountingResult[]) => {
        const grants = await b.app.app.deps.db.selectFrom('grants').select(['id', 'username']).execute();
        return rs.map((r) =>
          r.kind === 'session'
            ? `session:${String(r.created)}:${String(b.users.indexOf(grants.find((g) => g.id === r.ofEndedGrant)?.username ?? ''))}`
            : r.kind,
        );
      };
      t.same(
        await guestOf(light, results[0] ?? []),
        await guestOf(reference, results[1] ?? []),
        `round ${String(round)}: the same answer for each packet, used-up allowances included`,
      );
      // The routers start new sessions in place of those the mix stopped, for the next round's lead.
      const stopped = (await state(light)).filter(
        (s, _, all) => !all.some((o) => o.acct === s.acct && o.stopped === null),
      );
      const again = [...new Set(stopped.map((s) => Number(s.acct.slice('sess-'.length))))];
      for (const b of [light, reference])
        await recordAccounting(
          deps(b),
          again.map((session) => record(b, start({ session }))),
        );
    }
    // Each round begins with Interim-Updates of open sessions: each takes the synchronous path.
    if (other)
      t.equal(synchronous, 8, 'SQLite: every round committed its lead before recordAccounting returned');
    const ended = (await state(light)).filter((s) => s.stopped !== null).length;
    t.ok(
      ended > 0,
      'the random mix stopped some sessions, so later rounds mix the light form and the full one',
    );
  },
);
