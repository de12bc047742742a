import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runProgram } from '../helpers/cli.js';

/**
 * The install check of the Debian package (DESIGN.md §4.10, docs/decisions/0034): build the
 * .deb with `npm run package`, install it with apt-get, set it up, run the daemon as its unit
 * would, upgrade to a newer build (a backup is taken first, the data survives), remove, purge,
 * and rate the installed units with `systemd-analyze security`. It installs a system package
 * and needs root, so it runs only with HOTSPOT_TEST_PACKAGE=1 (.ci/run sets it).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT = '/lib/systemd/system/hotspot-ctl.service';
const DATA_DIR = '/var/lib/hotspot-ctl';
const BACKUP_DIR = '/var/backups/hotspot-ctl';
const PATH_ENV = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const MAX_EXPOSURE = 2.0;

/**
 * `env -i VAR=… cmd args`: the command gets exactly `env`. Through env(1) because tap's process
 * tracking adds its loader to the environment of every child the test spawns, and the installed
 * hotspot-ctl must run on its own runtime alone.
 */
const clean = (env: Record<string, string>, argv: string[]): string[] => [
  '-i',
  ...Object.entries({ PATH: PATH_ENV, ...env }).map(([k, v]) => `${k}=${v}`),
  ...argv,
];

const run = (cmd: string, args: string[], env: Record<string, string> = {}, cwd = '/') =>
  runProgram('/usr/bin/env', clean(env, [cmd, ...args]), { cwd });

const apt = (args: string[], env: Record<string, string> = {}) =>
  run('apt-get', ['-y', '-q', ...args], { DEBIAN_FRONTEND: 'noninteractive', ...env }, ROOT);

/** A hotspot-ctl command as the service user, with the environment a `sudo -u` would give. */
const asService = (args: string[], env: Record<string, string> = {}) =>
  run(
    'setpriv',
    ['--reuid=hotspot-ctl', '--regid=hotspot-ctl', '--init-groups', '/usr/bin/hotspot-ctl', ...args],
    env,
  );

/** A port nothing listens on now (TCP, or UDP when `udp`). */
function freePort(udp = false): Promise<number> {
  return new Promise((resolve, reject) => {
    if (udp) {
      const s = createSocket('udp4');
      s.on('error', reject);
      s.bind(0, () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      });
      return;
    }
    const s = createServer();
    s.on('error', reject);
    s.listen(0, () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The [Service] settings of a unit file (a repeated key keeps every value). */
function serviceSettings(file: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let inService = false;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inService = line === '[Service]';
    const eq = line.indexOf('=');
    if (!inService || line.startsWith('#') || eq <= 0) continue;
    const key = line.slice(0, eq);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1)]);
  }
  return settings;
}

/**
 * Starts the daemon the way systemd would run the installed unit: its ExecStart as its
 * User/Group, in `/`, with its UMask, its Environment= and what systemd sets for a service
 * (no systemd as PID 1 here, so not through systemctl).
 */
