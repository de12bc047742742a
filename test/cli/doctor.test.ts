import { createSocket } from 'node:dgram';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { DATABASE_FILE } from '../../src/db/index.js';
import { openVault } from '../../src/lib/vault.js';
import { freePort, freeUdpPorts } from '../helpers/app.js';
import { AZAMPAY_APP, startAzamPayFake } from '../helpers/azampay-fake.js';
import { attrText, CoaListener, type Answer } from '../helpers/coa-listener.js';
import { fakeGateway, fakeSmsGateway } from '../helpers/sms-gateway.js';
import { cliEnv, runCli, startCli } from '../helpers/cli.js';
import { onPostgres, unwatchedDb } from '../helpers/store.js';

/** `hotspot-ctl doctor` (issue 20 item 3, DESIGN.md §4.10, docs/decisions/0033-doctor.md). */

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}
interface Report {
  checks: Check[];
  ok: boolean;
}

const DEVICE = [
  ...['--name', 'Lobby AP', '--model', 'MikroTik hAP ax2', '--mac', 'aa:bb:cc:dd:ee:01'],
  ...['--network', '10.1.0.0/24', '--uam-server', 'http://10.1.0.10:8080/portal'],
  ...['--nas-id', 'lobby-01', '--client-ip', '10.1.0.1'],
];

const ROUTER_SECRET = 'lobby-router-secret-0123456789';

/**
 * A router's CoA port on loopback (test/helpers/coa-listener.ts, written from RFC 5176), answering
 * as told; DEVICE's settings with its address, port and secret.
 */
async function coaRouter(t: Test, answer: Answer) {
  const listener = new CoaListener(ROUTER_SECRET, () => answer);
  const port = await listener.listen();
  t.teardown(() => listener.close());
  const device = [
    ...DEVICE.slice(0, DEVICE.indexOf('--client-ip')),
    ...['--client-ip', '127.0.0.1', '--coa-port', String(port), '--secret', ROUTER_SECRET],
  ];
  return { listener, port, device };
}

/** Error-Cause 503 (RFC 5176 §3.5): what a router says of a session it does not have. */
const NO_SUCH_SESSION = 503;

