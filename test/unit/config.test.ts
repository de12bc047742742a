import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ConfigError, finalizeConfig, loadConfig, resolveConfig } from '../../src/config/index.js';
import { SECRETS_FILE } from '../../src/config/secrets.js';

const NO_FILE = { defaultConfigFile: '/nonexistent/hotspot.env' };

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

t.test('zero configuration gives the documented defaults', async (t) => {
  const c = loadConfig({ env: {}, ...NO_FILE });
  t.equal(c.dataDir, './data');
  t.equal(c.publicBaseUrl, 'http://localhost:8080');
  t.equal(c.httpHost, '0.0.0.0');
  t.equal(c.httpPort, 8080);
  t.equal(c.radiusAuthPort, 1812);
  t.equal(c.radiusAcctPort, 1813);
  t.equal(c.serviceName, 'Hotspot');
  t.equal(c.invoicePrefix, 'HS');
  t.equal(c.oidcIdToken, true);
  t.same(c.corsAllowedOrigins, []);
  t.same(c.trustProxy, { kind: 'loopback' });
  t.equal(c.smsProvider, 'outbox');
  t.equal(c.paymentProvider, 'sandbox');
  t.equal(c.sandboxAutopaySeconds, 0);
  t.equal(c.radiusSecret, null, 'generated later, not here');
  const full = finalizeConfig(c, { radiusSecret: 'r', paymentWebhookSecret: 'w' });
  t.equal(full.webauthnRpId, 'localhost');
  t.equal(full.webauthnOrigin, 'http://localhost:8080');
  t.equal(full.smsSenderId, 'Hotspot');
  t.ok(Object.isFrozen(full));
});

t.test('PUBLIC_BASE_URL unset follows HTTP_PORT, so the printed links reach the box', async (t) => {
  t.equal(loadConfig({ env: { HTTP_PORT: '9000' }, ...NO_FILE }).publicBaseUrl, 'http://localhost:9000');
  const dir = t.testdir({ 'hotspot.env': 'HTTP_PORT=9090\n' });
  t.equal(
    loadConfig({ env: {}, configFile: path.join(dir, 'hotspot.env') }).publicBaseUrl,
    'http://localhost:9090',
    'from the env file too',
  );
  t.equal(
    loadConfig({ env: { HTTP_PORT: '9000', PUBLIC_BASE_URL: 'https://wifi.example' }, ...NO_FILE })
      .publicBaseUrl,
    'https://wifi.example',
    'a given PUBLIC_BASE_URL stands',
  );
  t.equal(
    loadConfig({ env: { HTTP_PORT: '80' }, ...NO_FILE }).publicBaseUrl,
    'http://localhost',
    'written as a client writes it (the OIDC issuer is compared as a string)',
  );
  t.equal(
    loadConfig({ env: { HTTP_PORT: '0' }, ...NO_FILE }).publicBaseUrl,
    'http://localhost:8080',
    'port 0 (chosen at listen): the default stands',
  );
  t.equal(
    finalizeConfig(loadConfig({ env: { HTTP_PORT: '9000' }, ...NO_FILE }), {
      radiusSecret: 'r',
      paymentWebhookSecret: 'w',
    }).webauthnOrigin,
    'http://localhost:9000',
    'and the passkey origin with it',
  );
});

