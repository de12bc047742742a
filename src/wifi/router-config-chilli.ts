import { boxPeerNotes, OPENWRT_SHOW_KEY, openWrtWireguard } from './router-config-wireguard.js';
import {
  factsOf,
  headerLines,
  PLACEHOLDERS,
  type Facts,
  type RouterConfigInput,
} from './router-config-facts.js';

/**
 * CoovaChilli's /etc/chilli/config lines and OpenWrt's `uci` commands for its coova-chilli package
 * (`devices router-config --format coovachilli|openwrt`, router-config.ts).
 */

/** A POSIX shell word that is exactly `value`: single quotes, with ' as '\''. */
export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const shellDoubleQuote = (value: string): string => `"${value.replace(/[\\"$`]/g, '\\$&')}"`;

/** A comment line: control characters (a newline would end the comment) become spaces. */
const shellComment = (text: string): string => `# ${text.replace(/\p{Cc}/gu, ' ')}`.trimEnd();

/**
 * CoovaChilli's config parser (gengetopt) reads `radiussecret "…"` up to the next `"`, with no
 * escapes, and both chilli's init functions and OpenWrt's chilli.init write values that way.
 */
function chilliNotes(input: RouterConfigInput, f: Facts): string[] {
  const notes = [...f.notes];
  if (input.uamSecret.source === 'global') {
    notes.push(
      'This router uses the global UAM_SECRET, which hotspot-ctl never prints: replace',
      `${PLACEHOLDERS.uamSecret} below with it.`,
    );
  }
  if (input.radiusSecret === null || input.uamSecret.source === 'global') {
    notes.push(`Inside the single quotes, write a single quote of a secret as '\\''.`);
  }
  const values: [string, string][] = [
    ['the RADIUS secret', input.radiusSecret ?? ''],
    ['the NAS id', input.device.nasId],
    ['the uam secret', f.uamSecret ?? ''],
  ];
  for (const [what, value] of values) {
    if (!value.includes('"')) continue;
    notes.push(
      `WARNING: ${what} contains a double quote ("), which CoovaChilli's config parser cannot read:`,
      'choose one without it.',
    );
  }
  return notes;
}

const passwordNote = (uamAuth: 'chap' | 'pap'): string =>
  uamAuth === 'pap'
    ? 'The portal logs guests in with PAP (password=): CoovaChilli accepts it with no setting.'
    : 'The portal logs guests in with CHAP (response=): CoovaChilli accepts it with no setting.';

export function renderCoovaChilli(input: RouterConfigInput): string {
  const f = factsOf(input);
  const { device, radius } = input;
  const v = (name: string, value: string): string => `${name}=${shellQuote(value)}`;
  const lines = [
    ...headerLines(input, 'CoovaChilli /etc/chilli/config', [
      ...chilliNotes(input, f),
      ...(input.tunnel
        ? [
            'Set up the WireGuard tunnel on this router yourself (wg-quick; docs/remote-routers.md), with',
            `hotspot-ctl (${input.tunnel.box.endpointHost}:${String(input.tunnel.box.endpointPort)}) as its peer.`,
            ...boxPeerNotes(input, 'wg show <interface> public-key'),
          ]
        : []),
    ]).map(shellComment),
    '#',
    '# Add these lines to /etc/chilli/config (they override /etc/chilli/defaults), then restart chilli',
    '# (/etc/init.d/chilli restart).',
    '# Not set here: HS_LANIF (the guest interface) and HS_WANIF; check them.',
    '',
    "# The guest network: chilli serves DHCP on it and listens on the router's address in it.",
    ...(f.network
      ? [
          v('HS_NETWORK', f.network.address),
          v('HS_NETMASK', f.network.netmask),
          v('HS_UAMLISTEN', f.network.listen),
        ]
      : [
          shellComment(
            `${device.localNetwork} is not an IPv4 network: set HS_NETWORK, HS_NETMASK, HS_UAMLISTEN`,
          ),
        ]),
    '',
    '# RADIUS: hotspot-ctl. It finds this router by NAS-Identifier (chilli sends nas01 unless told).',
    v('HS_RADIUS', f.address),
    v('HS_RADIUS2', f.address),
    v('HS_RADAUTH', String(radius.authPort)),
    v('HS_RADACCT', String(radius.acctPort)),
    v('HS_RADSECRET', f.secret),
    v('HS_NASID', device.nasId),
    '# CoA/Disconnect from hotspot-ctl: chilli accepts them only from HS_RADIUS/HS_RADIUS2.',
    v('HS_COAPORT', String(device.coaPort)),
    '# Interim accounting when the Access-Accept carries no Acct-Interim-Interval.',
    v('HS_DEFINTERIMINTERVAL', String(radius.interimSeconds)),
    '',
    '# The captive portal. HS_UAMFORMAT is expanded with eval by chilli: the inner quotes keep the',
    shellComment(`URL exactly ${device.uamServer} (chilli appends ?res=notyet&uamip=...).`),
    v('HS_UAMSERVER', f.portalHost ?? ''),
    `HS_UAMFORMAT=${shellDoubleQuote(shellQuote(device.uamServer))}`,
    '# No splash page: send guests straight to the portal.',
    v('HS_UAMHOMEPAGE', ''),
    shellComment(passwordNote(device.uamAuth)),
    ...(f.uamSecret === null
      ? ['# No uam secret for this router (hotspot-ctl has none for it either).', v('HS_UAMSECRET', '')]
      : [v('HS_UAMSECRET', f.uamSecret)]),
    '',
    '# Walled garden: addresses (HS_UAMALLOW) and DNS names (HS_UAMDOMAINS, followed by DNS inspection).',
    v('HS_UAMALLOW', f.garden.ipv4.join(',')),
    v('HS_UAMDOMAINS', f.garden.names.join(',')),
    ...(input.macAuth
      ? [
          '',
          '# Returning guests: MAC authentication first (User-Name and password = the MAC), so devices',
          '# of plans that remember devices come back without the portal while their access lasts.',
          v('HS_MACAUTH', 'on'),
        ]
      : []),
    '',
  ];
  return lines.join('\n');
}