function startAsUnit(): ChildProcess & { output: () => string } {
  const unit = serviceSettings(UNIT);
  const one = (key: string) => unit.get(key)?.at(-1) ?? '';
  const user = one('User');
  const env: Record<string, string> = {
    PATH: PATH_ENV,
    USER: user,
    LOGNAME: user,
    HOME: DATA_DIR,
    SHELL: '/usr/sbin/nologin',
    STATE_DIRECTORY: `/var/lib/${one('StateDirectory')}`,
  };
  for (const assignment of (unit.get('Environment') ?? []).flatMap((v) => v.split(/\s+/))) {
    const eq = assignment.indexOf('=');
    if (eq > 0) env[assignment.slice(0, eq)] = assignment.slice(eq + 1).replace(/^"|"$/g, '');
  }
  const execStart = one('ExecStart').split(/\s+/);
  const umask = one('UMask') || '0022';
  const child = spawn(
    '/usr/bin/env',
    clean(env, [
      'setpriv',
      `--reuid=${user}`,
      `--regid=${one('Group') || user}`,
      '--init-groups',
      '/bin/sh',
      '-c',
      'umask "$0"; exec "$@"',
      umask,
      ...execStart,
    ]),
    { cwd: '/' },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return Object.assign(child, { output: () => output });
}

/** Polls /healthz until it answers 200 (at most a minute: the daemon starts in seconds). */
async function healthz(port: number): Promise<number> {
  let last = 0;
  for (let i = 0; i < 300 && last !== 200; i++) {
    try {
      last = (await fetch(`http://127.0.0.1:${String(port)}/healthz`)).status;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return last;
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  return exited;
}

/** Builds the package and returns its path (the last line `npm run package` prints). */
async function buildPackage(t: Test, args: string[], env: Record<string, string> = {}): Promise<string> {
  const built = await run(
    'npm',
    ['run', '--silent', 'package', '--', ...args],
    { ...env, HOME: process.env.HOME ?? '/root' },
    ROOT,
  );
  t.equal(built.code, 0, `npm run package: ${built.stderr}`);
  t.comment(built.stderr.trim().split('\n').at(-1) ?? '');
  return path.join(ROOT, built.stdout.trim().split('\n').at(-1) ?? '');
}

const packageVersion = (): string =>
  (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function exposure(t: Test, unit: string): Promise<number> {
  const rated = await run('systemd-analyze', ['security', '--offline=yes', '--no-pager', unit]);
  const score = /Overall exposure level for \S+: ([\d.]+) (\S+)/.exec(rated.stdout + rated.stderr);
  t.ok(score, `systemd-analyze rated ${unit}: ${rated.stderr}`);
  t.comment(`systemd-analyze security ${path.basename(unit)}: ${score?.[1] ?? '?'} ${score?.[2] ?? ''}`);
  return Number(score?.[1] ?? Infinity);
}

/** Whether `plans list --json` output lists the plan. */
const hasPlan = (json: string, id: string): boolean =>
  json !== '' && (JSON.parse(json) as { id: string }[]).some((p) => p.id === id);

const installed = async () => (await run('dpkg-query', ['-W', '-f=${Status}', 'hotspot-ctl'])).stdout;
const userExists = async () => (await run('getent', ['passwd', 'hotspot-ctl'])).code === 0;

if (process.env.HOTSPOT_TEST_PACKAGE !== '1') {
  t.plan(0, 'installs a system package as root: set HOTSPOT_TEST_PACKAGE=1 to run it (.ci/run does)');
} else {
  // Building two packages on a busy CI box takes minutes.
  t.setTimeout(40 * 60 * 1000);

  t.test('the .deb installs, runs as its unit, upgrades with a backup, removes and purges', async (t) => {
    t.equal(process.getuid?.(), 0, 'runs as root (apt-get install)');
    const clean = t.notOk(
      (await installed()).includes('installed') || existsSync(DATA_DIR) || existsSync(BACKUP_DIR),
      'no hotspot-ctl package or data on this machine before the check (it would replace them)',
    );
    if (!clean) return;
    const version = packageVersion();
    const newer = `${version}.1`;
    const scratch = mkdtempSync('/tmp/hotspot-pkg-');
    let daemon: ReturnType<typeof startAsUnit> | undefined;
    const debs: string[] = [];
    t.teardown(async () => {
      if (daemon) await stop(daemon);
      await apt(['purge', 'hotspot-ctl'], { HOTSPOT_PURGE_DATA: 'yes' });
      for (const dir of [DATA_DIR, BACKUP_DIR, scratch, ...debs])
        rmSync(dir, { recursive: true, force: true });
    });

    // Build and install.
    const deb = await buildPackage(t, []);
    debs.push(deb);
    const arch = (await run('dpkg', ['--print-architecture'])).stdout.trim();
    t.equal(
      path.basename(deb),
      `hotspot-ctl_${version}_${arch}.deb`,
      'named hotspot-ctl_<version>_<arch>.deb',
    );
    const install = await apt(['install', `./${path.relative(ROOT, deb)}`]);
    t.equal(install.code, 0, `apt-get install: ${install.stderr}`);
    t.match(await installed(), 'install ok installed');
    const reported = await run('/usr/bin/hotspot-ctl', ['--version']);
    t.equal(reported.stdout.trim(), version, 'hotspot-ctl --version');
    t.ok(await userExists(), 'the hotspot-ctl system user exists');
    t.match(await run('getent', ['passwd', 'hotspot-ctl']), {
      stdout: /:\/var\/lib\/hotspot-ctl:\/usr\/sbin\/nologin\n/,
    });
    t.equal(statSync(DATA_DIR).mode & 0o777, 0o700, 'the data directory is 0700');

    // The units, as installed, are hardened.
    t.ok((await exposure(t, UNIT)) <= MAX_EXPOSURE, `hotspot-ctl.service exposure ≤ ${String(MAX_EXPOSURE)}`);
    t.ok(
      (await exposure(t, '/lib/systemd/system/hotspot-ctl-backup.service')) <= MAX_EXPOSURE,
      `hotspot-ctl-backup.service exposure ≤ ${String(MAX_EXPOSURE)}`,
    );

    // Set up on ports no other test or daemon of this machine uses.
    const [http, auth, acct] = [await freePort(), await freePort(true), await freePort(true)];
    const setup = await run('/usr/bin/hotspot-ctl', [
      'setup',
      '--non-interactive',
      '--set',
      'HTTP_HOST=127.0.0.1',
      '--set',
      `HTTP_PORT=${String(http)}`,
      '--set',
      `RADIUS_AUTH_PORT=${String(auth)}`,
      '--set',
      `RADIUS_ACCT_PORT=${String(acct)}`,
    ]);
    t.equal(setup.code, 0, `setup --non-interactive: ${setup.stderr}`);
    t.match(readFileSync('/etc/hotspot-ctl/hotspot.env', 'utf8'), `HTTP_PORT=${String(http)}\n`);

    // Data made through the CLI as the service user: a router (for Status-Server) and a plan.
    const secret = 'install-check-secret-01';
    const router = await asService([
      'devices',
      'add',
      '--name',
      'Install check AP',
      '--model',
      'CoovaChilli on OpenWrt',
      '--mac',
      'AA:BB:CC:00:20:01',
      '--network',
      '10.20.0.0/24',
      '--uam-server',
      'http://10.20.0.10:8080/portal',
      '--nas-id',
      'install-check',
      '--client-ip',
      '10.20.0.1',
      '--secret',
      secret,
    ]);
    t.equal(router.code, 0, `devices add: ${router.stderr}`);
    const plan = await asService([
      'plans',
      'add',
      '--name',
      'Install check hour',
      '--price',
      '1000',
      '--duration',
      '1h',
      '--json',
    ]);
    t.equal(plan.code, 0, `plans add: ${plan.stderr}`);
    const planId = (JSON.parse(plan.stdout) as { id: string }).id;

    // The daemon as the unit runs it answers HTTP and RADIUS.
    daemon = startAsUnit();
    t.equal(await healthz(http), 200, 'GET /healthz answers 200');
    const { radclient } = await import('../helpers/radius.js');
    const status = await radclient(
      auth,
      'status',
      'NAS-Identifier = "install-check"\nMessage-Authenticator = 0x00\n',
      {
        secret,
      },
    );
    t.match(status.replies, [{ code: 'Access-Accept' }], `Status-Server is answered: ${status.output}`);
    t.equal(await stop(daemon), 0, `the daemon stops cleanly on SIGTERM: ${daemon.output()}`);
    daemon = undefined;

    // Upgrade to a newer build (gzip: quicker to make; its contents are the same): a backup is
    // taken before the new version is unpacked, and the data survives.
    const next = await buildPackage(t, ['--no-build'], {
      HOTSPOT_PACKAGE_VERSION: newer,
      HOTSPOT_PACKAGE_COMPRESSION: 'gzip',
    });
    debs.push(next);
    const upgrade = await apt(['install', `./${path.relative(ROOT, next)}`]);
    t.equal(upgrade.code, 0, `apt-get install (upgrade): ${upgrade.stderr}`);
    t.match(upgrade.stdout, /backed up \/var\/lib\/hotspot-ctl to \/var\/backups\/hotspot-ctl\/pre-upgrade-/);
    t.equal((await run('/usr/bin/hotspot-ctl', ['--version'])).stdout.trim(), newer, 'the new version runs');
    const backups = readdirSync(BACKUP_DIR).filter((f) => f.startsWith(`pre-upgrade-${version}-`));
    t.equal(backups.length, 1, `one pre-upgrade backup of ${version}`);
    const backupFile = path.join(BACKUP_DIR, backups[0] ?? '');
    t.equal(statSync(backupFile).mode & 0o777, 0o600, 'the backup is private (0600)');
    const listed = await asService(['plans', 'list', '--json']);
    t.equal(listed.code, 0, listed.stderr);
    t.ok(hasPlan(listed.stdout, planId), 'the plan survived the upgrade');

    // The backup is a valid one: it restores into an empty data directory, plan included.
    const restored = path.join(scratch, 'restored');
    rmSync(restored, { recursive: true, force: true });
    chownSync(scratch, Number((await run('id', ['-u', 'hotspot-ctl'])).stdout), 0);
    const restore = await asService(['restore', backupFile], { HOTSPOT_DATA_DIR: restored });
    t.equal(restore.code, 0, `restore of the pre-upgrade backup: ${restore.stderr}`);
    const fromBackup = await asService(['plans', 'list', '--json'], { HOTSPOT_DATA_DIR: restored });
    t.ok(hasPlan(fromBackup.stdout, planId), `the backup holds the plan: ${fromBackup.stderr}`);

    // Remove keeps the data and the user; purge removes the user, keeps the data.
    const remove = await apt(['remove', 'hotspot-ctl']);
    t.equal(remove.code, 0, `apt-get remove: ${remove.stderr}`);
    t.notOk(existsSync('/usr/bin/hotspot-ctl'), 'remove takes /usr/bin/hotspot-ctl away');
    t.ok(existsSync(path.join(DATA_DIR, 'hotspot.db')), 'remove keeps the database');
    const purge = await apt(['purge', 'hotspot-ctl']);
    t.equal(purge.code, 0, `apt-get purge: ${purge.stderr}`);
    t.equal(await installed(), '', 'purged: dpkg knows no hotspot-ctl');
    t.notOk(await userExists(), 'purge removes the hotspot-ctl user');
    t.ok(
      existsSync(path.join(DATA_DIR, 'hotspot.db')),
      'purge keeps the database (HOTSPOT_PURGE_DATA unset)',
    );
    t.ok(existsSync(backupFile), 'purge keeps the pre-upgrade backup');
    t.notOk(existsSync('/etc/hotspot-ctl'), 'purge removes /etc/hotspot-ctl');
  });
}