t.test('a bad value is one line naming the variable', async (t) => {
  t.same(
    problemsOf(() => loadConfig({ env: { HTTP_PORT: '80x' }, ...NO_FILE })),
    ['HTTP_PORT: must be a port number 0-65535 (got "80x")'],
  );
  t.same(
    problemsOf(() => loadConfig({ env: { PUBLIC_BASE_URL: 'ftp://x' }, ...NO_FILE })),
    ['PUBLIC_BASE_URL: must be an absolute http:// or https:// URL (got "ftp://x")'],
  );
  t.same(
    problemsOf(() => loadConfig({ env: { TRUST_PROXY: '10.0.0.0/33' }, ...NO_FILE })),
    ['TRUST_PROXY: "10.0.0.0/33" has an invalid prefix length (got "10.0.0.0/33")'],
  );
  t.same(
    problemsOf(() => loadConfig({ env: { SMS_PROVIDER: 'http' }, ...NO_FILE })),
    ['SMS_HTTP_URL: must be set when SMS_PROVIDER is http'],
  );
  t.same(
    problemsOf(() => loadConfig({ env: { RADIUS_ACCT_PORT: '1812' }, ...NO_FILE })),
    ['RADIUS_ACCT_PORT: must differ from RADIUS_AUTH_PORT'],
  );
});

t.test('ROUTER_DOWN_AFTER under 1.5 × RADIUS_INTERIM_INTERVAL is refused, not quietly raised', async (t) => {
  const line = (least: number, interim: number, got: string) =>
    `ROUTER_DOWN_AFTER: must be at least 1.5 × RADIUS_INTERIM_INTERVAL, ${String(least)} seconds with RADIUS_INTERIM_INTERVAL ${String(interim)} (got "${got}")`;
  for (const [env, problem] of [
    [{ ROUTER_DOWN_AFTER: '30' }, line(450, 300, '30')],
    [{ ROUTER_DOWN_AFTER: '1m' }, line(450, 300, '1m')],
    [{ ROUTER_DOWN_AFTER: '449' }, line(450, 300, '449')],
    [{ ROUTER_DOWN_AFTER: '10m', RADIUS_INTERIM_INTERVAL: '900' }, line(1350, 900, '10m')],
    [{ ROUTER_DOWN_AFTER: '90', RADIUS_INTERIM_INTERVAL: '61' }, line(92, 61, '90')],
  ] as const)
    t.same(
      problemsOf(() => loadConfig({ env, ...NO_FILE })),
      [problem],
      JSON.stringify(env),
    );
  const dir = t.testdir({ 'hotspot.env': 'ROUTER_DOWN_AFTER=5m\nRADIUS_INTERIM_INTERVAL=5m\n' });
  t.same(
    problemsOf(() => loadConfig({ env: {}, configFile: path.join(dir, 'hotspot.env') })),
    [line(450, 300, '5m')],
    'from the env file too',
  );

  t.equal(loadConfig({ env: { ROUTER_DOWN_AFTER: '450' }, ...NO_FILE }).routerDownAfter, 450, 'the minimum');
  t.equal(loadConfig({ env: {}, ...NO_FILE }).routerDownAfter, 600, 'the default, 10 minutes');
  t.equal(
    loadConfig({ env: { RADIUS_INTERIM_INTERVAL: '900' }, ...NO_FILE }).routerDownAfter,
    1350,
    'unset, it follows a long interval: the default is never refused',
  );
  t.same(
    problemsOf(() =>
      loadConfig({ env: { RADIUS_INTERIM_INTERVAL: '10', ROUTER_DOWN_AFTER: '1' }, ...NO_FILE }),
    ),
    ['RADIUS_INTERIM_INTERVAL: must be at least 60 seconds (got "10")'],
    'a bad interval is said once, not again through ROUTER_DOWN_AFTER',
  );
  t.equal(
    loadConfig({ env: { ROUTER_DOWN_AFTER: '30' }, ...NO_FILE, purpose: 'data' }).routerDownAfter,
    30,
    'backup and restore do not use it, and a nightly backup does not stop on it',
  );
});

