import t, { type Test } from 'tap';
import { disconnectSession, disconnectSessionKeepGrant, expireDue, revoke } from '../../src/wifi/index.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { CoaListener, attrText, type Answer, type ReceivedRequest } from '../helpers/coa-listener.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  acctRequest,
  papRequest,
  radclient,
  startRadiusApp,
} from '../helpers/radius.js';

/** Disconnect-Request (RFC 5176) to a test listener that checks the authenticators on its own. */

async function setup(t: Test, answer?: (req: ReceivedRequest) => Answer, plan = {}) {
  const listener = new CoaListener(SECRET, answer);
  const port = await listener.listen();
  t.teardown(() => listener.close());
  const app = await startRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: port } });
  const g = await aGuest(app, plan);
  const start = await radclient(
    app.acct,
    'acct',
    acctRequest(g.username, undefined, ['Acct-Status-Type = Start']),
  );
  t.match(start.replies, [{ code: 'Accounting-Response' }]);
  const session = await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirstOrThrow();
  return { app, g, listener, session };
}

/** One accounting record by radclient, answered; then the disconnects it started have run. */
async function account(
  t: Test,
  app: Awaited<ReturnType<typeof startRadiusApp>>,
  username: string,
  session: string | undefined,
  lines: string[],
): Promise<void> {
  const r = await radclient(app.acct, 'acct', acctRequest(username, session, lines));
  t.match(r.replies, [{ code: 'Accounting-Response' }], r.output);
  await app.app.deps.background.drain(); // a disconnect runs after the answer
}

t.test('disconnect: signed Disconnect-Request with the session identifiers; ACK closes it', async (t) => {
  const { app, g, listener, session } = await setup(t);
  const result = await disconnectSession(app.app.deps, session.id);
  t.match(result, {
    grantRevoked: true,
    disconnect: {
      status: 'disconnected',
      sessions: [{ sessionId: session.id, nasId: NAS_ID, acctSessionId: '5f3a1b2c00000001', answer: 'ack' }],
    },
  });
  const [req] = listener.received;
  t.match(req, {
    code: 40,
    authenticatorOk: true,
    messageAuthenticatorOk: true,
    messageAuthenticatorIndex: 0,
  });
  t.equal(attrText(req!, 1), g.username, 'User-Name');
  t.equal(attrText(req!, 44), '5f3a1b2c00000001', 'Acct-Session-Id');
  t.same(req!.attributes.find((a) => a.type === 8)?.value, Buffer.from([10, 1, 0, 5]), 'Framed-IP-Address');
  t.equal(attrText(req!, 32), NAS_ID, 'NAS-Identifier');
  t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
    stopped_at: '2026-01-15T09:00:00.000Z',
    terminate_cause: 'Admin-Reset',
  });
  t.match(await app.app.deps.db.selectFrom('grants').selectAll().executeTakeFirst(), {
    revoke_reason: 'staff disconnect',
  });
  const again = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(again.replies, [
    { code: 'Access-Reject', attributes: { 'Reply-Message': '"This access has been revoked"' } },
  ]);
});

t.test('a NAK is reported with its Error-Cause; "session not found" closes the session', async (t) => {
  const gone = await setup(t, () => ({ nak: 503 }));
  t.match(await disconnectSession(gone.app.app.deps, gone.session.id), {
    disconnect: { status: 'nak', sessions: [{ answer: 'nak', errorCause: 'Session-Context-Not-Found' }] },
  });
  t.match(await gone.app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
    terminate_cause: 'Admin-Reset',
  });
  const refused = await setup(t, () => ({ nak: 404 }));
  t.match(await disconnectSession(refused.app.app.deps, refused.session.id), {
    grantRevoked: true,
    disconnect: { status: 'nak', sessions: [{ answer: 'nak', errorCause: 'Invalid-Request' }] },
  });
  t.match(await refused.app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
    stopped_at: null,
  });
});

