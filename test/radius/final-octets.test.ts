import t, { type Test } from 'tap';
import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { closeStaleSessions, runReport } from '../../src/wifi/index.js';
import { closeSession, touchSessions } from '../../src/wifi/sessions.store.js';
import {
  acctRequest,
  aGuest,
  NAS_ID,
  quietRadiusApp,
  radclient,
  type RadiusTestApp,
} from '../helpers/radius.js';
import { onPostgres } from '../helpers/store.js';

/**
 * A session's final octets (migration 0046): null while it is open, its octets once it is closed,
 * whichever way it closes (Stop, a Stop for a session never started, Accounting-On, a Start that
 * supersedes it, the stale-session job, an administrator's disconnect) or opens again (a stale
 * session that reports). The usage report reads them for closed sessions and the live octets for
 * open ones. On PostgreSQL, an Interim-Update of an open session then changes no indexed column,
 * so it stays in its page (a heap-only update).
 */

const sessions = (app: RadiusTestApp) =>
  app.app.deps.db
    .selectFrom('radius_sessions')
    .select([
      'acct_session_id',
      'stopped_at',
      'terminate_cause',
      'input_octets',
      'output_octets',
      'final_input_octets',
      'final_output_octets',
    ])
    .orderBy('started_at')
    .execute();

/** The sessions whose final octets are not what they must be. */
async function wrongFinals(app: RadiusTestApp) {
  return (await sessions(app)).filter((s) =>
    s.stopped_at === null
      ? s.final_input_octets !== null || s.final_output_octets !== null
      : s.final_input_octets !== s.input_octets || s.final_output_octets !== s.output_octets,
  );
}

/** Sends one accounting record of `acct` for `username`; it must be answered. */
async function send(
  t: Test,
  app: RadiusTestApp,
  username: string,
  acct: string,
  body: string,
): Promise<void> {
  const r = await radclient(app.acct, 'acct', `${acctRequest(username, acct).trimEnd()}\n${body}`);
  t.match(r.replies, [{ code: 'Accounting-Response' }], r.output);
}

const octets = (input: number, output: number, time: number) =>
  `Acct-Session-Time = ${String(time)}\nAcct-Input-Octets = ${String(input)}\nAcct-Output-Octets = ${String(output)}\n`;
const START = 'Acct-Status-Type = Start\n';
const interim = (input: number, output: number, time: number) =>
  `Acct-Status-Type = Interim-Update\n${octets(input, output, time)}`;

