import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import radius from 'radius';
import t from 'tap';
import {
  CODE,
  chapMatches,
  decodeAttributes,
  encodeReply,
  encodeRequest,
  frame,
  hidePassword,
  rawValue,
  revealPassword,
  verifyReply,
  verifyRequest,
  type Frame,
} from '../../src/radius/codec.js';

/**
 * Byte-level vectors (test/radius/vectors/): RFC examples, CoovaChilli and MikroTik CHAP values,
 * and packets captured from FreeRADIUS radclient. Expected values are computed here with
 * node:crypto from the RFC formulas, never with the codec under test.
 */

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'vectors');
const vector = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function framed(bytes: Buffer): Frame {
  const result = frame(bytes);
  if (!result.ok) throw new Error(`vector does not frame: ${result.reason}`);
  return result.frame;
}

const md5 = (...parts: (Buffer | string)[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** RFC 3579 §3.2 by hand: HMAC-MD5 over the packet with `auth` in the header and the M-A zeroed. */
function expectedMa(packet: Buffer, maValueAt: number, auth: Buffer, secret: string): Buffer {
  const copy = Buffer.from(packet);
  auth.copy(copy, 4);
  copy.fill(0, maValueAt, maValueAt + 16);
  return createHmac('md5', secret).update(copy).digest();
}

t.test('RFC 2865 §7.1: the User-Password is revealed and the Access-Accept verifies', async (t) => {
  const v = vector('rfc2865-7.1-pap.json');
  const request = framed(hex(v.request));
  t.equal(request.code, CODE.accessRequest);
  t.match(decodeAttributes(request), {
    'User-Name': 'nemo',
    'NAS-IP-Address': '192.168.1.16',
    'NAS-Port': 3,
  });
  const hidden = rawValue(request, 2)!;
  t.equal(revealPassword(hidden, v.secret, request.authenticator)?.toString(), v.expect.password);
  t.same(hidePassword(v.expect.password, v.secret, request.authenticator), hidden, 'hiding is the inverse');
  t.equal(
    revealPassword(hidden.subarray(0, 15), v.secret, request.authenticator),
    null,
    'not 16-octet blocks',
  );

  const reply = framed(hex(v.reply));
  t.ok(verifyReply(request.bytes, reply, v.secret), 'the RFC response authenticator verifies');
  t.match(decodeAttributes(reply), v.replyAttributes);
  t.notOk(verifyReply(request.bytes, reply, 'wrong-secret'));
  t.equal(verifyRequest(request, v.secret), 'ok', 'an Access-Request without M-A has nothing to verify');
});

t.test(
  'CHAP responses from CoovaChilli and MikroTik check out, and only with the right password',
  async (t) => {
    for (const name of ['coovachilli-chap.json', 'mikrotik-chap.json']) {
      const v = vector(name);
      t.ok(chapMatches(hex(v.chapPassword), hex(v.chapChallenge), v.password), name);
      t.notOk(
        chapMatches(hex(v.chapPassword), hex(v.chapChallenge), `${v.password}x`),
        `${name}: wrong password`,
      );
      t.notOk(chapMatches(hex(v.chapPassword).subarray(0, 16), hex(v.chapChallenge), v.password), 'short');
    }
  },
);

t.test(
  'requests from radclient verify: Message-Authenticator in RFC 5176 order for signed codes',
  async (t) => {
    const v = vector('radclient-3.2.7-requests.json');
    for (const name of ['disconnect', 'accounting', 'access']) {
      const f = framed(hex(v[name]));
      t.not(f.maOffset, null, `${name} carries Message-Authenticator`);
      t.equal(verifyRequest(f, v.secret), 'ok', `${name} verifies`);
      t.not(verifyRequest(f, 'testing124'), 'ok', `${name} fails with another secret`);
      const tampered = Buffer.from(f.bytes);
      tampered[tampered.length - 20] = (tampered[tampered.length - 20] ?? 0) ^ 1;
      t.not(verifyRequest(framed(tampered), v.secret), 'ok', `${name} fails when an attribute changed`);
    }
    const access = framed(hex(v.access));
    t.equal(access.maOffset, 22, 'radclient 3.2.7 puts M-A first in Access-Request');
    t.equal(
      revealPassword(rawValue(access, 2)!, v.secret, access.authenticator)?.toString(),
      v.accessPassword,
    );
    t.match(decodeAttributes(framed(hex(v.accounting))), {
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Input-Octets': 1048576,
      'Acct-Input-Gigawords': 2,
    });

    t.test(
      'the radius package itself rejects the same correct packets (why codec.ts verifies)',
      async (t) => {
        t.throws(
          () => radius.decode({ packet: hex(v.disconnect), secret: v.secret }),
          /Message-Authenticator mismatch/,
        );
      },
    );
  },
);

t.test('replies put Message-Authenticator first and sign it with the request authenticator', async (t) => {
  const v = vector('radclient-3.2.7-requests.json');
  const request = framed(hex(v.access));
  const reply = encodeReply(
    request,
    CODE.accessAccept,
    [
      ['Session-Timeout', 3600],
      ['Vendor-Specific', 14559, [['ChilliSpot-Max-Total-Octets', 1000]]],
    ],
    v.secret,
  );
  t.equal(reply[0], CODE.accessAccept);
  t.equal(reply[1], request.identifier);
  t.same([reply[20], reply[21]], [80, 18], 'type 80, length 18, right after the header');
  t.same(reply.subarray(22, 38), expectedMa(reply, 22, request.authenticator, v.secret), 'RFC 3579 §3.2');
  const expectedAuth = md5(reply.subarray(0, 4), request.authenticator, reply.subarray(20), v.secret);
  t.same(reply.subarray(4, 20), expectedAuth, 'Response Authenticator over the finished packet');
  t.same(
    reply.subarray(38).toString('hex'),
    '1b0600000e10' + '1a0c000038df0306000003e8',
    'Session-Timeout, then the ChilliSpot VSA',
  );
  t.ok(verifyReply(request.bytes, framed(reply), v.secret));

  const plain = encodeReply(framed(hex(v.accounting)), CODE.accountingResponse, [], v.secret, {
    messageAuthenticator: false,
  });
  t.equal(plain.length, 20, 'an Accounting-Response without attributes is a bare header');
});

t.test('replies echo Proxy-State attributes in order, after our own', async (t) => {
  const secret = 's3';
  const req = encodeRequest(
    CODE.accessRequest,
    9,
    [
      ['User-Name', 'a'],
      [33, hex('aa01')],
      [33, hex('bb02')],
    ],
    secret,
  );
  const reply = encodeReply(framed(req), CODE.accessReject, [['Reply-Message', 'no']], secret);
  t.match(reply.subarray(38).toString('hex'), /^120[0-9a-f]{3}[0-9a-f]*2104aa012104bb02$/);
});

t.test(
  'our Disconnect-Request follows RFC 5176 §3.4: M-A over a zero authenticator, then the authenticator',
  async (t) => {
    const secret = 'coa-secret';
    const packet = encodeRequest(
      CODE.disconnectRequest,
      77,
      [
        ['User-Name', 'guest1'],
        ['Acct-Session-Id', 'x1'],
      ],
      secret,
    );
    t.equal(packet[20], 80, 'Message-Authenticator first');
    t.same(packet.subarray(22, 38), expectedMa(packet, 22, Buffer.alloc(16), secret));
    const auth = md5(packet.subarray(0, 4), Buffer.alloc(16), packet.subarray(20), secret);
    t.same(packet.subarray(4, 20), auth, 'request authenticator over the packet including the M-A');
  },
);

t.test('framing refuses what is not a RADIUS packet, without throwing', async (t) => {
  const good = hex(vector('radclient-3.2.7-requests.json').access);
  const cases: [string, Buffer, string][] = [
    ['empty', Buffer.alloc(0), 'shorter than a header'],
    ['19 octets', good.subarray(0, 19), 'shorter than a header'],
    ['length field past the datagram', good.subarray(0, good.length - 1), 'truncated'],
    [
      'length field below 20',
      Buffer.concat([good.subarray(0, 2), hex('0013'), good.subarray(4)]),
      'bad length field',
    ],
    [
      'length field above 4096',
      Buffer.concat([good.subarray(0, 2), hex('1001'), good.subarray(4)]),
      'bad length field',
    ],
    [
      'attribute of length 1',
      Buffer.concat([hex('010100160000000000000000000000000000000001'), hex('01')]),
      'bad attribute length',
    ],
  ];
  for (const [name, bytes, reason] of cases) t.match(frame(bytes), { ok: false, reason }, name);
  const zeroLength = Buffer.from(good);
  zeroLength[21] = 0;
  t.match(frame(zeroLength), { ok: false, reason: 'bad attribute length' }, 'attribute of length 0');
  const twoMa = encodeRequest(CODE.accessRequest, 1, [['Message-Authenticator', Buffer.alloc(16)]], 'x');
  t.match(frame(twoMa), { ok: false, reason: 'bad Message-Authenticator' }, 'two Message-Authenticators');
  const padded = Buffer.concat([good, Buffer.alloc(7)]);
  t.equal(
    (frame(padded) as { ok: true; frame: Frame }).frame.bytes.length,
    good.length,
    'padding is ignored',
  );
});
