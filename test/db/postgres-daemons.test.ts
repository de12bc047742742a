import { once } from 'node:events';
import t from 'tap';
import { addStaff } from '../../src/identity/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { ScheduledJob } from '../../src/scheduler.js';
import { expireDue, revoke } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { CoaListener, attrText } from '../helpers/coa-listener.js';
import { SECRET, aGuest, acctRequest, papRequest, radclient, startRadiusApp } from '../helpers/radius.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { onPostgres } from '../helpers/store.js';

/**
 * Two daemons on one PostgreSQL database (DESIGN.md §4.9): what one sells the other lets in at
 * once, what one revokes the other's sessions lose, a scheduled expiry sends one Disconnect
 * whichever daemons run it, and the limiters count both daemons' requests.
 */
if (!onPostgres) {
  t.pass('PostgreSQL only: runs in the PostgreSQL pass of npm test');
} else {
  t.test('purchase on one daemon, login and accounting on the other, one Disconnect at expiry', async (t) => {
    const clock = new ManualClock();
    const router = new CoaListener(SECRET);
    const coaPort = await router.listen();
    t.teardown(() => router.close());
    const a = await startRadiusApp(t, {
      clock,
      device: { radius_client_ip: '127.0.0.1', coa_port: coaPort },
    });
    const b = await startTestApp(t, { clock, dataDir: a.dataDir, radius: true });
    // The jobs run by hand below, each for one schedule tick, as node-schedule would run them.
    await a.app.scheduler.stop();
    await b.app.scheduler.stop();
    const bAuth = b.config.radiusAuthPort;
    const bAcct = b.config.radiusAcctPort;

    // Bought through a, let in by b at once.
    const guest = await aGuest(a, { duration_seconds: 600 });
    const login = await radclient(bAuth, 'auth', papRequest(guest.username, guest.password));
    t.match(login.replies, [{ code: 'Access-Accept' }], login.output);
    const start = await radclient(
      bAcct,
      'acct',
      acctRequest(guest.username, 'B0000001', ['Acct-Status-Type = Start']),
    );
    t.match(start.replies, [{ code: 'Accounting-Response' }], start.output);

    // A second guest, let in and accounted by a; b revokes: b disconnects the session a recorded,
    // and a refuses the next login as soon as it hears of the revocation.
    const other = await aGuest(a, { duration_seconds: 3600 });
    t.match((await radclient(a.auth, 'auth', papRequest(other.username, other.password))).replies, [
      { code: 'Access-Accept' },
    ]);
    t.match(
      (await radclient(a.acct, 'acct', acctRequest(other.username, 'A0000001', ['Acct-Status-Type = Start'])))
        .replies,
      [{ code: 'Accounting-Response' }],
    );
    const feed = a.app.store.feed;
    if (!feed) throw new Error('a PostgreSQL store has a change feed');
    const seen = feed.version(['grants']);
    const revoked = await revoke(b.app.deps, other.grantId, 'staff revoke');
    t.match(revoked.disconnect, {
      status: 'disconnected',
      sessions: [{ acctSessionId: 'A0000001', answer: 'ack' }],
    });
    while (feed.version(['grants']) === seen) await once(feed, 'change');
    t.match((await radclient(a.auth, 'auth', papRequest(other.username, other.password))).replies, [
      { code: 'Access-Reject', attributes: { 'Reply-Message': '"This access has been revoked"' } },
    ]);
    t.equal(router.received.length, 1, 'one Disconnect for the revocation');

    // Time is up for the first guest: both daemons run the expiry job for the same tick.
    clock.advance('10m');
    const tick = new Date('2026-11-25T10:00:00.000Z');
    const job = (app: TestApp): ScheduledJob => ({
      name: 'grants.expire',
      cron: '* * * * *',
      run: () => expireDue(app.app.deps),
    });
    await Promise.all([a.app.scheduler.runNow(job(a), tick), b.app.scheduler.runNow(job(b), tick)]);
    t.equal(router.received.length, 2, 'one Disconnect for the expiry, not two');
    t.equal(attrText(router.received[1]!, 44), 'B0000001', 'for the session b recorded');
    const runs = await a.app.deps.db.selectFrom('job_runs').selectAll().execute();
    t.match(runs, [{ name: 'grants.expire', tick: tick.toISOString() }]);

    // The next tick runs again somewhere, and finds nothing left to do.
    const next = new Date(tick.getTime() + 60_000);
    await Promise.all([a.app.scheduler.runNow(job(a), next), b.app.scheduler.runNow(job(b), next)]);
    t.equal(router.received.length, 2);
    t.match(await a.app.deps.db.selectFrom('job_runs').selectAll().execute(), [{ tick: next.toISOString() }]);
    const refused = await radclient(bAuth, 'auth', papRequest(guest.username, guest.password));
    t.match(refused.replies, [{ code: 'Access-Reject' }], 'expired on both');
  });

  t.test('the admin-login limiter counts the requests both daemons answer', async (t) => {
    const clock = new ManualClock();
    const a = await startTestApp(t, { clock });
    const b = await startTestApp(t, { clock, dataDir: a.dataDir });
    await addStaff(a.app.deps, { email: 'boss@venue.test', role: 'owner', password: STAFF_PASSWORD });
    const ip = '198.51.100.7';
    const wrong = { email: 'boss@venue.test', password: 'wrong password' };
    for (let i = 0; i < 10; i++) {
      const daemon = i % 2 === 0 ? a : b;
      t.equal((await new Client(daemon.base, { ip }).post('/api/v1/admin/auth/login', wrong)).status, 401);
    }
    const eleventh = await new Client(b.base, { ip }).post('/api/v1/admin/auth/login', wrong);
    t.same([eleventh.status, eleventh.body], [429, { message: 'too many requests, try again later' }]);
    t.equal(
      (await new Client(a.base, { ip }).post('/api/v1/admin/auth/login', wrong)).status,
      429,
      'and the other daemon says the same',
    );
  });
}
