import path from 'node:path';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { boxEnv, runCli } from '../helpers/cli.js';

t.test(
  'staff add creates a verified account (password from stdin), list shows it, remove takes the role',
  async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    const env = await boxEnv(dataDir);
    const added = await runCli(
      ['staff', 'add', '--email', 'boss@venue.test', '--role', 'owner', '--json'],
      env,
      'owner password 1\n',
    );
    t.equal(added.code, 0, added.stderr);
    const doc = JSON.parse(added.stdout) as { created: boolean; staff: Record<string, unknown> };
    t.equal(doc.created, true);
    t.match(doc.staff, { email: 'boss@venue.test', role: 'owner', mfa_enabled: false });
    t.notMatch(added.stdout + added.stderr, 'owner password 1', 'the password is never printed');

    const again = await runCli(
      ['staff', 'add', '--email', 'boss@venue.test', '--role', 'admin', '--json'],
      env,
    );
    t.equal(again.code, 0, 'an existing account needs no password');
    t.match(JSON.parse(again.stdout), { created: false, staff: { role: 'admin' } });

    const list = await runCli(['staff', 'list', '--json'], env);
    t.match(JSON.parse(list.stdout), [{ email: 'boss@venue.test', role: 'admin' }]);
    t.match((await runCli(['staff', 'list'], env)).stdout, /boss@venue\.test\s+admin\s+off/);

    // The account is a real identity account: the daemon lets it sign in, verified.
    const app = await startTestApp(t, { dataDir });
    const c = new Client(app.base);
    const login = await c.post('/auth/login', {
      identifier: 'boss@venue.test',
      password: 'owner password 1',
    });
    t.match(login.body.data, { email: 'boss@venue.test', email_verified: true }, JSON.stringify(login.body));
    await app.app.close();

    const removed = await runCli(['staff', 'remove', 'boss@venue.test'], env);
    t.equal(removed.code, 0, removed.stderr);
    t.same(JSON.parse((await runCli(['staff', 'list', '--json'], env)).stdout), []);
    const missing = await runCli(['staff', 'remove', 'boss@venue.test'], env);
    t.same([missing.code, missing.stderr], [1, 'error: no staff member with that email\n']);
  },
);

t.test('staff add refuses a bad role (usage, exit 2) and a short password (exit 1)', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const role = await runCli(
    ['staff', 'add', '--email', 'x@venue.test', '--role', 'king'],
    env,
    'long enough pw\n',
  );
  t.equal(role.code, 2);
  t.match(role.stderr, /Allowed choices are owner, admin, operator, viewer/);
  const short = await runCli(['staff', 'add', '--email', 'x@venue.test', '--role', 'viewer'], env, 'short\n');
  t.same([short.code, short.stderr], [1, 'error: password must be at least 8 characters\n']);
  t.same(JSON.parse((await runCli(['staff', 'list', '--json'], env)).stdout), []);
});

t.test('staff add --password takes the new account’s password from the flag, not stdin', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  // stdin is empty: had the command read it, the password would be "" and refused.
  const added = await runCli(
    [
      'staff',
      'add',
      '--email',
      'ops@venue.test',
      '--role',
      'operator',
      '--password',
      'operator pass 1',
      '--json',
    ],
    env,
  );
  t.equal(added.code, 0, added.stderr);
  t.match(JSON.parse(added.stdout), {
    created: true,
    staff: { email: 'ops@venue.test', role: 'operator', mfa_enabled: false },
  });
  t.notMatch(added.stdout + added.stderr, 'operator pass 1', 'the password is never printed');

  const short = await runCli(
    ['staff', 'add', '--email', 'tiny@venue.test', '--role', 'viewer', '--password', 'short'],
    env,
    'a long enough password on stdin\n',
  );
  t.same([short.code, short.stderr], [1, 'error: password must be at least 8 characters\n'], 'the flag wins');
  t.match(JSON.parse((await runCli(['staff', 'list', '--json'], env)).stdout), [
    { email: 'ops@venue.test', role: 'operator' },
  ]);
  t.equal(JSON.parse((await runCli(['staff', 'list', '--json'], env)).stdout).length, 1, 'nothing for tiny@');

  const app = await startTestApp(t, { dataDir });
  const login = (password: string) =>
    new Client(app.base).post('/auth/login', { identifier: 'ops@venue.test', password });
  t.equal((await login('operator pass 2')).status, 401, 'that password and no other');
  const ok = await login('operator pass 1');
  t.same([ok.status, ok.body.data?.email_verified], [200, true], JSON.stringify(ok.body));
});
