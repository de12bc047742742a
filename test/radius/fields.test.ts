import { randomBytes, randomInt } from 'node:crypto';
import t from 'tap';
import {
  CODE,
  decodeAttributes,
  encodeRequest,
  frame,
  integer,
  text,
  type Frame,
} from '../../src/radius/codec.js';
import { readFields, type FieldName } from '../../src/radius/fields.js';

/**
 * fields.ts reads a request's attributes straight from the bytes; the `radius` package decodes
 * them into objects. Over valid, odd and malformed packets both must agree: the same packets
 * refused (null), and every field the same as text()/integer() read from the package's result.
 */

const TEXT_FIELDS: readonly FieldName[] = [
  'User-Name',
  'NAS-Identifier',
  'Calling-Station-Id',
  'Framed-IP-Address',
  'Acct-Status-Type',
  'Acct-Session-Id',
  'Acct-Terminate-Cause',
];
const INTEGER_FIELDS: readonly FieldName[] = [
  'Acct-Status-Type',
  'Acct-Session-Time',
  'Acct-Delay-Time',
  'Acct-Input-Octets',
  'Acct-Output-Octets',
  'Acct-Input-Gigawords',
  'Acct-Output-Gigawords',
  'Acct-Terminate-Cause',
];

/** A TLV; `length` overrides the length octet (to break it on purpose). */
const tlv = (type: number, value: Buffer, length = value.length + 2): Buffer =>
  Buffer.concat([Buffer.from([type, length & 255]), value]);
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const vsa = (vendor: number, inner: Buffer): Buffer => tlv(26, Buffer.concat([u32(vendor), inner]));
const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)] as T;

/** Values of every shape: empty, short and long integers, NULs, bad UTF-8, enumerated or not. */
function value(): Buffer {
  return pick([
    () => Buffer.alloc(0),
    () => randomBytes(randomInt(1, 4)),
    () => u32(randomInt(0, 20)),
    () => u32(randomInt(2 ** 32)),
    () => randomBytes(randomInt(5, 9)),
    () =>
      Buffer.from(pick(['guest-1', 'venue-01', 'AA-BB-CC-DD-EE-FF', 'sess\u0000', 'a\u0000b', '漢字', ''])),
    () => Buffer.from([0xff, 0xfe, 0x41]),
    () => randomBytes(randomInt(0, 40)),
  ])();
}

/** The attribute types packets carry here, and some the dictionary makes special (tags, dates). */
const TYPES = [
  1, 2, 4, 5, 6, 8, 31, 32, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 52, 53, 55, 61, 64, 66, 69, 81, 87, 200,
];
const VENDORS = [14988, 14559, 14122, 9, 311, 0x00ffffff];

function attribute(): Buffer {
  const roll = randomInt(10);
  if (roll < 7) return tlv(pick(TYPES), value());
  if (roll === 7) {
    // a Vendor-Specific attribute of a known or unknown vendor, well-formed
    const inner = Buffer.concat(
      Array.from({ length: randomInt(0, 4) }, () => tlv(randomInt(1, 30), value())),
    );
    return vsa(pick(VENDORS), inner);
  }
  if (roll === 8) {
    // a Vendor-Specific attribute broken inside: an inner length past the end, below 2, an octet over
    const inner = tlv(randomInt(1, 30), value());
    const broken = pick([
      () => Buffer.concat([inner.subarray(0, 1), Buffer.from([randomInt(0, 2)]), inner.subarray(2)]),
      () =>
        Buffer.concat([
          inner.subarray(0, 1),
          Buffer.from([inner.length + randomInt(1, 9)]),
          inner.subarray(2),
        ]),
      () => Buffer.concat([inner, Buffer.from([randomInt(256)])]),
    ])();
    return vsa(pick(VENDORS), broken);
  }
  // a Vendor-Specific attribute too short, or with a vendor id whose first octet is not 0
  return tlv(
    26,
    pick([
      Buffer.alloc(0),
      randomBytes(randomInt(1, 4)),
      Buffer.concat([Buffer.from([1 + randomInt(255)]), randomBytes(5)]),
    ]),
  );
}

function packet(): Buffer | null {
  const attrs = Buffer.concat(Array.from({ length: randomInt(0, 12) }, attribute));
  if (attrs.length > 4096 - 20) return null;
  const head = Buffer.alloc(20);
  head[0] = pick([CODE.accessRequest, CODE.accountingRequest, CODE.statusServer]);
  head.writeUInt16BE(20 + attrs.length, 2);
  return Buffer.concat([head, attrs]);
}

