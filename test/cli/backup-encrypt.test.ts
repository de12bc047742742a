import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/lib/log.js';
import { deviceByNasId } from '../../src/wifi/index.js';
import { BIN, boxEnv, cliEnv, runCli } from '../helpers/cli.js';
import { Terminal } from '../helpers/tty.js';
import { onPostgres } from '../helpers/store.js';

// `backup` is SQLite-only (test/cli/backup.test.ts checks the PostgreSQL refusal, --encrypt too).
const DEVICE = [
  ...['--name', 'Lobby AP', '--model', 'MikroTik hAP ax2', '--mac', 'aa:bb:cc:dd:ee:01'],
  ...['--network', '10.1.0.0/24', '--uam-server', 'http://10.1.0.10:8080/portal'],
  ...['--nas-id', 'lobby-01', '--client-ip', '10.1.0.1'],
];
const PASSPHRASE = 'correct horse battery staple';
const json = (out: string): Record<string, unknown> => JSON.parse(out) as Record<string, unknown>;

t.test(
  'backup --encrypt seals the backup under a passphrase; restore opens it only with that passphrase',
  { skip: onPostgres ? 'backup is SQLite-only' : false },
  async (t) => {
    const root = t.testdir();
    const first = path.join(root, 'first');
    const envA = await boxEnv(first);
    const plan = await runCli(
      ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'],
      envA,
    );
    t.equal(plan.code, 0, plan.stderr);
    const device = json((await runCli(['devices', 'add', ...DEVICE, '--json'], envA)).stdout);
    const secretsEnv = readFileSync(path.join(first, 'secrets.env'), 'utf8');
    const generated = /RADIUS_SECRET=['"]?([^'"\n]+)/.exec(secretsEnv)?.[1] ?? '';
    t.ok(generated.length >= 16, 'the box has a generated secret to look for');

    // Without a passphrase (no terminal, no variable, no file): refused, nothing written.
    const file = path.join(root, 'venue.backup');
    const none = await runCli(['backup', file, '--encrypt'], envA);
    t.same(
      [none.code, none.stderr],
      [
        1,
        'error: --encrypt needs a passphrase: set HOTSPOT_BACKUP_PASSPHRASE, give --passphrase-file FILE, or run it on a terminal\n',
      ],
    );
    t.notOk(existsSync(file), 'no backup file was written');

    const made = await runCli(['backup', file, '--encrypt', '--json'], {
      ...envA,
      HOTSPOT_BACKUP_PASSPHRASE: PASSPHRASE,
    });
    t.equal(made.code, 0, made.stderr);
    t.equal(json(made.stdout).encrypted, true);
    t.equal(statSync(file).mode & 0o777, 0o600);
    t.same(
      readdirSync(first).filter((f) => f.includes('partial')),
      [],
      'no plain copy is left in the data directory',
    );
    const sealed = readFileSync(file);
    t.equal(sealed.subarray(0, 32).toString('ascii'), 'hotspot-ctl encrypted backup v1\n');
    for (const needle of ['SQLite format 3', generated, 'secrets.env', 'CREATE TABLE', 'lobby-01', 'Hour'])
      t.notOk(sealed.includes(needle), `the encrypted file does not contain ${JSON.stringify(needle)}`);

    // Restore: no passphrase, then a wrong one: refused, nothing changes.
    const second = path.join(root, 'second');
    const envB = cliEnv(second);
    const asked = await runCli(['restore', file], envB);
    t.same(
      [asked.code, asked.stderr],
      [
        1,
        'error: the backup is encrypted: give its passphrase (HOTSPOT_BACKUP_PASSPHRASE, --passphrase-file FILE, or type it on a terminal)\n',
      ],
    );
    const wrong = await runCli(['restore', file], {
      ...envB,
      HOTSPOT_BACKUP_PASSPHRASE: `${PASSPHRASE}r`,
    });
    t.same(
      [wrong.code, wrong.stdout, wrong.stderr],
      [
        1,
        '',
        'error: the passphrase does not open this backup (wrong passphrase, or the file is damaged); nothing was changed\n',
      ],
    );
    t.notOk(
      existsSync(second),
      'the data directory stays absent: no database, no key, no secrets.env, no lock, no opened copy',
    );
    const listed = await runCli(['plans', 'list'], envB);
    t.same(
      [listed.code, listed.stderr],
      [
        1,
        `error: no hotspot-ctl data in ${second} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it\n`,
      ],
      'and it is still no box',
    );

    // The right one from a file (first line) restores the data and the keys.
    const passFile = path.join(root, 'pass.txt');
    writeFileSync(passFile, `${PASSPHRASE}\n`, { mode: 0o600 });
    const restored = await runCli(['restore', file, '--passphrase-file', passFile, '--json'], envB);
    t.equal(restored.code, 0, restored.stderr);
    t.equal(json(restored.stdout).encrypted, true);
    t.equal(readFileSync(path.join(second, 'secrets.env'), 'utf8'), secretsEnv);
    t.same(JSON.parse((await runCli(['plans', 'list', '--json'], envB)).stdout), [json(plan.stdout)]);
    const config = resolveConfig({ env: envB, defaultConfigFile: '/nonexistent' });
    const app = await buildApp(config, { log: createLogger('silent') });
    t.teardown(() => app.close());
    t.equal((await deviceByNasId(app.deps, 'lobby-01'))?.radiusSecret, device.radius_secret);
  },
);

t.test(
  'on a terminal the passphrase is asked (twice for a backup, masked) and a mismatch writes nothing',
  { skip: onPostgres ? 'backup is SQLite-only' : false },
  async (t) => {
    const root = t.testdir();
    const env = { ...(await boxEnv(path.join(root, 'first'))), TERM: 'xterm-256color' };
    const plan = await runCli(['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h'], env);
    t.equal(plan.code, 0, plan.stderr);
    const file = path.join(root, 'venue.backup');

    // A short passphrase is refused at the prompt; two that differ end it with nothing written.
    const mismatch = new Terminal(`${BIN} backup ${file} --encrypt`, env);
    t.teardown(() => mismatch.close());
    await mismatch.waitFor(/passphrase for the backup \(at least \d+ characters/);
    mismatch.type('short');
    await mismatch.waitFor(/at least \d+ characters\s*$/m);
    mismatch.keys('C-u');
    mismatch.type(PASSPHRASE);
    await mismatch.waitFor(/the same passphrase again/);
    mismatch.type(`${PASSPHRASE}!`);
    const refused = await mismatch.waitFor(/EXIT=\d+/);
    t.match(refused, /the two passphrases differ: nothing was written[\s\S]*EXIT=1/);
    t.notOk(existsSync(file), 'no backup file was written');

    const made = new Terminal(`${BIN} backup ${file} --encrypt`, env);
    t.teardown(() => made.close());
    await made.waitFor(/passphrase for the backup/);
    made.type(PASSPHRASE);
    await made.waitFor(/the same passphrase again/);
    made.type(PASSPHRASE);
    const written = await made.waitFor(/EXIT=\d+/);
    t.match(written, /EXIT=0/);
    t.notMatch(written, new RegExp(PASSPHRASE), 'the passphrase never shows on screen');
    t.equal(readFileSync(file).subarray(0, 32).toString('ascii'), 'hotspot-ctl encrypted backup v1\n');

    // restore asks once; the right passphrase opens it on a new box.
    const second = path.join(root, 'second');
    const opened = new Terminal(`${BIN} restore ${file}`, { ...cliEnv(second), TERM: 'xterm-256color' });
    t.teardown(() => opened.close());
    await opened.waitFor(/passphrase of the backup/);
    opened.type(PASSPHRASE);
    t.match(await opened.waitFor(/EXIT=\d+/), /EXIT=0/);
    t.match(JSON.parse((await runCli(['plans', 'list', '--json'], cliEnv(second))).stdout), [
      { name: 'Hour' },
    ]);
  },
);