t.test(
  'VENUE_TIMEZONE takes what ICU lists and what only its formatter knows, and nothing else',
  async (t) => {
    // ICU's list of zones holds Asia/Calcutta and Africa/Dar_es_Salaam but not UTC or Asia/Kolkata.
    for (const zone of ['Africa/Dar_es_Salaam', 'Asia/Calcutta', 'Asia/Kolkata', 'UTC', 'America/Santiago'])
      t.equal(loadConfig({ env: { VENUE_TIMEZONE: ` ${zone} ` }, ...NO_FILE }).venueTimezone, zone, zone);
    t.same(
      problemsOf(() => loadConfig({ env: { VENUE_TIMEZONE: 'Mars/Olympus_Mons' }, ...NO_FILE })),
      ['VENUE_TIMEZONE: must be an IANA time zone such as Africa/Dar_es_Salaam (got "Mars/Olympus_Mons")'],
    );
  },
);

t.test('every problem is reported at once', async (t) => {
  const problems = problemsOf(() =>
    loadConfig({
      env: { HTTP_PORT: '70000', LOG_LEVEL: 'loud', INVOICE_PREFIX: 'hs', OIDC_ID_TOKEN: 'maybe' },
      ...NO_FILE,
    }),
  );
  t.equal(problems.length, 4);
  t.ok(problems.some((p) => p.startsWith('HTTP_PORT:')));
  t.ok(problems.some((p) => p.startsWith('LOG_LEVEL:')));
  t.ok(problems.some((p) => p.startsWith('INVOICE_PREFIX:')));
  t.ok(problems.some((p) => p.startsWith('OIDC_ID_TOKEN:')));
});

t.test('a secret value is never echoed in an error', async (t) => {
  const problems = problemsOf(() => loadConfig({ env: { SMTP_URL: 'ftp://user:hunter2@mail' }, ...NO_FILE }));
  t.equal(problems.length, 1);
  t.match(problems[0], /^SMTP_URL: /);
  t.notMatch(problems[0], /hunter2/);
});

t.test(
  'the env file is read, the environment wins, unknown keys are refused with a suggestion',
  async (t) => {
    const dir = t.testdir({
      'hotspot.env': '# venue settings\nHTTP_PORT=9090\nSERVICE_NAME="Cafe Wi-Fi"\nINVOICE_PREFIX=CAFE\n',
      'typo.env': 'HTTP_PROT=9090\nTOTALLY_UNRELATED=1\n',
    });
    const c = loadConfig({ env: { INVOICE_PREFIX: 'ENV' }, configFile: path.join(dir, 'hotspot.env') });
    t.equal(c.httpPort, 9090);
    t.equal(c.serviceName, 'Cafe Wi-Fi');
    t.equal(c.invoicePrefix, 'ENV');
    t.same(
      problemsOf(() => loadConfig({ env: {}, configFile: path.join(dir, 'typo.env') })),
      [
        'HTTP_PROT: unknown setting in the config file (did you mean HTTP_PORT?)',
        'TOTALLY_UNRELATED: unknown setting in the config file',
      ],
    );
    // The default file is read only when it exists; an explicit one must exist.
    t.equal(loadConfig({ env: {}, defaultConfigFile: path.join(dir, 'hotspot.env') }).httpPort, 9090);
    t.same(
      problemsOf(() => loadConfig({ env: {}, configFile: path.join(dir, 'missing.env') })),
      [`--config: cannot read ${path.join(dir, 'missing.env')}: ENOENT`],
    );
    // A default file that exists but cannot be read is named as the env file, not as --config.
    t.same(
      problemsOf(() => loadConfig({ env: {}, defaultConfigFile: dir })),
      [`env file: cannot read ${dir}: EISDIR`],
    );
  },
);

t.test('TRUST_PROXY accepts keywords and CIDR lists', async (t) => {
  const c = loadConfig({ env: { TRUST_PROXY: '10.0.0.0/8, 192.168.1.1, fd00::/8' }, ...NO_FILE });
  t.equal(c.trustProxy.kind, 'cidrs');
  if (c.trustProxy.kind !== 'cidrs') return;
  t.ok(c.trustProxy.list.check('10.20.30.40', 'ipv4'));
  t.ok(c.trustProxy.list.check('192.168.1.1', 'ipv4'));
  t.notOk(c.trustProxy.list.check('192.168.1.2', 'ipv4'));
  t.ok(c.trustProxy.list.check('fd00::1', 'ipv6'));
});

