import t from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { disconnectSession, rotateDeviceSecret, updateDevice } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { CoaListener } from '../helpers/coa-listener.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  acctRequest,
  papRequest,
  radclient,
  sendExpectingDrop,
  startRadiusApp,
} from '../helpers/radius.js';
import { aDevice } from '../helpers/wifi.js';

/** Devices without a RADIUS secret of their own use RADIUS_SECRET (DESIGN.md §4.5, issue 7). */

const GLOBAL = 'global-radius-secret-01';

/** An Access-Request of our router signed with `secret`. */
const accessRequest = (g: { username: string; password: string }, secret: string) =>
  encodeRequest(
    CODE.accessRequest,
    1,
    [
      ['User-Name', g.username],
      ['User-Password', g.password],
      ['NAS-Identifier', NAS_ID],
    ],
    secret,
  );

t.test(
  'a device without its own secret is answered, accounted and disconnected with RADIUS_SECRET',
  async (t) => {
    const coa = new CoaListener(GLOBAL);
    const coaPort = await coa.listen();
    t.teardown(() => coa.close());
    const app = await startRadiusApp(t, {
      env: { RADIUS_SECRET: GLOBAL },
      device: { radius_secret: null, radius_client_ip: '127.0.0.1', coa_port: coaPort },
    });
    const g = await aGuest(app);

    const accepted = await radclient(app.auth, 'auth', papRequest(g.username, g.password), {
      secret: GLOBAL,
    });
    t.match(accepted.replies, [{ code: 'Access-Accept' }], accepted.output);
    t.equal(Object.keys(accepted.replies[0]?.attributes ?? {})[0], 'Message-Authenticator');
    t.same(
      await sendExpectingDrop(app, app.auth, accessRequest(g, SECRET), 'dropped_bad_authenticator'),
      [],
      'any other secret is dropped',
    );

    const start = await radclient(
      app.acct,
      'acct',
      acctRequest(g.username, undefined, ['Acct-Status-Type = Start']),
      {
        secret: GLOBAL,
      },
    );
    t.match(start.replies, [{ code: 'Accounting-Response' }], start.output);
    const session = await app.app.deps.db.selectFrom('radius_sessions').selectAll().executeTakeFirstOrThrow();
    t.match(await disconnectSession(app.app.deps, session.id), {
      disconnect: { status: 'disconnected', sessions: [{ answer: 'ack' }] },
    });
    t.match(
      coa.received,
      [{ code: 40, authenticatorOk: true, messageAuthenticatorOk: true }],
      'signed with it',
    );
    t.notMatch(app.logs.raw.join('\n'), GLOBAL, 'the global secret is never logged');
  },
);

t.test('rotate-secret gives the device its own secret again; radius_secret null goes back', async (t) => {
  const app = await startRadiusApp(t, { env: { RADIUS_SECRET: GLOBAL }, device: { radius_secret: null } });
  const g = await aGuest(app);
  const login = (secret: string) =>
    radclient(app.auth, 'auth', papRequest(g.username, g.password), { secret });
  const dropped = (secret: string) =>
    sendExpectingDrop(app, app.auth, accessRequest(g, secret), 'dropped_bad_authenticator');
  t.match((await login(GLOBAL)).replies, [{ code: 'Access-Accept' }]);

  await rotateDeviceSecret(app.app.deps, app.deviceId, 'own-radius-secret-0003');
  app.clock.advance('2s');
  t.match((await login('own-radius-secret-0003')).replies, [{ code: 'Access-Accept' }], 'its own secret');
  t.same(await dropped(GLOBAL), [], 'RADIUS_SECRET no longer');

  await updateDevice(app.app.deps, app.deviceId, { radius_secret: null });
  app.clock.advance('2s');
  t.match((await login(GLOBAL)).replies, [{ code: 'Access-Accept' }], 'RADIUS_SECRET again');
  t.same(await dropped('own-radius-secret-0003'), [], 'its old secret no longer');
});

t.test('a changed RADIUS_SECRET applies at the next start; the device keeps none of its own', async (t) => {
  const dataDir = t.testdir();
  // First start: RADIUS_SECRET not configured, so generated and stored in the data directory.
  const first = await startTestApp(t, { dataDir, radius: true });
  await aDevice(first.app, { radius_secret: null, radius_nas_id: NAS_ID });
  const g = await aGuest(first);
  const generated = first.config.radiusSecret;
  t.match(generated, /^[A-Za-z0-9]{24}$/);
  const login = (port: number, secret: string) =>
    radclient(port, 'auth', papRequest(g.username, g.password), { secret });
  t.match((await login(first.config.radiusAuthPort, generated)).replies, [{ code: 'Access-Accept' }]);
  await first.app.close();

  const second = await startTestApp(t, {
    dataDir,
    radius: true,
    env: { RADIUS_SECRET: 'configured-secret-0004' },
  });
  t.match(
    (await login(second.config.radiusAuthPort, 'configured-secret-0004')).replies,
    [{ code: 'Access-Accept' }],
    'the configured value',
  );
  t.same(
    await sendExpectingDrop(
      second,
      second.config.radiusAuthPort,
      accessRequest(g, generated),
      'dropped_bad_authenticator',
    ),
    [],
    'the generated one no longer',
  );
});
