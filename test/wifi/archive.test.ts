import t from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { findLiveForPurchase, findPortalRouter } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { CoaListener } from '../helpers/coa-listener.js';
import { SECRET } from '../helpers/radius.js';
import { staffClient } from '../helpers/staff.js';
import {
  aDevice,
  aLiveSession,
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  postPurchase,
  wifiRows,
} from '../helpers/wifi.js';

/**
 * Issue 21 item 4 (docs/decisions/0037-archive.md): archiving, unarchiving and deleting plans and
 * routers through the admin API.
 */

const audit = async (admin: Awaited<ReturnType<typeof staffClient>>, id: string) =>
  ((await admin.get('/api/v1/admin/audit')).body.data as { action: string; target_id: string }[])
    .filter((e) => e.target_id === id)
    .map((e) => e.action)
    .sort(); // entries of one instant tie on time

t.test(
  'an archived plan leaves the portal and the list, cannot be bought, and its sales keep working',
  async (t) => {
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const sold = await aPaidPurchase(app, await aPlan(app.app, { name: 'Day' }));
    const id = sold.plan.id;
    t.equal((await admin.get('/api/v1/admin/plans')).body.data[0].archived_at, null, 'archived_at: null');

    const archived = await admin.post(`/api/v1/admin/plans/${id}/archive`);
    t.equal(archived.status, 200);
    t.match(archived.body.data, { id, active: false, archived_at: '2026-01-15T09:00:00.000Z' });

    t.same((await admin.get('/api/v1/public/plans')).body.data, [], 'not on the portal');
    const bought = await postPurchase(app.base, { plan_id: id, phone: '0712345678' }, aPurchaseKey());
    t.match(bought, { status: 422, body: { message: 'plan not found or not on sale' } }, 'the spec’s error');
    t.same((await admin.get('/api/v1/admin/plans')).body.data, [], 'hidden from the plain list');
    t.match((await admin.get('/api/v1/admin/plans?status=archived')).body.data, [{ id }]);
    t.match((await admin.get('/api/v1/admin/plans?status=all')).body.data, [{ id }]);
    t.match(await admin.get('/api/v1/admin/plans?status=gone'), {
      status: 422,
      body: { message: 'status must be archived or all' },
    });

    const live = await findLiveForPurchase(app.app.deps, sold.invoiceId, sha256Hex(sold.key));
    t.equal(live.kind, 'live', 'the grant sold on it still works');
    t.match((await admin.get('/api/v1/admin/invoices')).body.data, [{ plan_name: 'Day' }], 'and names it');

    const before = await wifiRows(app.app.deps.db);
    t.match(await admin.patch(`/api/v1/admin/plans/${id}`, { name: 'Day pass' }), {
      status: 409,
      body: { message: 'the plan is archived: unarchive it first' },
    });
    t.match(await admin.post(`/api/v1/admin/plans/${id}/archive`), {
      status: 409,
      body: { message: 'the plan is already archived' },
    });
    t.match(await admin.delete(`/api/v1/admin/plans/${id}`), {
      status: 409,
      body: {
        message: 'the plan has been sold or has voucher batches, so it cannot be deleted: archive it instead',
      },
    });
    t.same(await wifiRows(app.app.deps.db), before, 'refusals change nothing');

    app.clock.advance('1h');
    const back = await admin.post(`/api/v1/admin/plans/${id}/unarchive`);
    t.match(
      back,
      { status: 200, body: { data: { id, active: false, archived_at: null } } },
      'back, off sale',
    );
    t.match(await admin.post(`/api/v1/admin/plans/${id}/unarchive`), {
      status: 409,
      body: { message: 'the plan is not archived' },
    });
    t.match(await admin.patch(`/api/v1/admin/plans/${id}`, { active: true }), { status: 200 });
    t.match((await admin.get('/api/v1/public/plans')).body.data, [{ id }], 'on sale again when put on sale');
    t.same(await audit(admin, id), ['plan.archive', 'plan.unarchive', 'plan.update']);
  },
);

t.test('a plan never sold is deleted; audit entries for each action', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const plan = await admin.post('/api/v1/admin/plans', {
    name: 'Trial',
    price_tzs: 500,
    duration_seconds: 600,
  });
  const id = plan.body.data.id as string;
  const gone = await admin.delete(`/api/v1/admin/plans/${id}`);
  t.match(gone, { status: 200, body: { data: { id, name: 'Trial' } } });
  t.same((await admin.get('/api/v1/admin/plans?status=all')).body.data, []);
  t.match(await admin.delete(`/api/v1/admin/plans/${id}`), {
    status: 404,
    body: { message: 'plan not found' },
  });
  t.same(await audit(admin, id), ['plan.create', 'plan.delete']);
});

