import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/http.js';

t.test('the three probes answer in their documented shapes', async (t) => {
  const { base } = await startTestApp(t);
  const healthz = await rawRequest(`${base}/healthz`);
  t.equal(healthz.status, 200);
  t.same(healthz.json(), { success: true, data: { status: 'ok', service: 'hotspot-ctl' } });
  t.match(healthz.headers['content-type'], /^application\/json/);
  const readyz = await rawRequest(`${base}/readyz`);
  t.equal(readyz.status, 200);
  t.same(readyz.json(), { data: { status: 'ready', checks: { database: 'ok' } } });
  const api = await rawRequest(`${base}/api/v1/health`);
  t.equal(api.status, 200);
  t.same(api.json(), { data: { status: 'ok', service: 'hotspot-ctl' } });
});

t.test('/readyz answers 503 when the database probe fails, while /healthz stays up', async (t) => {
  const { base, app } = await startTestApp(t);
  await app.deps.db.destroy(); // the database goes away under the running daemon
  const readyz = await rawRequest(`${base}/readyz`);
  t.equal(readyz.status, 503);
  t.same(readyz.json(), { message: 'database unavailable' });
  const healthz = await rawRequest(`${base}/healthz`);
  t.equal(healthz.status, 200);
});
