import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { lockForDaemon } from '../../src/db/index.js';
import { freePort } from '../helpers/app.js';
import { cliEnv, dataDirFiles, runCli, startCli } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store.js';

const LISTENING = /HTTP on 127\.0\.0\.1:(\d+)/;
const modeOf = (file: string): number => statSync(file).mode & 0o777;

t.test('one daemon per data directory, and a killed one does not block the next', async (t) => {
  const root = t.testdir();
  const dataDir = path.join(root, 'data');
  const env = cliEnv(dataDir);
  const first = startCli(['serve'], env);
  t.teardown(() => first.child.kill('SIGKILL'));
  await first.waitFor(LISTENING);
  const pid = first.child.pid ?? 0;
  t.equal(readFileSync(path.join(dataDir, 'daemon.pid'), 'utf8'), `${String(pid)}\n`);

  const second = await runCli(['serve'], env);
  t.same(
    [second.code, second.stdout, second.stderr],
    [
      1,
      '',
      `error: another hotspot-ctl daemon (pid ${String(pid)}) holds this data directory: stop it first (one daemon per data directory)\n`,
    ],
    'a second serve refuses with one line',
  );
  t.equal(readFileSync(path.join(dataDir, 'daemon.pid'), 'utf8'), `${String(pid)}\n`, 'and leaves the mark');

  if (!onPostgres) {
    const file = path.join(root, 'venue.backup');
    t.equal((await runCli(['backup', file], env)).code, 0);
    const refused = await runCli(['restore', file, '--force'], env);
    t.same(
      [refused.code, refused.stderr],
      [1, 'error: the daemon is running on this data directory: stop it before restoring\n'],
      'restore refuses under the live daemon',
    );
  }
  const health = await fetch(`http://127.0.0.1:${(await first.waitFor(LISTENING))[1] ?? ''}/healthz`);
  t.equal(health.status, 200, 'the first daemon serves on');

  first.child.kill('SIGKILL');
  await first.exited;
  t.ok(existsSync(path.join(dataDir, 'daemon.pid')), 'a killed daemon leaves its pid file behind');
  const next = startCli(['serve'], env);
  t.teardown(() => next.child.kill('SIGKILL'));
  await next.waitFor(LISTENING);
  t.equal(
    readFileSync(path.join(dataDir, 'daemon.pid'), 'utf8'),
    `${String(next.child.pid ?? 0)}\n`,
    'the next daemon starts and takes the directory',
  );
  next.child.kill('SIGTERM');
  t.equal(await next.exited, 0);
  t.notOk(existsSync(path.join(dataDir, 'daemon.pid')), 'a daemon that stops removes its mark');

  const after = startCli(['serve'], env);
  t.teardown(() => after.child.kill('SIGKILL'));
  await after.waitFor(LISTENING);
  after.child.kill('SIGTERM');
  t.equal(await after.exited, 0, 'and the lock is free again');
});

t.test('a daemon that cannot start (its HTTP port taken) says why, exits 1 and leaves no mark', async (t) => {
  const root = t.testdir();
  const dataDir = path.join(root, 'data');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  const port = (taken.address() as AddressInfo).port;
  const serveOnTaken = (dir: string) =>
    runCli(['serve'], { ...cliEnv(dir), HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) });

  // On a box: it stays as it was, but for the lock file (never deleted there).
  const made = await runCli(['migrate'], cliEnv(dataDir));
  t.equal(made.code, 0, made.stderr);
  const failed = await serveOnTaken(dataDir);
  t.equal(failed.code, 1, failed.stderr);
  t.match(failed.stderr, /EADDRINUSE|in use/, 'the reason');
  t.notOk(existsSync(path.join(dataDir, 'daemon.pid')), 'no pid file left behind');
  t.same(
    readdirSync(dataDir).filter((name) => name.startsWith('daemon.')),
    ['daemon.lock'],
    'the lock file only (it is never deleted), no journal beside it',
  );
  const next = startCli(['serve'], cliEnv(dataDir));
  t.teardown(() => next.child.kill('SIGKILL'));
  await next.waitFor(LISTENING);
  next.child.kill('SIGTERM');
  t.equal(await next.exited, 0, 'the next daemon starts on the same directory');

  // On a directory that held no box, the failed start takes back what it made, so nothing there
  // passes for a box (docs/decisions/0051). On PostgreSQL the database was reached and holds
  // values sealed with the new vault.key: that box is made, and its keys stay.
  const fresh = path.join(root, 'fresh');
  const refused = await serveOnTaken(fresh);
  t.equal(refused.code, 1, refused.stderr);
  if (onPostgres) t.ok(['secrets.env', 'vault.key'].every((f) => dataDirFiles(fresh).includes(f)));
  else t.same(dataDirFiles(fresh), [], 'nothing left: not the database, not secrets.env, not the lock');
  const listed = await runCli(['plans', 'list', '--json'], cliEnv(fresh));
  t.equal(listed.code, onPostgres ? 0 : 1, 'a box on PostgreSQL only');
});

