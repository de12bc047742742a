import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { hotspotChapResponse, hotspotLoginUrl, parseOctalEscapes } from '../../src/wifi/mikrotik.js';

/** How RouterOS writes `$(chap-id)` / `$(chap-challenge)`: every octet as a 3-digit octal escape. */
const routerOs = (bytes: Buffer): string =>
  [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

const CHAP_ID = '\\371';
const CHALLENGE = '\\357\\015\\330\\013\\021\\234\\145\\245\\303\\253\\142\\246\\133\\175\\375\\316';

t.test('the worked example of DESIGN.md §4.7 (research radius-hotspot.md §2.1)', async (t) => {
  const id = parseOctalEscapes(CHAP_ID);
  const challenge = parseOctalEscapes(CHALLENGE);
  t.equal(id?.toString('hex'), 'f9');
  t.equal(challenge?.toString('hex'), 'ef0dd80b119c65a5c3ab62a65b7dfdce');
  t.equal(hotspotChapResponse(id!, 's3cret', challenge!), '4c22dff5b4596a0ba3cad1cea77807fe');
});

t.test(
  'octal escapes are read as a JavaScript string literal reads them (RouterOS login.html)',
  async (t) => {
    const vectors: [string, string][] = [
      ['\\0', '00'],
      ['\\7', '07'],
      ['\\12', '0a'],
      ['\\101', '41'],
      ['\\377', 'ff'],
      ['\\400', '2030'], // 0o400 > 255: \40 then "0"
      ['\\477', '2737'], // \47 then "7"
      ['\\1234', '5334'], // \123 then "4"
      ['\\08', '0038'], // 8 is not an octal digit
      ['A\\101z', '41417a'],
      [' ~', '207e'],
      ['', ''],
    ];
    for (const [text, hex] of vectors) {
      t.equal(parseOctalEscapes(text)?.toString('hex'), hex, JSON.stringify(text));
      // Node's own parser of a legacy (sloppy-mode) string literal agrees.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the engine's own reading of the literal is the oracle
      const engine = new Function(`return "${text}";`)() as string;
      t.equal(Buffer.from(engine, 'latin1').toString('hex'), hex, `engine: ${JSON.stringify(text)}`);
    }
  },
);

t.test('what RouterOS never writes is refused', async (t) => {
  for (const text of ['\\', 'ab\\', '\\x41', '\\u0041', '\\n', '\\\\', 'é', '\u0001', '\\9']) {
    t.equal(parseOctalEscapes(text), null, JSON.stringify(text));
  }
});

t.test('random octets survive RouterOS escaping and agree with the engine', async (t) => {
  for (let i = 0; i < 200; i++) {
    const bytes = randomBytes(1 + (i % 32));
    const text = routerOs(bytes);
    t.same(parseOctalEscapes(text), bytes);
  }
  // Mixed forms: escapes of any width and printable characters (no quote or backslash).
  for (let i = 0; i < 200; i++) {
    let text = '';
    for (const b of randomBytes(12)) {
      const pick = b % 3;
      if (pick === 0) text += `\\${(b % 256).toString(8)}`;
      else if (pick === 1) text += String.fromCharCode(0x30 + (b % 10));
      else text += 'kQ!#'.charAt(b % 4);
    }
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the engine's own reading of the literal is the oracle
    const engine = new Function(`return "${text}";`)() as string;
    t.equal(parseOctalEscapes(text)?.toString('hex'), Buffer.from(engine, 'latin1').toString('hex'), text);
  }
});

/** RouterOS's page in Perl: the octal string read by Perl's own parser, MD5 by Digest::MD5. */
const PERL = `
use Digest::MD5 qw(md5_hex);
while (my $line = <STDIN>) {
  chomp $line;
  my ($id, $password_hex, $challenge) = split / /, $line, -1;
  my $octets = eval("\\"$id\\"") . pack("H*", $password_hex) . eval("\\"$challenge\\"");
  print md5_hex($octets), "\\n";
}`;

t.test('the CHAP response agrees with an independent computation on random inputs', async (t) => {
  const cases = Array.from({ length: 40 }, (_, i) => ({
    id: randomBytes(1),
    challenge: randomBytes(16),
    password: randomBytes(4 + (i % 20)).toString('base64url'),
  }));
  const input = cases
    .map((c) => [routerOs(c.id), Buffer.from(c.password).toString('hex'), routerOs(c.challenge)].join(' '))
    .join('\n');
  const lines = execFileSync('perl', ['-e', PERL], { input: `${input}\n` })
    .toString()
    .trimEnd()
    .split('\n');
  t.equal(lines.length, cases.length);
  cases.forEach((c, i) => {
    const id = parseOctalEscapes(routerOs(c.id));
    const challenge = parseOctalEscapes(routerOs(c.challenge));
    t.equal(hotspotChapResponse(id!, c.password, challenge!), lines[i], `case ${String(i)}`);
  });
});

t.test('the hand-off URL is link-login-only with username, password and dst', async (t) => {
  const linkLoginOnly = new URL('http://10.5.50.1/login');
  t.equal(
    hotspotLoginUrl({
      linkLoginOnly,
      username: 'guest1',
      password: 's3cret',
      chap: { id: parseOctalEscapes(CHAP_ID)!, challenge: parseOctalEscapes(CHALLENGE)! },
      dst: 'http://example.com/a?b=1&c=d',
    }),
    'http://10.5.50.1/login?username=guest1&password=4c22dff5b4596a0ba3cad1cea77807fe&dst=http%3A%2F%2Fexample.com%2Fa%3Fb%3D1%26c%3Dd',
  );
  t.equal(
    hotspotLoginUrl({ linkLoginOnly, username: 'guest1', password: 's3cret', chap: null, dst: undefined }),
    'http://10.5.50.1/login?username=guest1&password=s3cret',
    'HTTP-PAP: the password itself; no dst when none was given',
  );
});