t.test(
  'generated secrets are created once with mode 0600, reused, and yield to configured ones',
  async (t) => {
    const root = t.testdir();
    const dataDir = path.join(root, 'data');
    const first = resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE, create: true });
    t.equal(statSync(dataDir).mode & 0o777, 0o700, 'data directory is 0700');
    const file = path.join(dataDir, SECRETS_FILE);
    t.equal(statSync(file).mode & 0o777, 0o600, 'secrets file is 0600');
    t.match(first.radiusSecret, /^[A-Za-z0-9]{24}$/);
    t.match(first.paymentWebhookSecret, /^[A-Za-z0-9_-]{43}$/);
    const before = readFileSync(file, 'utf8');

    const second = resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE, create: true });
    t.equal(second.radiusSecret, first.radiusSecret);
    t.equal(second.paymentWebhookSecret, first.paymentWebhookSecret);
    t.equal(readFileSync(file, 'utf8'), before, 'not rewritten');
    t.equal(first.newDataDir, true);
    t.equal(second.newDataDir, true, 'secrets alone are no box: the database is');

    writeFileSync(path.join(dataDir, 'hotspot.db'), '');
    const configured = resolveConfig({
      env: { HOTSPOT_DATA_DIR: dataDir, RADIUS_SECRET: 'from-env' },
      ...NO_FILE,
    });
    t.equal(configured.newDataDir, false, 'a box lives there now');
    t.equal(configured.radiusSecret, 'from-env');
    t.equal(configured.paymentWebhookSecret, first.paymentWebhookSecret);
  },
);

t.test('without create, a data directory that holds no box is refused and nothing is created', async (t) => {
  const root = t.testdir({ empty: {}, stranger: { 'notes.txt': 'not ours' } });
  for (const name of ['absent', 'empty', 'stranger']) {
    const dataDir = path.join(root, name);
    t.same(
      problemsOf(() => resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE })),
      [
        `no hotspot-ctl data in ${dataDir} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it`,
      ],
      name,
    );
  }
  t.notOk(existsSync(path.join(root, 'absent')), 'the absent one stays absent');
  t.same(readdirSync(path.join(root, 'empty')), [], 'the empty one stays empty');
  t.same(readdirSync(path.join(root, 'stranger')), ['notes.txt']);
  // On SQLite the database is the box (a restored one before its first start, say): secrets.env
  // or the vault key alone, which a start or a restore that failed leaves behind, is none, and
  // nothing is added to it. On PostgreSQL, whose database is the server's, its keys are the box.
  const postgres = { DATABASE_URL: 'postgres://hotspot@127.0.0.1:1/hotspot' };
  for (const [file, env, box] of [
    ['hotspot.db', {}, true],
    ['secrets.env', {}, false],
    ['vault.key', {}, false],
    ['vault.key', postgres, true],
    ['secrets.env', postgres, true],
    ['hotspot.db', postgres, true],
  ] as const) {
    const dataDir = path.join(root, `with-${file}-${String(box)}-${Object.keys(env).length}`);
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, file), '');
    const name = `${file}${'DATABASE_URL' in env ? ' on PostgreSQL' : ''}`;
    const resolve = () => resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir, ...env }, ...NO_FILE });
    if (box) t.equal(resolve().newDataDir, false, name);
    else {
      t.same(
        problemsOf(resolve),
        [
          `no hotspot-ctl data in ${dataDir} (is HOTSPOT_DATA_DIR right?); run hotspot-ctl setup or start the daemon once to create it`,
        ],
        name,
      );
      t.same(readdirSync(dataDir), [file], `${name}: nothing added`);
    }
  }
});

