import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { Terminal } from '../helpers/tty.js';

/**
 * The end of the interactive `hotspot-ctl setup` (and `setup --first-run`): the owner account, a
 * first plan and the first router with its configuration, on a real terminal (tmux).
 */

/** RADIUS on (nothing listens: setup serves nothing), so the router's configuration can be printed. */
const envFor = (dataDir: string) => ({
  ...cliEnv(dataDir, { RADIUS_AUTH_PORT: '1812', RADIUS_ACCT_PORT: '1813' }),
  TERM: 'xterm-256color',
});

async function writeSettings(t: Test, file: string, env: Record<string, string>): Promise<void> {
  const written = await runCli(
    ['--config', file, 'setup', '--non-interactive', '--set', 'PUBLIC_BASE_URL=http://10.1.0.10:8080'],
    env,
  );
  t.equal(written.code, 0, written.stderr);
}

/** A box with its settings written and `setup --first-run` started on a terminal. */
async function firstRun(t: Test) {
  const dir = t.testdir();
  const file = path.join(dir, 'hotspot.env');
  const env = envFor(path.join(dir, 'data'));
  await writeSettings(t, file, env);
  const term = new Terminal(`${BIN} --config ${file} setup --first-run`, env);
  t.teardown(() => term.close());
  return { file, env, term };
}

const listJson = async (file: string, env: Record<string, string>, what: string[]) => {
  const listed = await runCli(['--config', file, ...what, 'list', '--json'], env);
  return JSON.parse(listed.stdout) as Record<string, unknown>[];
};

t.test(
  'setup --first-run makes the owner, a first plan and the first router, asking again what is refused',
  async (t) => {
    const { file, env, term } = await firstRun(t);

    await term.waitFor(/Create the owner account now/);
    term.keys('Enter'); // yes
    await term.waitFor(/Owner email:/);
    term.type('owner@venue.example');
    await term.waitFor(/\? Password:/);
    term.type('lobby-owner-passphrase-7');
    await term.waitFor(/The same password again:/);
    term.type('a different one');
    await term.waitFor(/not the same password/);
    term.keys('C-u');
    term.type('lobby-owner-passphrase-7');

    await term.waitFor(/Create a first plan now/);
    term.keys('Enter');
    await term.waitFor(/Plan name shown to guests:/);
    term.type('2 hours');
    await term.waitFor(/Price in TZS:/);
    term.type('cheap');
    await term.waitFor(/a whole number of shillings/);
    term.keys('C-u');
    term.type('100'); // below the plans' minimum: the domain refuses, and the plan is asked again
    await term.waitFor(/Access time from payment/);
    term.type('2h');
    await term.waitFor(/price_tzs[^\n]*\n[\s\S]*\? Plan name shown to guests:/);
    term.keys('Enter'); // keeps "2 hours"
    await term.waitFor(/\? Price in TZS: \(100\)/);
    term.type('1500');
    await term.waitFor(/\? Access time from payment[^\n]*\(2h\)/);
    term.keys('Enter');

    await term.waitFor(/Register the first router now/);
    term.keys('Enter');
    await term.waitFor(/What kind of router/);
    term.keys('Enter'); // MikroTik
    await term.waitFor(/A name for staff:/);
    term.type('Lobby hAP');
    await term.waitFor(/Make and model:/);
    term.keys('Enter'); // the kind's model
    await term.waitFor(/MAC address/);
    term.type('not-a-mac');
    for (const question of [
      /guest network behind it/,
      /as this box reaches it/,
      /NAS-Identifier/,
      /captive portal URL/,
    ]) {
      await term.waitFor(question);
      term.keys('Enter');
    }
    await term.waitFor(/mac_address must be[\s\S]*\? What kind of router/);
    term.keys('Enter');
    for (let i = 0; i < 2; i++) {
      await term.waitFor(
        i === 0 ? /\? A name for staff: \(Lobby hAP\)/ : /\? Make and model: \(MikroTik hAP ax2\)/,
      );
      term.keys('Enter');
    }
    await term.waitFor(/\? Its MAC address[^\n]*\(not-a-mac\)/);
    term.type('AA:BB:CC:00:11:22');
    for (const question of [
      /guest network behind it: \(10\.1\.0\.0\/24\)/,
      /as this box reaches it[^\n]*\(10\.1\.0\.1\)/,
      /NAS-Identifier[^\n]*\(lobby-hap\)/,
      /captive portal URL[^\n]*\(http:\/\/10\.1\.0\.10:8080\/portal\)/,
    ]) {
      await term.waitFor(new RegExp(`\\? [^\\n]*${question.source}`));
      term.keys('Enter');
    }
    const screen = await term.waitFor(/EXIT=\d+/);
    t.match(screen, /EXIT=0/);
    t.notMatch(screen, /lobby-owner-passphrase-7/, 'the password is masked');
    t.match(screen, /set owner@venue\.example as owner/);
    t.match(screen, /RADIUS secret \(shown once, enter it on the router\): \w{16,}/);
    t.match(screen, /\/radius[\s\S]*add/, "RouterOS's configuration is printed");

    // What the questions made is what the CLI lists, made through the CLI's own domain functions.
    t.match(await listJson(file, env, ['staff']), [{ email: 'owner@venue.example', role: 'owner' }]);
    const plans = await listJson(file, env, ['plans']);
    t.match(plans, [{ name: '2 hours', price_tzs: 1500, duration_seconds: 7200, active: true }]);
    t.equal(plans.length, 1, 'the refused plan was never half made');
    t.match(await listJson(file, env, ['devices']), [
      {
        name: 'Lobby hAP',
        model: 'MikroTik hAP ax2',
        mac_address: 'AA:BB:CC:00:11:22',
        local_network: '10.1.0.0/24',
        radius_client_ip: '10.1.0.1',
        radius_nas_id: 'lobby-hap',
        uam_server: 'http://10.1.0.10:8080/portal',
      },
    ]);

    // Once the box has all three, nothing is asked.
    const again = new Terminal(`${BIN} --config ${file} setup --first-run`, env);
    t.teardown(() => again.close());
    const quiet = await again.waitFor(/EXIT=\d+/);
    t.match(quiet, /EXIT=0/);
    t.notMatch(quiet, /owner account|first plan|first router/);
  },
);