t.test(
  'no answer: three sends with the same id, authenticator and port, then the grant is revoked anyway',
  async (t) => {
    const { app, listener, session } = await setup(t, () => 'silent');
    const pending = disconnectSession(app.app.deps, session.id);
    await listener.receivedCount(1);
    app.clock.advance('2s');
    await listener.receivedCount(2);
    app.clock.advance('2s');
    await listener.receivedCount(3);
    app.clock.advance('2s');
    t.match(await pending, {
      grantRevoked: true,
      disconnect: { status: 'no_answer', sessions: [{ answer: 'no_answer' }] },
    });
    const [a, b, c] = listener.received;
    t.equal(listener.received.length, 3);
    t.same([b?.identifier, b?.authenticator, b?.from], [a?.identifier, a?.authenticator, a?.from]);
    t.same([c?.identifier, c?.authenticator, c?.from], [a?.identifier, a?.authenticator, a?.from]);
    t.ok((await app.app.deps.db.selectFrom('grants').selectAll().executeTakeFirst())?.revoked_at);
  },
);

t.test(
  'a forged ACK is ignored: wrong Response Authenticator or identifier, the genuine NAK behind it counts',
  async (t) => {
    // Sent in this order on one socket: a client that took a forged ACK would report "ack".
    const { app, listener, session } = await setup(t, () => [
      { ack: true, forged: 'authenticator' },
      { ack: true, forged: 'identifier' },
      { nak: 404 },
    ]);
    t.match(await disconnectSession(app.app.deps, session.id), {
      grantRevoked: true,
      disconnect: { status: 'nak', sessions: [{ answer: 'nak', errorCause: 'Invalid-Request' }] },
    });
    t.equal(listener.received.length, 1, 'the genuine answer came to the first send');
    t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
      stopped_at: null,
    });
  },
);

t.test(
  'forged ACKs only: the client keeps resending and reports no_answer; the grant is revoked anyway',
  async (t) => {
    const { app, listener, session } = await setup(t, () => [
      { ack: true, forged: 'authenticator' },
      { ack: true, forged: 'identifier' },
    ]);
    const pending = disconnectSession(app.app.deps, session.id);
    // The forged ACKs to each send reach the client before the clock moves on; a client that took
    // one has ended by then and sends no more, so stop waiting for the router.
    for (let send = 1; send <= 3; send++) {
      await Promise.race([listener.answeredCount(send), pending]);
      app.clock.advance('2s');
    }
    t.match(await pending, {
      grantRevoked: true,
      disconnect: { status: 'no_answer', sessions: [{ answer: 'no_answer' }] },
    });
    t.equal(listener.received.length, 3, 'every send was made');
    t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
      stopped_at: null,
    });
    t.ok((await app.app.deps.db.selectFrom('grants').selectAll().executeTakeFirst())?.revoked_at);
  },
);

t.test('expiry: the scheduled job disconnects the live sessions of grants whose time is up', async (t) => {
  const { app, listener } = await setup(t, undefined, { duration_seconds: 600 });
  t.same(await expireDue(app.app.deps), []);
  app.clock.advance('10m');
  const [expired] = await expireDue(app.app.deps);
  t.match(expired, { disconnect: { status: 'disconnected', sessions: [{ answer: 'ack' }] } });
  t.equal(listener.received.length, 1);
  t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
    terminate_cause: 'Admin-Reset',
  });
});

t.test(
  'a Start that arrives after its grant was revoked or expired is disconnected on its own',
  async (t) => {
    const listener = new CoaListener(SECRET);
    const port = await listener.listen();
    t.teardown(() => listener.close());
    const app = await startRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: port } });
    const start = (username: string, session: string) =>
      account(t, app, username, session, ['Acct-Status-Type = Start']);
    const sessionOf = (id: string) =>
      app.app.deps.db
        .selectFrom('radius_sessions')
        .selectAll()
        .where('acct_session_id', '=', id)
        .executeTakeFirstOrThrow();

    // The router accepted the login; the grant was revoked (nothing online yet); then the Start came.
    const revoked = await aGuest(app);
    t.match(await revoke(app.app.deps, revoked.grantId, 'refund'), { disconnect: { status: 'no_sessions' } });
    await start(revoked.username, 'late-revoked');
    t.equal(listener.received.length, 1, 'one Disconnect-Request');
    t.equal(attrText(listener.received[0]!, 44), 'late-revoked');
    t.match(await sessionOf('late-revoked'), { terminate_cause: 'Admin-Reset' });

    const expiring = await aGuest(app, { duration_seconds: 600 });
    app.clock.advance('11m');
    await start(expiring.username, 'late-expired');
    t.equal(listener.received.length, 2);
    t.equal(attrText(listener.received[1]!, 44), 'late-expired');

    // A live grant's Start sends nothing.
    const live = await aGuest(app);
    await start(live.username, 'on-time');
    t.equal(listener.received.length, 2, 'no Disconnect-Request for a live grant');
    t.match(await sessionOf('on-time'), { stopped_at: null });
  },
);