t.test('only admins archive or delete; operators get 403 and nothing changes', async (t) => {
  const app = await startTestApp(t);
  const operator = await staffClient(app, 'operator');
  const plan = await aPlan(app.app);
  const { device } = await aDevice(app.app);
  const before = await wifiRows(app.app.deps.db);
  for (const [method, path] of [
    ['POST', `/api/v1/admin/plans/${plan.id}/archive`],
    ['POST', `/api/v1/admin/plans/${plan.id}/unarchive`],
    ['DELETE', `/api/v1/admin/plans/${plan.id}`],
    ['POST', `/api/v1/admin/devices/${device.id}/archive`],
    ['POST', `/api/v1/admin/devices/${device.id}/unarchive`],
    ['DELETE', `/api/v1/admin/devices/${device.id}`],
  ] as const)
    t.equal((await operator.request(method, path)).status, 403, `${method} ${path}`);
  t.same(await wifiRows(app.app.deps.db), before);
});

t.test(
  'a router with live sessions is archived only with force; its sessions end, grants stay',
  async (t) => {
    const listener = new CoaListener(SECRET);
    const port = await listener.listen();
    t.teardown(() => listener.close());
    const app = await startTestApp(t);
    const admin = await staffClient(app, 'admin');
    const { device } = await aDevice(app.app, {
      radius_secret: SECRET,
      radius_client_ip: '127.0.0.1',
      coa_port: port,
    });
    const sold = await aPaidPurchase(app);
    const live = await findLiveForPurchase(app.app.deps, sold.invoiceId, sha256Hex(sold.key));
    if (live.kind !== 'live') throw new Error('expected a live grant');
    await aLiveSession(app.app, { deviceId: device.id, username: live.grant.username, acctSessionId: 'a1' });

    const before = await wifiRows(app.app.deps.db);
    t.match(await admin.post(`/api/v1/admin/devices/${device.id}/archive`), {
      status: 409,
      body: {
        message:
          'the router has live sessions: disconnect them first, or archive with force to disconnect them (the guests keep their access)',
      },
    });
    t.match(await admin.post(`/api/v1/admin/devices/${device.id}/archive?force=maybe`), {
      status: 422,
      body: { message: 'force must be true or false' },
    });
    t.same(await wifiRows(app.app.deps.db), before, 'refusals change nothing');

    const archived = await admin.post(`/api/v1/admin/devices/${device.id}/archive?force=true`);
    t.equal(archived.status, 200);
    t.match(archived.body.data, {
      id: device.id,
      archived_at: '2026-01-15T09:00:00.000Z',
      disconnect: { status: 'disconnected', sessions: [{ acct_session_id: 'a1', answer: 'ack' }] },
    });
    t.match(listener.received, [{ code: 40, authenticatorOk: true }], 'signed, to the archived router');
    t.match(await app.app.deps.db.selectFrom('radius_sessions').selectAll().execute(), [
      { stopped_at: '2026-01-15T09:00:00.000Z', terminate_cause: 'Admin-Reset' },
    ]);
    t.match(
      await app.app.deps.db.selectFrom('grants').selectAll().execute(),
      [{ revoked_at: null }],
      'grant kept',
    );
    t.same((await admin.get('/api/v1/admin/devices')).body.data, [], 'hidden from the plain list');
    t.match((await admin.get('/api/v1/admin/devices?status=archived')).body.data, [{ id: device.id }]);
    t.match((await admin.get('/api/v1/admin/overview')).body.data, { devices: 0 }, 'not counted');
    await t.rejects(
      findPortalRouter(app.app.deps, { nasid: 'lobby-01', uamip: undefined }),
      { code: 'routerUnknown' },
      'the portal hand-off does not know it either',
    );

    t.match(await admin.delete(`/api/v1/admin/devices/${device.id}`), {
      status: 409,
      body: { message: 'the router has had sessions, so it cannot be deleted: archive it instead' },
    });
    const back = await admin.post(`/api/v1/admin/devices/${device.id}/unarchive`);
    t.match(back, { status: 200, body: { data: { id: device.id, archived_at: null } } });
    t.match(await admin.post(`/api/v1/admin/devices/${device.id}/unarchive`), {
      status: 409,
      body: { message: 'the router is not archived' },
    });
    t.same(await audit(admin, device.id), ['device.archive', 'device.unarchive']);
  },
);

t.test('a router without sessions archives without force and is deleted', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const { device } = await aDevice(app.app);
  const archived = await admin.post(`/api/v1/admin/devices/${device.id}/archive`);
  t.match(archived.body.data, {
    archived_at: '2026-01-15T09:00:00.000Z',
    disconnect: { status: 'no_sessions' },
  });
  t.match(await admin.post(`/api/v1/admin/devices/${device.id}/archive`), {
    status: 409,
    body: { message: 'the router is already archived' },
  });
  t.match(await admin.delete(`/api/v1/admin/devices/${device.id}`), {
    status: 200,
    body: { data: { id: device.id } },
  });
  t.same((await admin.get('/api/v1/admin/devices?status=all')).body.data, []);
  t.match(await admin.delete(`/api/v1/admin/devices/${device.id}`), { status: 404 });
  t.same(await audit(admin, device.id), ['device.archive', 'device.delete']);
});
