import { createSocket } from 'node:dgram';
import t, { type Test } from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { closeStaleSessions } from '../../src/wifi/index.js';
import {
  acctRequest,
  NAS_ID,
  SECRET,
  aGuest,
  counterReaches,
  exchangeMany,
  radclient,
  sendExpectingDrop,
  startRadiusApp,
} from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import { failEveryInsert } from '../helpers/store.js';

/** Accounting-Request against the running app, with radclient as the router. */

const common = (username: string, session?: string) => acctRequest(username, session).trimEnd();

const sessions = (app: Awaited<ReturnType<typeof startRadiusApp>>) =>
  app.app.deps.db.selectFrom('radius_sessions').selectAll().orderBy('started_at').execute();

/** Accounting records for one session of `username`, sent by radclient; each must be answered. */
const sessionSender =
  (t: Test, app: Awaited<ReturnType<typeof startRadiusApp>>, username: string, acctSessionId: string) =>
  async (body: string) => {
    const r = await radclient(app.acct, 'acct', `${common(username, acctSessionId)}\n${body}`);
    t.match(r.replies, [{ code: 'Accounting-Response' }], r.output);
  };

t.test('Start, Interim-Update and Stop keep one session with 64-bit counters and the cause', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const start = await radclient(app.acct, 'acct', `${common(g.username)}\nAcct-Status-Type = Start\n`);
  t.match(start.replies, [{ code: 'Accounting-Response' }], start.output);
  t.match(await sessions(app), [
    {
      device_id: app.deviceId,
      acct_session_id: '5f3a1b2c00000001',
      username: g.username,
      grant_id: g.grantId,
      framed_ip: '10.1.0.5',
      mac: '11:22:33:44:55:66',
      started_at: '2026-01-15T09:00:00.000Z',
      stopped_at: null,
    },
  ]);

  app.clock.advance('5m');
  const interim = await radclient(
    app.acct,
    'acct',
    `${common(g.username)}\nAcct-Status-Type = Interim-Update\nAcct-Session-Time = 300\nAcct-Input-Octets = 1048576\nAcct-Input-Gigawords = 1\nAcct-Output-Octets = 10485760\nAcct-Output-Gigawords = 2\n`,
  );
  t.match(interim.replies, [{ code: 'Accounting-Response' }]);
  t.match(await sessions(app), [
    {
      input_octets: 2 ** 32 + 1048576,
      output_octets: 2 * 2 ** 32 + 10485760,
      session_time: 300,
      updated_at: '2026-01-15T09:05:00.000Z',
      stopped_at: null,
    },
  ]);

  app.clock.advance('5m');
  const stop = await radclient(
    app.acct,
    'acct',
    `${common(g.username)}\nAcct-Status-Type = Stop\nAcct-Session-Time = 600\nAcct-Input-Octets = 5\nAcct-Input-Gigawords = 2\nAcct-Output-Octets = 7\nAcct-Output-Gigawords = 3\nAcct-Terminate-Cause = User-Request\nAcct-Delay-Time = 2\n`,
  );
  t.match(stop.replies, [{ code: 'Accounting-Response' }]);
  const [row] = await sessions(app);
  t.match(row, {
    input_octets: 2 * 2 ** 32 + 5,
    output_octets: 3 * 2 ** 32 + 7,
    session_time: 600,
    stopped_at: '2026-01-15T09:09:58.000Z',
    terminate_cause: 'User-Request',
  });
  t.equal((await sessions(app)).length, 1, 'one row for the session');
  t.equal(app.app.radius.counters.get('acct_responses'), 3);
});

// Accounting does not depend on the router's make; both families send RFC 2869 gigawords.
for (const model of ['MikroTik hAP ax2', 'CoovaChilli on OpenWrt']) {
  t.test(
    `${model}: totals past 2^32 are octets + gigawords × 2^32, in the row and the admin API`,
    async (t) => {
      const app = await startRadiusApp(t, { device: { model } });
      const g = await aGuest(app);
      await radclient(app.acct, 'acct', `${common(g.username)}\nAcct-Status-Type = Start\n`);
      app.clock.advance('5m');
      const interim = await radclient(
        app.acct,
        'acct',
        `${common(g.username)}\nAcct-Status-Type = Interim-Update\nAcct-Session-Time = 300\nAcct-Input-Octets = 1234\nAcct-Input-Gigawords = 3\nAcct-Output-Octets = 4294967295\nAcct-Output-Gigawords = 1\n`,
      );
      t.match(interim.replies, [{ code: 'Accounting-Response' }], interim.output);
      const totals = { input_octets: 3 * 2 ** 32 + 1234, output_octets: 2 * 2 ** 32 - 1, session_time: 300 };
      t.match(await sessions(app), [totals]);
      const listed = await (await staffClient(app, 'viewer')).get('/api/v1/admin/sessions');
      t.equal(listed.status, 200);
      t.match(listed.body.data, [{ acct_session_id: '5f3a1b2c00000001', ...totals }]);
    },
  );
}

