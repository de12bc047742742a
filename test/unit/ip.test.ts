import t from 'tap';
import { addressBlock } from '../../src/lib/ip.js';

t.test('an IPv4 address is its own block', async (t) => {
  for (const ip of ['203.0.113.7', '10.0.0.1', '127.0.0.1']) t.equal(addressBlock(ip), ip);
});

t.test('IPv6 addresses of one /64 share a block, however they are written', async (t) => {
  const cases: [string, string][] = [
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:192.0.2.1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ];
  for (const [ip, block] of cases) t.equal(addressBlock(ip), block, ip);
  t.not(addressBlock('2001:db8:1:3::1'), addressBlock('2001:db8:1:2::1'), 'the next /64 is another block');
});

t.test('something that is not an address is returned unchanged', async (t) => {
  for (const value of ['', 'unknown', '2001:db8::1::2']) t.equal(addressBlock(value), value);
});
