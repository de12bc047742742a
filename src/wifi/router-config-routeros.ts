import { isIPv4 } from 'node:net';
import { mikrotikLoginHtml } from './mikrotik.js';
import {
  boxPeerNotes,
  ROUTEROS_SHOW_KEY,
  ROUTEROS_WG_INTERFACE,
  routerOsWireguard,
} from './router-config-wireguard.js';
import {
  factsOf,
  headerLines,
  PLACEHOLDERS,
  routerConfigFileName,
  type RouterConfigInput,
} from './router-config-facts.js';

/** The RouterOS 7 script of `devices router-config --format routeros` (router-config.ts). */

/** comment= of everything the RouterOS script adds, so a second run replaces instead of duplicating. */
export const ROUTEROS_MARK = 'hotspot-ctl';
const COA_RULE_MARK = 'hotspot-ctl: CoA from RADIUS server';

const ROUTEROS_ESCAPES = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['$', '\\$'], // variable substitution
  ['?', '\\?'], // the console's help key
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

/**
 * A RouterOS script string literal, quotes included ("Scripting" manual, constant escape
 * sequences): \" \\ \$ \? \n \r \t by name, any other byte outside printable ASCII as \XX
 * (upper-case hex), UTF-8 bytes one by one.
 */
export function routerOsString(value: string): string {
  let body = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    const named = ROUTEROS_ESCAPES.get(char);
    if (named !== undefined) body += named;
    else if (byte >= 0x20 && byte <= 0x7e) body += char;
    else body += `\\${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `"${body}"`;
}

/** Seconds as a RouterOS time value: 300 → "5m", 90 → "1m30s", 0 → "0s". */
export function routerOsTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const parts: [number, string][] = [
    [Math.floor(total / 3600), 'h'],
    [Math.floor((total % 3600) / 60), 'm'],
    [total % 60, 's'],
  ];
  const text = parts.map(([n, unit]) => (n > 0 ? `${String(n)}${unit}` : '')).join('');
  return text === '' ? '0s' : text;
}

/** A comment line safe to paste into the console: printable ASCII only, no `?` (help) or `\`. */
const routerOsComment = (text: string): string =>
  `# ${text.replace(/[^\x20-\x3e\x40-\x5b\x5d-\x7e]/g, '_')}`.trimEnd();

/** An address as a RouterOS value: bare when it is an IPv4 address, else a quoted string. */
const routerOsAddress = (value: string): string => (isIPv4(value) ? value : routerOsString(value));

/** Characters RouterOS would put unescaped into login.html's value="$(identity)". */
const HTML_UNSAFE = /["'<>&]/;

export function renderRouterOs(input: RouterConfigInput): string {
  const f = factsOf(input);
  const { device, radius } = input;
  const s = routerOsString;
  const hs = f.network ? `${f.network.listen}/${f.network.cidr.split('/')[1] ?? ''}` : 'x.x.x.1/nn';
  const notes = [...f.notes, ...boxPeerNotes(input, ROUTEROS_SHOW_KEY)];
  if (input.radiusSecret === null) {
    notes.push(
      'Inside the quotes, put a backslash before any double quote, backslash, dollar or question mark.',
    );
  }
  if (HTML_UNSAFE.test(device.nasId)) {
    notes.push(
      'WARNING: the NAS id contains one of " \' < > &, which RouterOS puts unescaped into login.html:',
      'the portal hand-off may break. Prefer letters, digits, dot, dash and underscore.',
    );
  }
  const header = [
    ...headerLines(input, 'MikroTik RouterOS 7 script', notes),
    '',
    'Before running it: run /ip hotspot setup on the guest interface (local address of network',
    `${hs} for ${f.network?.cidr ?? device.localNetwork}). That creates the hotspot server, its profile and the`,
    'html directory with login.html, which this script needs. (If RouterOS refuses hotspot commands,',
    'hotspot is turned off in /system device-mode: turn it on there first.)',
    'Then paste the whole script into a terminal (WinBox/WebFig: New Terminal), or upload it as',
    `${routerConfigFileName(device.nasId, 'routeros')} (Files) and run:`,
    `/import file-name=${routerConfigFileName(device.nasId, 'routeros')} verbose=yes`,
    `Running it again is safe: it first removes what it added before (comment ${ROUTEROS_MARK}).`,
    'If the router has several hotspot servers, put the name of the guest one between the quotes of',
    ':local hsServer "" below.',
    '',
    'What it does:',
    '- sets the router identity to the NAS-Identifier (RouterOS sends its identity as NAS-Identifier)',
    ...(input.tunnel
      ? [
          `- a WireGuard interface ${ROUTEROS_WG_INTERFACE} (made once, with its own key pair) with hotspot-ctl as its`,
          `  one peer, ${input.tunnel.address}/${String(input.tunnel.prefix)} on it, and masquerading of what goes into it`,
        ]
      : []),
    `- RADIUS client for the hotspot: ${f.address}, auth port ${String(radius.authPort)}, acct port ${String(radius.acctPort)}`,
    `- accepts CoA/Disconnect on UDP ${String(device.coaPort)}, with a firewall input rule for it from ${f.address}`,
    `- hotspot profile: RADIUS login and accounting, interim updates as the box says (${routerOsTime(radius.interimSeconds)}),`,
    ...(input.macAuth
      ? [
          '  MAC login first (login-by=mac, User-Name and password = the MAC): devices of plans that',
          '  remember devices come back without the portal while their access lasts,',
        ]
      : []),
    "  login by HTTP CHAP and HTTP PAP, no DNS name: the login link then carries the router's address,",
    '  the only kind the portal hands logins to',
    '- walled garden at IP level (/ip hotspot walled-garden ip), so the portal (another host and port)',
    '  and HTTPS payment hosts are reachable before login',
    "- replaces login.html (and flogin.html, if present) in the profile's html directory with a page that",
    `  sends the guest to ${device.uamServer}; the other hotspot pages stay`,
    'On RouterOS 7.15+ RADIUS replies must carry Message-Authenticator (require-message-auth):',
    'hotspot-ctl sends it.',
  ];

  const body: string[] = [];
  if (radius.address === null) {
    body.push(
      `:if ([:typeof [:toip ${s(f.address)}]] != "ip") do={ :error ${s(`hotspot-ctl: replace ${PLACEHOLDERS.radiusAddress} with the address of hotspot-ctl`)} }`,
    );
  }
  if (input.radiusSecret === null) {
    body.push(
      `:if ([:pick ${s(f.secret)} 0 13] = "REPLACE_WITH_") do={ :error ${s(`hotspot-ctl: replace ${PLACEHOLDERS.radiusSecret} with the global RADIUS secret`)} }`,
    );
  }
  const coaRule = `chain=input action=accept protocol=udp src-address=${routerOsAddress(f.address)} dst-port=${String(device.coaPort)} comment=${s(COA_RULE_MARK)}`;
  body.push(
    ':local hsServer ""',
    ':if ($hsServer = "") do={',
    '  :local servers [/ip hotspot find]',
    `  :if ([:len $servers] != 1) do={ :error ${s('hotspot-ctl: need exactly one /ip hotspot server (run /ip hotspot setup), or set :local hsServer')} }`,
    '  :set hsServer [/ip hotspot get ($servers->0) name]',
    '}',
    ':local hsProfile [/ip hotspot get [find name=$hsServer] profile]',
    ':put ("hotspot-ctl: hotspot server " . $hsServer . ", profile " . $hsProfile)',
    `/system identity set name=${s(device.nasId)}`,
    ...routerOsWireguard(input, s, ROUTEROS_MARK),
    `/radius remove [find comment=${s(ROUTEROS_MARK)}]`,
    `/radius add service=hotspot address=${routerOsAddress(f.address)} secret=${s(f.secret)} authentication-port=${String(radius.authPort)} accounting-port=${String(radius.acctPort)} comment=${s(ROUTEROS_MARK)}`,
    `/radius incoming set accept=yes port=${String(device.coaPort)}`,
    `/ip firewall filter remove [find comment=${s(COA_RULE_MARK)}]`,
    `:do { /ip firewall filter add ${coaRule} place-before=([/ip firewall filter find where dynamic=no]->0) } on-error={ /ip firewall filter add ${coaRule} }`,
    input.macAuth
      ? `/ip hotspot profile set [find name=$hsProfile] use-radius=yes radius-accounting=yes radius-interim-update=received login-by=mac,http-chap,http-pap mac-auth-mode=mac-as-username-and-password dns-name=""`
      : `/ip hotspot profile set [find name=$hsProfile] use-radius=yes radius-accounting=yes radius-interim-update=received login-by=http-chap,http-pap dns-name=""`,
    `/ip hotspot walled-garden ip remove [find comment=${s(ROUTEROS_MARK)}]`,
    ...f.garden.all.map(
      (host) =>
        `/ip hotspot walled-garden ip add action=accept ${isIPv4(host) ? `dst-address=${host}` : `dst-host=${s(host)}`} comment=${s(ROUTEROS_MARK)}`,
    ),
    ':local htmlDir [/ip hotspot profile get [find name=$hsProfile] html-directory]',
    ':if ([:pick $htmlDir 0 1] = "/") do={ :set htmlDir [:pick $htmlDir 1 [:len $htmlDir]] }',
    ':local loginFile ($htmlDir . "/login.html")',
    `:if ([:len [/file find name=$loginFile]] = 0) do={ :error ("hotspot-ctl: " . $loginFile . ${s(' is missing: run /ip hotspot setup (RouterOS 7.9+: or /file add name=<that file>), then run this script again')}) }`,
    `:local loginHtml ${s(mikrotikLoginHtml(device.uamServer))}`,
    '/file set [find name=$loginFile] contents=$loginHtml',
    ':local floginFile ($htmlDir . "/flogin.html")',
    ':if ([:len [/file find name=$floginFile]] > 0) do={ /file set [find name=$floginFile] contents=$loginHtml }',
    ':put ("hotspot-ctl: wrote " . $loginFile . "; done")',
  );
  return [...header.map(routerOsComment), '{', ...body.map((line) => `  ${line}`), '}', ''].join('\n');
}