t.test('a session still reporting a minute after its grant ended is disconnected again', async (t) => {
  let answer: Answer = 'silent';
  const { app, g, listener, session } = await setup(t, () => answer);
  const interim = (seconds: number) =>
    account(t, app, g.username, undefined, [
      'Acct-Status-Type = Interim-Update',
      `Acct-Session-Time = ${String(seconds)}`,
    ]);
  await interim(30);
  t.equal(listener.received.length, 0, "a live grant's Interim-Update sends nothing");

  // Revoked while the router does not answer: three sends, then no_answer.
  const pending = revoke(app.app.deps, g.grantId, 'abuse');
  for (let sent = 1; sent <= 3; sent++) {
    await listener.receivedCount(sent);
    app.clock.advance('2s');
  }
  t.match(await pending, { disconnect: { status: 'no_answer' } });

  await interim(40);
  t.equal(listener.received.length, 3, 'within a minute of the revocation: nothing more');

  answer = { ack: true };
  app.clock.advance('2m');
  await interim(160);
  t.equal(listener.received.length, 4, 'the next Interim-Update brings a new Disconnect-Request');
  t.equal(attrText(listener.received[3]!, 44), session.acct_session_id);
  t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirst(), {
    terminate_cause: 'Admin-Reset',
  });
});

/** The one session of `setup` as it stands. */
const theSession = (app: Awaited<ReturnType<typeof startRadiusApp>>) =>
  app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirstOrThrow();

t.test(
  'a session whose router ACKed the Disconnect-Request but keeps reporting opens again and is disconnected again',
  async (t) => {
    let answer: Answer = { ack: true };
    const { app, g, listener, session } = await setup(t, () => answer);
    const interim = (seconds: number, octets = 0) =>
      account(t, app, g.username, undefined, [
        'Acct-Status-Type = Interim-Update',
        `Acct-Session-Time = ${String(seconds)}`,
        `Acct-Input-Octets = ${String(octets)}`,
      ]);
    t.match(await revoke(app.app.deps, g.grantId, 'abuse'), { disconnect: { status: 'disconnected' } });
    t.equal(listener.received.length, 1);
    t.match(await theSession(app), {
      stopped_at: '2026-01-15T09:00:00.000Z',
      terminate_cause: 'Admin-Reset',
    });

    // The router said ACK but the guest is still online. Within a minute of the close a report
    // may have left the router before it acted on the request: it only updates the counters.
    app.clock.advance('50s');
    await interim(50, 1000);
    t.equal(listener.received.length, 1, 'within a minute of the close: nothing more');
    t.match(await theSession(app), { terminate_cause: 'Admin-Reset', input_octets: 1000 });

    app.clock.advance('250'); // 09:05:00, the router's interim interval
    await interim(300, 5000);
    t.equal(listener.received.length, 2, 'the next Interim-Update brings a new Disconnect-Request');
    t.equal(attrText(listener.received[1]!, 44), session.acct_session_id);
    t.equal(attrText(listener.received[1]!, 1), g.username);
    t.match(
      await theSession(app),
      {
        stopped_at: '2026-01-15T09:05:00.000Z',
        terminate_cause: 'Admin-Reset',
        input_octets: 5000,
        final_input_octets: 5000,
      },
      'opened by the report, closed again by the new ACK',
    );

    // Acknowledged and ignored once more; this time the router refuses: the session stays open,
    // as what the router reports says, and each report brings a new round, as with no answer.
    answer = { nak: 404 };
    app.clock.advance('5m');
    await interim(600, 9000);
    t.equal(listener.received.length, 3);
    t.match(
      await theSession(app),
      { stopped_at: null, terminate_cause: null, input_octets: 9000, final_input_octets: null },
      'still reporting, so open again',
    );
    const list = await runCli(['sessions', 'list', '--json', '--status', 'active'], cliEnv(app.dataDir));
    t.equal(list.code, 0, list.stderr);
    t.match(JSON.parse(list.stdout), [{ id: session.id, active: true }], 'sessions list shows it live');
    app.clock.advance('5m');
    await interim(900, 12_000);
    t.equal(listener.received.length, 4, 'an open session of a revoked grant: a round per report');

    // The router finally carries it out; its Stop (RFC 5176 §3: Admin-Reset) gives the final counters.
    answer = { ack: true };
    app.clock.advance('5m');
    await interim(1200, 15_000);
    t.equal(listener.received.length, 5);
    await account(t, app, g.username, undefined, [
      'Acct-Status-Type = Stop',
      'Acct-Session-Time = 1201',
      'Acct-Input-Octets = 15100',
      'Acct-Terminate-Cause = Admin-Reset',
    ]);
    t.equal(listener.received.length, 5, 'a Stop sends nothing');
    t.match(await theSession(app), {
      stopped_at: '2026-01-15T09:20:00.000Z',
      terminate_cause: 'Admin-Reset',
      final_input_octets: 15_100,
    });
  },
);