function agree(f: Frame): string | null {
  const mine = readFields(f);
  const theirs = decodeAttributes(f);
  if ((mine === null) !== (theirs === null))
    return `refused by ${mine === null ? 'fields.ts only' : 'the package only'}`;
  if (!mine || !theirs) return null;
  for (const name of TEXT_FIELDS)
    if (mine.text(name) !== text(theirs, name))
      return `${name}: ${String(mine.text(name))} ≠ ${String(text(theirs, name))}`;
  for (const name of INTEGER_FIELDS)
    if (mine.integer(name) !== integer(theirs, name))
      return `${name}: ${String(mine.integer(name))} ≠ ${String(integer(theirs, name))}`;
  return null;
}

t.test('fields.ts and the radius package agree on random packets', async (t) => {
  let framed = 0;
  let refused = 0;
  let read = 0;
  for (let i = 0; i < 20_000; i++) {
    const bytes = packet();
    const result = bytes && frame(bytes);
    if (!result?.ok) continue;
    framed++;
    const disagreement = agree(result.frame);
    if (disagreement !== null) {
      t.fail(`${disagreement}: ${result.frame.bytes.toString('hex')}`);
      return;
    }
    if (readFields(result.frame) === null) refused++;
    else read++;
  }
  t.ok(refused > 1000, `${String(refused)} malformed packets refused by both`);
  t.ok(read > 1000, `${String(read)} packets read alike by both`);
  t.equal(refused + read, framed);
});

t.test('what a router sends reads as the package reads it', async (t) => {
  const access = frame(
    encodeRequest(
      CODE.accessRequest,
      1,
      [
        ['User-Name', 'k7q2m9'],
        ['User-Password', 'secret'],
        ['NAS-Identifier', 'venue-01'],
        ['Calling-Station-Id', '02-00-00-00-00-01'],
        ['Vendor-Specific', 14559, [['ChilliSpot-Version', '1.6']]],
      ],
      'x',
    ),
  );
  const accounting = frame(
    encodeRequest(
      CODE.accountingRequest,
      2,
      [
        ['User-Name', 'k7q2m9'],
        ['NAS-Identifier', 'venue-01'],
        ['Acct-Status-Type', 'Stop'],
        ['Acct-Session-Id', 's1'],
        ['Framed-IP-Address', '10.1.0.7'],
        ['Acct-Input-Octets', 1000],
        ['Acct-Input-Gigawords', 2],
        ['Acct-Terminate-Cause', 'User-Request'],
        ['Acct-Delay-Time', 3],
      ],
      'x',
    ),
  );
  if (!access.ok || !accounting.ok) throw new Error('test packets do not frame');
  const a = readFields(access.frame);
  t.equal(a?.text('User-Name'), 'k7q2m9');
  t.equal(a?.text('NAS-Identifier'), 'venue-01');
  t.equal(a?.text('Calling-Station-Id'), '02-00-00-00-00-01');
  const b = readFields(accounting.frame);
  t.equal(b?.text('Acct-Status-Type'), 'Stop', 'an enumerated value by its name');
  t.equal(b?.integer('Acct-Status-Type'), undefined, '… and not as a number');
  t.equal(b?.text('Framed-IP-Address'), '10.1.0.7');
  t.equal(b?.integer('Acct-Input-Octets'), 1000);
  t.equal(b?.integer('Acct-Input-Gigawords'), 2);
  t.equal(b?.text('Acct-Terminate-Cause'), 'User-Request');
  t.equal(b?.integer('Acct-Delay-Time'), 3);
  t.equal(agree(access.frame), null);
  t.equal(agree(accounting.frame), null);

  const raw = (code: number, ...attrs: Buffer[]): Buffer => {
    const body = Buffer.concat(attrs);
    const head = Buffer.alloc(20);
    head[0] = code;
    head.writeUInt16BE(20 + body.length, 2);
    return Buffer.concat([head, body]);
  };
  const shortInteger = frame(raw(CODE.accountingRequest, tlv(46, Buffer.from([0, 1, 2]))));
  t.ok(
    shortInteger.ok && readFields(shortInteger.frame) === null,
    'a 3-octet Acct-Session-Time is malformed',
  );
  const badVendor = frame(
    raw(CODE.accountingRequest, tlv(26, Buffer.concat([u32(0x01000009), tlv(1, Buffer.from('x'))]))),
  );
  t.ok(badVendor.ok && readFields(badVendor.frame) === null, 'a vendor id above 2^24 is malformed');
  const fine = frame(raw(CODE.accountingRequest, tlv(46, u32(7)), vsa(14988, tlv(8, Buffer.from('1M/2M')))));
  t.equal(
    fine.ok && readFields(fine.frame)?.integer('Acct-Session-Time'),
    7,
    'the same packets, well-formed, read',
  );
});