t.test('an Interim-Update or Stop for a session never started creates it', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  await radclient(
    app.acct,
    'acct',
    `${common(g.username, 'late-1')}\nAcct-Status-Type = Interim-Update\nAcct-Session-Time = 120\n`,
  );
  t.match(await sessions(app), [
    { acct_session_id: 'late-1', started_at: '2026-01-15T08:58:00.000Z', stopped_at: null },
  ]);
});

t.test('Accounting-On and Accounting-Off close every open session of that router', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  for (const id of ['s1', 's2'])
    await radclient(app.acct, 'acct', `${common(g.username, id)}\nAcct-Status-Type = Start\n`);
  app.clock.advance('1m');
  const on = await radclient(
    app.acct,
    'acct',
    `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-On\n`,
  );
  t.match(on.replies, [{ code: 'Accounting-Response' }], on.output);
  t.match(await sessions(app), [
    { acct_session_id: 's1', stopped_at: '2026-01-15T09:01:00.000Z', terminate_cause: 'Accounting-On' },
    { acct_session_id: 's2', stopped_at: '2026-01-15T09:01:00.000Z', terminate_cause: 'Accounting-On' },
  ]);
  await radclient(app.acct, 'acct', `${common(g.username, 's3')}\nAcct-Status-Type = Start\n`);
  const off = await radclient(
    app.acct,
    'acct',
    `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-Off\n`,
  );
  t.match(off.replies, [{ code: 'Accounting-Response' }]);
  t.match((await sessions(app))[2], { acct_session_id: 's3', terminate_cause: 'Accounting-Off' });
});

t.test(
  'a router that reuses an Acct-Session-Id after a reboot starts a new session; the old one keeps its late packets',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    const send = sessionSender(t, app, g.username, '80100001');
    await send('Acct-Status-Type = Start\n');
    app.clock.advance('1m');
    // The router reboots: Accounting-On closes the session, and its counter of ids starts again.
    await radclient(app.acct, 'acct', `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-On\n`);
    app.clock.advance('1m');
    await send('Acct-Status-Type = Start\n');
    t.match(await sessions(app), [
      {
        acct_session_id: '80100001',
        started_at: '2026-01-15T09:00:00.000Z',
        stopped_at: '2026-01-15T09:01:00.000Z',
      },
      { acct_session_id: '80100001', started_at: '2026-01-15T09:02:00.000Z', stopped_at: null },
    ]);

    app.clock.advance('5m');
    await send('Acct-Status-Type = Interim-Update\nAcct-Session-Time = 300\nAcct-Input-Octets = 3000\n');
    // A Stop of the first session, held by the router all along: it began at 09:00.
    await send(
      'Acct-Status-Type = Stop\nAcct-Session-Time = 60\nAcct-Input-Octets = 900\nAcct-Delay-Time = 360\n',
    );
    const [old, current] = await sessions(app);
    t.match(
      old,
      { input_octets: 900, session_time: 60, stopped_at: '2026-01-15T09:01:00.000Z' },
      'the late Stop went to the old session',
    );
    t.match(
      current,
      { input_octets: 3000, session_time: 300, stopped_at: null },
      'the new session is open with its own counters',
    );

    // The open session counts against the grant's one device: another phone is refused.
    const login = await radclient(
      app.auth,
      'auth',
      `User-Name = "${g.username}"\nUser-Password = "${g.password}"\nNAS-Identifier = "${NAS_ID}"\nCalling-Station-Id = "AA-AA-AA-AA-AA-AA"\nMessage-Authenticator = 0x00\n`,
    );
    t.match(
      login.replies,
      [
        {
          code: 'Access-Reject',
          attributes: { 'Reply-Message': '"This access is already in use on another device"' },
        },
      ],
      login.output,
    );

    app.clock.advance('1m');
    await send('Acct-Status-Type = Stop\nAcct-Session-Time = 360\nAcct-Input-Octets = 4000\n');
    t.match(await sessions(app), [
      { stopped_at: '2026-01-15T09:01:00.000Z', input_octets: 900 },
      { stopped_at: '2026-01-15T09:08:00.000Z', input_octets: 4000 },
    ]);
  },
);

