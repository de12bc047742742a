import { randomBytes, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import t from 'tap';
import { CODE, encodeRequest } from '../../src/radius/codec.js';
import { COUNTERS } from '../../src/radius/index.js';
import { waitFor } from '../helpers/app.js';
import {
  NAS_ID,
  SECRET,
  aGuest,
  papRequest,
  radclient,
  startRadiusApp,
  type RadiusTestApp,
} from '../helpers/radius.js';

/**
 * Thousands of random, truncated and corrupted datagrams at both ports: none is answered, none
 * crashes the daemon or reaches the domain, and afterwards the server answers correctly.
 */

const handled = (app: RadiusTestApp): number =>
  COUNTERS.filter((c) => c !== 'auth_accepts' && c !== 'auth_rejects' && c !== 'acct_responses').reduce(
    (sum, c) => sum + app.app.radius.counters.get(c),
    0,
  );

function garbage(valid: Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < 1000; i++) out.push(randomBytes(randomInt(0, 300))); // pure noise
  for (const v of valid) for (let n = 0; n < v.length; n++) out.push(v.subarray(0, n)); // every truncation
  for (let i = 0; i < 1000; i++) {
    // a plausible header and attribute list with random types, lengths and values
    const body = randomBytes(randomInt(0, 200));
    for (let at = 0; at + 1 < body.length; at += Math.max(2, body[at + 1] ?? 2))
      body[at + 1] = randomInt(0, 40);
    const head = Buffer.from([[1, 4, 12, 40][randomInt(4)] ?? 1, randomInt(256), 0, 0]);
    head.writeUInt16BE(randomInt(2) === 0 ? 20 + body.length : randomInt(0, 5000), 2);
    out.push(Buffer.concat([head, randomBytes(16), body]));
  }
  for (let i = 0; i < 1000; i++) {
    // a valid packet with one bit flipped somewhere
    const v = Buffer.from(valid[randomInt(valid.length)] ?? Buffer.alloc(20));
    const at = randomInt(v.length);
    v[at] = (v[at] ?? 0) ^ (1 << randomInt(8));
    out.push(v);
  }
  return out;
}

t.test('random and truncated packets at both ports are dropped and the server keeps answering', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const valid = [
    encodeRequest(
      CODE.accessRequest,
      1,
      [
        ['User-Name', g.username],
        ['User-Password', g.password],
        ['NAS-Identifier', NAS_ID],
      ],
      SECRET,
    ),
    encodeRequest(
      CODE.accountingRequest,
      2,
      [
        ['User-Name', g.username],
        ['Acct-Status-Type', 'Start'],
        ['Acct-Session-Id', 'f1'],
        ['NAS-Identifier', NAS_ID],
        ['Vendor-Specific', 14988, [['Mikrotik-Rate-Limit', '1M/2M']]],
      ],
      SECRET,
    ),
  ];
  const socket = createSocket('udp4');
  const answered: Buffer[] = [];
  socket.on('message', (m) => answered.push(m));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.teardown(() => socket.close());

  let sent = 0;
  const packets = garbage(valid);
  for (const port of [app.auth, app.acct]) {
    for (let i = 0; i < packets.length; i += 100) {
      for (const p of packets.slice(i, i + 100)) socket.send(p, port, '127.0.0.1');
      sent += packets.slice(i, i + 100).length;
      await waitFor(() => handled(app) >= sent, `${String(sent)} packets handled`, 10_000);
    }
  }
  t.ok(sent > 6000, `${String(sent)} packets sent`);
  t.same(answered, [], 'none was answered');
  t.equal(app.app.radius.counters.get('dropped_internal_error'), 0, 'none crashed a handler');
  t.equal(
    app.app.radius.counters.get('auth_accepts') + app.app.radius.counters.get('auth_rejects'),
    0,
    'none got a decision from the grant service',
  );
  t.ok(app.app.radius.counters.get('dropped_malformed') > 1000, 'most were malformed');
  t.ok(app.logs.events('radius.dropped').length < 100, 'the drop log stayed bounded');

  const auth = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(auth.replies, [{ code: 'Access-Accept' }], 'authorization still answers');
  const acct = await radclient(
    app.acct,
    'acct',
    `User-Name = "${g.username}"\nNAS-Identifier = "${NAS_ID}"\nAcct-Session-Id = "after"\nAcct-Status-Type = Start\n`,
  );
  t.match(acct.replies, [{ code: 'Accounting-Response' }], 'accounting still answers');
});
