import t from 'tap';
import { defineRoute } from '../../src/http/route.js';
import { startTestApp, waitFor } from '../helpers/app.js';
import { rawRequest } from '../helpers/http.js';

t.test(
  'close() lets an in-flight request finish, refuses new connections, then closes the database',
  async (t) => {
    const gate: { entered: boolean; release?: () => void } = { entered: false };
    const { app, base } = await startTestApp(t, {
      extraRoutes: () => [
        defineRoute({
          method: 'GET',
          path: '/probe/slow',
          api: 'identity',
          handler: () =>
            new Promise((resolve) => {
              gate.entered = true;
              gate.release = () => resolve({ data: 'finished' });
            }),
        }),
      ],
    });
    const inFlight = rawRequest(`${base}/probe/slow`);
    await waitFor(() => gate.entered, 'the slow handler to start');
    t.equal(app.http.inFlight, 1);

    let closed = false;
    const closing = app.close({ graceMs: 60_000 }).then(() => {
      closed = true;
    });
    await waitFor(() => !app.http.server.listening, 'the listener to stop');
    await t.rejects(rawRequest(`${base}/healthz`), { code: 'ECONNREFUSED' }, 'no new connections');
    t.notOk(closed, 'still waiting for the in-flight request');

    gate.release?.();
    const res = await inFlight;
    t.equal(res.status, 200);
    t.same(res.json(), { success: true, data: 'finished' });
    t.equal(res.headers.connection, 'close');
    await closing;
    t.ok(closed);
    t.same(app.scheduler.names, [], 'no job is scheduled any more');
    await t.rejects(
      app.deps.db.selectFrom('app_meta').selectAll().execute(),
      'database closed after the requests',
    );
  },
);

t.test('a request that outlives the grace period is cut when the grace timer fires', async (t) => {
  const gate: { entered: boolean } = { entered: false };
  const { app, base, clock } = await startTestApp(t, {
    extraRoutes: () => [
      defineRoute({
        method: 'GET',
        path: '/probe/stuck',
        api: 'identity',
        handler: () => {
          gate.entered = true;
          return new Promise(() => undefined);
        },
      }),
    ],
  });
  // Its outcome is taken at once: the cut may come while close() is still finishing.
  const stuck = rawRequest(`${base}/probe/stuck`).then(
    () => null,
    (err: unknown) => err,
  );
  await waitFor(() => gate.entered, 'the stuck handler to start');
  const closing = app.close({ graceMs: 2000 });
  clock.advance('2s');
  await closing;
  t.match(await stuck, { code: 'ECONNRESET' }, 'the connection was cut');
});
