import { createSocket } from 'node:dgram';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { freePort, freeUdpPorts } from '../helpers/app.js';
import { BIN, cliEnv, dataDirFiles, runCli, startCli } from '../helpers/cli.js';
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
    const typo = await runCli(['--config', file, 'setup', '--non-interactive', '--set', 'HTTP_PORTT=1'], env);
    t.same(
      [typo.code, typo.stderr],
      [1, 'error: --set HTTP_PORTT: unknown setting (did you mean HTTP_PORT?)\n'],
      'a misspelt --set is named as from --set, with the nearest name',
    );
    const unknown = await runCli(
      [
        '--config',
        file,
        'setup',
        '--non-interactive',
        '--set',
        'NOTHING_LIKE_IT=1',
        '--set',
        'SERVICE_NAME=X',
      ],
      env,
    );
    t.same([unknown.code, unknown.stderr], [1, 'error: --set NOTHING_LIKE_IT: unknown setting\n']);
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

t.test(
  'setup refuses HTTP_PORT 0 and a new RADIUS_SECRET under 16 characters; a short one already written stays',
  async (t) => {
    const dir = t.testdir();
    const file = path.join(dir, 'hotspot.env');
    const env = cliEnv(path.join(dir, 'data'));
    const setup = (...sets: string[]) =>
      runCli(['--config', file, 'setup', '--non-interactive', ...sets.flatMap((s) => ['--set', s])], env);

    const zero = await setup('HTTP_PORT=0', 'SERVICE_NAME=Lobby');
    t.same(
      [zero.code, zero.stdout, zero.stderr],
      [
        1,
        '',
        'error: HTTP_PORT: must not be 0 in the settings file: 0 picks a new port at each start, and routers, payment callbacks and PUBLIC_BASE_URL need a fixed one (the default is 8080)\n',
      ],
    );
    const short = await setup('RADIUS_SECRET=fifteen-chars-1', 'HTTP_PORT=eighty');
    t.same(
      [short.code, short.stdout, short.stderr.trimEnd().split('\n')],
      [
        1,
        '',
        [
          'error: HTTP_PORT: must be a port number 0-65535 (got "eighty")',
          'error: RADIUS_SECRET: must be at least 16 characters (RFC 2865 §3), got 15; leave it unset and the box uses the random 24-character one it generated',
        ],
      ],
      "with the parsers' problems, all at once; the secret is never shown",
    );
    t.notOk(existsSync(file), 'nothing was written');

    const long = await setup('RADIUS_SECRET=sixteen-chars-01');
    t.equal(long.code, 0, long.stderr);
    t.match(read(file), { radiusSecret: 'sixteen-chars-01' });

    // A short secret written before setup refused them (an older release, or by hand) stays:
    // refusing it would stop every other change; doctor warns about it instead.
    writeFileSync(file, 'RADIUS_SECRET=testing123\n');
    const kept = await setup('SERVICE_NAME=Hall');
    t.equal(kept.code, 0, kept.stderr);
    t.match(read(file), { radiusSecret: 'testing123', serviceName: 'Hall' });
    const changed = await setup('RADIUS_SECRET=testing1234');
    t.equal(changed.code, 1, 'a new short one is refused still');
    t.match(read(file), { radiusSecret: 'testing123' });
  },
);

t.test(
  "setup refuses a port another program listens on, naming the setting; its own daemon's ports it keeps",
  async (t) => {
    const dir = t.testdir();
    const dataDir = path.join(dir, 'data');
    const file = path.join(dir, 'hotspot.env');
    // The ports are the file's: the test's own port settings step aside.
    const { HTTP_PORT: _http, RADIUS_AUTH_PORT: _auth, RADIUS_ACCT_PORT: _acct, ...base } = cliEnv(dataDir);
    const env = { ...base, RADIUS_HOST: '127.0.0.1' };
    const setup = (...sets: string[]) =>
      runCli(['--config', file, 'setup', '--non-interactive', ...sets.flatMap((s) => ['--set', s])], env);

    // Another program on a TCP port and on a UDP port.
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const otherTcp = (other.address() as AddressInfo).port;
    const otherUdp = createSocket('udp4');
    await new Promise<void>((resolve) => otherUdp.bind(0, '127.0.0.1', resolve));
    t.teardown(() => otherUdp.close());
    const otherUdpPort = otherUdp.address().port;
    const [http, auth, acct] = [await freePort(), ...(await freeUdpPorts(2))];

    const taken = await setup(
      `HTTP_PORT=${String(otherTcp)}`,
      `RADIUS_AUTH_PORT=${String(otherUdpPort)}`,
      `RADIUS_ACCT_PORT=${String(acct)}`,
    );
    t.same(
      [taken.code, taken.stdout, taken.stderr.trimEnd().split('\n')],
      [
        1,
        '',
        [
          `error: HTTP_PORT: 127.0.0.1:${String(otherTcp)} is taken by another program (EADDRINUSE)`,
          `error: RADIUS_AUTH_PORT: 127.0.0.1:${String(otherUdpPort)} is taken by another program (EADDRINUSE)`,
        ],
      ],
      'one line per port, naming the setting, as serve would stop on',
    );
    t.notOk(existsSync(file), 'nothing was written');
    t.same(dataDirFiles(dataDir), [], 'and no box was made');

    const free = await setup(
      `HTTP_PORT=${String(http)}`,
      `RADIUS_AUTH_PORT=${String(auth)}`,
      `RADIUS_ACCT_PORT=${String(acct)}`,
    );
    t.equal(free.code, 0, free.stderr);

    // Our own daemon holds those ports now: setup run again (unchanged ports, another value, or
    // the two RADIUS ports swapped) is no conflict, as the restart frees them for the new start.
    const daemon = startCli(['--config', file, 'serve'], env);
    t.teardown(() => daemon.child.kill('SIGKILL'));
    await daemon.waitFor(new RegExp(`HTTP on 127\\.0\\.0\\.1:${String(http)}`));
    const again = await setup('SERVICE_NAME=Lobby');
    t.equal(again.code, 0, again.stderr);
    const swapped = await setup(`RADIUS_AUTH_PORT=${String(acct)}`, `RADIUS_ACCT_PORT=${String(auth)}`);
    t.equal(swapped.code, 0, swapped.stderr);
    const moved = await setup(`HTTP_PORT=${String(otherTcp)}`);
    t.same(
      [moved.code, moved.stderr],
      [1, `error: HTTP_PORT: 127.0.0.1:${String(otherTcp)} is taken by another program (EADDRINUSE)\n`],
      "another program's port is refused while the daemon runs too",
    );
    t.match(read(file), { httpPort: http, radiusAuthPort: acct, radiusAcctPort: auth });
    daemon.child.kill('SIGTERM');
    t.equal(await daemon.exited, 0);
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
