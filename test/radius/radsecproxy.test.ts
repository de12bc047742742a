import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import t from 'tap';
import { freeUdpPorts, waitFor } from '../helpers/app.js';
import { acctRequest, aGuest, counterReaches, NAS_ID, papRequest, radclient } from '../helpers/radius.js';
import { ensureRadsecCa } from '../../src/radius/radsec-certs.js';
import {
  clientCert,
  scratchDir,
  startRadsecApp,
  type ClientCert,
  type RadsecTestApp,
} from '../helpers/radsec.js';
import { aDevice } from '../helpers/wifi.js';

/**
 * RadSec with a real peer (DESIGN.md §5): radclient → Debian's radsecproxy (UDP) → our RadSec
 * listener (TLS, RFC 6614), the way a router's RADIUS client or a proxy in front of old routers
 * would reach the box over an untrusted network.
 */

/** The secret between radclient and radsecproxy (the proxy re-signs with "radsec" over TLS). */
const PROXY_SECRET = 'udp-side-secret-01';

/** Starts radsecproxy with `client` as its TLS identity; resolves with its UDP port once it listens. */
async function startProxy(t: Test, app: RadsecTestApp, client: ClientCert): Promise<number> {
  const dir = scratchDir(t);
  const [udp = 0] = await freeUdpPorts(1);
  const conf = path.join(dir, 'radsecproxy.conf');
  writeFileSync(
    conf,
    [
      `ListenUDP 127.0.0.1:${String(udp)}`,
      'tls hotspot {',
      `  CACertificateFile ${app.pki.caCert}`,
      `  CertificateFile ${client.certFile}`,
      `  CertificateKeyFile ${client.keyFile}`,
      '  TlsVersion TLS1_2:',
      '}',
      'client radclient {',
      '  host 127.0.0.1',
      '  type udp',
      `  secret ${PROXY_SECRET}`,
      '}',
      // CertificateNameCheck stays on: our server certificate must name 127.0.0.1.
      'server hotspot-ctl {',
      '  host 127.0.0.1',
      `  port ${String(app.radsec)}`,
      '  type tls',
      '  tls hotspot',
      '  secret radsec',
      '}',
      'realm * {',
      '  server hotspot-ctl',
      '  accountingServer hotspot-ctl',
      '}',
      '',
    ].join('\n'),
  );
  const proxy = spawn('radsecproxy', ['-f', '-d', '4', '-c', conf]);
  let log = '';
  proxy.stderr.on('data', (c: Buffer) => (log += c.toString()));
  proxy.stdout.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<void>((resolve) => proxy.on('close', () => resolve()));
  t.teardown(async () => {
    proxy.kill('SIGTERM');
    await exited;
  });
  t.teardown(() => {
    if (t.passing()) return;
    t.comment(`radsecproxy log:\n${log}`);
  });
  await waitFor(
    () => /radsecproxy .* starting/.test(log) || proxy.exitCode !== null,
    'radsecproxy to start',
    10_000,
  );
  if (proxy.exitCode !== null) throw new Error(`radsecproxy exited:\n${log}`);
  return udp;
}

t.test(
  'radclient → radsecproxy → RadSec: Access-Accept for a valid grant, accounting recorded',
  async (t) => {
    const app = await startRadsecApp(t);
    const g = await aGuest(app);
    const udp = await startProxy(t, app, await app.issue(NAS_ID));

    const auth = await radclient(udp, 'auth', papRequest(g.username, g.password), { secret: PROXY_SECRET });
    t.match(
      auth.replies,
      [{ code: 'Access-Accept', attributes: { 'Session-Timeout': /^\d+$/ } }],
      auth.output,
    );
    const wrong = await radclient(udp, 'auth', papRequest(g.username, 'not-the-password'), {
      secret: PROXY_SECRET,
    });
    t.match(
      wrong.replies,
      [{ code: 'Access-Reject' }],
      'the password is hidden with the TLS secret end to end',
    );

    for (const status of ['Start', 'Stop']) {
      const extra = [`Acct-Status-Type = ${status}`, 'Acct-Input-Octets = 2048', 'Acct-Output-Octets = 8192'];
      const run = await radclient(udp, 'acct', acctRequest(g.username, 'proxy-0001', extra), {
        secret: PROXY_SECRET,
      });
      t.match(run.replies, [{ code: 'Accounting-Response' }], run.output);
    }
    const sessions = await app.app.deps.db.selectFrom('radius_sessions').selectAll().execute();
    t.match(sessions, [{ acct_session_id: 'proxy-0001', username: g.username, input_octets: 2048 }]);
    t.not(sessions[0]?.stopped_at, null, 'the Stop was recorded before it was answered');
    t.equal(app.app.radius.counters.get('radsec_connections'), 1, 'one TLS connection carried all of it');
  },
);

t.test("a router's certificate with another router's NAS-Identifier gets no answer", async (t) => {
  const app = await startRadsecApp(t);
  await aDevice(app.app, { radius_nas_id: 'pool-02', mac_address: '02:00:00:00:00:22' });
  const g = await aGuest(app);
  const udp = await startProxy(t, app, await app.issue(NAS_ID));
  const spoofed = papRequest(g.username, g.password).replace(`"${NAS_ID}"`, '"pool-02"');
  const run = radclient(udp, 'auth', spoofed, { secret: PROXY_SECRET, tries: 1 });
  await counterReaches(app, 'dropped_certificate_mismatch', 1);
  t.same((await run).replies, [], 'dropped, never answered');
  t.equal(app.app.radius.counters.get('auth_requests'), 0);
});

t.test('a client certificate from an unknown CA is refused', async (t) => {
  const app = await startRadsecApp(t);
  const g = await aGuest(app);
  const other = await ensureRadsecCa(path.join(scratchDir(t), 'other'), ['127.0.0.1']);
  // The proxy trusts our server (its CA file is ours) but presents a certificate of another CA.
  const stranger = await clientCert(other, NAS_ID, scratchDir(t));
  const udp = await startProxy(t, app, stranger);
  const run = radclient(udp, 'auth', papRequest(g.username, g.password), { secret: PROXY_SECRET, tries: 1 });
  await counterReaches(app, 'radsec_connections_rejected', 1);
  t.same((await run).replies, []);
  t.equal(app.app.radius.counters.get('radsec_connections'), 0);
  t.match(app.logs.events('radius.radsec_refused'), [{ reason: 'tls_handshake' }]);
});
