import { createHmac, randomBytes, randomInt } from 'node:crypto';
import t from 'tap';
import { HmacMd5, hmacMd5, hmacMd5Key } from '../../src/radius/hmac.js';

/**
 * HMAC-MD5 with precomputed pad blocks (src/radius/hmac.ts): RFC 2202 §2's test cases, then the
 * same answers as node:crypto's createHmac over random keys (empty, short, one block, longer
 * than a block) and messages, whole and in parts, with the same key object reused.
 */

const hex = (s: string): Buffer => Buffer.from(s, 'hex');
const repeat = (byte: number, n: number): Buffer => Buffer.alloc(n, byte);

/** RFC 2202 §2, test cases 1-7: key, data, digest. */
const RFC2202: readonly [key: Buffer, data: Buffer, digest: string][] = [
  [repeat(0x0b, 16), Buffer.from('Hi There'), '9294727a3638bb1c13f48ef8158bfc9d'],
  [Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'), '750c783e6ab0b503eaa86e310a5db738'],
  [repeat(0xaa, 16), repeat(0xdd, 50), '56be34521d144c88dbb8c733f0e8b3f6'],
  [
    hex('0102030405060708090a0b0c0d0e0f10111213141516171819'),
    repeat(0xcd, 50),
    '697eaf0aca3a3aea3a75164746ffaa79',
  ],
  [repeat(0x0c, 16), Buffer.from('Test With Truncation'), '56461ef2342edc00f9bab995690efd4c'],
  [
    repeat(0xaa, 80),
    Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'),
    '6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd',
  ],
  [
    repeat(0xaa, 80),
    Buffer.from('Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data'),
    '6f630fad67cda0ee1fb1f562db3aa53e',
  ],
];

t.test('RFC 2202 HMAC-MD5 test cases', async (t) => {
  for (const [i, [key, data, digest]] of RFC2202.entries()) {
    const h = new HmacMd5(key);
    t.equal(h.digest(data).toString('hex'), digest, `test case ${String(i + 1)}`);
    t.equal(h.digest(data).toString('hex'), digest, `test case ${String(i + 1)}, the same key again`);
  }
  t.equal(
    new HmacMd5(repeat(0x0c, 16)).digest(Buffer.from('Test With Truncation')).subarray(0, 12).toString('hex'),
    '56461ef2342edc00f9bab995',
    'test case 5, digest-96',
  );
  t.equal(
    hmacMd5('Jefe', Buffer.from('what do ya want for nothing?')).toString('hex'),
    RFC2202[1]?.[2],
    'by secret',
  );
});

t.test('the same digests as createHmac over random keys and messages', async (t) => {
  const lengths = [0, 1, 15, 16, 17, 55, 63, 64, 65, 100, 128, 200];
  let checked = 0;
  for (const keyLength of lengths) {
    const key = randomBytes(keyLength);
    const h = new HmacMd5(key);
    for (let n = 0; n < 40; n++) {
      const message = randomBytes(n < lengths.length ? (lengths[n] ?? 0) : randomInt(0, 4097));
      const expected = createHmac('md5', key).update(message).digest();
      if (!h.digest(message).equals(expected))
        t.fail(`key of ${String(keyLength)} octets, message of ${String(message.length)}`);
      const cut = randomInt(0, message.length + 1);
      if (!h.digest(message.subarray(0, cut), message.subarray(cut)).equals(expected))
        t.fail(`key of ${String(keyLength)} octets, message in two parts at ${String(cut)}`);
      checked++;
    }
  }
  for (let n = 0; n < 200; n++) {
    // text secrets as routers are given them, multi-byte characters included
    const secret = randomBytes(randomInt(1, 90)).toString('base64') + (n % 2 === 0 ? 'é漢' : '');
    const message = randomBytes(randomInt(20, 600));
    if (!hmacMd5(secret, message).equals(createHmac('md5', secret).update(message).digest()))
      t.fail(`secret ${JSON.stringify(secret)}, message of ${String(message.length)} octets`);
    checked++;
  }
  t.equal(checked, lengths.length * 40 + 200, 'every pair checked, none differed');
});

t.test('keys are made once per secret', async (t) => {
  t.equal(hmacMd5Key('router-secret-1'), hmacMd5Key('router-secret-1'), 'the same key object');
  t.not(hmacMd5Key('router-secret-1'), hmacMd5Key('router-secret-2'), 'another secret, another key');
});
