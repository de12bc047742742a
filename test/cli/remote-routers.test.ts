import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import t from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { freePort } from '../helpers/app.js';
import { boxEnv, cliEnv, runCli, startCli } from '../helpers/cli.js';
import { ReplyReader } from '../helpers/radsec.js';

/**
 * Remote routers from the CLI (docs/decisions/0025): `devices radsec-cert` (the box's RadSec CA on
 * first use, one client certificate per router) and the WireGuard tunnel of `devices add|update`
 * and `router-config`.
 */

const json = (stdout: string) => JSON.parse(stdout) as Record<string, string>;
const mode = (file: string) => statSync(file).mode & 0o777;
/** id-kp-clientAuth and id-kp-serverAuth (RFC 5280 §4.2.1.12). */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

const DEVICE = [
  ...['--name', 'Far AP', '--model', 'MikroTik hAP ax2', '--mac', 'aa:bb:cc:dd:ee:0c'],
  ...['--network', '10.6.0.0/24', '--uam-server', 'http://10.99.0.1:8080/portal'],
  ...['--nas-id', 'far-01', '--client-ip', '10.99.0.2'],
];

t.test(
  'radsec-cert makes the CA once, issues a router a certificate naming its NAS id, and pins it',
  async (t) => {
    const root = t.testdir();
    const dataDir = path.join(root, 'data');
    const out = path.join(root, 'out');
    const env = await boxEnv(dataDir);
    const id = json((await runCli(['devices', 'add', ...DEVICE, '--json'], env)).stdout).id ?? '';

    const first = await runCli(
      ['devices', 'radsec-cert', id, '--out', out, '--server-name', '10.99.0.1', 'hotspot.example', '--json'],
      env,
    );
    t.equal(first.code, 0, first.stderr);
    const issued = json(first.stdout);
    t.match(issued, { device_id: id, nas_id: 'far-01', fingerprint: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/ });
    const cert = new X509Certificate(readFileSync(issued.cert_file ?? ''));
    const ca = new X509Certificate(readFileSync(path.join(dataDir, 'radsec', 'ca.pem')));
    t.equal(cert.subject, 'CN=far-01', 'the CN is the NAS id');
    t.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'signed by the box CA');
    t.same(cert.keyUsage, [CLIENT_AUTH], 'for TLS clients only');
    t.equal(cert.fingerprint256, issued.fingerprint);
    t.equal(readFileSync(issued.ca_file ?? '', 'utf8'), ca.toString(), 'the CA certificate comes along');
    t.equal(mode(issued.key_file ?? ''), 0o600, 'the router key is private');
    t.equal(mode(path.join(dataDir, 'radsec')), 0o700);
    t.equal(mode(path.join(dataDir, 'radsec', 'ca.key')), 0o600);
    t.equal(mode(path.join(dataDir, 'radsec', 'server.key')), 0o600);
    const server = new X509Certificate(readFileSync(path.join(dataDir, 'radsec', 'server.pem')));
    t.equal(server.subjectAltName, 'IP Address:10.99.0.1, DNS:hotspot.example');
    t.same(server.keyUsage, [SERVER_AUTH]);
    t.notMatch(first.stdout + first.stderr, /PRIVATE KEY/, 'no key is printed');
    const [listed] = JSON.parse((await runCli(['devices', 'list', '--json'], env)).stdout) as {
      radsec_certificate: boolean;
    }[];
    t.equal(listed?.radsec_certificate, true);

    const again = json(
      (await runCli(['devices', 'radsec-cert', id, '--out', path.join(root, 'out2'), '--json'], env)).stdout,
    );
    t.not(again.fingerprint, issued.fingerprint, 'a new certificate');
    t.equal(readFileSync(again.ca_file ?? '', 'utf8'), ca.toString(), 'from the same CA');
    const human = await runCli(['devices', 'radsec-cert', id, '--out', path.join(root, 'out3')], env);
    t.match(human.stdout, /^RadSec certificate for far-01 \(valid until \d{4}-/);

    const unknown = await runCli(['devices', 'radsec-cert', 'nope', '--out', out], env);
    t.equal(unknown.code, 1);
    t.equal(unknown.stderr, 'error: device not found\n');
    const ownCa = await runCli(
      ['devices', 'radsec-cert', id, '--out', out],
      cliEnv(dataDir, { RADSEC_CA_FILE: path.join(root, 'my-ca.pem') }),
    );
    t.equal(ownCa.code, 1);
    t.equal(
      ownCa.stderr,
      'error: RADSEC_CA_FILE names your own CA: issue router certificates with it (subject CN = the NAS id)\n',
    );
  },
);

