import t from 'tap';
import { CODE, decodeAttributes, encodeRequest, frame, verifyReply } from '../../src/radius/codec.js';
import { StreamFramer } from '../../src/radius/radsec.js';
import { counterReaches, aGuest, NAS_ID } from '../helpers/radius.js';
import {
  clientCert,
  connectRadsec,
  radsecSession,
  ReplyReader,
  scratchDir,
  startRadsecApp,
  type RadsecTestApp,
} from '../helpers/radsec.js';
import { ensureRadsecCa } from '../../src/radius/radsec-certs.js';
import { pinRadsecCertificate } from '../../src/wifi/index.js';
import { aDevice } from '../helpers/wifi.js';
import { freePort, startTestApp } from '../helpers/app.js';
import path from 'node:path';

/**
 * RadSec (RFC 6614) with a raw TLS client: what the listener accepts, how it frames the stream,
 * and which certificates it refuses (docs/decisions/0025-remote-routers.md). The interop test
 * with a real peer (radsecproxy) is radsecproxy.test.ts.
 */

const RADSEC = 'radsec';

const selectSessions = (db: RadsecTestApp['app']['deps']['db']) =>
  db.selectFrom('radius_sessions').selectAll().orderBy('started_at').execute();

const accessRequest = (id: number, username: string, password: string, nasId = NAS_ID): Buffer =>
  encodeRequest(
    CODE.accessRequest,
    id,
    [
      ['User-Name', username],
      ['User-Password', password],
      ['NAS-Identifier', nasId],
      ['Calling-Station-Id', '11-22-33-44-55-66'],
    ],
    RADSEC,
  );

const accountingRequest = (id: number, username: string, status: 'Start' | 'Stop'): Buffer =>
  encodeRequest(
    CODE.accountingRequest,
    id,
    [
      ['User-Name', username],
      ['NAS-Identifier', NAS_ID],
      ['Acct-Status-Type', status],
      ['Acct-Session-Id', 'radsec-0001'],
      ['Calling-Station-Id', '11-22-33-44-55-66'],
      ...(status === 'Stop'
        ? ([
            ['Acct-Input-Octets', 1000],
            ['Acct-Output-Octets', 5000],
            ['Acct-Session-Time', 60],
          ] as const)
        : []),
    ],
    RADSEC,
  );

t.test('StreamFramer cuts packets by their Length field, across and within chunks', (t) => {
  const a = encodeRequest(CODE.accessRequest, 1, [['User-Name', 'a']], RADSEC);
  const b = encodeRequest(CODE.accessRequest, 2, [['User-Name', 'bb']], RADSEC);
  const both = Buffer.concat([a, b]);
  const framer = new StreamFramer();
  const out: Buffer[] = [];
  for (const byte of both) out.push(...(framer.push(Buffer.from([byte])) ?? []));
  t.same(out, [a, b], 'one octet at a time');
  t.same(new StreamFramer().push(both), [a, b], 'two in one chunk');
  const split = new StreamFramer();
  t.same(split.push(both.subarray(0, a.length + 3)), [a], 'a whole one and the start of the next');
  t.same(split.push(both.subarray(a.length + 3)), [b]);
  const bad = Buffer.from(a);
  bad.writeUInt16BE(19, 2);
  t.equal(new StreamFramer().push(bad), null, 'a Length below 20 cannot be framed');
  bad.writeUInt16BE(4097, 2);
  t.equal(new StreamFramer().push(bad), null, 'nor one above 4096');
  t.end();
});

t.test('an Access-Request over TLS from the router its certificate names is accepted', async (t) => {
  const app = await startRadsecApp(t);
  const g = await aGuest(app);
  const cert = await app.issue(NAS_ID);
  const { socket, reader } = await radsecSession(t, app, cert);
  const request = accessRequest(7, g.username, g.password);
  socket.write(request);
  const [reply] = await reader.take(1);
  const f = frame(reply ?? Buffer.alloc(0));
  t.ok(f.ok && verifyReply(request, f.frame, RADSEC), 'signed with the secret "radsec"');
  if (!f.ok) return;
  t.equal(f.frame.code, CODE.accessAccept);
  t.equal(f.frame.bytes[20], 80, 'Message-Authenticator first, as on UDP');
  t.match(decodeAttributes(f.frame), { 'Session-Timeout': Number });
  t.equal(app.app.radius.counters.get('radsec_connections'), 1);
  t.equal(app.app.radius.counters.get('auth_accepts'), 1);
});

t.test('packets split over many writes and several in one write are all answered', async (t) => {
  const app = await startRadsecApp(t);
  const g = await aGuest(app);
  const { socket, reader } = await radsecSession(t, app, await app.issue(NAS_ID));
  socket.setNoDelay(true);
  // One octet per write: TLS records as small as they come.
  const first = accessRequest(1, g.username, g.password);
  for (const byte of first) socket.write(Buffer.from([byte]));
  // Then an Access-Request, an Accounting Start and a Status-Server in one write (RFC 6614 §2.5:
  // Access and Accounting share the connection).
  const status = encodeRequest(CODE.statusServer, 4, [['NAS-Identifier', NAS_ID]], RADSEC);
  socket.write(
    Buffer.concat([
      accessRequest(2, g.username, g.password),
      accountingRequest(3, g.username, 'Start'),
      status,
    ]),
  );
  const replies = await reader.take(4);
  const codes = replies.map((r) => [r[1], r[0]]).sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0));
  t.same(codes, [
    [1, CODE.accessAccept],
    [2, CODE.accessAccept],
    [3, CODE.accountingResponse],
    [4, CODE.accessAccept],
  ]);
  const sessions = await selectSessions(app.app.deps.db);
  t.match(sessions, [{ acct_session_id: 'radsec-0001', username: g.username, stopped_at: null }]);
});

