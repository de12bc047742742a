import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { chapResponse, logonUrl, papPassword, uamChallenge, uamCredential } from '../../src/wifi/uam.js';

const CHALLENGE = '8b10938e9770a389af6667748c2c828f';

t.test('the worked example of DESIGN.md §4.3 (CoovaChilli hotspotlogin.cgi)', async (t) => {
  t.equal(uamChallenge(CHALLENGE, 'uamsecret').toString('hex'), 'dcb190b93595621189e7386a9e0a5dbb');
  t.same(uamCredential('chap', 's3cret', CHALLENGE, 'uamsecret'), {
    response: '8acec8d8add9e1eb520f36da2c4b1c4e',
  });
  t.same(uamCredential('pap', 's3cret', CHALLENGE, 'uamsecret'), { password: 'af82f3cb50e1' });
  t.same(uamCredential('chap', 's3cret', CHALLENGE, null), { response: 'e540984445ba293089b7338354fa21a0' });
  t.same(uamCredential('pap', 's3cret', CHALLENGE, null), { password: 'f823f0fcf204' });
  t.same(
    uamCredential('chap', 's3cret', CHALLENGE, ''),
    uamCredential('chap', 's3cret', CHALLENGE, null),
    'empty = none',
  );
});

t.test('PAP repeats newchal for passwords longer than 16 bytes', async (t) => {
  const newchal = Buffer.alloc(16, 0x01);
  t.equal(papPassword('A'.repeat(20), newchal), '40'.repeat(20));
});

/**
 * The reference algorithm, run by Perl's Digest::MD5 exactly as hotspotlogin.cgi writes it
 * (lines 78, 107, 114), on random inputs: an independent implementation of MD5, XOR and hex.
 */
const PERL = `
use Digest::MD5 qw(md5 md5_hex);
while (my $line = <STDIN>) {
  chomp $line;
  my ($challenge, $secret_hex, $password_hex) = split / /, $line, -1;
  my ($secret, $password) = (pack("H*", $secret_hex), pack("H*", $password_hex));
  my $hexchal = pack "H*", $challenge;
  my $newchal = length($secret) ? md5($hexchal, $secret) : $hexchal;
  my $response = md5_hex("\\0", $password, $newchal);
  while (length($newchal) < length($password)) { $newchal .= $newchal; }
  my $pap = unpack "H*", substr($password ^ $newchal, 0, length($password));
  print "$response $pap\\n";
}`;

t.test('CHAP and PAP agree with the reference algorithm on random inputs', async (t) => {
  const cases = Array.from({ length: 40 }, (_, i) => ({
    challenge: randomBytes(16).toString('hex'),
    secret: i % 3 === 0 ? '' : randomBytes(1 + (i % 12)).toString('base64url'),
    password: randomBytes(1 + (i % 40))
      .toString('base64url')
      .slice(0, 1 + (i % 40)),
  }));
  const input = cases
    .map((c) =>
      [c.challenge, Buffer.from(c.secret).toString('hex'), Buffer.from(c.password).toString('hex')].join(' '),
    )
    .join('\n');
  const lines = execFileSync('perl', ['-e', PERL], { input: `${input}\n` })
    .toString()
    .trimEnd()
    .split('\n');
  t.equal(lines.length, cases.length);
  cases.forEach((c, i) => {
    const newchal = uamChallenge(c.challenge, c.secret || null);
    t.equal(
      `${chapResponse(c.password, newchal)} ${papPassword(c.password, newchal)}`,
      lines[i],
      `case ${i}`,
    );
  });
});

t.test('the logon URL carries username, the credential and an encoded userurl', async (t) => {
  t.equal(
    logonUrl({
      uamip: '10.1.0.1',
      uamport: 3990,
      username: 'guest1',
      credential: { response: '8acec8d8add9e1eb520f36da2c4b1c4e' },
      userurl: 'http://example.com/',
    }),
    'http://10.1.0.1:3990/logon?username=guest1&response=8acec8d8add9e1eb520f36da2c4b1c4e&userurl=http%3A%2F%2Fexample.com%2F',
  );
  t.equal(
    logonUrl({ uamip: '10.1.0.1', uamport: 3990, username: 'a b', credential: { password: 'af82f3cb50e1' } }),
    'http://10.1.0.1:3990/logon?username=a%20b&password=af82f3cb50e1',
  );
  t.equal(
    logonUrl({
      uamip: '192.168.182.1',
      uamport: 3990,
      username: 'u',
      credential: { response: '00' },
      userurl: 'https://news.example/a?b=1&c=d e#frag',
    }),
    'http://192.168.182.1:3990/logon?username=u&response=00&userurl=https%3A%2F%2Fnews.example%2Fa%3Fb%3D1%26c%3Dd%20e%23frag',
  );
});
