import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/lib/log.js';
import { deviceByNasId } from '../../src/wifi/index.js';
import { boxEnv, cliEnv, runCli, startCli } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store.js';

const DEVICE = [
  ...['--name', 'Lobby AP', '--model', 'MikroTik hAP ax2', '--mac', 'aa:bb:cc:dd:ee:01'],
  ...['--network', '10.1.0.0/24', '--uam-server', 'http://10.1.0.10:8080/portal'],
  ...['--nas-id', 'lobby-01', '--client-ip', '10.1.0.1'],
];

const json = (out: string): Record<string, unknown> => JSON.parse(out) as Record<string, unknown>;

if (onPostgres) {
  // The store is the PostgreSQL database of DATABASE_URL: pg_dump backs it up, not hotspot-ctl.
  const PG_REFUSAL =
    'error: the database is PostgreSQL (DATABASE_URL): back it up with pg_dump, and copy secrets.env, vault.key and keys/ from the data directory\n';

  t.test(
    'on PostgreSQL, backup and restore refuse with a pointer to pg_dump and write nothing',
    async (t) => {
      const root = t.testdir();
      const dataDir = path.join(root, 'data');
      const env = await boxEnv(dataDir);
      const plan = await runCli(
        ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'],
        env,
      );
      t.equal(plan.code, 0, plan.stderr);

      const file = path.join(root, 'venue.backup');
      for (const args of [[file], [file, '--json'], [file, '--encrypt']]) {
        const made = await runCli(['backup', ...args], env);
        t.same([made.code, made.stdout, made.stderr], [1, '', PG_REFUSAL], `backup ${args.join(' ')}`);
        t.notOk(existsSync(file), 'no backup file was written');
      }

      const junk = path.join(root, 'junk.backup');
      writeFileSync(junk, 'not a database');
      for (const args of [[junk], [junk, '--force']]) {
        const restored = await runCli(['restore', ...args], env);
        t.same(
          [restored.code, restored.stdout, restored.stderr],
          [1, '', PG_REFUSAL],
          `restore ${args.join(' ')}`,
        );
        t.notOk(existsSync(path.join(dataDir, 'hotspot.db')), 'no database file was written');
      }
      t.equal(readFileSync(junk, 'utf8'), 'not a database', 'the file given is left as it was');
      t.same(
        JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout),
        [json(plan.stdout)],
        'the database is untouched',
      );
    },
  );
} else {
  t.test('a broken provider configuration stops the daemon, never a backup or a restore', async (t) => {
    const root = t.testdir();
    const dataDir = path.join(root, 'data');
    const good = cliEnv(dataDir);
    t.equal((await runCli(['migrate'], good)).code, 0);
    // What an upgrade or a slip can leave: a provider without its credentials, a sender id the
    // SMS provider refuses.
    const broken = cliEnv(dataDir, {
      PAYMENT_PROVIDER: 'selcom',
      SMS_PROVIDER: 'beem',
      SMS_SENDER_ID: 'Mama Cafe',
    });
    const serve = await runCli(['serve'], broken);
    t.equal(serve.code, 1, 'the daemon refuses it');
    t.match(serve.stderr, /SELCOM_API_KEY: must be set when PAYMENT_PROVIDER is selcom/);
    t.match(serve.stderr, /SMS_SENDER_ID: /);
    const file = path.join(root, 'nightly.backup');
    const made = await runCli(['backup', file], broken);
    t.equal(made.code, 0, made.stderr);
    t.ok(existsSync(file));
    const restored = await runCli(['restore', file, '--force'], broken);
    t.equal(restored.code, 0, restored.stderr);
    const typo = await runCli(['backup', path.join(root, 'x.backup')], cliEnv(dataDir, { HTTP_PORT: 'x' }));
    t.equal(typo.code, 1, 'everything else is still checked');
  });

  t.test(
    'a backup taken while the daemon serves restores elsewhere with the same data and keys',
    async (t) => {
      const root = t.testdir();
      const first = path.join(root, 'first');
      const envA = cliEnv(first);
      const daemon = startCli(['serve'], envA);
      t.teardown(() => daemon.child.kill('SIGKILL'));
      await daemon.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);
      t.ok(existsSync(path.join(first, 'daemon.pid')), 'the daemon marks its data directory');

      const plan = await runCli(
        ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'],
        envA,
      );
      t.equal(plan.code, 0, plan.stderr);
      const device = json((await runCli(['devices', 'add', ...DEVICE, '--json'], envA)).stdout);
      const kidsOf = async (env: Record<string, string>) =>
        (JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as { kid: string }[]).map(
          (k) => k.kid,
        );
      const kids = await kidsOf(envA);
      t.equal(kids.length, 1, 'the daemon made its signing key');

      const file = path.join(root, 'venue.backup');
      const made = await runCli(['backup', file, '--json'], envA);
      t.equal(made.code, 0, made.stderr);
      t.same(json(made.stdout).files, ['secrets.env', 'vault.key', `keys/${kids[0] ?? ''}.pem`]);
      t.equal(statSync(file).mode & 0o777, 0o600, 'the backup holds secrets');
      const again = await runCli(['backup', file], envA);
      t.same(
        [again.code, again.stderr],
        [1, 'error: the backup file already exists: choose another name or remove it\n'],
      );

      const refused = await runCli(['restore', file, '--force'], envA);
      t.same(
        [refused.code, refused.stderr],
        [1, 'error: the daemon is running on this data directory: stop it before restoring\n'],
      );
      daemon.child.kill('SIGTERM');
      t.equal(await daemon.exited, 0);
      t.notOk(existsSync(path.join(first, 'daemon.pid')), 'and unmarks it when it stops');

      const second = path.join(root, 'second');
      const envB = cliEnv(second);
      const restored = await runCli(['restore', file, '--json'], envB);
      t.equal(restored.code, 0, restored.stderr);
      t.equal(
        readFileSync(path.join(second, 'secrets.env'), 'utf8'),
        readFileSync(path.join(first, 'secrets.env'), 'utf8'),
      );
      t.same(JSON.parse((await runCli(['plans', 'list', '--json'], envB)).stdout), [json(plan.stdout)]);
      t.same(await kidsOf(envB), kids);

      // The vault key came along: the device's sealed RADIUS secret opens in the new place.
      const config = resolveConfig({ env: envB, defaultConfigFile: '/nonexistent' });
      const app = await buildApp(config, { log: createLogger('silent') });
      t.teardown(() => app.close());
      t.equal((await deviceByNasId(app.deps, 'lobby-01'))?.radiusSecret, device.radius_secret);

      const over = await runCli(['restore', file], envB);
      t.same(
        [over.code, over.stderr],
        [1, 'error: the data directory already has a database: add --force to replace it\n'],
      );
    },
  );

  t.test('restore refuses a file that is not a backup and changes nothing', async (t) => {
    const root = t.testdir();
    const junk = path.join(root, 'junk.backup');
    writeFileSync(junk, 'not a database');
    const dataDir = path.join(root, 'data');
    const res = await runCli(['restore', junk], cliEnv(dataDir));
    t.same([res.code, res.stderr], [1, 'error: that file is not a hotspot-ctl backup\n']);
    t.notOk(existsSync(path.join(dataDir, 'hotspot.db')), 'no database appeared');
  });

  t.test(
    'a refused restore into a new data directory leaves it as it was, and no box is made there after',
    async (t) => {
      // The reviewer's report: a refused restore left secrets.env and daemon.lock in a new
      // directory; `plans list` then took it for a box and made a database, and the right backup
      // was refused ("already has a database").
      const root = t.testdir({ empty: {} });
      const file = path.join(root, 'venue.backup');
      const envA = await boxEnv(path.join(root, 'first'));
      const plan = await runCli(
        ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'],
        envA,
      );
      t.equal((await runCli(['backup', file], envA)).code, 0);
      const junk = path.join(root, 'junk.backup');
      writeFileSync(junk, 'not a database');
      // A real backup whose key files would be written outside the data directory.
      const escaping = path.join(root, 'escaping.backup');
      copyFileSync(file, escaping);
      const db = new Database(escaping);
      db.prepare('INSERT INTO hotspot_backup_files (name, mode, content) VALUES (?, ?, ?)').run(
        '../escaped',
        0o600,
        Buffer.from('x'),
      );
      db.close();
      const noBox = (dir: string) =>
        `error: no hotspot-ctl data in ${dir} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it\n`;

      for (const [name, before] of [
        ['absent', undefined],
        ['empty', []],
      ] as const) {
        const dataDir = path.join(root, name);
        const env = cliEnv(dataDir);
        for (const bad of [junk, escaping]) {
          const res = await runCli(['restore', bad], env);
          t.same(
            [res.code, res.stdout, res.stderr],
            [1, '', 'error: that file is not a hotspot-ctl backup\n'],
          );
          t.same(existsSync(dataDir) ? readdirSync(dataDir) : undefined, before, `${name}: as it was`);
        }
        t.notOk(existsSync(path.join(root, 'escaped')), 'nothing was written outside it');
        const listed = await runCli(['plans', 'list'], env);
        t.same([listed.code, listed.stdout, listed.stderr], [1, '', noBox(dataDir)], `${name}: still no box`);
        t.same(existsSync(dataDir) ? readdirSync(dataDir) : undefined, before, `${name}: still as it was`);
        const restored = await runCli(['restore', file, '--json'], env);
        t.equal(restored.code, 0, restored.stderr);
        t.same(JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout), [json(plan.stdout)]);
      }

      // What a refused restore of an older version left behind (secrets.env and daemon.lock) is
      // no box: commands refuse it and make nothing, and the backup restores without --force.
      const half = path.join(root, 'half');
      mkdirSync(half, { mode: 0o700 });
      writeFileSync(path.join(half, 'secrets.env'), 'RADIUS_SECRET=abc\nPAYMENT_WEBHOOK_SECRET=def\n', {
        mode: 0o600,
      });
      writeFileSync(path.join(half, 'daemon.lock'), '', { mode: 0o600 });
      const envHalf = cliEnv(half);
      for (const args of [['plans', 'list'], ['status'], ['backup', path.join(root, 'half.backup')]]) {
        const res = await runCli(args, envHalf);
        t.same([res.code, res.stdout, res.stderr], [1, '', noBox(half)], args.join(' '));
      }
      t.same(readdirSync(half).sort(), ['daemon.lock', 'secrets.env'], 'nothing was made');
      const restored = await runCli(['restore', file], envHalf);
      t.equal(restored.code, 0, restored.stderr);
      t.equal(
        readFileSync(path.join(half, 'secrets.env'), 'utf8'),
        readFileSync(path.join(root, 'first', 'secrets.env'), 'utf8'),
        "the backup's secrets replace the stray ones",
      );
      t.same(JSON.parse((await runCli(['plans', 'list', '--json'], envHalf)).stdout), [json(plan.stdout)]);
    },
  );
}