t.test(
  'every way a session closes writes its final octets, and the usage report counts open ones live',
  async (t) => {
    const app = await quietRadiusApp(t);
    const g = await aGuest(app);
    /** Accounting records of the guest's session `acct`. */
    const to = (acct: string) => (body: string) => send(t, app, g.username, acct, body);
    const stop = (cause: string, input: number, output: number, time: number) =>
      `Acct-Status-Type = Stop\nAcct-Terminate-Cause = ${cause}\n${octets(input, output, time)}`;
    const step = async (label: string, fn: () => Promise<void>) => {
      await fn();
      t.same(await wrongFinals(app), [], `${label}: final octets null while open, the octets once closed`);
    };

    await step('Start', () => to('back')(START));
    app.clock.advance('5m');
    await step('Interim-Update', () => to('back')(interim(1000, 9000, 300)));
    t.match(await sessions(app), [
      { acct_session_id: 'back', final_input_octets: null, final_output_octets: null },
    ]);

    app.clock.advance('13m');
    await step('closed as stale', async () => {
      t.equal(await closeStaleSessions(app.app.deps), 1);
    });
    t.match(await sessions(app), [
      { terminate_cause: 'Stale', final_input_octets: 1000, final_output_octets: 9000 },
    ]);

    app.clock.advance('1m');
    await step('a stale session that reports again', () => to('back')(interim(2000, 19_000, 1140)));
    t.match(
      await sessions(app),
      [{ stopped_at: null, final_input_octets: null }],
      'open again: no final octets',
    );

    await step('Stop', () => to('back')(stop('User-Request', 3000, 29_000, 1200)));
    await step('an Interim-Update resent after the Stop, with older counters', () =>
      to('back')(interim(2000, 19_000, 1140)),
    );
    t.match(await sessions(app), [
      { terminate_cause: 'User-Request', final_input_octets: 3000, final_output_octets: 29_000 },
    ]);

    await step('a Stop for a session never started', () =>
      to('lost-start')(stop('Lost-Carrier', 400, 4000, 60)),
    );

    await step('Start', () => to('reused')(START));
    await step('Interim-Update', () => to('reused')(interim(500, 5000, 60)));
    app.clock.advance('10m');
    await step('a Start that supersedes the open session whose id it reuses', () => to('reused')(START));
    await step('Interim-Update', () => to('reused')(interim(70, 700, 60)));

    await step('Start', () => to('cut')(START));
    await step('Interim-Update', () => to('cut')(interim(80, 800, 30)));
    const cut = await app.app.deps.db
      .selectFrom('radius_sessions')
      .select('id')
      .where('acct_session_id', '=', 'cut')
      .executeTakeFirstOrThrow();
    await step('an administrator’s disconnect', () =>
      closeSession(app.app.deps.db, cut.id, app.clock.now().toISOString(), 'Admin-Reset'),
    );

    await step('Start', () => to('on')(START));
    await step('Interim-Update', () => to('on')(interim(90, 900, 30)));

    // The usage report of today: every session started today, the open ones with their live octets.
    const all = await sessions(app);
    t.same(
      all.map((s) => [s.acct_session_id, s.stopped_at === null]),
      [
        ['back', false],
        ['lost-start', false],
        ['reused', false],
        ['reused', true],
        ['cut', false],
        ['on', true],
      ],
      'two sessions open, four closed',
    );
    const usage = async () => {
      const report = await runReport(app.app.deps, 'usage', {}, { scope: null, maskPhones: false });
      const today = report.rows.at(-1) ?? {};
      return [today.sessions, today.upload_bytes, today.download_bytes];
    };
    const sum = (f: (s: (typeof all)[number]) => number) => all.reduce((n, s) => n + f(s), 0);
    t.same(
      await usage(),
      [6, sum((s) => s.input_octets), sum((s) => s.output_octets)],
      'the usage report: the closed sessions’ final octets and the open ones’ live octets',
    );

    await step('Accounting-On closes every open session of the router', async () => {
      const on = await radclient(
        app.acct,
        'acct',
        `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-On\n`,
      );
      t.match(on.replies, [{ code: 'Accounting-Response' }], on.output);
    });
    t.same(
      (await sessions(app)).filter((s) => s.stopped_at === null),
      [],
      'nothing open any more',
    );
    t.same(
      await usage(),
      [6, sum((s) => s.input_octets), sum((s) => s.output_octets)],
      'the same usage once every session is closed',
    );
  },
);

/** The current transaction's updates of radius_sessions, and how many of them stayed in their page. */
async function updatesSoFar(db: Db) {
  const { rows } = await sql<{ updated: number; hot: number }>`select
    pg_stat_get_xact_tuples_updated('radius_sessions'::regclass) as updated,
    pg_stat_get_xact_tuples_hot_updated('radius_sessions'::regclass) as hot`.execute(db);
  return rows[0];
}

t.test(
  'PostgreSQL: an Interim-Update of an open session is a heap-only update, alone or batched',
  { skip: !onPostgres && 'PostgreSQL only' },
  async (t) => {
    const app = await quietRadiusApp(t);
    const g = await aGuest(app);
    for (const acct of ['one', 'two', 'three']) await send(t, app, g.username, acct, START);
    app.clock.advance('5m');
    const at = app.clock.now().toISOString();
    /** An Interim-Update of `acct`, as the accounting path hands it to touchSessions. */
    const update = (acct: string, input: number) => ({
      u: {
        deviceId: app.deviceId,
        acctSessionId: acct,
        username: g.username,
        framedIp: '10.1.0.5',
        mac: '11:22:33:44:55:66',
        inputOctets: input,
        outputOctets: input * 10,
        sessionTime: 300,
      },
      at,
      packet: {
        begunAt: '2026-01-15T09:00:00.000Z',
        start: false,
        eventAt: at,
        begunMs: Date.parse('2026-01-15T09:00:00.000Z'),
        eventMs: Date.parse(at),
      },
      stop: null,
    });
    await app.app.deps.db.transaction().execute(async (tx) => {
      const touched = await touchSessions(tx, [update('one', 1000)], false);
      t.same(touched, [{ endedGrantId: null }], 'one session updated');
      t.same(await updatesSoFar(tx), { updated: 1, hot: 1 }, 'alone: one update, in its page');
      await touchSessions(tx, [update('two', 2000), update('three', 3000)], true);
      t.same(await updatesSoFar(tx), { updated: 3, hot: 3 }, 'batched: two more, in their pages');
    });
  },
);
