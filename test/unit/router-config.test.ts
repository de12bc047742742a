import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  MIKROTIK_LOGIN_FIELDS,
  PLACEHOLDERS,
  ROUTER_CONFIG_FORMATS,
  isRouterConfigFormat,
  mikrotikLoginHtml,
  renderRouterConfig,
  routerOsString,
  routerOsTime,
  shellQuote,
  walledGardenHosts,
  type RouterConfigInput,
} from '../../src/wifi/router-config.js';

const NASTY_SECRET = `s3"c$r\\e?t;{x}[y]'#`;
const NASTY_UAM_SECRET = `u'a$m\`x\\`;

const anInput = (over: Partial<RouterConfigInput> = {}): RouterConfigInput => ({
  device: {
    name: 'Lobby AP',
    nasId: 'venue-01',
    localNetwork: '10.5.50.0/24',
    gatewayIp: '10.5.50.1',
    uamServer: 'http://10.1.0.10:8080/portal',
    coaPort: 3799,
    uamAuth: 'chap',
  },
  radiusSecret: 'Router-Own-Secret-1',
  uamSecret: { source: 'own', value: 'uam-own-secret' },
  radius: { address: '10.1.0.10', authPort: 1812, acctPort: 1813, interimSeconds: 300 },
  walledGarden: ['10.1.0.10', 'api.pay.example'],
  serviceName: 'Acme Wi-Fi',
  generatedAt: new Date('2026-11-21T10:00:00.000Z'),
  ...over,
});

const withDevice = (device: Partial<RouterConfigInput['device']>): RouterConfigInput => {
  const base = anInput();
  return { ...base, device: { ...base.device, ...device } };
};

// ---------------------------------------------------------------------------------------------
// Real shells for the CoovaChilli and OpenWrt output

const dir = t.testdir({});
let fileCount = 0;
function scriptFile(text: string): string {
  const file = join(dir, `script-${String(fileCount++)}.sh`);
  writeFileSync(file, text);
  return file;
}

const HS_VARS = [
  'HS_NETWORK',
  'HS_NETMASK',
  'HS_UAMLISTEN',
  'HS_RADIUS',
  'HS_RADIUS2',
  'HS_RADAUTH',
  'HS_RADACCT',
  'HS_RADSECRET',
  'HS_NASID',
  'HS_COAPORT',
  'HS_DEFINTERIMINTERVAL',
  'HS_UAMSERVER',
  'HS_UAMFORMAT',
  'HS_UAMHOMEPAGE',
  'HS_UAMSECRET',
  'HS_UAMALLOW',
  'HS_UAMDOMAINS',
];

