import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { Terminal } from '../helpers/tty.js';

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
    for (const question of [/owner account now/, /first plan now/, /first router now/]) {
      await term.waitFor(question);
      term.type('n');
    }
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