/** A migrated data directory with its own HTTP port (nothing listens on it) and PUBLIC_BASE_URL on it. */
async function venue(
  t: Test,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; dataDir: string; port: number }> {
  const dataDir = path.join(t.testdir(), 'data');
  const port = await freePort();
  const env = cliEnv(dataDir, {
    HTTP_PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${String(port)}`,
    ...extra,
  });
  const migrated = await runCli(['migrate'], env);
  t.equal(migrated.code, 0, migrated.stderr);
  return { env, dataDir, port };
}

async function doctor(env: Record<string, string>, ...args: string[]) {
  const res = await runCli(['doctor', '--json', ...args], env);
  const report = JSON.parse(res.stdout) as Report;
  const byName = new Map(report.checks.map((c) => [c.name, c]));
  return {
    code: res.code,
    stdout: res.stdout,
    stderr: res.stderr,
    report,
    check: (name: string) => byName.get(name),
  };
}

/**
 * Sets a router's last RADIUS packet, as the daemon's listener would, and with `down` the outage
 * the router-down job reports (docs/decisions/0038).
 */
async function heardAt(dataDir: string, at: string, down = false): Promise<void> {
  const downSince = down ? at : null;
  const pg = unwatchedDb(dataDir);
  if (pg) {
    await pg.updateTable('devices').set({ last_seen_at: at, down_since: downSince }).execute();
    await pg.destroy();
    return;
  }
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.prepare('update devices set last_seen_at = ?, down_since = ?').run(at, downSince);
  db.close();
}

/**
 * Gives a router a RADIUS secret of its own as one stored before `devices` refused secrets under
 * 16 characters was: sealed with the data directory's vault key, as wifi/devices.ts seals it.
 */
async function storedSecret(dataDir: string, id: string, secret: string): Promise<void> {
  const sealed = openVault(dataDir).seal(secret, `device-radius-secret:${id}`);
  const pg = unwatchedDb(dataDir);
  if (pg) {
    await pg.updateTable('devices').set({ radius_secret_enc: sealed }).where('id', '=', id).execute();
    await pg.destroy();
    return;
  }
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.prepare('update devices set radius_secret_enc = ? where id = ?').run(sealed, id);
  db.close();
}

/** A backup file in <data dir>/backups written at `at`. */
function backupAt(dataDir: string, at: Date): void {
  const dir = path.join(dataDir, 'backups');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'hotspot-20260101T000000Z.backup');
  writeFileSync(file, 'a backup');
  utimesSync(file, at, at);
}

const isoAfter = (at: Date, seconds: number): string => new Date(at.getTime() + seconds * 1000).toISOString();

t.test('everything fine: all ok, exit 0, one line per check', async (t) => {
  const fake = await startAzamPayFake();
  t.teardown(fake.close);
  const [auth, acct] = await freeUdpPorts(2);
  const { env, dataDir } = await venue(t, {
    PAYMENT_PROVIDER: 'azampay',
    ...fake.env(),
    RADIUS_HOST: '127.0.0.1',
    RADIUS_AUTH_PORT: String(auth),
    RADIUS_ACCT_PORT: String(acct),
  });
  const router = await coaRouter(t, { nak: NO_SUCH_SESSION });
  t.equal((await runCli(['devices', 'add', ...router.device], env)).code, 0);
  const now = new Date();
  await heardAt(dataDir, now.toISOString());
  if (onPostgres) backupAt(dataDir, now);
  else {
    mkdirSync(path.join(dataDir, 'backups'));
    const made = await runCli(['backup', path.join(dataDir, 'backups', 'hotspot-now.backup')], env);
    t.equal(made.code, 0, made.stderr);
  }
  const daemon = startCli(['serve'], env);
  t.teardown(() => daemon.child.kill('SIGKILL'));
  await daemon.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);

  const { code, report, check } = await doctor(env);
  t.equal(code, 0);
  t.equal(report.ok, true);
  t.same(
    report.checks.map((c) => c.name),
    [
      'http port',
      'radius auth port',
      'radius acct port',
      'radius secret',
      'public url',
      'tls',
      'clock',
      'dns',
      'payment azampay',
      'sms',
      'database',
      'router Lobby AP',
      'disk',
      'backup',
    ],
  );
  for (const name of [
    'http port',
    'radius auth port',
    'radius acct port',
    'public url',
    'tls',
    'dns',
    'sms',
    'database',
    'backup',
  ])
    t.equal(check(name)?.status, 'ok', `${name}: ${String(check(name)?.detail)}`);
  t.match(check('http port'), { detail: /listening/ });
  t.match(check('payment azampay'), { status: 'ok', detail: 'AzamPay reachable, credentials accepted' });
  t.match(check('database'), {
    detail: /^(SQLite .*hotspot\.db|PostgreSQL 127\.0\.0\.1:\d+\/\w+), \d+ migrations applied$/,
  });
  t.match(check('router Lobby AP'), {
    status: 'ok',
    detail: new RegExp(
      `^last RADIUS packet \\d+ s ago; CoA 127\\.0\\.0\\.1:${String(router.port)} answers \\(NAK Session-Context-Not-Found\\)$`,
    ),
  });
  // The probe: a signed Disconnect-Request naming a made-up session and nothing a router could match.
  const [probe] = router.listener.received;
  t.ok(probe, 'the router got the probe');
  t.equal(probe?.code, 40, 'a Disconnect-Request');
  t.equal(probe?.authenticatorOk, true, "signed with the router's secret");
  t.match(probe && attrText(probe, 44), /^hotspot-ctl-doctor-[0-9a-f]{16}$/, 'a made-up Acct-Session-Id');
  t.same(
    probe?.attributes.map((a) => a.type).filter((type) => type !== 80),
    [44],
    'no User-Name, Framed-IP-Address or other identifier: only the Acct-Session-Id',
  );
  t.match(
    check('clock'),
    { detail: /^within 5 s of AzamPay/ },
    'the daemon answering PUBLIC_BASE_URL here is our own clock, never the witness',
  );
  t.notOk(
    report.checks.some((c) => c.status === 'ok' && 'fix' in c),
    'a fix only where something is wrong',
  );

  const human = await runCli(['doctor'], env);
  t.equal(human.code, 0);
  t.match(human.stdout, /^http port +ok {4}127\.0\.0\.1:\d+ listening/m);
  t.match(human.stdout, /^payment azampay +ok {4}AzamPay reachable, credentials accepted$/m);
  t.match(human.stdout, /\n\n0 failed, \d+ warnings, \d+ ok\n$/);
});

t.test('a port another program holds: HTTP and RADIUS fail with the command that finds it', async (t) => {
  const [radiusPort] = await freeUdpPorts(1);
  const { env, port } = await venue(t, { RADIUS_HOST: '127.0.0.1', RADIUS_AUTH_PORT: String(radiusPort) });
  // Another web app, whose /healthz is fine too: a 200 alone does not make it our daemon.
  const squatter = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}'),
  );
  await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
  t.teardown(() => squatter.close());
  const udp = createSocket('udp4');
  await new Promise<void>((resolve) => udp.bind(radiusPort, '127.0.0.1', resolve));
  t.teardown(() => udp.close());

  const { code, report, check } = await doctor(env);
  t.equal(code, 1);
  t.equal(report.ok, false);
  t.same(check('http port'), {
    name: 'http port',
    status: 'fail',
    detail: `127.0.0.1:${String(port)} taken by another program`,
    fix: `find it with: ss -tlnp 'sport = :${String(port)}', then stop it or set HTTP_PORT to another port`,
  });
  t.match(check('radius auth port'), {
    status: 'fail',
    detail: `udp 127.0.0.1:${String(radiusPort)} taken by another program (another RADIUS server?)`,
    fix: `find it with: ss -ulnp 'sport = :${String(radiusPort)}', then stop it or set RADIUS_AUTH_PORT to another port`,
  });
  t.match(check('public url'), { status: 'fail', detail: /answers HTTP 200, not this daemon/ });

  const human = await runCli(['doctor'], env);
  t.equal(human.code, 1);
  t.match(
    human.stdout,
    /^http port +fail {2}127\.0\.0\.1:\d+ taken by another program\n +fix: find it with: ss -tlnp/m,
  );
  t.equal(human.stderr, '', 'the report is the output, no error line');
});

t.test('the clock: skew beyond the TOTP window fails, a small one passes (the injected clock)', async (t) => {
  const fake = await startAzamPayFake();
  t.teardown(fake.close);
  const { env } = await venue(t, { PAYMENT_PROVIDER: 'azampay', ...fake.env() });
  // The CLI's start takes a few seconds off each skew: the assertions leave room for it.
  const ahead = await doctor(env, '--now', '+600');
  t.equal(ahead.code, 1);
  t.match(ahead.check('clock'), {
    status: 'fail',
    detail: /^10 min ahead of AzamPay: two-step codes \(±30 s\) and payment webhooks fail/,
    fix: 'turn NTP on: timedatectl set-ntp true (and let UDP 123 out)',
  });
  t.match((await doctor(env, '--now', '-60')).check('clock'), {
    status: 'fail',
    detail: /^\d+ s behind AzamPay/,
  });
  t.match((await doctor(env, '--now', '+20')).check('clock'), {
    status: 'warn',
    detail: /^\d+ s ahead of AzamPay; NTP/,
  });
  t.match((await doctor(env)).check('clock'), { detail: /^within 5 s of AzamPay/ });

  const bad = await runCli(['doctor', '--now', 'yesterday'], env);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /must be an ISO-8601 time/);
});

t.test('the payment provider: unreachable, or refusing the credentials, fails', async (t) => {
  const closed = await freePort();
  const { env } = await venue(t, {
    PAYMENT_PROVIDER: 'azampay',
    ...(await (async () => {
      const fake = await startAzamPayFake();
      t.teardown(fake.close);
      return fake.env();
    })()),
  });
  const down = await doctor({ ...env, AZAMPAY_AUTH_URL: `http://127.0.0.1:${String(closed)}/auth` });
  t.equal(down.code, 1);
  t.same(down.check('payment azampay'), {
    name: 'payment azampay',
    status: 'fail',
    detail: `http://127.0.0.1:${String(closed)}/auth unreachable (ECONNREFUSED)`,
    fix: 'check the internet connection, the DNS and AZAMPAY_AUTH_URL',
  });

  const refused = await doctor({ ...env, AZAMPAY_CLIENT_SECRET: `${AZAMPAY_APP.clientSecret}-wrong` });
  t.equal(refused.code, 1);
  t.match(refused.check('payment azampay'), {
    status: 'fail',
    detail: /^AzamPay refuses the credentials \(HTTP 4\d\d\)$/,
    fix: 'check AZAMPAY_APP_NAME, AZAMPAY_CLIENT_ID, AZAMPAY_CLIENT_SECRET and AZAMPAY_API_KEY',
  });

  const sms = await doctor({
    ...env,
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: `http://127.0.0.1:${String(closed)}/sms?api_key=sms-key-in-the-url`,
  });
  t.match(sms.check('sms'), {
    status: 'fail',
    detail: `http gateway http://127.0.0.1:${String(closed)} unreachable (ECONNREFUSED)`,
  });
  t.notMatch(sms.stdout, 'sms-key-in-the-url', 'a key in the gateway URL is never printed');

  // A reachable gateway without delivery reports warns: no SMS would ever show as delivered.
  const gateway = await fakeSmsGateway(t, { code: 405 });
  const silent = await doctor({ ...env, SMS_PROVIDER: 'http', SMS_HTTP_URL: gateway.url });
  t.match(silent.check('sms'), {
    status: 'warn',
    detail:
      'http gateway reachable (HTTP 405); no delivery reports: SMS_DELIVERY_TOKEN is unset, so no SMS ever shows as delivered',
    fix: /^run hotspot-ctl setup --non-interactive: it makes SMS_DELIVERY_TOKEN/,
  });
  const reporting = await doctor({
    ...env,
    SMS_PROVIDER: 'http',
    SMS_HTTP_URL: gateway.url,
    SMS_DELIVERY_TOKEN: 'dlr-token-0123456789abcdefghijklmnop',
  });
  t.match(reporting.check('sms'), {
    status: 'ok',
    detail: /^http gateway reachable \(HTTP 405\); delivery reports/,
  });
  t.notMatch(reporting.stdout, 'dlr-token-0123456789', 'the token is never printed');
  t.same(gateway.texts, [], 'the check sends no SMS');
});

t.test(
  'the sandbox: a warning, and the autopay one says Wi-Fi is free; http off loopback warns',
  async (t) => {
    const { env, port } = await venue(t);
    const stopped = await doctor(env);
    t.match(stopped.check('payment sandbox'), {
      status: 'warn',
      detail: 'the sandbox takes no money: guests cannot pay',
    });
    // Regression: the HTTP bind test ran beside the PUBLIC_BASE_URL probe, which then reached it (ECONNRESET).
    t.same(stopped.check('public url'), {
      name: 'public url',
      status: 'warn',
      detail: `http://127.0.0.1:${String(port)} not reachable from this box (ECONNREFUSED); the daemon is not running`,
      fix: 'start it: systemctl start hotspot-ctl',
    });
    t.match(stopped.check('http port'), { status: 'warn', detail: /free: the daemon is not running$/ });
    const autopay = await doctor({ ...env, SANDBOX_AUTOPAY_SECONDS: '10' });
    t.match(autopay.check('payment sandbox'), {
      status: 'warn',
      detail: 'the sandbox pays every invoice after 10 s: Wi-Fi is given away for free',
      fix: /^set SANDBOX_AUTOPAY_SECONDS=0/,
    });
    const plain = await doctor({ ...env, PUBLIC_BASE_URL: 'http://10.255.255.1:8080' });
    t.match(plain.check('tls'), {
      status: 'warn',
      detail: /^PUBLIC_BASE_URL is http on 10\.255\.255\.1: no passkeys/,
      fix: /https:\/\//,
    });
    t.match((await doctor({ ...env, PUBLIC_BASE_URL: 'https://wifi.example' })).check('tls'), {
      status: 'ok',
    });
  },
);

t.test(
  'routers: none, never heard, silent past the online window (the injected clock), heard, DOWN',
  async (t) => {
    const { env, dataDir } = await venue(t);
    const none = await doctor(env);
    t.match(none.check('routers'), {
      status: 'warn',
      detail: /no router registered/,
      fix: 'register each router: hotspot-ctl devices add … (README: Register a router)',
    });
    t.match(
      readFileSync(new URL('../../README.md', import.meta.url), 'utf8'),
      /^\*\*Register a router\.\*\*/m,
      'the fix names a section the README has',
    );

    const router = await coaRouter(t, { nak: NO_SUCH_SESSION });
    const coa = `CoA 127.0.0.1:${String(router.port)} answers (NAK Session-Context-Not-Found)`;
    t.equal((await runCli(['devices', 'add', ...router.device], env)).code, 0);
    t.match((await doctor(env)).check('router Lobby AP'), {
      status: 'warn',
      detail: `never sent a RADIUS packet; ${coa}`,
      fix: /lobby-01/,
    });

    const heard = new Date('2026-03-02T10:00:00.000Z');
    await heardAt(dataDir, heard.toISOString());
    // 2.5 interim intervals of 300 s: 12.5 min.
    t.match((await doctor(env, '--now', isoAfter(heard, 12 * 60))).check('router Lobby AP'), {
      status: 'ok',
      detail: `last RADIUS packet 12 min ago; ${coa}`,
    });
    const silent = await doctor(env, '--now', isoAfter(heard, 3 * 3600));
    t.match(silent.check('router Lobby AP'), {
      status: 'warn',
      detail: `silent for 3 h (last RADIUS packet 2026-03-02T10:00:00.000Z); ${coa}`,
    });
    // Reported down by the router-down job (silent with guests on it): guests are cut off now, a
    // failure, inside the online window too.
    await heardAt(dataDir, heard.toISOString(), true);
    const down = await doctor(env, '--now', isoAfter(heard, 12 * 60));
    t.same(down.check('router Lobby AP'), {
      name: 'router Lobby AP',
      status: 'fail',
      detail: `DOWN with guests on it: silent for 12 min (last RADIUS packet 2026-03-02T10:00:00.000Z); ${coa}`,
      fix: 'bring lobby-01 back: check its power and uplink, then that it sends RADIUS here (hotspot-ctl devices router-config)',
    });
    t.equal(down.code, 1, 'a router down with guests on it fails doctor');
    t.equal(down.report.ok, false);
  },
);

t.test("a router's CoA port: ACK is ok, silence and a reply not signed with its secret warn", async (t) => {
  const { env, dataDir } = await venue(t);
  const now = new Date();
  const acked = await coaRouter(t, { ack: true });
  const added = await runCli(['devices', 'add', ...acked.device, '--json'], env);
  t.equal(added.code, 0, added.stderr);
  const id = (JSON.parse(added.stdout) as { id: string }).id;
  await heardAt(dataDir, now.toISOString());
  t.match((await doctor(env)).check('router Lobby AP'), {
    status: 'ok',
    detail: new RegExp(`; CoA 127\\.0\\.0\\.1:${String(acked.port)} answers \\(ACK\\)$`),
  });
  t.equal(acked.listener.received.length, 1, 'one probe, answered at once');

  const silentRouter = await coaRouter(t, 'silent');
  t.equal((await runCli(['devices', 'update', id, '--coa-port', String(silentRouter.port)], env)).code, 0);
  const silent = await doctor(env);
  t.match(silent.check('router Lobby AP'), {
    status: 'warn',
    detail: new RegExp(
      `^last RADIUS packet \\d+ s ago; CoA 127\\.0\\.0\\.1:${String(silentRouter.port)} did not answer within 2 s: sessions cannot be cut or changed$`,
    ),
    fix: `let lobby-01 take CoA/Disconnect (RFC 5176) on UDP ${String(silentRouter.port)} from this box with its secret (hotspot-ctl devices router-config), and no firewall drop it`,
  });
  t.equal(silentRouter.listener.received.length, 2, 'sent twice, a second apart, then given up');
  t.equal(silent.code, 0, 'a warning: doctor still exits 0');

  const forged = await coaRouter(t, { nak: NO_SUCH_SESSION, forged: 'authenticator' });
  t.equal((await runCli(['devices', 'update', id, '--coa-port', String(forged.port)], env)).code, 0);
  t.match((await doctor(env)).check('router Lobby AP'), {
    status: 'warn',
    detail: /answers, but not signed with this router's secret$/,
    fix: 'set the same RADIUS secret on lobby-01 as here (hotspot-ctl devices router-config)',
  });
});

t.test(
  'backups: none on a fresh install warns, none after 2 days fails, fresh is ok, a few days old warns, a week old fails',
  async (t) => {
    const { env, dataDir } = await venue(t);
    const dir = path.join(dataDir, 'backups');
    const how = onPostgres
      ? `back PostgreSQL up with pg_dump into ${dir} every night`
      : 'enable the nightly backup: systemctl enable --now hotspot-ctl-backup.timer';
    // The package enabled the timer, which has not fired yet: no failure for that.
    const fresh = await doctor(env);
    t.match(fresh.check('backup'), {
      name: 'backup',
      status: 'warn',
      detail: /^no backup yet in .+ \(the database is \d+ s old; the nightly timer has not run\)$/,
      fix: onPostgres
        ? how
        : `take the first one now: systemctl start hotspot-ctl-backup.service (or hotspot-ctl backup ${path.join(dir, 'hotspot-first.backup')})`,
    });
    t.match(fresh.check('backup')?.detail, `no backup yet in ${dir} (`);
    t.equal(fresh.code, 0, 'a fresh install with nothing else wrong exits 0');
    // Two days on (the injected clock), still none: the nightly backup does not run.
    const late = await doctor(env, '--now', '+172900');
    t.same(late.check('backup'), { name: 'backup', status: 'fail', detail: `no backup in ${dir}`, fix: how });
    t.equal(late.code, 1);

    const at = new Date('2026-03-02T03:00:00.000Z');
    backupAt(dataDir, at);
    t.match((await doctor(env, '--now', isoAfter(at, 3600))).check('backup'), {
      status: 'ok',
      detail: 'newest hotspot-20260101T000000Z.backup, 60 min old',
    });
    t.match((await doctor(env, '--now', isoAfter(at, 3 * 86400))).check('backup'), {
      status: 'warn',
      detail: /3 days old$/,
    });
    const old = await doctor(env, '--now', isoAfter(at, 8 * 86400));
    t.match(old.check('backup'), { status: 'fail', detail: /8 days old$/ });
    t.equal(old.code, 1);
  },
);

t.test(
  "SMS gateways: Beem and Africa's Talking credentials checked with a GET that sends nothing",
  async (t) => {
    const { env } = await venue(t);
    const beemKeys = { key: 'beem-key', secret: 'beem-secret' };
    const beem = await fakeGateway(t, (seen) => {
      const ok =
        seen.headers.authorization === `Basic ${Buffer.from('beem-key:beem-secret').toString('base64')}`;
      return ok
        ? { status: 200, body: { data: { credit_bal: '120.0000' } } }
        : { status: 401, body: { code: 120 } };
    });
    const beemEnv = (secret: string) => ({
      ...env,
      SMS_PROVIDER: 'beem',
      BEEM_API_KEY: beemKeys.key,
      BEEM_SECRET_KEY: secret,
      BEEM_SMS_URL: `${beem.url}/v1/send`,
      SMS_DELIVERY_TOKEN: 'dlr-token-0123456789abcdefghijklmnop',
    });
    t.match((await doctor(beemEnv(beemKeys.secret))).check('sms'), {
      status: 'ok',
      detail: 'beem gateway reachable, credentials accepted; delivery reports at /sms/delivery/<token>',
    });
    const refused = await doctor(beemEnv('wrong-secret'));
    t.same(refused.check('sms'), {
      name: 'sms',
      status: 'fail',
      detail: 'beem gateway refuses the credentials (HTTP 401)',
      fix: 'check BEEM_API_KEY and BEEM_SECRET_KEY',
    });
    t.equal(refused.code, 1);
    t.notMatch(refused.stdout, 'wrong-secret', 'no secret printed');
    t.same(
      beem.seen.map((r) => [r.path, r.body]),
      [
        ['/public/v1/vendors/balance', ''],
        ['/public/v1/vendors/balance', ''],
      ],
      "the balance, on the send URL's host: nothing sent",
    );

    const at = await fakeGateway(t, (seen) =>
      seen.headers.apikey === 'at-key'
        ? { status: 200, body: { UserData: { balance: 'TZS 1000.0000' } } }
        : { status: 401, body: 'The supplied authentication is invalid' },
    );
    const atEnv = (key: string) => ({
      ...env,
      SMS_PROVIDER: 'africastalking',
      AFRICASTALKING_USERNAME: 'sandbox',
      AFRICASTALKING_API_KEY: key,
      AFRICASTALKING_SMS_URL: `${at.url}/version1/messaging`,
    });
    t.match((await doctor(atEnv('at-key'))).check('sms'), {
      status: 'warn',
      detail: /^africastalking gateway reachable, credentials accepted; no delivery reports/,
    });
    t.match((await doctor(atEnv('at-wrong'))).check('sms'), {
      status: 'fail',
      detail: 'africastalking gateway refuses the credentials (HTTP 401)',
      fix: /^check AFRICASTALKING_USERNAME and AFRICASTALKING_API_KEY/,
    });
    t.same(
      at.seen.map((r) => [r.path, r.body]),
      [
        ['/version1/user?username=sandbox', ''],
        ['/version1/user?username=sandbox', ''],
      ],
    );

    const closed = await freePort();
    const unreachable = {
      ...atEnv('at-key'),
      AFRICASTALKING_SMS_URL: `http://127.0.0.1:${String(closed)}/version1/messaging`,
    };
    t.match((await doctor(unreachable)).check('sms'), {
      status: 'fail',
      detail: `africastalking gateway http://127.0.0.1:${String(closed)} unreachable (ECONNREFUSED)`,
    });
  },
);

t.test(
  'settings that do not load: --json still prints one document, each problem a failed config check',
  async (t) => {
    const { env } = await venue(t);
    const bad = { ...env, HTTP_PORT: 'abc', RADIUS_INTERIM_INTERVAL: '10' };
    const res = await runCli(['doctor', '--json'], bad);
    t.equal(res.code, 1);
    const report = JSON.parse(res.stdout) as Report;
    t.equal(report.ok, false);
    t.equal(report.checks.length, 2, res.stdout);
    t.ok(
      report.checks.every((c) => c.name === 'config' && c.status === 'fail' && c.fix !== undefined),
      'config checks that failed, each with its fix',
    );
    t.match(report.checks.map((c) => c.detail).join('\n'), /HTTP_PORT[\s\S]*RADIUS_INTERIM_INTERVAL/);
    // Without --json: the error lines, as every command prints them.
    const human = await runCli(['doctor'], bad);
    t.equal(human.code, 1);
    t.equal(human.stdout, '');
    t.match(human.stderr, /^error: HTTP_PORT/m);
  },
);

t.test(
  'RADIUS secrets under 16 characters already stored: doctor warns with the fix, the daemon logs one warning, neither refuses',
  async (t) => {
    const { env, dataDir } = await venue(t, { RADIUS_SECRET: 'testing123' });
    const SHORT = 'lobby-secret';
    const listener = new CoaListener(SHORT, () => ({ nak: NO_SUCH_SESSION }));
    const coaPort = await listener.listen();
    t.teardown(() => listener.close());
    const device = [
      ...DEVICE.slice(0, DEVICE.indexOf('--client-ip')),
      ...['--client-ip', '127.0.0.1', '--coa-port', String(coaPort)],
    ];
    const added = await runCli(['devices', 'add', ...device, '--secret', SHORT, '--json'], env);
    t.same(
      [added.code, added.stderr],
      [1, 'error: radius secret must be 16-128 printable characters without spaces\n'],
      'a new short one is refused',
    );
    const made = await runCli(['devices', 'add', ...device, '--json'], env);
    t.equal(made.code, 0, made.stderr);
    const { id } = JSON.parse(made.stdout) as { id: string };
    await storedSecret(dataDir, id, SHORT); // as an older release stored it
    await heardAt(dataDir, new Date().toISOString());

    const { code, check } = await doctor(env);
    t.equal(code, 0, 'warnings only');
    t.same(check('radius secret'), {
      name: 'radius secret',
      status: 'warn',
      detail:
        'RADIUS_SECRET configured, 10 characters: shorter than 16 (RFC 2865 §3), easier to guess from captured RADIUS packets',
      fix: 'drop it (hotspot-ctl setup --non-interactive --set RADIUS_SECRET=) to use the random one the box generated, or set a random one of 16+ characters; then enter it on the routers that use it',
    });
    t.match(check('router Lobby AP'), {
      status: 'warn',
      detail:
        /answers \(NAK Session-Context-Not-Found\); its own RADIUS secret is shorter than 16 characters \(RFC 2865 §3\)$/,
      fix: `give it a long random one: hotspot-ctl devices rotate-secret ${id}, then enter it on lobby-01`,
    });

    const daemon = startCli(['serve'], env);
    t.teardown(() => daemon.child.kill('SIGKILL'));
    await daemon.waitFor(/HTTP on 127\.0\.0\.1:\d+/);
    const warnings = daemon.stdout
      .split('\n')
      .filter((l) => l.includes('"radius.short_secret"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    t.match(warnings, [
      {
        level: 40,
        radius_secret_short: true,
        routers: ['lobby-01'],
        msg: 'RADIUS secret shorter than 16 characters (RFC 2865 §3): RADIUS_SECRET, router lobby-01; hotspot-ctl doctor says how to replace it',
      },
    ]);
    t.equal(warnings.length, 1, 'one warning');
    t.notMatch(daemon.stdout + daemon.stderr, /testing123|lobby-secret/, 'never the secrets');
    daemon.child.kill('SIGTERM');
    t.equal(await daemon.exited, 0);

    const rotated = await runCli(['devices', 'rotate-secret', id], env);
    t.equal(rotated.code, 0, rotated.stderr);
    t.notMatch((await doctor(env)).check('router Lobby AP')?.detail ?? '', /shorter/, 'the fix works');
    const generated = await doctor({ ...env, RADIUS_SECRET: '' });
    t.match(generated.check('radius secret'), {
      status: 'ok',
      detail: 'RADIUS_SECRET generated, 24 characters',
    });
  },
);
