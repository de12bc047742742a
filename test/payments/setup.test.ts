import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { BIN, cliEnv, runCli } from '../helpers/cli.js';
import { declineFirstRun, Terminal } from '../helpers/tty.js';

/** `hotspot-ctl setup` for AzamPay and a fallback order (docs/payments.md). */

const read = (file: string) => loadConfig({ env: {}, configFile: file });

t.test('setup makes the AzamPay callback token when there is none, and prints the URL once', async (t) => {
  const dir = t.testdir();
  const file = path.join(dir, 'hotspot.env');
  const env = cliEnv(path.join(dir, 'data'));
  const set = (pairs: Record<string, string>) =>
    Object.entries(pairs).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const first = await runCli(
    [
      '--config',
      file,
      'setup',
      '--non-interactive',
      ...set({
        PUBLIC_BASE_URL: 'https://wifi.venue.example',
        PAYMENT_PROVIDERS: 'selcom,azampay',
        SELCOM_API_KEY: 'k',
        SELCOM_API_SECRET: 's',
        SELCOM_VENDOR: 'TILL1',
        AZAMPAY_APP_NAME: 'VenueWifi',
        AZAMPAY_CLIENT_ID: 'client-1',
        AZAMPAY_CLIENT_SECRET: 'azam-secret-1',
        AZAMPAY_API_KEY: 'azam-key-1',
      }),
      '--json',
    ],
    env,
  );
  t.equal(first.code, 0, first.stderr);
  const config = read(file);
  t.match(config, { paymentProviders: ['selcom', 'azampay'], azampayAppName: 'VenueWifi' });
  t.match(config.azampayCallbackToken, /^[A-Za-z0-9_-]{43}$/);
  t.match(JSON.parse(first.stdout), { settings: { AZAMPAY_CALLBACK_TOKEN: '(secret, not shown)' } });
  t.equal(
    first.stderr.split('\n')[0],
    `register this callback URL with AzamPay: https://wifi.venue.example/webhooks/azampay/${String(config.azampayCallbackToken)}`,
  );
  t.notMatch(first.stdout + first.stderr, /azam-secret-1|azam-key-1/);

  const again = await runCli(
    ['--config', file, 'setup', '--non-interactive', '--set', 'SERVICE_NAME=Cafe'],
    env,
  );
  t.equal(again.code, 0, again.stderr);
  t.equal(read(file).azampayCallbackToken, config.azampayCallbackToken, 'kept');
  t.notMatch(again.stderr, /register/, 'said once');
});

t.test('setup on a terminal asks for a fallback provider and then for each one’s settings', async (t) => {
  const dir = t.testdir();
  const file = path.join(dir, 'hotspot.env');
  const term = new Terminal(`${BIN} --config ${file} setup`, {
    ...cliEnv(path.join(dir, 'data')),
    TERM: 'xterm-256color',
  });
  t.teardown(() => term.close());
  for (const name of [
    'PUBLIC_BASE_URL',
    'SERVICE_NAME',
    'HOTSPOT_DATA_DIR',
    'INVOICE_PREFIX',
    'VENUE_TIMEZONE',
  ]) {
    await term.waitFor(new RegExp(`\\? ${name}: `));
    term.keys('Enter');
  }
  await term.waitFor(/\? PAYMENT_PROVIDER: /);
  term.keys('Down', 'Enter'); // selcom
  await term.waitFor(/\? PAYMENT_PROVIDERS: when selcom refuses a payment prompt or cannot be reached, try/);
  term.keys('Down', 'Enter'); // azampay
  for (const [name, value] of [
    ['SELCOM_BASE_URL', ''],
    ['SELCOM_API_KEY', 'sk'],
    ['SELCOM_API_SECRET', 'ss'],
    ['SELCOM_VENDOR', 'TILL1'],
    ['AZAMPAY_AUTH_URL', ''],
    ['AZAMPAY_CHECKOUT_URL', ''],
    ['AZAMPAY_APP_NAME', 'VenueWifi'],
    ['AZAMPAY_CLIENT_ID', 'client-1'],
    ['AZAMPAY_CLIENT_SECRET', 'azam-secret-1'],
    ['AZAMPAY_API_KEY', 'azam-key-1'],
    ['AZAMPAY_CALLBACK_TOKEN', ''], // the one made for it
  ] as const) {
    await term.waitFor(new RegExp(`\\? ${name}: `));
    if (value !== '') term.type(value);
    else term.keys('Enter');
  }
  await term.waitFor(/\? SMS_PROVIDER: /);
  term.keys('Enter');
  for (const name of ['SMTP_URL', 'MAIL_FROM']) {
    await term.waitFor(new RegExp(`\\? ${name}: `));
    term.keys('Enter');
  }
  // The first-run offer (test/cli/setup-first-run.test.ts), declined here.
  await declineFirstRun(term);
  const screen = await term.waitFor(/EXIT=\d+/);
  t.match(screen, /EXIT=0/);
  t.match(screen, /register this callback URL with AzamPay: http:\/\/localhost:8080\/webhooks\/azampay\//);
  t.notMatch(screen, /azam-secret-1|azam-key-1/, 'secrets are masked on screen');
  t.match(read(file), {
    paymentProvider: 'selcom',
    paymentProviders: ['selcom', 'azampay'],
    selcomVendor: 'TILL1',
    azampayClientId: 'client-1',
    azampayClientSecret: 'azam-secret-1',
    azampayCallbackToken: /^[A-Za-z0-9_-]{43}$/,
  });
});
