import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { DATABASE_FILE } from '../../src/db/index.js';
import { boxEnv, cliEnv, dataDirFiles, runCli } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store.js';

t.test('--help and --version exit 0; usage errors exit 2', async (t) => {
  const env = cliEnv(t.testdir());
  const help = await runCli(['--help'], env);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: hotspot-ctl/);
  for (const name of ['serve', 'migrate', 'status', 'outbox']) t.match(help.stdout, name);
  const version = await runCli(['--version'], env);
  t.equal(version.code, 0);
  t.match(version.stdout, /^\d+\.\d+\.\d+/);
  const unknown = await runCli(['frobnicate'], env);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command 'frobnicate'/);
  const badOption = await runCli(['migrate', '--bogus'], env);
  t.equal(badOption.code, 2);
  t.match(badOption.stderr, /unknown option '--bogus'/);
});

t.test('a bad setting stops the daemon with one line naming the variable and exit 1', async (t) => {
  const res = await runCli(['serve'], cliEnv(t.testdir(), { HTTP_PORT: 'eighty' }));
  t.equal(res.code, 1);
  t.equal(res.stderr, 'error: HTTP_PORT: must be a port number 0-65535 (got "eighty")\n');
  t.equal(res.stdout, '');
  const two = await runCli(['migrate'], cliEnv(t.testdir(), { HTTP_PORT: 'x', TRUST_PROXY: 'sometimes' }));
  t.equal(two.code, 1);
  t.equal(two.stderr.trimEnd().split('\n').length, 2, 'one line per problem');
  const dir = t.testdir({ 'a-file': 'in the way' });
  const blocked = await runCli(['serve'], cliEnv(path.join(dir, 'a-file')));
  t.equal(blocked.code, 1);
  t.equal(
    blocked.stderr,
    `error: HOTSPOT_DATA_DIR: cannot create or use ${path.join(dir, 'a-file')}: EEXIST\n`,
  );
  const sender = await runCli(
    ['serve'],
    cliEnv(t.testdir(), {
      SMS_PROVIDER: 'beem',
      BEEM_API_KEY: 'k',
      BEEM_SECRET_KEY: 's',
      SMS_SENDER_ID: 'Mama Ntilie Cafe',
    }),
  );
  t.same(
    [sender.code, sender.stderr],
    [
      1,
      'error: SMS_SENDER_ID: beem takes a sender id of 1-11 letters (A-Z) or digits, no spaces (got "Mama Ntilie Cafe")\n',
    ],
    'an SMS sender id the provider would refuse',
  );
});

t.test(
  'ROUTER_DOWN_AFTER under 1.5 × RADIUS_INTERIM_INTERVAL stops the daemon and setup refuses it',
  async (t) => {
    const dir = t.testdir();
    const dataDir = path.join(dir, 'data');
    const line =
      'error: ROUTER_DOWN_AFTER: must be at least 1.5 × RADIUS_INTERIM_INTERVAL, 450 seconds with RADIUS_INTERIM_INTERVAL 300 (got "1m")\n';
    const serve = await runCli(['serve'], cliEnv(dataDir, { ROUTER_DOWN_AFTER: '1m' }));
    t.same([serve.code, serve.stdout, serve.stderr], [1, '', line]);
    t.same(dataDirFiles(dataDir), [], 'nothing was made');
    const file = path.join(dir, 'hotspot.env');
    const setup = await runCli(
      ['--config', file, 'setup', '--non-interactive', '--set', 'ROUTER_DOWN_AFTER=1m'],
      cliEnv(dataDir),
    );
    t.same([setup.code, setup.stderr], [1, line]);
    t.notOk(existsSync(file), 'setup wrote nothing');
  },
);

t.test('an env file given with --config is used; a missing one is an error', async (t) => {
  const dir = t.testdir({ 'hotspot.env': 'INVOICE_PREFIX=lower\n' });
  const res = await runCli(
    ['--config', path.join(dir, 'hotspot.env'), 'migrate'],
    cliEnv(path.join(dir, 'data')),
  );
  t.equal(res.code, 1);
  t.equal(res.stderr, 'error: INVOICE_PREFIX: must be 1-10 upper-case letters or digits (got "lower")\n');
  const missing = await runCli(
    ['--config', path.join(dir, 'nope.env'), 'migrate'],
    cliEnv(path.join(dir, 'data')),
  );
  t.equal(missing.code, 1);
  t.match(missing.stderr, /^error: --config: cannot read .*nope\.env: ENOENT\n$/);
});