t.test(
  'after an acknowledged Disconnect, an expired or used-up grant whose session keeps reporting is disconnected again',
  async (t) => {
    // The router ignored Session-Timeout, and the expiry job's request it acknowledged.
    const ex = await setup(t, () => ({ ack: true }), { duration_seconds: 600 });
    ex.app.clock.advance('10m');
    t.match(await expireDue(ex.app.app.deps), [{ disconnect: { status: 'disconnected' } }]);
    t.equal(ex.listener.received.length, 1);
    ex.app.clock.advance('5m');
    await account(t, ex.app, ex.g.username, undefined, [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 900',
    ]);
    t.equal(ex.listener.received.length, 2, 'expired: a new Disconnect-Request');
    t.match(await theSession(ex.app), {
      terminate_cause: 'Admin-Reset',
      stopped_at: '2026-01-15T09:15:00.000Z',
    });

    const { app, g, listener } = await setup(t, () => ({ ack: true }), { data_limit_bytes: 10_000 });
    const interim = (seconds: number, octets: number) =>
      account(t, app, g.username, undefined, [
        'Acct-Status-Type = Interim-Update',
        `Acct-Session-Time = ${String(seconds)}`,
        `Acct-Input-Octets = ${String(octets)}`,
      ]);
    app.clock.advance('5m');
    await interim(300, 11_000);
    t.equal(listener.received.length, 1, 'the allowance is used up: disconnected, ACK');
    t.match(await theSession(app), { terminate_cause: 'Admin-Reset' });
    app.clock.advance('30s');
    await interim(330, 11_500);
    t.equal(listener.received.length, 1, 'within a minute of the close: nothing more');
    app.clock.advance('270');
    await interim(600, 14_000);
    t.equal(listener.received.length, 2, 'still reporting: a new Disconnect-Request');
    t.match(await theSession(app), { terminate_cause: 'Admin-Reset', input_octets: 14_000 });
  },
);

t.test(
  'after an acknowledged Disconnect: a new session reusing the id is not the old one; a repeated Start is disconnected',
  async (t) => {
    const { app, g, listener } = await setup(t, () => ({ ack: true }));
    await revoke(app.app.deps, g.grantId, 'abuse');
    t.equal(listener.received.length, 1);
    // The router rebooted and numbers sessions from the start again; the new session's Start was
    // lost and its first report, three minutes on, says it began after the close.
    app.clock.advance('3m');
    await account(t, app, g.username, undefined, [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 30',
    ]);
    t.equal(listener.received.length, 1, 'not taken for the disconnected session');
    t.match(await theSession(app), {
      terminate_cause: 'Admin-Reset',
      stopped_at: '2026-01-15T09:00:00.000Z',
    });
    // A Start for the id (the router began accounting again for the same guest): a late Start.
    await account(t, app, g.username, undefined, ['Acct-Status-Type = Start']);
    t.equal(listener.received.length, 2, 'a Start of a revoked grant brings a Disconnect-Request');
  },
);

