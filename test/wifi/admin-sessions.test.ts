import t, { type Test } from 'tap';
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
import { staffClient } from '../helpers/staff.js';
import { recordAccounting, type AccountingRecord } from '../../src/wifi/index.js';
import { aLiveSession, wifiRows } from '../helpers/wifi.js';

/** A Stop for a session this box never saw start: it is recorded closed. */
const closedLater: Omit<AccountingRecord, 'deviceId' | 'acctSessionId'> = {
  statusType: 'Stop',
  username: 'someone-else',
  framedIp: '10.1.0.9',
  mac: 'AA:BB:CC:00:00:09',
  inputOctets: 1000,
  outputOctets: 2000,
  sessionTime: 60,
  terminateCause: 'User-Request',
  delaySeconds: 0,
};

/** GET /api/v1/admin/sessions and POST /api/v1/admin/sessions/{id}/disconnect (wifi-access-api.md §3, §4.3). */

async function setup(t: Test, answer?: (req: ReceivedRequest) => Answer) {
  const listener = new CoaListener(SECRET, answer);
  const port = await listener.listen();
  t.teardown(() => listener.close());
  const app = await startRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: port } });
  const guest = await aGuest(app);
  const start = await radclient(
    app.acct,
    'acct',
    acctRequest(guest.username, undefined, ['Acct-Status-Type = Start']),
  );
  t.match(start.replies, [{ code: 'Accounting-Response' }]);
  const session = await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirstOrThrow();
  return { app, guest, listener, session };
}

t.test(
  'sessions: what the routers reported, newest first, at most 200, counted in the overview',
  async (t) => {
    const { app, guest, session } = await setup(t);
    const viewer = await staffClient(app, 'viewer');
    const res = await viewer.get('/api/v1/admin/sessions');
    t.equal(res.status, 200);
    t.same(res.body.data, [
      {
        id: session.id,
        device_id: app.deviceId,
        device_name: 'Lobby AP',
        nas_id: NAS_ID,
        acct_session_id: '5f3a1b2c00000001',
        username: guest.username,
        grant_id: guest.grantId,
        framed_ip: '10.1.0.5',
        mac: '11:22:33:44:55:66',
        input_octets: 0,
        output_octets: 0,
        session_time: 0,
        started_at: '2026-01-15T09:00:00.000Z',
        updated_at: '2026-01-15T09:00:00.000Z',
        stopped_at: null,
        terminate_cause: null,
        active: true,
        site_id: 'default',
      },
    ]);
    t.equal((await viewer.get('/api/v1/admin/overview')).body.data.active_sessions, 1);

    for (let i = 1; i <= 200; i++) {
      app.clock.advance('1s');
      await aLiveSession(app.app, {
        deviceId: app.deviceId,
        username: 'someone',
        acctSessionId: `later-${String(i)}`,
      });
    }
    const capped = (await viewer.get('/api/v1/admin/sessions')).body.data as { acct_session_id: string }[];
    t.equal(capped.length, 200);
    t.equal(capped[0]?.acct_session_id, 'later-200', 'newest first');
    t.notOk(
      capped.some((s) => s.acct_session_id === '5f3a1b2c00000001'),
      'the oldest open one is left out when 200 newer are open',
    );
    t.equal((await viewer.get('/api/v1/admin/overview')).body.data.active_sessions, 201);
  },
);

t.test('a session open since long ago stays listed however many newer ones have ended', async (t) => {
  const { app, session } = await setup(t);
  const viewer = await staffClient(app, 'viewer');
  for (let i = 1; i <= 200; i++) {
    app.clock.advance('1s');
    await recordAccounting(app.app.deps, [
      { ...closedLater, deviceId: app.deviceId, acctSessionId: `done-${String(i)}` },
    ]);
  }
  const listed = (await viewer.get('/api/v1/admin/sessions')).body.data as {
    id: string;
    acct_session_id: string;
    started_at: string;
  }[];
  t.equal(listed.length, 200);
  t.equal(listed[0]?.acct_session_id, 'done-200', 'newest first');
  t.ok(
    listed.some((s) => s.id === session.id),
    'the open session is kept among them',
  );
  const starts = listed.map((s) => s.started_at);
  t.same(starts, [...starts].sort().reverse(), 'started_at descending throughout');
  t.notOk(
    listed.some((s) => s.acct_session_id === 'done-1'),
    'the oldest closed one is left out',
  );
});

t.test('disconnect: the grant is revoked, the router ACKs and the answer is in the body', async (t) => {
  const { app, guest, listener, session } = await setup(t);
  const operator = await staffClient(app, 'operator');
  const res = await operator.post(`/api/v1/admin/sessions/${session.id}/disconnect`);
  t.equal(res.status, 200);
  t.same(res.body, {
    data: {
      session_id: session.id,
      grant_id: guest.grantId,
      grant_revoked: true,
      disconnect: {
        status: 'disconnected',
        sessions: [
          { session_id: session.id, nas_id: NAS_ID, acct_session_id: '5f3a1b2c00000001', answer: 'ack' },
        ],
      },
    },
  });
  const [req] = listener.received;
  t.match(req, { code: 40, authenticatorOk: true, messageAuthenticatorOk: true });
  t.equal(attrText(req!, 1), guest.username, 'User-Name');
  const sessions = (await operator.get('/api/v1/admin/sessions')).body.data as { active: boolean }[];
  t.match(sessions, [{ active: false, terminate_cause: 'Admin-Reset' }]);
  const again = await radclient(app.auth, 'auth', papRequest(guest.username, guest.password));
  t.match(again.replies, [
    { code: 'Access-Reject', attributes: { 'Reply-Message': '"This access has been revoked"' } },
  ]);
});

