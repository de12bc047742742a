import t from 'tap';
import { archiveDevice, unarchiveDevice } from '../../src/wifi/index.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { aGuest, papRequest, radclient, startRadiusApp } from '../helpers/radius.js';

/**
 * An archived router is an unknown NAS (docs/decisions/0037-archive.md): its Access-Requests get
 * no answer and count as dropped, at once, though the listener had it cached; unarchived, it is
 * answered again. Archived by the CLI (another process), the same.
 */

/** radclient's wait for an answer that never comes: one try, one second. */
const ONCE = { tries: 1, extra: ['-t', '1'] };

t.test('an archived router’s Access-Request is not answered; unarchived, it is', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const accepted = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(accepted.replies, [{ code: 'Access-Accept' }], 'known and cached');

  await archiveDevice(app.app.deps, app.deviceId);
  const dropped = app.app.radius.counters.get('dropped_unknown_nas');
  const silent = await radclient(app.auth, 'auth', papRequest(g.username, g.password), ONCE);
  t.same(silent.replies, [], 'no answer');
  t.equal(app.app.radius.counters.get('dropped_unknown_nas'), dropped + 1, 'dropped as an unknown NAS');

  await unarchiveDevice(app.app.deps, app.deviceId);
  const again = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(again.replies, [{ code: 'Access-Accept' }], 'answered again');
});

t.test('archived by the CLI, another process: dropped from the next packet', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const accepted = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(accepted.replies, [{ code: 'Access-Accept' }], 'known and cached');

  const env = cliEnv(app.dataDir);
  const archived = await runCli(['--json', 'devices', 'archive', app.deviceId], env);
  t.equal(archived.code, 0, archived.stderr);
  const dropped = app.app.radius.counters.get('dropped_unknown_nas');
  const silent = await radclient(app.auth, 'auth', papRequest(g.username, g.password), ONCE);
  t.same(silent.replies, [], 'no answer');
  t.equal(app.app.radius.counters.get('dropped_unknown_nas'), dropped + 1);
});
