import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { freePort, freeUdpPorts } from '../helpers/app.js';
import { BIN, cliEnv, dataDirFiles, runCli } from '../helpers/cli.js';
import { declineFirstRun, Terminal } from '../helpers/tty.js';

/** `hotspot-ctl setup` writes the env file the daemon and every command read. */

const read = (file: string) => loadConfig({ env: {}, configFile: file });

t.test(
  'setup --non-interactive writes checked values, keeps earlier ones and prints no secret',
  async (t) => {
    const dir = t.testdir();
    const file = path.join(dir, 'etc', 'hotspot.env');
    const env = cliEnv(path.join(dir, 'data'));
    const first = await runCli(
      [
        '--config',
        file,
        'setup',
        '--non-interactive',
        '--set',
        'PUBLIC_BASE_URL=https://wifi.venue.example',
        '--set',
        'SERVICE_NAME=Cafe Wi-Fi',
        '--set',
        'SMS_PROVIDER=beem',
        '--set',
        'BEEM_API_KEY=beem-key-123',
        '--set',
        'BEEM_SECRET_KEY=beem-secret-456',
        '--json',
      ],
      env,
    );
    t.equal(first.code, 0, first.stderr);
    t.same(JSON.parse(first.stdout), {
      file,
      settings: {
        PUBLIC_BASE_URL: 'https://wifi.venue.example',
        SERVICE_NAME: 'Cafe Wi-Fi',
        SMS_PROVIDER: 'beem',
        BEEM_API_KEY: '(secret, not shown)',
        BEEM_SECRET_KEY: '(secret, not shown)',
        SMS_DELIVERY_TOKEN: '(secret, not shown)',
      },
    });
    t.notMatch(first.stdout + first.stderr, /beem-key-123|beem-secret-456/);
    // A real SMS gateway gets the secret URL of its delivery reports (docs/decisions/0047), once.
    const smsToken = read(file).smsDeliveryToken ?? '';
    t.match(smsToken, /^[A-Za-z0-9_-]{32,}$/, 'a delivery-report token was made');
    t.match(
      first.stderr,
      `give beem this delivery-report URL: https://wifi.venue.example/sms/delivery/${smsToken}`,
    );
    t.equal(statSync(file).mode & 0o777, 0o600, 'a new file may hold secrets: 0600');
    t.match(read(file), {
      publicBaseUrl: 'https://wifi.venue.example',
      serviceName: 'Cafe Wi-Fi',
      smsProvider: 'beem',
      beemApiKey: 'beem-key-123',
    });
    t.match(readFileSync(file, 'utf8'), /# display name: TOTP issuer label.*\nSERVICE_NAME='Cafe Wi-Fi'\n/);
    t.notMatch(readFileSync(file, 'utf8'), /HTTP_PORT/, 'defaults are not written');

    chmodSync(file, 0o640); // the operator let the daemon's group read it
    const second = await runCli(
      ['--config', file, 'setup', '--non-interactive', '--set', 'HTTP_PORT=8081'],
      env,
    );
    t.equal(second.code, 0, second.stderr);
    t.match(read(file), {
      httpPort: 8081,
      serviceName: 'Cafe Wi-Fi',
      beemSecretKey: 'beem-secret-456',
      smsDeliveryToken: smsToken,
    });
    t.notMatch(second.stderr, /delivery-report URL/, 'the token is kept, so nothing new to register');
    t.equal(statSync(file).mode & 0o777, 0o640, 'an existing file keeps its mode');

    const before = readFileSync(file, 'utf8');
    const bad = await runCli(
      [
        '--config',
        file,
        'setup',
        '--non-interactive',
        '--set',
        'HTTP_PORT=eighty',
        '--set',
        'SMS_PROVIDER=africastalking',
      ],
      env,
    );
    t.equal(bad.code, 1);
    t.same(bad.stderr.trimEnd().split('\n'), [
      'error: HTTP_PORT: must be a port number 0-65535 (got "eighty")',
    ]);
    const missing = await runCli(
      ['--config', file, 'setup', '--non-interactive', '--set', 'SMS_PROVIDER=africastalking'],
      env,
    );
    t.equal(missing.code, 1);
    t.same(missing.stderr.trimEnd().split('\n'), [
      'error: AFRICASTALKING_USERNAME: must be set when SMS_PROVIDER is africastalking',
      'error: AFRICASTALKING_API_KEY: must be set when SMS_PROVIDER is africastalking',
    ]);
    const typo = await runCli(['--config', file, 'setup', '--non-interactive', '--set', 'HTTP_PROT=1'], env);
    t.equal(typo.code, 1);
    t.match(typo.stderr, 'did you mean HTTP_PORT?');
    t.equal(readFileSync(file, 'utf8'), before, 'a refused setup changes nothing');

    const noTty = await runCli(['--config', file, 'setup'], env);
    t.same(
      [noTty.code, noTty.stderr],
      [1, 'error: setup asks questions on a terminal; for scripts use --non-interactive --set NAME=VALUE\n'],
    );
  },
);

t.test(
  'setup on a terminal asks, validates each answer, and asks again for what the set lacks',
  async (t) => {
    const dir = t.testdir();
    const file = path.join(dir, 'hotspot.env');
    const term = new Terminal(`${BIN} --config ${file} setup`, {
      ...cliEnv(path.join(dir, 'data')),
      TERM: 'xterm-256color',
    });
    t.teardown(() => term.close());

    await term.waitFor(/\? PUBLIC_BASE_URL: /);
    term.type('not a url');
    await term.waitFor(/PUBLIC_BASE_URL: must be an absolute http:\/\/ or https:\/\/ URL/);
    term.keys('C-u'); // clear the line, as an operator would
    term.type('https://wifi.venue.example');
    await term.waitFor(/\? SERVICE_NAME: /);
    term.keys('C-u');
    term.type('Lobby Wi-Fi');
    for (const name of ['HOTSPOT_DATA_DIR', 'INVOICE_PREFIX', 'VENUE_TIMEZONE']) {
      await term.waitFor(new RegExp(`\\? ${name}: `));
      term.keys('Enter'); // keep the default shown
    }
    await term.waitFor(/\? PAYMENT_PROVIDER: /);
    term.keys('Enter'); // sandbox
    await term.waitFor(/\? SMS_PROVIDER: /);
    term.keys('Down', 'Down', 'Enter'); // beem
    await term.waitFor(/\? BEEM_API_KEY: /);
    term.keys('Enter'); // left empty: the whole set is checked at the end
    await term.waitFor(/\? BEEM_SECRET_KEY: /);
    term.type('beem-secret-1');
    await term.waitFor(/\? BEEM_SMS_URL: /);
    term.keys('Enter');
    await term.waitFor(/\? SMTP_URL: /);
    term.keys('Enter');
    await term.waitFor(/\? MAIL_FROM: /);
    term.keys('Enter');
    await term.waitFor(/BEEM_API_KEY: must be set when SMS_PROVIDER is beem\s+\? BEEM_API_KEY: /);
    term.type('beem-key-1');
    // With the settings written, the box's first owner, plan and router are offered
    // (test/cli/setup-first-run.test.ts answers them); declined here.
    await declineFirstRun(term);
    const screen = await term.waitFor(/EXIT=\d+/);
    t.match(screen, /EXIT=0/);
    t.match(screen, /restart it \(sudo systemctl restart hotspot-ctl\)/);
    t.notMatch(screen, /beem-secret-1|beem-key-1/, 'secrets are masked on screen');
    t.match(read(file), {
      publicBaseUrl: 'https://wifi.venue.example',
      serviceName: 'Lobby Wi-Fi',
      paymentProvider: 'sandbox',
      smsProvider: 'beem',
      beemApiKey: 'beem-key-1',
      beemSecretKey: 'beem-secret-1',
    });
  },
);

t.test('setup refuses a payment provider without its credentials exactly as serve does', async (t) => {
  const dir = t.testdir();
  const file = path.join(dir, 'hotspot.env');
  const env = cliEnv(path.join(dir, 'data'));
  const values = { PAYMENT_PROVIDER: 'selcom', SELCOM_API_KEY: 'selcom-key-1' };
  const setup = await runCli(
    [
      '--config',
      file,
      'setup',
      '--non-interactive',
      ...Object.entries(values).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
    ],
    env,
  );
  const expected =
    'error: SELCOM_API_SECRET: must be set when PAYMENT_PROVIDER is selcom\n' +
    'error: SELCOM_VENDOR: must be set when PAYMENT_PROVIDER is selcom\n';
  t.same([setup.code, setup.stderr], [1, expected]);
  t.notOk(existsSync(file), 'nothing was written');

  // The same values written by hand: the daemon refuses them with the same lines.
  const byHand = path.join(dir, 'by-hand.env');
  writeFileSync(
    byHand,
    Object.entries(values)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const serve = await runCli(['--config', byHand, 'serve'], env);
  t.same([serve.code, serve.stdout, serve.stderr], [1, '', expected]);
});

t.test(
  'setup refuses what the start of serve refuses, with the line serve stops on, and writes nothing',
  async (t) => {
    const dir = t.testdir();
    // What setup writes is what is checked: the test's own listener address and store step aside.
    const envOf = (dataDir: string): Record<string, string> => {
      const {
        HTTP_HOST: _host,
        DATABASE_URL: _store,
        ...env
      } = cliEnv(dataDir) as Record<string, string> & { HTTP_HOST?: string; DATABASE_URL?: string };
      return env;
    };
    const closed = await freePort();
    const [radiusPort] = await freeUdpPorts(1);
    const cases: { set: Record<string, string>; env?: Record<string, string>; line: string }[] = [
      {
        set: { RADSEC_PORT: '2083' },
        line: `RADSEC_CERT_FILE: cannot read ${path.join(dir, 'RADSEC_PORT', 'radsec', 'server.pem')} (ENOENT); hotspot-ctl devices radsec-cert creates the default files`,
      },
      {
        set: { HTTP_HOST: '10.99.99.99' },
        line: 'HTTP_HOST: cannot listen on 10.99.99.99: it is no address of this box (EADDRNOTAVAIL); ip -brief address lists them',
      },
      {
        set: { RADIUS_HOST: '10.99.99.99' },
        env: { RADIUS_AUTH_PORT: String(radiusPort) },
        line: 'RADIUS_HOST: cannot listen on 10.99.99.99: it is no address of this box (EADDRNOTAVAIL); ip -brief address lists them',
      },
      {
        set: { DATABASE_URL: `postgres://venue:s3cret-pw@127.0.0.1:${String(closed)}/hotspot` },
        line: `DATABASE_URL: cannot connect to PostgreSQL 127.0.0.1:${String(closed)}/hotspot: connect ECONNREFUSED 127.0.0.1:${String(closed)}`,
      },
    ];
    for (const c of cases) {
      const name = Object.keys(c.set).join();
      const dataDir = path.join(dir, name); // a directory each: serve below makes a box in it
      const file = path.join(dir, `${name}.env`);
      const caseEnv = { ...envOf(dataDir), ...c.env };
      const sets = Object.entries(c.set).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
      const setup = await runCli(['--config', file, 'setup', '--non-interactive', ...sets], caseEnv);
      t.same([setup.code, setup.stdout, setup.stderr], [1, '', `error: ${c.line}\n`], name);
      t.notOk(existsSync(file), 'nothing was written');
      t.same(dataDirFiles(dataDir), [], 'and no box was made');

      // The same values written by hand: serve stops on the same line.
      const byHand = path.join(dir, `${name}-by-hand.env`);
      writeFileSync(
        byHand,
        Object.entries(c.set)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
      );
      const serve = await runCli(['--config', byHand, 'serve'], caseEnv);
      t.same(
        [serve.code, serve.stderr.split('\n').filter((l) => l.startsWith('error: '))],
        [1, [`error: ${c.line}`]],
      );
      t.notMatch(setup.stderr + serve.stderr, 's3cret-pw', 'never the password');
    }
  },
);

t.test('setup --non-interactive makes the box the settings name when there is none', async (t) => {
  const dir = t.testdir();
  const dataDir = path.join(dir, 'data');
  const env = cliEnv(dataDir);
  const file = path.join(dir, 'hotspot.env');
  t.equal((await runCli(['plans', 'list'], env)).code, 1, 'no box yet');
  const setup = await runCli(
    ['--config', file, 'setup', '--non-interactive', '--set', 'SERVICE_NAME=Lobby'],
    env,
  );
  t.equal(setup.code, 0, setup.stderr);
  t.match(setup.stderr, `made a new box in ${dataDir}: its secrets and its database`);
  t.ok(dataDirFiles(dataDir).includes('secrets.env'));
  const listed = await runCli(['--config', file, 'plans', 'list', '--json'], env);
  t.same([listed.code, listed.stdout], [0, '[]\n'], listed.stderr);
  const again = await runCli(
    ['--config', file, 'setup', '--non-interactive', '--set', 'SERVICE_NAME=Hall'],
    env,
  );
  t.equal(again.code, 0, again.stderr);
  t.notMatch(again.stderr, 'made a new box', 'a box that exists is left as it is');
});

t.test(
  'as root, setup restarts the running hotspot-ctl service when it changed the settings (a fake systemctl)',
  { skip: process.getuid?.() !== 0 && 'needs root' },
  async (t) => {
    const dir = t.testdir({
      bin: {
        systemctl: [
          '#!/bin/sh',
          'echo "$*" >> "$SYSTEMCTL_LOG"',
          'case "$1" in',
          '  is-active) exit "${SYSTEMCTL_ACTIVE:-0}" ;;',
          '  restart) [ "${SYSTEMCTL_RESTART:-0}" = 0 ] || echo "Job for hotspot-ctl.service failed." >&2; exit "${SYSTEMCTL_RESTART:-0}" ;;',
          'esac',
          '',
        ].join('\n'),
      },
    });
    chmodSync(path.join(dir, 'bin', 'systemctl'), 0o755);
    const log = path.join(dir, 'systemctl.log');
    const file = path.join(dir, 'hotspot.env');
    const base = cliEnv(path.join(dir, 'data'));
    const env = { ...base, PATH: `${path.join(dir, 'bin')}:${base.PATH ?? ''}`, SYSTEMCTL_LOG: log };
    const calls = (): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const setup = (extra: Record<string, string>, ...args: string[]) => {
      writeFileSync(log, '');
      return runCli(['--config', file, 'setup', '--non-interactive', ...args], { ...env, ...extra });
    };

    const restarted = await setup({}, '--set', 'SERVICE_NAME=Lobby');
    t.equal(restarted.code, 0, restarted.stderr);
    t.same(calls(), ['is-active --quiet hotspot-ctl', 'restart hotspot-ctl']);
    t.match(
      restarted.stderr,
      'restarted hotspot-ctl (systemctl restart hotspot-ctl): it runs with these settings now',
    );

    const same = await setup({}, '--set', 'SERVICE_NAME=Lobby');
    t.equal(same.code, 0, same.stderr);
    t.same(calls(), [], 'unchanged settings: systemctl is not asked');
    t.match(same.stderr, 'the settings are unchanged: a running daemon need not restart');

    const kept = await setup({}, '--set', 'SERVICE_NAME=Hall', '--no-restart');
    t.equal(kept.code, 0, kept.stderr);
    t.same(calls(), ['is-active --quiet hotspot-ctl'], '--no-restart: no restart');
    t.match(
      kept.stderr,
      'not restarted (--no-restart): hotspot-ctl runs with its old settings until sudo systemctl restart hotspot-ctl',
    );

    const stopped = await setup({ SYSTEMCTL_ACTIVE: '3' }, '--set', 'SERVICE_NAME=Cafe');
    t.equal(stopped.code, 0, stopped.stderr);
    t.same(calls(), ['is-active --quiet hotspot-ctl'], 'not running: nothing to restart');
    t.match(stopped.stderr, 'restart it (sudo systemctl restart hotspot-ctl)');

    const failed = await setup({ SYSTEMCTL_RESTART: '1' }, '--set', 'SERVICE_NAME=Bar');
    t.equal(failed.code, 1);
    t.same(calls(), ['is-active --quiet hotspot-ctl', 'restart hotspot-ctl']);
    t.match(
      failed.stderr,
      'Job for hotspot-ctl.service failed.\nerror: the settings are written, but systemctl restart hotspot-ctl failed (exit 1): journalctl -u hotspot-ctl -n 50 says why\n',
    );
    t.match(read(file), { serviceName: 'Bar' }, 'the settings were written before the restart');

    // On a terminal it asks; declined, nothing is restarted and it says how to.
    writeFileSync(log, '');
    const term = new Terminal(`${BIN} --config ${file} setup`, { ...env, TERM: 'xterm-256color' });
    t.teardown(() => term.close());
    await term.waitFor(/\? PUBLIC_BASE_URL: /);
    term.keys('Enter');
    await term.waitFor(/\? SERVICE_NAME: /);
    term.keys('C-u');
    term.type('Garden');
    for (const name of [
      'HOTSPOT_DATA_DIR',
      'INVOICE_PREFIX',
      'VENUE_TIMEZONE',
      'PAYMENT_PROVIDER',
      'SMS_PROVIDER',
      'SMTP_URL',
      'MAIL_FROM',
    ]) {
      await term.waitFor(new RegExp(`\\? ${name}: `));
      term.keys('Enter');
    }
    await declineFirstRun(term);
    await term.waitFor(
      /hotspot-ctl is running with the settings it started with\. Restart it now to use these\?/,
    );
    term.type('n');
    const screen = await term.waitFor(/EXIT=\d+/);
    t.match(
      screen,
      /not restarted: hotspot-ctl runs with its old settings until sudo systemctl restart hotspot-ctl[\s\S]*EXIT=0/,
    );
    t.same(calls(), ['is-active --quiet hotspot-ctl'], 'declined: asked whether it runs, not restarted');
    t.match(read(file), { serviceName: 'Garden' });
  },
);