t.test(
  'serve with RADSEC_PORT answers the router over TLS with the certificates radsec-cert made',
  async (t) => {
    const root = t.testdir();
    const dataDir = path.join(root, 'data');
    const port = await freePort();
    const env = await boxEnv(dataDir, { RADSEC_PORT: String(port), RADIUS_HOST: '127.0.0.1' });
    const id = json((await runCli(['devices', 'add', ...DEVICE, '--json'], env)).stdout).id ?? '';
    const issued = json(
      (
        await runCli(
          [
            'devices',
            'radsec-cert',
            id,
            '--out',
            path.join(root, 'out'),
            '--server-name',
            '127.0.0.1',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    const serve = startCli(['serve'], env);
    t.teardown(async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
    await serve.waitFor(/"event":"radius.listening"[^\n]*"radsec":\d+/);
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      ca: readFileSync(issued.ca_file ?? ''),
      cert: readFileSync(issued.cert_file ?? ''),
      key: readFileSync(issued.key_file ?? ''),
    });
    t.teardown(() => socket.destroy());
    const reader = new ReplyReader(socket);
    await once(socket, 'secureConnect');
    socket.write(encodeRequest(CODE.statusServer, 9, [['NAS-Identifier', 'far-01']], 'radsec'));
    const [reply] = await reader.take(1);
    t.equal(reply?.[0], CODE.accessAccept, 'Status-Server answered');
  },
);

t.test(
  'devices take a WireGuard tunnel; router-config prints it; --no-tunnel puts the router back on the LAN',
  async (t) => {
    const boxKey = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
    const routerKey = 'HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=';
    const env = await boxEnv(path.join(t.testdir(), 'data'), {
      RADIUS_AUTH_PORT: '1812',
      RADIUS_ACCT_PORT: '1813',
      WIREGUARD_ENDPOINT: '203.0.113.7:51820',
      WIREGUARD_PUBLIC_KEY: boxKey,
      WIREGUARD_ADDRESS: '10.99.0.1/24',
    });
    const added = await runCli(['devices', 'add', ...DEVICE, '--tunnel-address', '10.99.0.2', '--json'], env);
    t.equal(added.code, 0, added.stderr);
    const id = json(added.stdout).id ?? '';
    t.match(json(added.stdout), { tunnel_address: '10.99.0.2', tunnel_public_key: null });
    const script = (await runCli(['devices', 'router-config', id], env)).stdout;
    t.match(script, 'endpoint-address="203.0.113.7" endpoint-port=51820 allowed-address=10.99.0.1/32');
    t.match(script, '#   PublicKey = ROUTER_PUBLIC_KEY');

    const keyed = await runCli(['devices', 'update', id, '--tunnel-public-key', routerKey, '--json'], env);
    t.match(json(keyed.stdout), { tunnel_public_key: routerKey });
    t.match(
      (await runCli(['devices', 'router-config', id, '--format', 'openwrt'], env)).stdout,
      `#   PublicKey = ${routerKey}`,
    );
    const badKey = await runCli(['devices', 'update', id, '--tunnel-public-key', 'abc'], env);
    t.equal(badKey.code, 1);
    t.equal(
      badKey.stderr,
      'error: tunnel_public_key must be a WireGuard public key (44 base64 characters)\n',
    );

    const lan = await runCli(['devices', 'update', id, '--no-tunnel', '--json'], env);
    t.match(json(lan.stdout), { tunnel_address: null, tunnel_public_key: null });
    t.notMatch((await runCli(['devices', 'router-config', id], env)).stdout, 'wireguard');
    const both = await runCli(['devices', 'update', id, '--no-tunnel', '--tunnel-address', '10.99.0.3'], env);
    t.equal(both.code, 2, 'contradicting flags are a usage error');
  },
);