t.test('an existing data directory that is too open is tightened to 0700', async (t) => {
  const root = t.testdir({ data: {} });
  const dataDir = path.join(root, 'data');
  writeFileSync(path.join(root, 'marker'), '');
  const { chmodSync } = await import('node:fs');
  chmodSync(dataDir, 0o755);
  resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE, create: true });
  t.equal(statSync(dataDir).mode & 0o777, 0o700);
});

t.test('a data directory that cannot be created names HOTSPOT_DATA_DIR', async (t) => {
  const root = t.testdir({ 'a-file': 'not a directory' });
  for (const dataDir of [path.join(root, 'a-file'), path.join(root, 'a-file', 'data')]) {
    const problems = problemsOf(() =>
      resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE, create: true }),
    );
    t.equal(problems.length, 1);
    t.match(problems[0], new RegExp(`^HOTSPOT_DATA_DIR: cannot create or use ${dataDir}: E[A-Z]+$`));
  }
});

t.test(
  'root may not work in a data directory that belongs to the daemon user',
  { skip: process.getuid?.() !== 0 && 'needs root' },
  async (t) => {
    const { chownSync } = await import('node:fs');
    const dataDir = path.join(t.testdir({ data: {} }), 'data');
    chownSync(dataDir, 65534, 65534);
    t.same(
      problemsOf(() => resolveConfig({ env: { HOTSPOT_DATA_DIR: dataDir }, ...NO_FILE, create: true })),
      [
        `HOTSPOT_DATA_DIR: ${dataDir} belongs to uid 65534; run hotspot-ctl as that user (sudo -u <user> hotspot-ctl …), not as root`,
      ],
    );
    t.same(readdirSync(dataDir), [], 'nothing was created in it');
  },
);

t.test(
  'remote-router settings: RadSec files in pairs and off HTTP_PORT, WireGuard values checked',
  async (t) => {
    t.same(
      problemsOf(() => loadConfig({ env: { RADSEC_PORT: '8080' }, ...NO_FILE })),
      ['RADSEC_PORT: must differ from HTTP_PORT'],
    );
    t.same(
      problemsOf(() => loadConfig({ env: { RADSEC_CERT_FILE: '/etc/ssl/box.pem' }, ...NO_FILE })),
      ['RADSEC_KEY_FILE: RADSEC_CERT_FILE and RADSEC_KEY_FILE are set together, or neither'],
    );
    t.same(
      problemsOf(() =>
        loadConfig({
          env: {
            WIREGUARD_ENDPOINT: 'vpn.example.com',
            WIREGUARD_PUBLIC_KEY: 'short',
            WIREGUARD_ADDRESS: '10.99.0.1',
          },
          ...NO_FILE,
        }),
      ),
      [
        'WIREGUARD_ENDPOINT: must be host:port, e.g. vpn.example.com:51820 (got "vpn.example.com")',
        'WIREGUARD_PUBLIC_KEY: must be a WireGuard key (44 base64 characters) (got "short")',
        'WIREGUARD_ADDRESS: must be an IPv4 address with a prefix length from /8 to /30, e.g. 10.99.0.1/24 (got "10.99.0.1")',
      ],
    );
    const good = loadConfig({
      env: {
        WIREGUARD_ENDPOINT: '[2001:db8::1]:51820',
        WIREGUARD_PUBLIC_KEY: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
        WIREGUARD_ADDRESS: '10.99.0.1/24',
        RADSEC_PORT: '2083',
      },
      ...NO_FILE,
    });
    t.match(good, {
      wireguardEndpoint: '[2001:db8::1]:51820',
      wireguardAddress: '10.99.0.1/24',
      radsecPort: 2083,
    });
    const final = finalizeConfig(good, {
      radiusSecret: 'r'.repeat(24),
      paymentWebhookSecret: 'w'.repeat(32),
    });
    t.match(final, {
      radsecCertFile: /data\/radsec\/server\.pem$/,
      radsecKeyFile: /data\/radsec\/server\.key$/,
      radsecCaFile: /data\/radsec\/ca\.pem$/,
    });
  },
);