t.test(
  'a serve or migrate that cannot reach PostgreSQL leaves no secrets.env: the directory is still no box',
  async (t) => {
    const root = t.testdir();
    const closed = await freePort();
    const unreachable = `postgres://venue@127.0.0.1:${String(closed)}/hotspot`;
    const reason = `error: DATABASE_URL: cannot connect to PostgreSQL 127.0.0.1:${String(closed)}/hotspot: connect ECONNREFUSED 127.0.0.1:${String(closed)}\n`;
    const dataDir = path.join(root, 'data');
    const env = { ...cliEnv(dataDir), DATABASE_URL: unreachable };
    const noBox = `error: no hotspot-ctl data in ${dataDir} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it\n`;
    for (const args of [['serve'], ['migrate']]) {
      const failed = await runCli(args, env);
      t.same([failed.code, failed.stderr], [1, reason], args.join(' '));
      t.same(dataDirFiles(dataDir), [], 'nothing left: no secrets.env, no vault.key, no lock file');
      // Before, secrets.env alone made it a box on PostgreSQL: this went on to the database.
      t.same(await runCli(['plans', 'list'], env), { code: 1, stdout: '', stderr: noBox }, 'still no box');
    }
    // A directory with files of its own keeps them, and only them.
    mkdirSync(path.join(root, 'kept'));
    writeFileSync(path.join(root, 'kept', 'notes.txt'), 'mine');
    const kept = await runCli(['serve'], { ...env, HOTSPOT_DATA_DIR: path.join(root, 'kept') });
    t.equal(kept.code, 1);
    t.same(dataDirFiles(path.join(root, 'kept')), ['notes.txt']);
    // migrate takes no lock to run: when a daemon has meanwhile taken the new directory, what
    // appeared there is that daemon's, and a failed migrate leaves it.
    const busy = path.join(root, 'busy');
    const daemon = lockForDaemon(busy);
    t.teardown(() => daemon.release());
    const beside = await runCli(['migrate'], { ...env, HOTSPOT_DATA_DIR: busy });
    t.same([beside.code, beside.stderr], [1, reason]);
    t.ok(dataDirFiles(busy).includes('secrets.env'), 'the secrets.env it made stays the daemon’s');
  },
);

if (!onPostgres) {
  t.test('the database file and its -wal and -shm are 0600, an older 0644 one is tightened', async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    const env = cliEnv(dataDir);
    const db = path.join(dataDir, 'hotspot.db');
    const daemon = startCli(['serve'], env);
    t.teardown(() => daemon.child.kill('SIGKILL'));
    await daemon.waitFor(LISTENING);
    for (const file of [db, `${db}-wal`, `${db}-shm`]) t.equal(modeOf(file), 0o600, path.basename(file));
    t.equal(modeOf(path.join(dataDir, 'daemon.lock')), 0o600, 'daemon.lock');
    daemon.child.kill('SIGTERM');
    t.equal(await daemon.exited, 0);

    chmodSync(db, 0o644);
    const listed = await runCli(['plans', 'list', '--json'], env);
    t.equal(listed.code, 0, listed.stderr);
    t.equal(modeOf(db), 0o600, 'a 0644 database is tightened when it is opened');
  });
}

t.test(
  'a mistyped HOTSPOT_DATA_DIR: every command but those that make a box refuses it and creates nothing',
  async (t) => {
    const root = t.testdir();
    const typo = path.join(root, 'dta');
    // The store of another directory on PostgreSQL: the typo must not reach it either.
    const env = { ...cliEnv(path.join(root, 'data')), HOTSPOT_DATA_DIR: typo };
    const line = `error: no hotspot-ctl data in ${typo} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it\n`;
    const commands = [
      ['status'],
      ['doctor'],
      ['keys', 'list'],
      ['plans', 'list'],
      ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h'],
      ['devices', 'list'],
      ['staff', 'list'],
      ['outbox'],
      ['backup', path.join(root, 'venue.backup')],
      ['report', 'revenue'],
    ];
    for (const args of commands) {
      const res = await runCli(args, env);
      t.same([res.code, res.stdout, res.stderr], [1, '', line], args.join(' '));
    }
    // doctor --json says the same in its one document, for a monitoring job to read.
    const report = await runCli(['doctor', '--json'], env);
    t.same([report.code, report.stderr], [1, ''], 'doctor --json');
    t.match(JSON.parse(report.stdout), {
      ok: false,
      checks: [{ name: 'config', status: 'fail', detail: line.slice('error: '.length, -1) }],
    });
    t.notOk(existsSync(typo), 'the directory was not created');
    t.notOk(existsSync(path.join(root, 'venue.backup')), 'nor the backup');

    // An empty directory (made by hand, or by the package) is no box either, and stays empty.
    mkdirSync(typo);
    t.same(await runCli(['status'], env), { code: 1, stdout: '', stderr: line });
    t.same(readdirSync(typo), [], 'still empty');

    // So the daemon, which does make the box, still says loudly that it is a new one.
    const daemon = startCli(['serve'], env);
    t.teardown(() => daemon.child.kill('SIGKILL'));
    await daemon.waitFor(LISTENING);
    t.match(daemon.stderr, `NEW DATA DIRECTORY: ${typo} held no hotspot-ctl data`);
    daemon.child.kill('SIGTERM');
    t.equal(await daemon.exited, 0);
    t.ok(dataDirFiles(typo).includes('secrets.env'), 'serve made the box');
    const status = await runCli(['status'], env);
    t.equal(status.code, 0, status.stderr);
  },
);

t.test('migrate makes a box, and then every command works on it', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = cliEnv(dataDir);
  t.equal((await runCli(['plans', 'list'], env)).code, 1, 'no box yet');
  const made = await runCli(['migrate'], env);
  t.equal(made.code, 0, made.stderr);
  t.ok(dataDirFiles(dataDir).includes('secrets.env'));
  const listed = await runCli(['plans', 'list', '--json'], env);
  t.same([listed.code, listed.stdout], [0, '[]\n'], listed.stderr);
});