t.test(
  'disconnect: a NAK is reported with its Error-Cause; a silent router too, and the grant stays revoked',
  async (t) => {
    const refused = await setup(t, () => ({ nak: 404 }));
    const operator = await staffClient(refused.app, 'operator');
    const nak = await operator.post(`/api/v1/admin/sessions/${refused.session.id}/disconnect`);
    t.match(nak.body.data, {
      grant_revoked: true,
      disconnect: { status: 'nak', sessions: [{ answer: 'nak', error_cause: 'Invalid-Request' }] },
    });

    const silent = await setup(t, () => 'silent');
    const staff = await staffClient(silent.app, 'operator');
    const pending = staff.post(`/api/v1/admin/sessions/${silent.session.id}/disconnect`);
    for (const n of [1, 2, 3]) {
      await silent.listener.receivedCount(n);
      silent.app.clock.advance('2s');
    }
    const res = await pending;
    t.equal(res.status, 200);
    t.match(res.body.data, {
      grant_revoked: true,
      disconnect: { status: 'no_answer', sessions: [{ answer: 'no_answer' }] },
    });
    t.notOk('error_cause' in (res.body.data.disconnect.sessions[0] as object));
    t.ok((await silent.app.app.deps.db.selectFrom('grants').selectAll().executeTakeFirst())?.revoked_at);
  },
);

t.test('disconnect: viewers may not; an unknown session is 404 and changes nothing', async (t) => {
  const { app, listener, session } = await setup(t);
  const viewer = await staffClient(app, 'viewer');
  const operator = await staffClient(app, 'operator');
  const before = await wifiRows(app.app.deps.db);
  const forbidden = await viewer.post(`/api/v1/admin/sessions/${session.id}/disconnect`);
  t.same([forbidden.status, forbidden.body], [403, { message: 'your staff role does not allow this' }]);
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    const missing = await operator.post(`/api/v1/admin/sessions/${id}/disconnect`);
    t.same([missing.status, missing.body], [404, { message: 'session not found' }], id);
  }
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
  t.equal(listener.received.length, 0, 'no Disconnect-Request went out');
});

t.test(
  'disconnect-keep-grant: the router gets a Disconnect-Request, the grant stays live and the guest signs in again',
  async (t) => {
    const { app, guest, listener, session } = await setup(t);
    const operator = await staffClient(app, 'operator');
    const res = await operator.post(`/api/v1/admin/sessions/${session.id}/disconnect-keep-grant`);
    t.equal(res.status, 200);
    t.same(res.body, {
      data: {
        session_id: session.id,
        grant_id: guest.grantId,
        grant_revoked: false,
        disconnect: {
          status: 'disconnected',
          sessions: [
            { session_id: session.id, nas_id: NAS_ID, acct_session_id: '5f3a1b2c00000001', answer: 'ack' },
          ],
        },
      },
    });
    const [req] = listener.received;
    t.match(req, { code: 40, authenticatorOk: true, messageAuthenticatorOk: true }, 'a Disconnect-Request');
    t.equal(attrText(req!, 1), guest.username, 'User-Name');
    const sessions = (await operator.get('/api/v1/admin/sessions')).body.data as { active: boolean }[];
    t.match(sessions, [{ active: false, terminate_cause: 'Admin-Reset' }]);
    const grant = await app.app.deps.db.selectFrom('grants').selectAll().executeTakeFirstOrThrow();
    t.equal(grant.revoked_at, null, 'the grant is not revoked');
    const again = await radclient(app.auth, 'auth', papRequest(guest.username, guest.password));
    t.match(again.replies, [{ code: 'Access-Accept' }], 'the guest can sign in again');
    const audit = await app.app.deps.db.selectFrom('wifi_audit').selectAll().execute();
    t.match(audit, [
      {
        action: 'session.disconnect_keep_grant',
        target_type: 'session',
        target_id: session.id,
        reason: 'staff disconnect (paid time kept)',
      },
    ]);
  },
);

t.test('disconnect-keep-grant: viewers may not; an unknown session is 404 and changes nothing', async (t) => {
  const { app, listener, session } = await setup(t);
  const viewer = await staffClient(app, 'viewer');
  const operator = await staffClient(app, 'operator');
  const before = await wifiRows(app.app.deps.db);
  const forbidden = await viewer.post(`/api/v1/admin/sessions/${session.id}/disconnect-keep-grant`);
  t.same([forbidden.status, forbidden.body], [403, { message: 'your staff role does not allow this' }]);
  const missing = await operator.post(
    '/api/v1/admin/sessions/00000000-0000-4000-8000-000000000000/disconnect-keep-grant',
  );
  t.same([missing.status, missing.body], [404, { message: 'session not found' }]);
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
  t.equal(listener.received.length, 0, 'no Disconnect-Request went out');
});
