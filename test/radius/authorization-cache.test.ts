import t, { type Test } from 'tap';
import { revoke } from '../../src/wifi/index.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { CoaListener } from '../helpers/coa-listener.js';
import {
  SECRET,
  aGuest,
  acctRequest,
  papRequest,
  radclient,
  startRadiusApp,
  type RadiusTestApp,
} from '../helpers/radius.js';

/**
 * Logins answer from a cache of the grant and its usage (kept until a write may have changed
 * them: db/prepared.ts). Each step below logs in first, so the cache holds the answer from
 * before the change, then changes what the next login must see, the way it happens at a venue.
 */

const PHONE = '11-22-33-44-55-66';
const LAPTOP = '66-55-44-33-22-11';

async function venue(t: Test) {
  const listener = new CoaListener(SECRET); // the router ACKs every Disconnect-Request
  const port = await listener.listen();
  t.teardown(() => listener.close());
  return startRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: port } });
}

async function login(app: RadiusTestApp, guest: { username: string; password: string }, mac = PHONE) {
  const run = await radclient(
    app.auth,
    'auth',
    papRequest(guest.username, guest.password).replace(PHONE, mac),
  );
  return run.replies;
}

async function account(t: Test, app: RadiusTestApp, username: string, session: string, lines: string[]) {
  const r = await radclient(app.acct, 'acct', acctRequest(username, session, lines));
  t.match(r.replies, [{ code: 'Accounting-Response' }], r.output);
  await app.app.deps.background.drain(); // a disconnect it starts runs after the answer
}

const rejected = (message: string) => [
  { code: 'Access-Reject', attributes: { 'Reply-Message': `"${message}"` } },
];

t.test('a login right after accounting sees the sessions and octets it recorded', async (t) => {
  const app = await venue(t);
  const g = await aGuest(app, { data_limit_bytes: 10_000 });
  t.match(await login(app, g, LAPTOP), [{ code: 'Access-Accept' }], 'nobody online yet: the laptop may');
  t.match(await login(app, g), [{ code: 'Access-Accept' }], 'and so may the phone');

  await account(t, app, g.username, 'phone-1', ['Acct-Status-Type = Start']);
  t.match(await login(app, g, LAPTOP), rejected('This access is already in use on another device'));
  t.match(await login(app, g), [{ code: 'Access-Accept' }], 'the phone that is online may log in again');

  await account(t, app, g.username, 'phone-1', [
    'Acct-Status-Type = Stop',
    'Acct-Session-Time = 60',
    'Acct-Input-Octets = 4000',
  ]);
  const accept = await login(app, g, LAPTOP);
  t.match(
    accept,
    [{ code: 'Access-Accept', attributes: { 'ChilliSpot-Max-Total-Octets': '6000' } }],
    'told what is left',
  );

  await account(t, app, g.username, 'phone-2', [
    'Acct-Status-Type = Interim-Update',
    'Acct-Session-Time = 60',
    'Acct-Input-Octets = 6000',
  ]);
  t.match(await login(app, g), rejected('The data allowance of this access is used up'));
});

t.test('a login right after a revocation is refused, whoever revoked it', async (t) => {
  const app = await venue(t);
  const byStaff = await aGuest(app);
  t.match(await login(app, byStaff), [{ code: 'Access-Accept' }]);
  await revoke(app.app.deps, byStaff.grantId, 'refund');
  t.match(
    await login(app, byStaff),
    rejected('This access has been revoked'),
    'revoked by this daemon (admin API)',
  );

  const byCli = await aGuest(app);
  await account(t, app, byCli.username, 'cli-1', ['Acct-Status-Type = Start']);
  t.match(await login(app, byCli), [{ code: 'Access-Accept' }]);
  const session = await app.app.deps.db
    .selectFrom('radius_sessions')
    .select('id')
    .where('acct_session_id', '=', 'cli-1')
    .executeTakeFirstOrThrow();
  const out = await runCli(['sessions', 'disconnect', session.id, '--json'], cliEnv(app.dataDir));
  t.equal(out.code, 0, out.stderr);
  t.match(
    await login(app, byCli),
    rejected('This access has been revoked'),
    'revoked by the CLI, another process',
  );
});
