import t from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { Counters, DropLog } from '../../src/radius/counters.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/log.js';
import { LogSink } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { SECRET, sendExpectingDrop, startRadiusApp } from '../helpers/radius.js';

t.test(
  'the drop log writes at most five lines per reason a minute, then says how many it left out',
  async (t) => {
    const sink = new LogSink();
    const clock = new ManualClock();
    const drops = new DropLog(createLogger('info', sink), clock);
    for (let i = 0; i < 12; i++)
      drops.drop('bad_authenticator', { source: `10.0.0.1:${String(i)}`, nas_id: 'ap' });
    drops.drop('unknown_nas', { source: '10.0.0.2:1' });
    t.equal(sink.events('radius.dropped').filter((l) => l.reason === 'bad_authenticator').length, 5);
    t.equal(
      sink.events('radius.dropped').filter((l) => l.reason === 'unknown_nas').length,
      1,
      'each reason has its own budget',
    );
    clock.advance('1m');
    drops.drop('bad_authenticator', { source: '10.0.0.1:99', nas_id: 'ap' });
    t.match(sink.events('radius.dropped').at(-1), {
      reason: 'bad_authenticator',
      suppressed: 7,
      source: '10.0.0.1:99',
    });
  },
);

t.test('counters are stored by the flush and shown by hotspot-ctl status', async (t) => {
  const app = await startRadiusApp(t);
  const rogue = encodeRequest(
    CODE.accessRequest,
    1,
    [
      ['User-Name', 'x'],
      ['NAS-Identifier', 'rogue'],
    ],
    SECRET,
  );
  await sendExpectingDrop(app, app.auth, rogue, 'dropped_unknown_nas');
  await sendExpectingDrop(app, app.auth, Buffer.from('garbage'), 'dropped_malformed');
  await app.app.radius.flushCounters();
  await sendExpectingDrop(app, app.auth, rogue, 'dropped_unknown_nas');
  await app.app.radius.flushCounters();
  const status = await runCli(['status', '--json'], cliEnv(app.dataDir));
  t.equal(status.code, 0, status.stderr);
  t.match(JSON.parse(status.stdout).radius_counters, { dropped_unknown_nas: 2, dropped_malformed: 1 });
  const human = await runCli(['status'], cliEnv(app.dataDir));
  t.match(
    human.stdout,
    /RADIUS\s+0 auth \(0 accepted, 0 rejected\), 0 accounting; dropped: malformed 1, unknown_nas 2/,
  );
});

t.test('a drain whose write failed is given back: the next drain carries its increments', (t) => {
  const counters = new Counters();
  counters.bump('auth_requests', 3);
  const first = counters.drain();
  t.same(first, { auth_requests: 3 });
  counters.undrain(first); // the database refused the write
  counters.bump('auth_requests');
  counters.bump('acct_requests', 2);
  t.same(counters.drain(), { auth_requests: 4, acct_requests: 2 });
  t.same(counters.drain(), {}, 'and once stored, not again');
  t.end();
});
