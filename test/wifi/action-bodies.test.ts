import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aLiveSession, aPaidPurchase, credentialsOf, wifiRows } from '../helpers/wifi.js';

/**
 * The admin actions whose path names all they need take no body, or an empty object: anything
 * else is 400 and the action is not taken (DESIGN.md §5). A black-box review found apply-to-live
 * and archive acting on `{"x":1}` and on malformed JSON.
 */

const BAD_BODIES: readonly string[] = ['{"x":1}', '[1]', '"str"', '{bad', 'null', '7'];

t.test('every body-less admin action refuses a body, and changes nothing', async (t) => {
  const app = await startTestApp(t);
  const admin = await staffClient(app, 'admin');
  const sold = await aPaidPurchase(app);
  const { device } = await aDevice(app.app);
  const { username } = await credentialsOf(app, sold.invoiceId, sold.key);
  await aLiveSession(app.app, { deviceId: device.id, username, acctSessionId: 's-1' });
  const session = (await wifiRows(app.app.deps.db)).radius_sessions?.[0] as { id: string };
  const paths = [
    `/api/v1/admin/plans/${sold.plan.id}/apply-to-live`,
    `/api/v1/admin/plans/${sold.plan.id}/archive`,
    `/api/v1/admin/plans/${sold.plan.id}/unarchive`,
    `/api/v1/admin/devices/${device.id}/archive`,
    `/api/v1/admin/devices/${device.id}/unarchive`,
    `/api/v1/admin/devices/${device.id}/rotate-secret`,
    `/api/v1/admin/sessions/${session.id}/disconnect`,
    `/api/v1/admin/sessions/${session.id}/disconnect-keep-grant`,
    `/api/v1/admin/invoices/${sold.invoiceId}/recheck`,
    '/api/v1/admin/auth/logout',
  ];
  const before = await wifiRows(app.app.deps.db);
  for (const path of paths) {
    for (const body of BAD_BODIES) {
      const res = await admin.post(path, body);
      t.equal(res.status, 400, `${path} ${body}`);
      t.type(res.body.message, 'string');
    }
  }
  const deletes = [`/api/v1/admin/plans/${sold.plan.id}`, `/api/v1/admin/devices/${device.id}`];
  for (const path of deletes) {
    t.equal((await admin.request('DELETE', path, '{"x":1}')).status, 400, `DELETE ${path}`);
  }
  t.same(await wifiRows(app.app.deps.db), before, 'nothing changed');
  t.equal((await admin.get('/api/v1/admin/plans')).status, 200, 'still logged in');

  // No body, or an empty object, is taken.
  const archived = await admin.post(`/api/v1/admin/plans/${sold.plan.id}/archive`);
  t.match(archived, { status: 200, body: { data: { id: sold.plan.id, active: false } } });
  const back = await admin.post(`/api/v1/admin/plans/${sold.plan.id}/unarchive`, {});
  t.match(back, { status: 200, body: { data: { id: sold.plan.id, archived_at: null } } });
});