t.test(
  '--keep-grant: a session that outlives its acknowledged Disconnect opens again, the grant stays live',
  async (t) => {
    const { app, g, listener, session } = await setup(t, () => ({ ack: true }));
    t.match(await disconnectSessionKeepGrant(app.app.deps, session.id), {
      grantRevoked: false,
      disconnect: { status: 'disconnected' },
    });
    t.match(await theSession(app), { terminate_cause: 'Admin-Reset' });
    app.clock.advance('5m');
    await account(t, app, g.username, undefined, [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 300',
      'Acct-Input-Octets = 7000',
    ]);
    t.match(await theSession(app), { stopped_at: null, input_octets: 7000 }, 'still online: open again');
    t.equal(listener.received.length, 1, 'a live grant: nothing is sent on its own');
  },
);

/**
 * A grant of two devices sharing 10 kB, online on a 'phone' and a 'laptop' session of a router
 * that ACKs every Disconnect-Request: each router was told 10 kB were left when its session began.
 */
async function sharedAllowance(t: Test) {
  const listener = new CoaListener(SECRET, () => ({ ack: true }));
  const port = await listener.listen();
  t.teardown(() => listener.close());
  const app = await startRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: port } });
  const g = await aGuest(app, { data_limit_bytes: 10_000, max_devices: 2 });
  const send = (session: string, lines: string[]) => account(t, app, g.username, session, lines);
  await send('phone', ['Acct-Status-Type = Start']);
  await send('laptop', ['Acct-Status-Type = Start']);
  return { app, g, listener, send };
}

t.test("sessions that together use up the grant's data allowance are disconnected", async (t) => {
  const { app, g, listener, send } = await sharedAllowance(t);
  app.clock.advance('5m');
  await send('phone', [
    'Acct-Status-Type = Interim-Update',
    'Acct-Session-Time = 300',
    'Acct-Input-Octets = 6000',
  ]);
  t.equal(listener.received.length, 0, '6 kB of 10: nothing');
  await send('laptop', [
    'Acct-Status-Type = Interim-Update',
    'Acct-Session-Time = 300',
    'Acct-Output-Octets = 5000',
  ]);
  t.same(
    listener.received.map((r) => attrText(r, 44)).sort(),
    ['laptop', 'phone'],
    '11 kB of 10: every session of the grant is disconnected',
  );
  const login = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(login.replies, [
    {
      code: 'Access-Reject',
      attributes: { 'Reply-Message': '"The data allowance of this access is used up"' },
    },
  ]);
});

t.test("a Stop that uses up the data allowance ends the grant's other sessions", async (t) => {
  const { app, listener, send } = await sharedAllowance(t);
  app.clock.advance('1m');
  await send('laptop', [
    'Acct-Status-Type = Interim-Update',
    'Acct-Session-Time = 60',
    'Acct-Input-Octets = 4000',
  ]);
  t.equal(listener.received.length, 0);
  // The phone's router cut its session at the 10 kB it was told: its Stop is the report.
  await send('phone', ['Acct-Status-Type = Stop', 'Acct-Session-Time = 60', 'Acct-Input-Octets = 10000']);
  t.same(
    listener.received.map((r) => attrText(r, 44)),
    ['laptop'],
    'the laptop is disconnected; the stopped phone is not asked',
  );
});

