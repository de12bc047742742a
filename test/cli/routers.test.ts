import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../src/db/index.js';
import { boxEnv, cliEnv, runCli } from '../helpers/cli.js';
import { unwatchedDb } from '../helpers/store.js';

/** The CLI of issue 17: plan speeds and the generated router set-up. */

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

t.test('plans take --download/--upload with k, M and G (1M = 1000k); none clears them', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const added = await runCli(
    [
      'plans',
      'add',
      '--name',
      'Fast',
      '--price',
      '2000',
      '--duration',
      '1h',
      '--download',
      '4M',
      '--upload',
      '512k',
      '--json',
    ],
    env,
  );
  t.equal(added.code, 0, added.stderr);
  const plan = json(added.stdout);
  t.match(plan, { download_kbps: 4000, upload_kbps: 512 });
  t.match(
    (await runCli(['plans', 'list'], env)).stdout,
    /\s+DOWNLOAD\s+UPLOAD\s+REMEMBER_DEVICE\n[\s\S]*Fast[\s\S]*\s+4M\s+512k\s+false\n/,
  );

  const id = String(plan.id);
  const changed = await runCli(
    ['plans', 'update', id, '--download', '1.5M', '--upload', 'none', '--json'],
    env,
  );
  t.equal(changed.code, 0, changed.stderr);
  t.match(json(changed.stdout), { download_kbps: 1500, upload_kbps: null, price_tzs: 2000 });
  t.match(
    (await runCli(['plans', 'list'], env)).stdout,
    /Fast[\s\S]*\s+1500k\s+-\s+false\n/,
    'no upload limit reads -, as every table shows none',
  );

  const slow = await runCli(['plans', 'update', id, '--download', '32k'], env);
  t.equal(slow.code, 1);
  t.equal(slow.stderr, 'error: download_kbps must be a whole number of kbit/s from 64 to 4000000, or null\n');
  const huge = await runCli(['plans', 'update', id, '--upload', '5G'], env);
  t.equal(huge.code, 1);
  t.equal(huge.stderr, 'error: upload_kbps must be a whole number of kbit/s from 64 to 4000000, or null\n');
  for (const value of ['fast', '0.5k', '4 Mbit', '-1M']) {
    const res = await runCli(['plans', 'update', id, '--download', value], env);
    t.equal(res.code, 2, value);
    t.match(res.stderr, /must be kbit\/s \(512, 512k\) or with M or G \(4M, 1\.5M, 1G\), or none/);
  }
  t.match(
    JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout),
    [{ download_kbps: 1500, upload_kbps: null }],
    'the refused changes changed nothing',
  );
  const applied = await runCli(['plans', 'update', id, '--apply-to-live', '--json'], env);
  t.equal(applied.code, 0, applied.stderr);
  t.match(json(applied.stdout), {
    download_kbps: 1500,
    apply_to_live: { grants_updated: 0, status: 'no_sessions', sessions: [] },
  });
  t.match(
    (await runCli(['plans', 'update', id, '--apply-to-live'], env)).stdout,
    /no live sessions to change\n$/,
  );
});

const DEVICE = [
  '--name',
  'Bar',
  '--model',
  'MikroTik hAP ax2',
  '--mac',
  'aa:bb:cc:dd:ee:0b',
  '--network',
  '10.5.50.0/24',
  '--uam-server',
  'http://192.168.88.10:8080/portal',
  '--nas-id',
  'bar-01',
  '--client-ip',
  '192.168.88.2',
];

