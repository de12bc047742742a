import t from 'tap';
import { NasDirectory } from '../../src/radius/nas.js';
import { rotateDeviceSecret } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { unwatchedDb } from '../helpers/store.js';
import { aDevice } from '../helpers/wifi.js';

/** The RADIUS listener's router directory (src/radius/nas.ts) against the real database. */

t.test('a spray of unknown NAS-Identifiers cannot evict a known router from the cache', async (t) => {
  const app = await startTestApp(t);
  const { device, radiusSecret } = await aDevice(app.app, { radius_secret: 'lobby-secret-000001' });
  // On PostgreSQL the change feed would report the change below at once (postgres-daemons.test.ts
  // covers that): this directory reads through a handle no feed watches, so only its TTL and
  // bounds are at work, as on SQLite.
  const unwatched = unwatchedDb(app.dataDir);
  if (unwatched) t.teardown(() => unwatched.destroy());
  const directory = new NasDirectory({ ...app.app.deps, db: unwatched ?? app.app.deps.db });
  t.match(await directory.find('lobby-01'), { deviceId: device.id, secret: radiusSecret });
  // Changed behind the cache's back (as the CLI, another process, would): a reread would see it.
  await rotateDeviceSecret(app.app.deps, device.id, 'rotated-secret-000002');

  let found = 0;
  for (let i = 0; i <= 10_000; i++) if (await directory.find(`rogue-${String(i)}`)) found++;
  t.equal(found, 0, '10,001 made-up ids, none known');
  t.same(directory.size, { known: 1, unknown: 1024 }, 'unknown ids are bounded on their own');
  t.match(
    await directory.find('lobby-01'),
    { secret: 'lobby-secret-000001' },
    'the router is still answered from the cache, not reread',
  );
  app.clock.advance('30s');
  t.match(await directory.find('lobby-01'), { secret: 'rotated-secret-000002' }, 'until its entry is due');
});