t.test(
  'declined offers name the commands for later, and --first-run is refused off a terminal',
  async (t) => {
    const { file, env, term } = await firstRun(t);
    for (const question of [/owner account now/, /first plan now/, /first router now/]) {
      await term.waitFor(question);
      term.type('n');
    }
    const screen = await term.waitFor(/EXIT=\d+/);
    t.match(screen, /EXIT=0/);
    t.match(screen, /later: hotspot-ctl staff add --email you@venue\.example --role owner/);
    t.match(screen, /later: hotspot-ctl plans add/);
    t.match(screen, /later: hotspot-ctl devices add/);
    t.same(await listJson(file, env, ['plans']), []);

    const noTty = await runCli(['--config', file, 'setup', '--first-run'], env);
    t.match(noTty, { code: 1, stderr: /setup asks questions on a terminal/ });
    const mixed = await runCli(['--config', file, 'setup', '--first-run', '--non-interactive'], env);
    t.match(
      mixed,
      { code: 2, stderr: /^error: --first-run writes no settings/ },
      'contradicting options: a usage error',
    );
  },
);

t.test(
  'run by root on a data directory of another user, the questions run as that user',
  { skip: process.getuid?.() === 0 ? false : 'needs root (CI runs as root)' },
  async (t) => {
    // Outside the test tree, whose parents another user may not enter.
    const dir = mkdtempSync('/tmp/hotspot-first-run-');
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dir, 0o755);
    const file = path.join(dir, 'hotspot.env');
    const dataDir = path.join(dir, 'data');
    const env = envFor(dataDir);
    await writeSettings(t, file, { ...env, HOTSPOT_DATA_DIR: path.join(dir, 'scratch') });
    // As the package leaves them: the data directory the daemon user's, the file readable by its group.
    mkdirSync(dataDir, { recursive: true }); // the PostgreSQL test store may have made it
    chmodSync(dataDir, 0o700);
    chownSync(dataDir, 65534, 65534);
    chownSync(file, 0, 65534);
    chmodSync(file, 0o640);
    const before = new Set(readdirSync(dataDir)); // the PostgreSQL test store's marker

    const term = new Terminal(`${BIN} --config ${file} setup --first-run`, env);
    t.teardown(() => term.close());
    await term.waitFor(/owner account now/);
    term.type('n');
    await term.waitFor(/first plan now/);
    term.keys('Enter');
    await term.waitFor(/Plan name shown to guests:/);
    term.keys('Enter');
    await term.waitFor(/Price in TZS:/);
    term.keys('Enter');
    await term.waitFor(/Access time from payment/);
    term.keys('Enter');
    await term.waitFor(/first router now/);
    term.type('n');
    const screen = await term.waitFor(/EXIT=\d+/);
    t.match(screen, /EXIT=0/);
    t.match(screen, /plan [0-9a-f-]{36}: 1 hour, 1000 TZS, on sale/);
    const made = readdirSync(dataDir).filter((name) => !before.has(name));
    t.ok(made.length > 0, 'the data directory was used');
    for (const name of made)
      t.equal(
        statSync(path.join(dataDir, name)).uid,
        65534,
        `${name} belongs to the directory's owner, not root`,
      );
  },
);