t.test('accounting Start and Stop over TLS are recorded before they are answered', async (t) => {
  const app = await startRadsecApp(t);
  const g = await aGuest(app);
  const { socket, reader } = await radsecSession(t, app, await app.issue(NAS_ID));
  socket.write(accountingRequest(1, g.username, 'Start'));
  await reader.take(1);
  socket.write(accountingRequest(2, g.username, 'Stop'));
  await reader.take(2);
  const [session] = await selectSessions(app.app.deps.db);
  t.match(session, { acct_session_id: 'radsec-0001', input_octets: 1000, output_octets: 5000 });
  t.not(session?.stopped_at, null, 'stopped');
});

t.test('a Length the stream cannot be framed by closes the connection', async (t) => {
  const app = await startRadsecApp(t);
  const { socket, reader } = await radsecSession(t, app, await app.issue(NAS_ID));
  const bad = encodeRequest(CODE.accessRequest, 1, [['NAS-Identifier', NAS_ID]], RADSEC);
  bad.writeUInt16BE(5000, 2);
  socket.write(bad);
  await reader.closedNow();
  t.equal(app.app.radius.counters.get('radsec_connections_malformed'), 1);
  t.equal(app.app.radius.counters.get('dropped_malformed'), 1);
});

t.test("a router's certificate used with another router's NAS-Identifier is refused", async (t) => {
  const app = await startRadsecApp(t);
  await aDevice(app.app, { radius_nas_id: 'pool-02', mac_address: '02:00:00:00:00:22' });
  const g = await aGuest(app);
  const { socket, reader } = await radsecSession(t, app, await app.issue(NAS_ID));
  socket.write(accessRequest(1, g.username, g.password, 'pool-02'));
  await counterReaches(app, 'dropped_certificate_mismatch', 1);
  socket.write(accessRequest(2, g.username, g.password));
  const [reply] = await reader.take(1);
  t.equal(reply?.[1], 2, 'only the packet in its own name is answered');
  t.equal(app.app.radius.counters.get('auth_requests'), 1, 'the other never reached the grant service');
  t.match(app.logs.events('radius.dropped'), [{ reason: 'certificate_mismatch', nas_id: 'pool-02' }]);
});

t.test('certificates the listener refuses: unknown CA, none, unknown router, retired', async (t) => {
  const app = await startRadsecApp(t);
  const refused = async (client: Parameters<typeof connectRadsec>[1], what: string, count: number) => {
    const socket = connectRadsec(app, client);
    socket.on('error', () => undefined); // the TLS alert, or the reset after it
    const reader = new ReplyReader(socket);
    socket.write(encodeRequest(CODE.statusServer, 1, [['NAS-Identifier', NAS_ID]], RADSEC));
    await reader.closedNow();
    await counterReaches(app, 'radsec_connections_rejected', count);
    t.same(reader.packets, [], `${what}: no answer`);
  };
  const otherCa = await ensureRadsecCa(path.join(scratchDir(t), 'other'), ['127.0.0.1']);
  await refused(await clientCert(otherCa, NAS_ID, scratchDir(t)), 'another CA', 1);
  await refused(null, 'no client certificate', 2);
  await refused(await app.issue('not-registered'), 'a router not registered', 3);
  const old = await app.issue(NAS_ID);
  const current = await app.issue(NAS_ID);
  await pinRadsecCertificate(app.app.deps, app.deviceId, current.fingerprint);
  app.clock.advance('31s'); // the listener's device cache
  await refused(old, 'a certificate issued before the current one', 4);
  t.match(
    app.logs.events('radius.radsec_refused').map((l) => l.reason),
    ['tls_handshake', 'tls_handshake', 'unknown_router', 'certificate_not_current'],
  );
  t.equal(app.app.radius.counters.get('radsec_connections'), 0);
  t.notMatch(app.logs.raw.join('\n'), /BEGIN|PRIVATE/, 'no certificate or key material in the log');
});

t.test('a RadSec listener whose files cannot be read stops the start, naming the setting', async (t) => {
  const port = await freePort();
  await t.rejects(
    startTestApp(t, {
      radius: true,
      env: {
        RADSEC_PORT: String(port),
        RADSEC_CERT_FILE: '/nonexistent/box.pem',
        RADSEC_KEY_FILE: '/nonexistent/box.key',
      },
    }),
    {
      message:
        'RADSEC_CERT_FILE: cannot read /nonexistent/box.pem (ENOENT); hotspot-ctl devices radsec-cert creates the default files',
    },
  );
});