t.test(
  'a session first reported mid-way (its Start lost) that uses up the allowance ends the others',
  async (t) => {
    const { app, listener, send } = await sharedAllowance(t);
    app.clock.advance('5m');
    await send('laptop', [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 300',
      'Acct-Input-Octets = 4000',
    ]);
    t.equal(listener.received.length, 0);
    // A tablet's Start never arrived; its first report already brings the total to 10 kB.
    await send('tablet', [
      'Acct-Status-Type = Interim-Update',
      'Acct-Session-Time = 300',
      'Acct-Input-Octets = 6000',
    ]);
    t.same(
      listener.received.map((r) => attrText(r, 44)).sort(),
      ['laptop', 'phone', 'tablet'],
      'every live session of the grant is disconnected, the new one too',
    );
  },
);

t.test('hotspot-ctl sessions list and disconnect report what the router said', async (t) => {
  const { app, session } = await setup(t, () => ({ ack: true }));
  const env = cliEnv(app.dataDir);
  const list = await runCli(['sessions', 'list', '--json'], env);
  t.equal(list.code, 0, list.stderr);
  t.match(JSON.parse(list.stdout), [
    {
      id: session.id,
      nas_id: NAS_ID,
      acct_session_id: '5f3a1b2c00000001',
      active: true,
      mac: '11:22:33:44:55:66',
    },
  ]);
  const human = await runCli(['sessions', 'list'], env);
  t.match(human.stdout, /^ID\s+NAS_ID\s+USERNAME/);
  // The admin lists' filters (wifi/list-query.ts), as options.
  const ids = async (...args: string[]) => {
    const res = await runCli(['sessions', 'list', '--json', ...args], env);
    t.equal(res.code, 0, res.stderr);
    return (JSON.parse(res.stdout) as { id: string }[]).map((s) => s.id);
  };
  t.same(
    await ids('--status', 'active', '--search', '11:22:33:44'),
    [session.id],
    'open, and its MAC matches',
  );
  t.same(await ids('--status', 'ended'), [], 'none has ended');
  t.same(await ids('--search', 'no-such-guest'), []);
  t.same(await ids('--router', session.device_id, '--page', '1', '--per-page', '1'), [session.id]);
  t.same(await ids('--to', '2000-01-01'), [], 'a window before it');
  const none = await runCli(['sessions', 'list', '--status', 'ended'], env);
  t.equal(none.stdout, 'no sessions\n');
  const bad = await runCli(['sessions', 'list', '--status', 'sleeping'], env);
  // A value outside the option's choices is a usage error (README: exit 2), named by commander.
  t.equal(bad.code, 2);
  t.match(
    bad.stderr,
    /^error: option '--status <state>' argument 'sleeping' is invalid\. Allowed choices are active, ended\.\n/,
  );
  const out = await runCli(['sessions', 'disconnect', session.id, '--json'], env);
  t.equal(out.code, 0, out.stderr);
  t.match(JSON.parse(out.stdout), {
    session_id: session.id,
    grant_revoked: true,
    disconnect: { status: 'disconnected', sessions: [{ nas_id: NAS_ID, answer: 'ack' }] },
  });
  const missing = await runCli(['sessions', 'disconnect', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(missing.code, 1);
  t.equal(missing.stderr, 'error: session not found\n');
});

t.test('hotspot-ctl sessions disconnect --keep-grant asks the router and keeps the paid time', async (t) => {
  const { app, g, listener, session } = await setup(t, () => ({ ack: true }));
  const env = cliEnv(app.dataDir);
  const out = await runCli(['sessions', 'disconnect', session.id, '--keep-grant', '--json'], env);
  t.equal(out.code, 0, out.stderr);
  t.match(JSON.parse(out.stdout), {
    session_id: session.id,
    grant_revoked: false,
    disconnect: { status: 'disconnected', sessions: [{ nas_id: NAS_ID, answer: 'ack' }] },
  });
  t.equal(listener.received[0]?.code, 40, 'a Disconnect-Request');
  const again = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(again.replies, [{ code: 'Access-Accept' }], 'the guest signs in again');
  t.match(await app.app.deps.db.selectFrom('wifi_audit').select(['action', 'actor']).execute(), [
    { action: 'session.disconnect_keep_grant', actor: /^cli:/ },
  ]);
  const human = await runCli(['sessions', 'disconnect', session.id, '--keep-grant'], env);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /grant revoked\s+no \(kept\)/);
});