t.test(
  'a Start reusing the id of a session still open (power cut, no Accounting-On) supersedes it',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    const send = sessionSender(t, app, g.username, '80100007');
    await send('Acct-Status-Type = Start\n');
    app.clock.advance('5m');
    await send('Acct-Status-Type = Interim-Update\nAcct-Session-Time = 300\nAcct-Input-Octets = 500\n');
    app.clock.advance('25m');
    await send('Acct-Status-Type = Start\n');
    t.match(await sessions(app), [
      {
        started_at: '2026-01-15T09:00:00.000Z',
        stopped_at: '2026-01-15T09:30:00.000Z',
        terminate_cause: 'Superseded',
        input_octets: 500,
      },
      { started_at: '2026-01-15T09:30:00.000Z', stopped_at: null, input_octets: 0 },
    ]);
    app.clock.advance('30s');
    await send('Acct-Status-Type = Start\n');
    t.equal(
      (await sessions(app)).length,
      2,
      'a Start resent half a minute later (no Acct-Delay-Time) is the same session',
    );
    t.match((await sessions(app))[1], { started_at: '2026-01-15T09:30:00.000Z', stopped_at: null });
  },
);

t.test(
  'a Stop resent minutes later without a raised Acct-Delay-Time does not make a second session',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    const send = sessionSender(t, app, g.username, '80100009');
    await send('Acct-Status-Type = Start\n');
    app.clock.advance('1m');
    const stop = 'Acct-Status-Type = Stop\nAcct-Session-Time = 60\nAcct-Input-Octets = 700\n';
    await send(stop);
    app.clock.advance('2m'); // far past the 5 s duplicate window; the router did not raise the delay
    await send(stop);
    t.match(await sessions(app), [{ stopped_at: '2026-01-15T09:01:00.000Z', input_octets: 700 }]);
    t.equal((await sessions(app)).length, 1, 'one session, its octets counted once');
  },
);

t.test(
  'Accounting-On closes sessions at its event time (now − Acct-Delay-Time), not later ones',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    await radclient(app.acct, 'acct', `${common(g.username, 'before')}\nAcct-Status-Type = Start\n`);
    app.clock.advance('1m');
    // A Start that overtook the router's delayed Accounting-On: this session began after the restart.
    await radclient(app.acct, 'acct', `${common(g.username, 'after')}\nAcct-Status-Type = Start\n`);
    app.clock.advance('5s');
    const on = await radclient(
      app.acct,
      'acct',
      `NAS-Identifier = "${NAS_ID}"\nAcct-Status-Type = Accounting-On\nAcct-Delay-Time = 30\n`,
    );
    t.match(on.replies, [{ code: 'Accounting-Response' }], on.output);
    t.match(await sessions(app), [
      { acct_session_id: 'before', stopped_at: '2026-01-15T09:00:35.000Z', terminate_cause: 'Accounting-On' },
      { acct_session_id: 'after', stopped_at: null, terminate_cause: null },
    ]);
  },
);

t.test('accounting with a wrong secret, an unknown NAS or no session id is dropped unanswered', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const base = [
    ['User-Name', g.username],
    ['Acct-Status-Type', 'Start'],
  ] as const;
  const packet = (secret: string, attrs: readonly (readonly [string, string])[]) =>
    encodeRequest(CODE.accountingRequest, 1, attrs, secret);
  t.same(
    await sendExpectingDrop(
      app,
      app.acct,
      packet('wrong', [...base, ['Acct-Session-Id', 'x'], ['NAS-Identifier', NAS_ID]]),
      'dropped_bad_authenticator',
    ),
    [],
  );
  t.same(
    await sendExpectingDrop(
      app,
      app.acct,
      packet(SECRET, [...base, ['Acct-Session-Id', 'x'], ['NAS-Identifier', 'who']]),
      'dropped_unknown_nas',
    ),
    [],
  );
  t.same(
    await sendExpectingDrop(
      app,
      app.acct,
      packet(SECRET, [...base, ['NAS-Identifier', NAS_ID]]),
      'dropped_malformed',
    ),
    [],
  );
  const onAuthPort = packet(SECRET, [...base, ['Acct-Session-Id', 'x'], ['NAS-Identifier', NAS_ID]]);
  t.same(
    await sendExpectingDrop(app, app.auth, onAuthPort, 'dropped_unexpected_code'),
    [],
    'accounting on the auth port',
  );
  t.same(await sessions(app), [], 'nothing recorded');

  // RFC 2866 §5.13: User-Name is optional in accounting; the session is kept, tied to no grant.
  const anonymous = await radclient(
    app.acct,
    'acct',
    `NAS-Identifier = "${NAS_ID}"\nAcct-Session-Id = "no-user"\nAcct-Status-Type = Start\n`,
  );
  t.match(anonymous.replies, [{ code: 'Accounting-Response' }], anonymous.output);
  t.match(await sessions(app), [{ acct_session_id: 'no-user', username: '', grant_id: null }]);
  // A later packet that names the user ties the session to that user's grant.
  const named = await radclient(
    app.acct,
    'acct',
    `${common(g.username.toUpperCase(), 'no-user')}\nAcct-Status-Type = Interim-Update\nAcct-Session-Time = 60\n`,
  );
  t.match(named.replies, [{ code: 'Accounting-Response' }], named.output);
  t.match(await sessions(app), [
    { acct_session_id: 'no-user', username: g.username.toUpperCase(), grant_id: g.grantId },
  ]);
});