/** Sources the config in `shell` under set -u, prints every HS_* it set, and the uamserver chilli builds. */
function sourceChilliWith(shell: 'bash' | 'dash', config: string): Map<string, string> {
  const file = scriptFile(config);
  // functions.in: uamserver "$(eval echo $HS_UAMFORMAT)"
  const program = [
    'set -u',
    `. '${file}'`,
    ...HS_VARS.map((v) => `printf '%s=%s\\0' ${v} "$${v}"`),
    `printf 'uamserver=%s\\0' "$(eval echo $HS_UAMFORMAT)"`,
    `set | grep -a '^HS_' | cut -d= -f1 | tr '\\n' ' ' | { read -r names; printf 'names=%s\\0' "$names"; }`,
  ].join('\n');
  const out = execFileSync(shell, ['-c', program]).toString();
  return new Map(
    out
      .split('\0')
      .filter((s) => s !== '')
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

const sourceChilli = (config: string): Map<string, string> => sourceChilliWith('bash', config);

interface UciRun {
  calls: string[][];
  options: Map<string, string>;
  deleted: string[];
  restarted: boolean;
}

/** Runs the OpenWrt commands in bash with a fake `uci` and init script that record their arguments. */
function runOpenWrt(commands: string): UciRun {
  const file = scriptFile(commands);
  const program = [
    'uci() { for a in "$@"; do printf \'%s\\037\' "$a"; done; printf \'\\n\\0\'; }',
    '/etc/init.d/chilli() { printf \'RESTART %s\\n\\0\' "$*"; }',
    `. '${file}'`,
  ].join('\n');
  const out = execFileSync('bash', ['-c', program]).toString();
  const records = out.split('\0').filter((s) => s !== '');
  const calls = records
    .filter((r) => !r.startsWith('RESTART'))
    .map((r) => (r.endsWith('\u001f\n') ? r.slice(0, -2) : r).split('\u001f'));
  const options = new Map<string, string>();
  const deleted: string[] = [];
  for (const call of calls) {
    const [verb, ...rest] = call[0] === '-q' ? call.slice(1) : call;
    const arg = rest[0] ?? '';
    if (verb === 'set') {
      const [path = '', ...value] = arg.split('=');
      options.set(path.replace('chilli.@chilli[0].', ''), value.join('='));
    } else if (verb === 'delete') deleted.push(arg.replace('chilli.@chilli[0].', ''));
  }
  return { calls, options, deleted, restarted: records.some((r) => r.startsWith('RESTART restart')) };
}

// ---------------------------------------------------------------------------------------------
// RouterOS string rules, written out from the "Scripting" manual (constant escape sequences):
// \" \\ \n \r \t \$ \? \_ \a \b \f \v, and \XX (two upper-case hex digits) for any byte.
// An unescaped " ends the string, $ substitutes a variable and ? asks the console for help.

const NAMED = new Map([
  ['"', 0x22],
  ['\\', 0x5c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
  ['$', 0x24],
  ['?', 0x3f],
  ['_', 0x20],
  ['a', 0x07],
  ['b', 0x08],
  ['f', 0x0c],
  ['v', 0x0b],
]);

function unescapeRouterOs(literal: string): string {
  if (literal.length < 2 || !literal.startsWith('"') || !literal.endsWith('"')) {
    throw new Error(`not a quoted string: ${literal}`);
  }
  const body = literal.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i);
    if (c === '"' || c === '$' || c === '?') throw new Error(`unescaped ${c} at ${String(i)}`);
    if (c !== '\\') {
      bytes.push(c.charCodeAt(0));
      continue;
    }
    const hex = body.slice(i + 1, i + 3);
    if (/^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    const named = NAMED.get(body.charAt(i + 1));
    if (named === undefined) throw new Error(`unknown escape at ${String(i)}`);
    bytes.push(named);
    i += 1;
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * A structural check of a RouterOS script: string literals are terminated and only use the
 * manual's escapes, comments are whole lines, and (), [], {} balance outside strings.
 */
function checkRouterOsStructure(script: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const pairs = new Map([
    [')', '('],
    [']', '['],
    ['}', '{'],
  ]);
  for (const [n, line] of script.split('\n').entries()) {
    if (line.trimStart().startsWith('#')) continue;
    for (let i = 0; i < line.length; i++) {
      const c = line.charAt(i);
      if (c === '"') {
        let j = i + 1;
        while (j < line.length && line.charAt(j) !== '"') j += line.charAt(j) === '\\' ? 2 : 1;
        if (j >= line.length) {
          problems.push(`line ${String(n + 1)}: unterminated string`);
          break;
        }
        try {
          unescapeRouterOs(line.slice(i, j + 1));
        } catch (error) {
          problems.push(`line ${String(n + 1)}: ${(error as Error).message}`);
        }
        i = j;
      } else if (c === '(' || c === '[' || c === '{') stack.push(c);
      else if (pairs.has(c) && stack.pop() !== pairs.get(c))
        problems.push(`line ${String(n + 1)}: unbalanced ${c}`);
      else if (c === '#') problems.push(`line ${String(n + 1)}: # after code`);
    }
  }
  if (stack.length > 0) problems.push(`unclosed ${stack.join('')}`);
  return problems;
}

t.test('routerOsString escapes ", \\, $ and ? and writes other bytes as \\XX', async (t) => {
  t.equal(routerOsString('abc'), '"abc"');
  t.equal(routerOsString(''), '""');
  t.equal(routerOsString('a"b'), '"a\\"b"');
  t.equal(routerOsString('a\\b'), '"a\\\\b"');
  t.equal(routerOsString('$(identity)'), '"\\$(identity)"');
  t.equal(routerOsString('$x'), '"\\$x"');
  t.equal(routerOsString('why?'), '"why\\?"');
  t.equal(routerOsString('a\nb\r\tc'), '"a\\nb\\r\\tc"');
  t.equal(routerOsString('\\41'), '"\\\\41"', 'a backslash before hex digits stays a backslash');
  t.equal(routerOsString('é\x01'), '"\\C3\\A9\\01"', 'UTF-8 bytes and control bytes as upper-case hex');
  t.equal(routerOsString(NASTY_SECRET), `"s3\\"c\\$r\\\\e\\?t;{x}[y]'#"`);
});

t.test('routerOsString round-trips through the manual rules', async (t) => {
  const printable = Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).join('');
  const pool = Array.from(`${printable}\n\r\t\x00\x7fé€😀`);
  const samples = [
    printable,
    pool.join(''),
    NASTY_SECRET,
    NASTY_UAM_SECRET,
    mikrotikLoginHtml('http://a/p?x=$y'),
  ];
  for (let n = 0; n < 200; n++) {
    const picks = randomBytes(1 + (n % 40));
    samples.push([...picks].map((b) => pool[b % pool.length]).join(''));
  }
  for (const sample of samples) t.equal(unescapeRouterOs(routerOsString(sample)), sample);
});

t.test('routerOsTime writes seconds the RouterOS way', async (t) => {
  const vectors: [number, string][] = [
    [300, '5m'],
    [60, '1m'],
    [90, '1m30s'],
    [3600, '1h'],
    [3661, '1h1m1s'],
    [86400, '24h'],
    [0, '0s'],
  ];
  for (const [seconds, text] of vectors) t.equal(routerOsTime(seconds), text, String(seconds));
});

t.test('isRouterConfigFormat accepts exactly the three formats', async (t) => {
  t.same(ROUTER_CONFIG_FORMATS, ['routeros', 'coovachilli', 'openwrt']);
  for (const format of ROUTER_CONFIG_FORMATS) t.ok(isRouterConfigFormat(format));
  t.notOk(isRouterConfigFormat('RouterOS'));
  t.notOk(isRouterConfigFormat('json'));
});

// ---------------------------------------------------------------------------------------------
// login.html

const hiddenInputs = (html: string): [string, string][] =>
  [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);

t.test('login.html sends every field to the portal with the exact RouterOS variable', async (t) => {
  const html = mikrotikLoginHtml('http://10.1.0.10:8080/portal');
  t.same(hiddenInputs(html), [
    ['res', '$(if error)failed$(else)notyet$(endif)'],
    ['nasid', '$(identity)'],
    ['mac', '$(mac)'],
    ['ip', '$(ip)'],
    ['link_login_only', '$(link-login-only)'],
    ['chap_id', '$(chap-id)'],
    ['chap_challenge', '$(chap-challenge)'],
    ['dst', '$(link-orig)'],
    ['error', '$(error)'],
  ]);
  t.same(
    hiddenInputs(html),
    MIKROTIK_LOGIN_FIELDS.map(([name, value]) => [name, value]),
  );
  t.match(html, /<form name="portal" action="http:\/\/10\.1\.0\.10:8080\/portal" method="get">/);
  t.match(html, /<noscript>.*<input type="submit"[^>]*>.*<\/noscript>/);
  t.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  t.match(html, /<script>document\.forms\[0\]\.submit\(\);<\/script>/);
  t.notMatch(html, /\b(src|href)=/, 'no external resources');
  t.equal(html.match(/https?:/g)?.length, 1, 'the only URL is the form action');
  t.ok(Buffer.byteLength(html) < 4096, 'well under the 4 KiB a RouterOS file edit has always allowed');
});

t.test('login.html keeps the portal URL query as hidden inputs and hides $ from RouterOS', async (t) => {
  const html = mikrotikLoginHtml('http://portal.example/p?venue=lobby&x=a%26b&res=spoof#top');
  t.match(html, /action="http:\/\/portal\.example\/p" method="get"/);
  t.same(hiddenInputs(html).slice(0, 2), [
    ['venue', 'lobby'],
    ['x', 'a&#38;b'],
  ]);
  t.equal(hiddenInputs(html).filter(([name]) => name === 'res').length, 1, 'our res wins');
  t.notMatch(html, /#top/);

  const dollar = mikrotikLoginHtml('http://portal.example/$(identity)/"x"');
  t.match(dollar, /action="http:\/\/portal\.example\/&#36;\(identity\)\/&#34;x&#34;"/);
  t.equal(dollar.split('$(').length - 1, MIKROTIK_LOGIN_FIELDS.length + 2, 'only our variables');
});

// ---------------------------------------------------------------------------------------------
// RouterOS script

const routeros = (input: RouterConfigInput): string => renderRouterConfig(input, 'routeros');

t.test('the RouterOS script sets identity, RADIUS, CoA, the profile and the walled garden', async (t) => {
  const script = routeros(anInput({ radiusSecret: NASTY_SECRET }));
  const lines = script.split('\n').map((line) => line.trim());
  const has = (line: string): void => {
    t.ok(lines.includes(line), line);
  };
  has('/system identity set name="venue-01"');
  has(
    `/radius add service=hotspot address=10.1.0.10 secret="s3\\"c\\$r\\\\e\\?t;{x}[y]'#" authentication-port=1812 accounting-port=1813 comment="hotspot-ctl"`,
  );
  has('/radius incoming set accept=yes port=3799');
  has(
    '/ip hotspot profile set [find name=$hsProfile] use-radius=yes radius-accounting=yes radius-interim-update=received login-by=http-chap,http-pap dns-name=""',
  );
  has('/ip hotspot walled-garden ip add action=accept dst-address=10.1.0.10 comment="hotspot-ctl"');
  has('/ip hotspot walled-garden ip add action=accept dst-host="api.pay.example" comment="hotspot-ctl"');
  t.match(
    script,
    /\/ip firewall filter add chain=input action=accept protocol=udp src-address=10\.1\.0\.10 dst-port=3799 /,
  );
  t.same(checkRouterOsStructure(script), []);
});

t.test('running the RouterOS script twice replaces its entries instead of adding more', async (t) => {
  const lines = routeros(anInput())
    .split('\n')
    .map((line) => line.trim());
  const before = (first: string, second: string): void => {
    const a = lines.findIndex((l) => l.startsWith(first));
    const b = lines.findIndex((l) => l.startsWith(second));
    t.ok(a >= 0 && b > a, `${first} comes before ${second}`);
  };
  before('/radius remove [find comment="hotspot-ctl"]', '/radius add ');
  before(
    '/ip hotspot walled-garden ip remove [find comment="hotspot-ctl"]',
    '/ip hotspot walled-garden ip add ',
  );
  before(
    '/ip firewall filter remove [find comment="hotspot-ctl: CoA from RADIUS server"]',
    ':do { /ip firewall filter add',
  );
});

t.test('the RouterOS script writes exactly our login.html, with $(…) kept from the script', async (t) => {
  const input = withDevice({ uamServer: 'http://portal.example:8080/portal?venue=lobby' });
  const script = routeros(input);
  const line = script.split('\n').find((l) => l.trim().startsWith(':local loginHtml '));
  t.ok(line);
  const literal = (line ?? '').trim().slice(':local loginHtml '.length);
  t.equal(unescapeRouterOs(literal), mikrotikLoginHtml(input.device.uamServer));
  t.match(script, '/file set [find name=$loginFile] contents=$loginHtml');
  t.match(script, ':local htmlDir [/ip hotspot profile get [find name=$hsProfile] html-directory]');

  const ownVariables = new Set([
    'hsServer',
    'hsProfile',
    'servers',
    'htmlDir',
    'loginFile',
    'floginFile',
    'loginHtml',
  ]);
  const unescaped = [...script.matchAll(/(?<!\\)\$([A-Za-z(]\w*)/g)].map((m) => m[1] ?? '');
  t.same(
    unescaped.filter((name) => !ownVariables.has(name)),
    [],
    'every other $ is escaped',
  );
});

t.test('the RouterOS script comments cannot smuggle commands or help keys', async (t) => {
  const script = routeros(
    anInput({
      serviceName: 'Cafe?\n/system reset-configuration',
      device: { ...anInput().device, name: 'AP\r\n/user remove admin', nasId: 'nas?"<x>' },
    }),
  );
  const blockStart = script.split('\n').indexOf('{');
  const outside = script.split('\n').slice(0, blockStart);
  t.ok(
    outside.every((line) => line.startsWith('#')),
    'only comments before the block',
  );
  t.notMatch(outside.join('\n'), /\?/, 'no ? (console help) in comments');
  t.ok(script.split('\n').includes('  /system identity set name="nas\\?\\"<x>"'));
  t.match(script, /WARNING: the NAS id contains/);
  t.same(checkRouterOsStructure(script), []);
});

t.test('an unknown box address prints a placeholder RouterOS refuses, and says so', async (t) => {
  const base = anInput();
  const script = routeros({ ...base, radius: { ...base.radius, address: null } });
  t.match(script, `# This box's address is not known: replace ${PLACEHOLDERS.radiusAddress}`);
  t.match(script, `/radius add service=hotspot address="${PLACEHOLDERS.radiusAddress}" secret=`);
  t.match(script, `:if ([:typeof [:toip "${PLACEHOLDERS.radiusAddress}"]] != "ip") do={ :error`);
  t.notMatch(script, /null/);
  t.same(checkRouterOsStructure(script), []);
});

t.test('a router on the global RADIUS secret gets a placeholder, never a secret', async (t) => {
  const script = routeros(anInput({ radiusSecret: null }));
  t.match(script, 'which hotspot-ctl never prints');
  t.match(script, `secret="${PLACEHOLDERS.radiusSecret}" authentication-port=`);
  t.match(script, `:if ([:pick "${PLACEHOLDERS.radiusSecret}" 0 13] = "REPLACE_WITH_") do={ :error`);
  t.same(
    [...script.matchAll(/secret=("[^"]*")/g)].map((m) => m[1]),
    [`"${PLACEHOLDERS.radiusSecret}"`],
  );
  t.notMatch(script, /Router-Own-Secret-1/);
  t.same(checkRouterOsStructure(script), []);

  const own = routeros(anInput());
  t.notMatch(own, /REPLACE_WITH_|never prints/);
});

t.test('the walled garden lists every host once, the portal host included', async (t) => {
  const input = anInput({
    walledGarden: ['api.pay.example', 'API.pay.example', ' api.pay.example ', '10.9.9.9'],
  });
  t.same(walledGardenHosts(input), ['10.1.0.10', 'api.pay.example', '10.9.9.9']);
  const adds = routeros(input)
    .split('\n')
    .filter((l) => l.includes('/ip hotspot walled-garden ip add '));
  t.equal(adds.length, 3);
  t.equal(adds.filter((l) => l.includes('dst-host="api.pay.example"')).length, 1);

  const chilli = sourceChilli(renderRouterConfig(input, 'coovachilli'));
  t.equal(chilli.get('HS_UAMALLOW'), '10.1.0.10,10.9.9.9');
  t.equal(chilli.get('HS_UAMDOMAINS'), 'api.pay.example');
  const uci = runOpenWrt(renderRouterConfig(input, 'openwrt'));
  t.equal(uci.options.get('uamallowed'), '10.1.0.10,10.9.9.9');
  t.equal(uci.options.get('uamdomain'), 'api.pay.example');
});

t.test('the CoovaChilli config parses as shell and every value survives sourcing', async (t) => {
  const input = anInput({
    radiusSecret: `s3c$r\\e?t;{x}'#`,
    uamSecret: { source: 'own', value: NASTY_UAM_SECRET },
    device: {
      ...anInput().device,
      uamServer: "http://portal.example:8080/p?v=lobby&x=$HOME;'q'",
      nasId: 'nas$(id)`x`',
    },
  });
  const config = renderRouterConfig(input, 'coovachilli');
  execFileSync('bash', ['-n', scriptFile(config)]);
  execFileSync('dash', ['-n', scriptFile(config)]);
  for (const shell of ['bash', 'dash'] as const) {
    const vars = sourceChilliWith(shell, config);
    t.same(
      Object.fromEntries([...vars].filter(([k]) => k !== 'HS_UAMFORMAT' && k !== 'names')),
      {
        HS_NETWORK: '10.5.50.0',
        HS_NETMASK: '255.255.255.0',
        HS_UAMLISTEN: '10.5.50.1',
        HS_RADIUS: '10.1.0.10',
        HS_RADIUS2: '10.1.0.10',
        HS_RADAUTH: '1812',
        HS_RADACCT: '1813',
        HS_RADSECRET: `s3c$r\\e?t;{x}'#`,
        HS_NASID: 'nas$(id)`x`',
        HS_COAPORT: '3799',
        HS_DEFINTERIMINTERVAL: '300',
        HS_UAMSERVER: 'portal.example',
        HS_UAMHOMEPAGE: '',
        HS_UAMSECRET: NASTY_UAM_SECRET,
        HS_UAMALLOW: '10.1.0.10',
        HS_UAMDOMAINS: 'portal.example,api.pay.example',
        uamserver: "http://portal.example:8080/p?v=lobby&x=$HOME;'q'",
      },
      shell,
    );
    t.equal(
      vars.get('names')?.trim().split(' ').sort().join(' '),
      [...HS_VARS].sort().join(' '),
      `${shell}: nothing else set`,
    );
  }
});

t.test('CoovaChilli: the uam secret follows its source, the global one as a placeholder', async (t) => {
  const global = renderRouterConfig(
    anInput({ uamSecret: { source: 'global' }, radiusSecret: null }),
    'coovachilli',
  );
  const vars = sourceChilli(global);
  t.equal(vars.get('HS_UAMSECRET'), PLACEHOLDERS.uamSecret);
  t.equal(vars.get('HS_RADSECRET'), PLACEHOLDERS.radiusSecret);
  t.match(global, 'global UAM_SECRET, which hotspot-ctl never prints');
  t.match(global, 'global RADIUS_SECRET, which hotspot-ctl never prints');

  t.equal(
    sourceChilli(renderRouterConfig(anInput({ uamSecret: { source: 'none' } }), 'coovachilli')).get(
      'HS_UAMSECRET',
    ),
    '',
  );
  const base = anInput();
  const noAddress = sourceChilli(
    renderRouterConfig({ ...base, radius: { ...base.radius, address: null } }, 'coovachilli'),
  );
  t.equal(noAddress.get('HS_RADIUS'), PLACEHOLDERS.radiusAddress);
});

t.test('CHAP or PAP changes nothing in the chilli settings, only the note', async (t) => {
  const chap = renderRouterConfig(withDevice({ uamAuth: 'chap' }), 'coovachilli');
  const pap = renderRouterConfig(withDevice({ uamAuth: 'pap' }), 'coovachilli');
  t.same(sourceChilli(chap), sourceChilli(pap));
  t.match(pap, 'with PAP (password=): CoovaChilli accepts it with no setting');
  t.match(chap, 'with CHAP (response=)');
  t.same(
    runOpenWrt(renderRouterConfig(withDevice({ uamAuth: 'pap' }), 'openwrt')).options,
    runOpenWrt(renderRouterConfig(withDevice({ uamAuth: 'chap' }), 'openwrt')).options,
  );
});

t.test('a double quote in a chilli value is flagged: chilli cannot parse it', async (t) => {
  t.match(
    renderRouterConfig(anInput({ radiusSecret: 'a"b' }), 'coovachilli'),
    'WARNING: the RADIUS secret contains a double quote',
  );
  t.match(
    renderRouterConfig(withDevice({ nasId: 'a"b' }), 'openwrt'),
    'WARNING: the NAS id contains a double quote',
  );
  t.notMatch(renderRouterConfig(anInput(), 'coovachilli'), /WARNING/);
});

t.test('a device name with a newline cannot set variables in the chilli config', async (t) => {
  const config = renderRouterConfig(withDevice({ name: "AP\nHS_RADIUS='evil'" }), 'coovachilli');
  t.equal(sourceChilli(config).get('HS_RADIUS'), '10.1.0.10');
});

t.test('the OpenWrt commands parse as shell and uci receives every value intact', async (t) => {
  const input = anInput({
    radiusSecret: `s3c$r\\e?t;{x}'#`,
    uamSecret: { source: 'own', value: NASTY_UAM_SECRET },
    device: { ...anInput().device, uamServer: "http://portal.example:8080/p?v=lobby&x=$HOME;'q'" },
  });
  const commands = renderRouterConfig(input, 'openwrt');
  execFileSync('bash', ['-n', scriptFile(commands)]);
  execFileSync('dash', ['-n', scriptFile(commands)]);
  const run = runOpenWrt(commands);
  t.same(Object.fromEntries(run.options), {
    disabled: '0',
    net: '10.5.50.0/24',
    uamlisten: '10.5.50.1',
    radiusserver1: '10.1.0.10',
    radiusserver2: '10.1.0.10',
    radiusauthport: '1812',
    radiusacctport: '1813',
    radiussecret: `s3c$r\\e?t;{x}'#`,
    radiusnasid: 'venue-01',
    coaport: '3799',
    definteriminterval: '300',
    uamserver: "http://portal.example:8080/p?v=lobby&x=$HOME;'q'",
    uamsecret: NASTY_UAM_SECRET,
    uamallowed: 'portal.example,10.1.0.10',
    uamdomain: 'portal.example,api.pay.example',
  });
  t.same(run.deleted, ['uamhomepage']);
  t.same(run.calls.at(-1), ['commit', 'chilli'], 'uci commit chilli comes last');
  t.ok(run.restarted, '/etc/init.d/chilli restart');
  t.ok(commands.trimEnd().endsWith('uci commit chilli\n/etc/init.d/chilli restart'));
});

t.test('OpenWrt: no uam secret deletes the option, the global one is a placeholder', async (t) => {
  const none = runOpenWrt(renderRouterConfig(anInput({ uamSecret: { source: 'none' } }), 'openwrt'));
  t.notOk(none.options.has('uamsecret'));
  t.ok(none.deleted.includes('uamsecret'));
  const global = runOpenWrt(
    renderRouterConfig(anInput({ uamSecret: { source: 'global' }, radiusSecret: null }), 'openwrt'),
  );
  t.equal(global.options.get('uamsecret'), PLACEHOLDERS.uamSecret);
  t.equal(global.options.get('radiussecret'), PLACEHOLDERS.radiusSecret);
});

t.test('every format has the header: service, router, NAS id, time', async (t) => {
  for (const format of ROUTER_CONFIG_FORMATS) {
    const text = renderRouterConfig(anInput(), format);
    t.match(text, '# Service: Acme Wi-Fi', format);
    t.match(text, '# Router: Lobby AP', format);
    t.match(text, '# NAS-Identifier: venue-01', format);
    t.match(text, '# Generated: 2026-11-21T10:00:00.000Z', format);
  }
});

t.test('shellQuote makes one word that is exactly the value', async (t) => {
  const values = ["it's", '$HOME', '`id`', 'a\\b', '', "''", 'x y\tz'];
  const program = values.map((v) => `printf '%s\\0' ${shellQuote(v)}`).join('\n');
  t.same(execFileSync('dash', ['-c', program]).toString().split('\0').slice(0, -1), values);
});

t.test(
  'the router address on the guest network is its own: chilli listens there, RouterOS is told so',
  async (t) => {
    const input = withDevice({ gatewayIp: '10.5.50.254' });
    t.match(renderRouterConfig(input, 'coovachilli'), "HS_UAMLISTEN='10.5.50.254'\n");
    t.match(renderRouterConfig(input, 'openwrt'), "uci set 'chilli.@chilli[0].uamlisten=10.5.50.254'\n");
    t.match(
      renderRouterConfig(input, 'routeros'),
      'local address of network\n# 10.5.50.254/24 for 10.5.50.0/24',
    );
  },
);

// ---------------------------------------------------------------------------------------------
// Remote routers over WireGuard (docs/decisions/0025)

const BOX_KEY = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const ROUTER_KEY = 'HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=';

const remote = (over: Partial<NonNullable<RouterConfigInput['tunnel']>> = {}): RouterConfigInput => ({
  ...withDevice({ clientIp: '10.99.0.2' }),
  radius: { ...anInput().radius, address: '10.99.0.1' },
  tunnel: {
    address: '10.99.0.2',
    prefix: 24,
    box: { address: '10.99.0.1', endpointHost: 'vpn.venue.example', endpointPort: 51820, publicKey: BOX_KEY },
    routerPublicKey: null,
    ...over,
  },
});

t.test(
  'RouterOS: a remote router gets its WireGuard interface, the box as peer, and RADIUS over it',
  async (t) => {
    const script = routeros(remote());
    const lines = script.split('\n').map((line) => line.trim());
    const has = (line: string): void => {
      t.ok(lines.includes(line), line);
    };
    has(
      ':if ([:len [/interface wireguard find name="wg-hotspot-ctl"]] = 0) do={ /interface wireguard add name="wg-hotspot-ctl" comment="hotspot-ctl" }',
    );
    has('/interface wireguard peers remove [find comment="hotspot-ctl"]');
    has(
      `/interface wireguard peers add interface="wg-hotspot-ctl" public-key="${BOX_KEY}" endpoint-address="vpn.venue.example" endpoint-port=51820 allowed-address=10.99.0.1/32 persistent-keepalive=25s comment="hotspot-ctl"`,
    );
    has('/ip address remove [find comment="hotspot-ctl"]');
    has('/ip address add address=10.99.0.2/24 interface="wg-hotspot-ctl" comment="hotspot-ctl"');
    has(
      '/ip firewall nat add chain=srcnat action=masquerade out-interface="wg-hotspot-ctl" comment="hotspot-ctl: to the box over WireGuard"',
    );
    t.match(
      script,
      /\/radius add service=hotspot address=10\.99\.0\.1 /,
      'RADIUS at the box end of the tunnel',
    );
    t.match(script, /src-address=10\.99\.0\.1 dst-port=3799 /, 'CoA taken from there');
    const wgAt = lines.findIndex((l) => l.startsWith('/interface wireguard peers add'));
    t.ok(
      wgAt < lines.findIndex((l) => l.startsWith('/radius add')),
      'the tunnel exists before RADIUS uses it',
    );
    // The box's half, as comments, with the router's key still to come.
    t.match(
      script,
      /# {3}\[Peer\]\n# {3}# Lobby AP \(venue-01\)\n# {3}PublicKey = ROUTER_PUBLIC_KEY\n# {3}AllowedIPs = 10\.99\.0\.2\/32\n/,
    );
    t.match(script, '#   :put [/interface wireguard get [find name=wg-hotspot-ctl] public-key]');
    t.notMatch(script, /private-key|PrivateKey/, 'no private key: the router makes its own');
    t.same(checkRouterOsStructure(script), []);

    const known = routeros(remote({ routerPublicKey: ROUTER_KEY }));
    t.match(known, `#   PublicKey = ${ROUTER_KEY}\n`);
    t.notMatch(known, 'ROUTER_PUBLIC_KEY');
    t.notMatch(routeros(anInput()), /wireguard|WireGuard/, 'a router on the LAN gets no tunnel');
  },
);

t.test('a remote router whose CoA address is not its tunnel address is warned about', async (t) => {
  const input = remote();
  const script = routeros({ ...input, device: { ...input.device, clientIp: '192.168.1.2' } });
  t.match(script, '# WARNING: CoA/Disconnect requests go to the registered client address 192.168.1.2');
  t.notMatch(routeros(input), 'WARNING');
});

/** Runs OpenWrt commands with uci, wg and the init scripts stubbed: the uci calls, in order. */
function runOpenWrtRemote(commands: string): string[][] {
  const program = [
    'uci() { for a in "$@"; do printf \'%s\\037\' "$a"; done; printf \'\\n\\0\'; [ "$1" != -q ] || [ "$2" != get ]; }',
    'wg() { echo ROUTER-MADE-KEY; }',
    '/etc/init.d/chilli() { :; }',
    '/etc/init.d/network() { :; }',
    '/etc/init.d/firewall() { :; }',
    `. '${scriptFile(commands)}'`,
  ].join('\n');
  return execFileSync('bash', ['-c', program])
    .toString()
    .split('\0')
    .filter((s) => s.includes('\u001f'))
    .map((r) => (r.endsWith('\u001f\n') ? r.slice(0, -2) : r).split('\u001f'));
}

t.test('OpenWrt: a remote router gets a wireguard interface, its peer and a firewall zone', async (t) => {
  const commands = renderRouterConfig(remote(), 'openwrt');
  execFileSync('bash', ['-n', scriptFile(commands)]);
  execFileSync('dash', ['-n', scriptFile(commands)]);
  const calls = runOpenWrtRemote(commands);
  const sets = calls.filter((c) => c[0] === 'set' || c[0] === 'add_list').map((c) => c[1]);
  for (const expected of [
    'network.hotspotctl=interface',
    'network.hotspotctl.proto=wireguard',
    'network.hotspotctl.private_key=ROUTER-MADE-KEY',
    'network.hotspotctl.addresses=10.99.0.2/24',
    'network.hotspotctl_box=wireguard_hotspotctl',
    `network.hotspotctl_box.public_key=${BOX_KEY}`,
    'network.hotspotctl_box.endpoint_host=vpn.venue.example',
    'network.hotspotctl_box.endpoint_port=51820',
    'network.hotspotctl_box.persistent_keepalive=25',
    'network.hotspotctl_box.route_allowed_ips=1',
    'network.hotspotctl_box.allowed_ips=10.99.0.1/32',
    'firewall.hotspotctl=zone',
    'firewall.hotspotctl.network=hotspotctl',
    'firewall.hotspotctl.masq=1',
    'firewall.hotspotctl_coa.src_ip=10.99.0.1',
    'firewall.hotspotctl_coa.dest_port=3799',
    'chilli.@chilli[0].radiusserver1=10.99.0.1',
  ])
    t.ok(sets.includes(expected), expected);
  const commits = calls.filter((c) => c[0] === 'commit').map((c) => c[1]);
  t.same(commits, ['network', 'firewall', 'chilli']);
  t.match(commands, '#   AllowedIPs = 10.99.0.2/32\n');
  t.match(commands, '#   uci get network.hotspotctl.private_key | wg pubkey');
  t.notMatch(renderRouterConfig(anInput(), 'openwrt'), 'wireguard', 'a router on the LAN gets no tunnel');
});

t.test('CoovaChilli on plain Linux: the tunnel is named, the box peer given, no commands', async (t) => {
  const config = renderRouterConfig(remote({ routerPublicKey: ROUTER_KEY }), 'coovachilli');
  t.match(
    config,
    '# Set up the WireGuard tunnel on this router yourself (wg-quick; docs/remote-routers.md), with',
  );
  t.match(config, `#   PublicKey = ${ROUTER_KEY}`);
  t.equal(sourceChilli(config).get('HS_RADIUS'), '10.99.0.1');
});