t.test('migrate applies migrations once and reports them as JSON on stdout only', async (t) => {
  const env = cliEnv(path.join(t.testdir(), 'data'));
  const first = await runCli(['migrate', '--json'], env);
  t.equal(first.code, 0, first.stderr);
  const doc = JSON.parse(first.stdout) as { applied: string[]; snapshot: boolean };
  t.ok(doc.applied.includes('0001_init'));
  // A new SQLite database comes from the bundle's schema snapshot (test/db/schema-snapshot.test.ts).
  t.equal(doc.snapshot, !onPostgres);
  const second = await runCli(['--json', 'migrate'], env);
  t.same(JSON.parse(second.stdout), { applied: [], snapshot: false });
  const human = await runCli(['migrate'], env);
  t.equal(human.stdout, 'database is up to date\n');
});

t.test('status reports the daemon, the database and the secrets without printing them', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = cliEnv(dataDir, { HTTP_PORT: '1' });
  const none = await runCli(['status', '--json'], env);
  t.same(
    [none.code, none.stdout, none.stderr],
    [
      1,
      '',
      `error: no hotspot-ctl data in ${dataDir} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it\n`,
    ],
    'no box there: status refuses',
  );
  t.same(dataDirFiles(dataDir), [], 'and creates nothing');
  // A box whose database is not migrated yet (an empty database file).
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, DATABASE_FILE), '');
  const res = await runCli(['status', '--json'], env);
  t.equal(res.code, 0, res.stderr);
  const doc = JSON.parse(res.stdout) as Record<string, Record<string, unknown>>;
  t.match(doc.daemon, { reachable: false, url: 'http://127.0.0.1:1/healthz' });
  t.match(doc.database, { migrations_applied: 0 });
  t.ok((doc.database?.migrations_pending as string[]).includes('0001_init'), 'status does not migrate');
  t.same(doc.secrets, { radius_secret: 'generated', payment_webhook_secret: 'generated' });
  t.same(doc.warnings, [], 'nothing to warn of');
  t.same(doc.signing_keys, [], 'no keys before the first migration');
  t.same(doc.counts, {
    users: null,
    projects: null,
    oauth_clients: null,
    plans: null,
    devices: null,
    invoices: null,
    grants: null,
    payments: null,
  });
  await runCli(['migrate'], env);
  const after = JSON.parse((await runCli(['status', '--json'], env)).stdout) as Record<string, unknown>;
  t.match(after.counts, { users: 0, plans: 0, invoices: 0 });
  t.same(after.signing_keys, [], 'migrate creates no key; the first start does');
  const human = await runCli(['status'], env);
  t.match(human.stdout, /daemon\s+not reachable/);
  const stored = readFileSync(path.join(dataDir, 'secrets.env'), 'utf8');
  const secrets = [...stored.matchAll(/^[A-Z_]+=(.+)$/gm)].map((m) => m[1] ?? '');
  t.equal(secrets.length, 2);
  for (const secret of secrets) {
    t.notMatch(human.stdout + res.stdout + human.stderr, secret, 'a generated secret is never printed');
  }
});

t.test('status warns that the sandbox with autopay gives Wi-Fi away', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'), { HTTP_PORT: '1', SANDBOX_AUTOPAY_SECONDS: '10' });
  const warning =
    'WARNING: the sandbox payment provider pays every purchase by itself after 10 s (SANDBOX_AUTOPAY_SECONDS): Wi-Fi is given away free. For a real venue set PAYMENT_PROVIDER (selcom or azampay) and SANDBOX_AUTOPAY_SECONDS=0';
  const human = await runCli(['status'], env);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout.split('\n')[0], /^payments\s+WARNING: /, 'the first line of the report');
  t.ok(human.stdout.split('\n')[0]?.endsWith(warning));
  const doc = JSON.parse((await runCli(['status', '--json'], env)).stdout) as Record<string, unknown>;
  t.same(doc.warnings, [warning]);
});