t.test(
  'the Accounting-Response waits for the commit: a record that cannot be written gets none',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    // Make every write fail the way a full or broken disk would (an aborting trigger).
    const undo = await failEveryInsert(app.app.deps.db, 'radius_sessions', 'disk full');
    const packet = encodeRequest(
      CODE.accountingRequest,
      9,
      [
        ['User-Name', g.username],
        ['Acct-Status-Type', 'Start'],
        ['Acct-Session-Id', 'nope'],
        ['NAS-Identifier', NAS_ID],
      ],
      SECRET,
    );
    t.same(
      await sendExpectingDrop(app, app.acct, packet, 'dropped_internal_error'),
      [],
      'no answer: the router will resend',
    );
    await undo();
    const resent = encodeRequest(
      CODE.accountingRequest,
      10,
      [
        ['User-Name', g.username],
        ['Acct-Status-Type', 'Start'],
        ['Acct-Session-Id', 'nope'],
        ['NAS-Identifier', NAS_ID],
      ],
      SECRET,
    );
    t.equal((await exchangeMany(app.acct, [resent])).length, 1, 'the retry is answered once it is stored');
    t.equal((await sessions(app)).length, 1);
  },
);

t.test(
  'internal errors are logged at most five a minute; the next line counts the ones left out',
  async (t) => {
    // The budget is per process; accounting is the daemon's whatever RADIUS_WORKERS says.
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    await failEveryInsert(app.app.deps.db, 'radius_sessions', 'disk full');
    const start = (i: number) =>
      encodeRequest(
        CODE.accountingRequest,
        i,
        [
          ['User-Name', g.username],
          ['Acct-Status-Type', 'Start'],
          ['Acct-Session-Id', `fail-${String(i)}`],
          ['NAS-Identifier', NAS_ID],
        ],
        SECRET,
      );
    for (let i = 0; i < 7; i++)
      t.same(await sendExpectingDrop(app, app.acct, start(i), 'dropped_internal_error'), []);
    const lines = () => app.logs.events('radius.internal_error');
    t.equal(lines().length, 5, 'seven failures, five lines');
    t.match(lines()[0], { level: 50, listener: 'acct', err: { message: 'disk full' } }, 'with the error');
    app.clock.advance('1m');
    await sendExpectingDrop(app, app.acct, start(7), 'dropped_internal_error');
    t.equal(lines().length, 6);
    t.match(lines()[5], { suppressed: 2 }, 'the next minute says how many were left out');
    t.equal(app.app.radius.counters.get('dropped_internal_error'), 8, 'every failure counted');
  },
);