t.test(
  'devices router-config prints the router set-up with its own secret, never the global one',
  async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    // The CLI reads the daemon's settings: its RADIUS ports are in the set-up (the CLI binds none).
    const env = await boxEnv(dataDir, { RADIUS_AUTH_PORT: '1812', RADIUS_ACCT_PORT: '1813' });
    const added = json((await runCli(['devices', 'add', ...DEVICE, '--json'], env)).stdout);
    const id = String(added.id);
    const secret = String(added.radius_secret);

    const routeros = await runCli(['devices', 'router-config', id], env);
    t.equal(routeros.code, 0, routeros.stderr);
    t.match(routeros.stdout, '/system identity set name="bar-01"');
    t.match(
      routeros.stdout,
      `/radius add service=hotspot address=192.168.88.10 secret="${secret}" authentication-port=1812 accounting-port=1813`,
      "the portal's host is this box's address",
    );
    t.match(routeros.stdout, '/radius incoming set accept=yes port=3799');
    t.match(routeros.stdout, 'login-by=http-chap,http-pap');
    t.match(
      routeros.stdout,
      'action=\\"http://192.168.88.10:8080/portal\\"',
      'login.html sends guests to the portal',
    );

    const chilli = await runCli(
      ['devices', 'router-config', id, '--format', 'coovachilli', '--radius-address', '10.9.9.9'],
      env,
    );
    t.equal(chilli.code, 0, chilli.stderr);
    t.match(chilli.stdout, "HS_RADIUS='10.9.9.9'\n");
    t.match(chilli.stdout, `HS_RADSECRET='${secret}'\n`);
    t.match(chilli.stdout, "HS_NASID='bar-01'\n");
    const openwrt = json(
      (await runCli(['devices', 'router-config', id, '--format', 'openwrt', '--json'], env)).stdout,
    );
    t.match(openwrt, { format: 'openwrt', config: /uci set 'chilli\.@chilli\[0\]\.radiusnasid=bar-01'/ });

    const moved = await runCli(['devices', 'update', id, '--gateway-ip', '10.5.50.254', '--json'], env);
    t.match(json(moved.stdout), { gateway_ip: '10.5.50.254' });
    t.match(
      (await runCli(['devices', 'router-config', id], env)).stdout,
      'local address of network\n# 10.5.50.254/24',
    );
    const outside = await runCli(['devices', 'update', id, '--gateway-ip', '10.6.0.1'], env);
    t.equal(outside.code, 1);
    t.equal(outside.stderr, 'error: gateway_ip must be an IPv4 address inside local_network\n');
    t.match(json((await runCli(['devices', 'update', id, '--no-gateway-ip', '--json'], env)).stdout), {
      gateway_ip: null,
    });
    await runCli(['devices', 'update', id, '--global-secret'], env);
    const global =
      /^RADIUS_SECRET=(\S+)$/m.exec(readFileSync(path.join(dataDir, 'secrets.env'), 'utf8'))?.[1] ?? '';
    const placeholder = await runCli(['devices', 'router-config', id], env);
    t.equal(placeholder.code, 0);
    t.match(placeholder.stdout, 'secret="REPLACE_WITH_GLOBAL_RADIUS_SECRET"');
    t.notMatch(placeholder.stdout, global, 'the global secret is never printed');

    const bogus = await runCli(['devices', 'router-config', id, '--format', 'cisco'], env);
    t.equal(bogus.code, 2);
    t.match(bogus.stderr, /Allowed choices are routeros, coovachilli, openwrt/);
    const badAddress = await runCli(['devices', 'router-config', id, '--radius-address', 'box.lan'], env);
    t.equal(badAddress.code, 1);
    t.equal(badAddress.stderr, 'error: radius_address must be an IPv4 address\n');
    const off = await runCli(['devices', 'router-config', id], cliEnv(dataDir));
    t.equal(off.code, 1);
    t.equal(off.stderr, 'error: RADIUS is off on this box (RADIUS_AUTH_PORT or RADIUS_ACCT_PORT is 0)\n');
    const unknown = await runCli(['devices', 'router-config', '00000000-0000-4000-8000-000000000000'], env);
    t.equal(unknown.code, 1);
    t.equal(unknown.stderr, 'error: device not found\n');
  },
);

t.test('devices list says whether each router is online and when it was last heard', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  await runCli(['devices', 'add', ...DEVICE], env);
  const [row] = JSON.parse((await runCli(['devices', 'list', '--json'], env)).stdout) as Record<
    string,
    unknown
  >[];
  t.match(row, { online: false, last_seen_at: null });
  t.match(
    (await runCli(['devices', 'list'], env)).stdout,
    /\s+ONLINE\s+LAST_SEEN\s+LIVE\s+DOWN_SINCE\n.*\s+no\s+never\s+0\s+-\n/,
  );
  // The router-down job's mark (docs/decisions/0038): down since it was last heard.
  await heardAt(dataDir, '2026-01-15T08:00:00.000Z');
  t.match(
    (await runCli(['devices', 'list'], env)).stdout,
    /\s+down\s+2026-01-15T08:00:00\.000Z\s+0\s+2026-01-15T08:00:00\.000Z\n/,
    'the text shows Down (as the routers page) and since when, as --json does',
  );
  const status = json((await runCli(['status', '--json'], env)).stdout);
  t.match(status, { routers: { registered: 1, online: 0, down: 1 } });
});

/** The router-down job's mark on every router: heard last at `at` and down since then. */
async function heardAt(dataDir: string, at: string): Promise<void> {
  const pg = unwatchedDb(dataDir);
  if (pg) {
    await pg.updateTable('devices').set({ last_seen_at: at, down_since: at }).execute();
    await pg.destroy();
    return;
  }
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.prepare('update devices set last_seen_at = ?, down_since = ?').run(at, at);
  db.close();
}