export function renderOpenWrt(input: RouterConfigInput): string {
  const f = factsOf(input);
  const { device, radius } = input;
  const path = (option: string): string => `chilli.@chilli[0].${option}`;
  const set = (option: string, value: string): string => `uci set ${shellQuote(`${path(option)}=${value}`)}`;
  const unset = (option: string): string => `uci -q delete ${shellQuote(path(option))}`;
  const setOrUnset = (option: string, value: string | null): string =>
    value === null || value === '' ? unset(option) : set(option, value);
  const gardenAddresses = [...new Set([...(f.portalHost ? [f.portalHost] : []), ...f.garden.ipv4])];
  const lines = [
    ...headerLines(input, 'OpenWrt coova-chilli (uci, /etc/config/chilli)', [
      ...chilliNotes(input, f),
      ...boxPeerNotes(input, OPENWRT_SHOW_KEY),
    ]).map(shellComment),
    '#',
    '# Run these commands on the router (ssh). Set the guest interface yourself, for example:',
    shellComment(`  uci set ${shellQuote(`${path('network')}=guest`)}`),
    '',
    ...openWrtWireguard(input, shellQuote),
    `uci -q get ${shellQuote('chilli.@chilli[0]')} >/dev/null || uci add chilli chilli >/dev/null`,
    set('disabled', '0'),
    ...(f.network
      ? [set('net', f.network.cidr), set('uamlisten', f.network.listen)]
      : [shellComment(`set net yourself (${device.localNetwork})`)]),
    '# RADIUS: hotspot-ctl finds this router by NAS-Identifier (chilli sends nas01 unless told).',
    set('radiusserver1', f.address),
    set('radiusserver2', f.address),
    set('radiusauthport', String(radius.authPort)),
    set('radiusacctport', String(radius.acctPort)),
    set('radiussecret', f.secret),
    set('radiusnasid', device.nasId),
    '# CoA/Disconnect: chilli accepts them only from radiusserver1/2.',
    set('coaport', String(device.coaPort)),
    set('definteriminterval', String(radius.interimSeconds)),
    '# The captive portal (chilli appends ?res=notyet&uamip=...).',
    shellComment(passwordNote(device.uamAuth)),
    set('uamserver', device.uamServer),
    unset('uamhomepage'),
    setOrUnset('uamsecret', f.uamSecret),
    '# Walled garden: addresses (uamallowed) and DNS names (uamdomain, followed by DNS inspection).',
    setOrUnset('uamallowed', gardenAddresses.join(',')),
    setOrUnset('uamdomain', f.garden.names.join(',')),
    ...(input.macAuth
      ? [
          '# Returning guests: MAC authentication first (User-Name and password = the MAC).',
          set('macauth', '1'),
          unset('macpasswd'),
        ]
      : []),
    'uci commit chilli',
    '/etc/init.d/chilli restart',
    '',
  ];
  return lines.join('\n');
}