t.test(
  'a resend while the original is being written is not processed; one after the answer gets the cached reply',
  async (t) => {
    // The daemon's duplicate cache: accounting is answered by the daemon alone, with RADIUS workers
    // too (workers.test.ts).
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    // The Start also caches the router (30 s), so below only the write waits for the database.
    await radclient(app.acct, 'acct', `${common(g.username)}\nAcct-Status-Type = Start\n`);
    app.clock.advance('10s');
    const interim = encodeRequest(
      CODE.accountingRequest,
      77,
      [
        ['User-Name', g.username],
        ['NAS-Identifier', NAS_ID],
        ['Acct-Session-Id', '5f3a1b2c00000001'],
        ['Acct-Status-Type', 'Interim-Update'],
        ['Acct-Session-Time', 10],
        ['Acct-Input-Octets', 1000],
        ['Acct-Output-Octets', 2000],
      ],
      SECRET,
    );
    // One socket (same source port, identifier and authenticator), as a router resending.
    const socket = createSocket('udp4');
    t.teardown(() => socket.close());
    const replies: Buffer[] = [];
    let arrived = (): void => undefined;
    socket.on('message', (m) => {
      replies.push(m);
      arrived();
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const send = () => socket.send(interim, app.acct, '127.0.0.1');

    // Hold the database's connection the way a long transaction would: the original's write waits.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside = (): void => undefined;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const holding = app.app.deps.db.transaction().execute(async () => {
      inside();
      await held;
    });
    await entered;
    const answered = new Promise<void>((resolve) => (arrived = resolve));
    try {
      send();
      await counterReaches(app, 'acct_requests', 2); // the original is in the writer's queue
      send();
      await counterReaches(app, 'duplicates_in_progress', 1);
      t.same(replies, [], 'nothing is answered before the record is stored');
    } finally {
      release(); // also when a wait failed: the app cannot close while the database is held
    }
    await holding;
    await answered;

    app.clock.advance('2s');
    const again = new Promise<void>((resolve) => (arrived = resolve));
    send();
    await again;
    t.equal(replies.length, 2, 'the original and the late copy are answered, the early copy is not');
    t.same(replies[1], replies[0], 'with the same bytes');
    t.match(app.app.radius.counters.snapshot(), {
      acct_requests: 2,
      acct_responses: 2,
      duplicates_in_progress: 1,
      duplicates_answered: 1,
    });
    t.match(
      await sessions(app),
      [{ input_octets: 1000, output_octets: 2000, session_time: 10, updated_at: '2026-01-15T09:00:10.000Z' }],
      'written once: a second write would have stamped 09:00:12',
    );
  },
);

t.test('many routers at once share commits and every packet is answered after its record', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const packets = Array.from({ length: 200 }, (_, i) =>
    encodeRequest(
      CODE.accountingRequest,
      i % 256,
      [
        ['User-Name', g.username],
        ['Acct-Status-Type', 'Start'],
        ['Acct-Session-Id', `burst-${String(i)}`],
        ['NAS-Identifier', NAS_ID],
      ],
      SECRET,
    ),
  );
  const replies = await exchangeMany(app.acct, packets, 10_000);
  t.equal(replies.length, 200);
  t.equal((await sessions(app)).length, 200);
});

t.test('sessions silent for 2.5 interim intervals are closed as stale, others stay open', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  await radclient(app.acct, 'acct', `${common(g.username, 'quiet')}\nAcct-Status-Type = Start\n`);
  app.clock.advance('10m');
  await radclient(app.acct, 'acct', `${common(g.username, 'chatty')}\nAcct-Status-Type = Start\n`);
  app.clock.advance(150_000); // 12.5 min after "quiet" was last heard: 2.5 × 300 s
  t.equal(await closeStaleSessions(app.app.deps), 0, 'exactly 2.5 intervals is not yet stale');
  app.clock.advance('1s');
  t.equal(await closeStaleSessions(app.app.deps), 1);
  t.match(await sessions(app), [
    { acct_session_id: 'quiet', stopped_at: '2026-01-15T09:12:31.000Z', terminate_cause: 'Stale' },
    { acct_session_id: 'chatty', stopped_at: null },
  ]);
});

t.test(
  'a session closed as stale that reports again is open again, and its Stop has the last word',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    const send = sessionSender(t, app, g.username, 'back');
    await send('Acct-Status-Type = Start\n');
    // The daemon was down for a quarter of an hour: at its first run the job closes the session.
    app.clock.advance('13m');
    t.equal(await closeStaleSessions(app.app.deps), 1);
    app.clock.advance('1m');
    await send('Acct-Status-Type = Interim-Update\nAcct-Session-Time = 840\nAcct-Input-Octets = 5000\n');
    t.match(await sessions(app), [
      { acct_session_id: 'back', stopped_at: null, terminate_cause: null, input_octets: 5000 },
    ]);

    const otherPhone = await radclient(
      app.auth,
      'auth',
      `User-Name = "${g.username}"\nUser-Password = "${g.password}"\nNAS-Identifier = "${NAS_ID}"\nCalling-Station-Id = "AA-AA-AA-AA-AA-AA"\nMessage-Authenticator = 0x00\n`,
    );
    t.match(
      otherPhone.replies,
      [{ code: 'Access-Reject' }],
      "it counts against the grant's one device again",
    );

    app.clock.advance('13m');
    t.equal(await closeStaleSessions(app.app.deps), 1, 'silent again: closed again');
    await send(
      'Acct-Status-Type = Stop\nAcct-Session-Time = 900\nAcct-Input-Octets = 6000\nAcct-Terminate-Cause = User-Request\n',
    );
    t.match(
      await sessions(app),
      [{ stopped_at: '2026-01-15T09:27:00.000Z', terminate_cause: 'User-Request', input_octets: 6000 }],
      "the late Stop replaces our guess with the router's stop time and cause",
    );
  },
);