t.test('GUEST_REMINDERS: both by default, off, or a comma-separated choice', async (t) => {
  const reminders = (value?: string) =>
    loadConfig({ env: value === undefined ? {} : { GUEST_REMINDERS: value }, ...NO_FILE }).guestReminders;
  t.same(reminders(), ['ends', 'data']);
  t.same(reminders('off'), []);
  t.same(reminders('data'), ['data']);
  t.same(reminders(' Data , ends '), ['ends', 'data'], 'any order and case');
  for (const bad of ['', 'sms', 'ends,ends', 'ends,off'])
    t.same(
      problemsOf(() => loadConfig({ env: { GUEST_REMINDERS: bad }, ...NO_FILE })),
      [`GUEST_REMINDERS: must be off, or one or more of ends, data separated by commas (got "${bad}")`],
      JSON.stringify(bad),
    );
});

t.test(
  'SMS_SENDER_ID: checked for the SMS provider; the default is made to fit from SERVICE_NAME',
  async (t) => {
    const beem = { SMS_PROVIDER: 'beem', BEEM_API_KEY: 'k', BEEM_SECRET_KEY: 's' };
    const at = { SMS_PROVIDER: 'africastalking', AFRICASTALKING_USERNAME: 'u', AFRICASTALKING_API_KEY: 'k' };
    const http = { SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example/send' };
    for (const provider of [beem, at, http]) {
      t.equal(
        loadConfig({ env: { ...provider, SMS_SENDER_ID: 'MamaCafe25' }, ...NO_FILE }).smsSenderId,
        'MamaCafe25',
      );
      for (const bad of ['TWELVECHARSX', 'Mama Cafe', 'Café'])
        t.same(
          problemsOf(() => loadConfig({ env: { ...provider, SMS_SENDER_ID: bad }, ...NO_FILE })),
          [
            `SMS_SENDER_ID: ${provider.SMS_PROVIDER} takes a sender id of 1-11 letters (A-Z) or digits, no spaces (got "${bad}")`,
          ],
          `${provider.SMS_PROVIDER} refuses ${bad}`,
        );
    }
    t.equal(
      loadConfig({ env: { SMS_SENDER_ID: 'Any sender, kept in the outbox' }, ...NO_FILE }).smsSenderId,
      'Any sender, kept in the outbox',
      'the outbox only records it',
    );

    const derived = (name: string, env: Record<string, string> = beem): string =>
      finalizeConfig(loadConfig({ env: { ...env, SERVICE_NAME: name }, ...NO_FILE }), {
        radiusSecret: 'r',
        paymentWebhookSecret: 'w',
      }).smsSenderId;
    t.equal(derived('Cafe'), 'Cafe');
    t.equal(derived('Mama Ntilie Restaurant & Bar'), 'MamaNtilie', 'whole words while they fit');
    t.equal(derived('Kilimanjaro Wonders Hotel'), 'Kilimanjaro');
    t.equal(derived('Serengetiwildlifelodge'), 'Serengetiwi', 'a long first word is cut');
    t.equal(derived('Café Zanzíbar'), 'Cafe', 'accents dropped; Zanzibar no longer fits');
    t.equal(derived('Bar Ñandú 24'), 'BarNandu24');
    t.same(
      problemsOf(() => loadConfig({ env: { ...at, SERVICE_NAME: 'مقهى' }, ...NO_FILE })),
      [
        'SMS_SENDER_ID: SERVICE_NAME "مقهى" has no letters or digits (A-Z, 0-9) to make an SMS sender id from: set SMS_SENDER_ID (1-11 letters or digits)',
      ],
    );
    t.equal(derived('مقهى', {}), 'Hotspot', 'with the outbox a name in another script is no problem');
  },
);
