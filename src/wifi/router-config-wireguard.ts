import type { RouterConfigInput } from './router-config-facts.js';

/**
 * The WireGuard part of `devices router-config` for a router marked remote (a tunnel address):
 * the router's tunnel interface and its one peer, this box, for RouterOS 7 and OpenWrt
 * (docs/decisions/0025-remote-routers.md). Only the box's tunnel address is routed into the tunnel
 * (RADIUS, CoA and the portal), and the router masquerades what it sends there, so the box's
 * WireGuard peer for it needs the router's tunnel address alone. The router makes its own key
 * pair: the output has the command that shows its public key, never a private key.
 */

export interface TunnelInput {
  /** The router's address inside the tunnel, and the tunnel's prefix length. */
  address: string;
  prefix: number;
  /** This box: its tunnel address, where routers dial it (host and port), its public key. */
  box: { address: string; endpointHost: string; endpointPort: number; publicKey: string };
  /** The public key the router generated, when staff recorded it; null: not yet. */
  routerPublicKey: string | null;
}

/** WireGuard's own keepalive advice for a peer behind NAT (wg(8): "a sensible interval is 25"). */
export const KEEPALIVE_SECONDS = 25;
/** RouterOS interface and OpenWrt section names (uci names: letters, digits, underscore). */
export const ROUTEROS_WG_INTERFACE = 'wg-hotspot-ctl';
export const OPENWRT_WG_INTERFACE = 'hotspotctl';
const OPENWRT_WG_PEER = 'hotspotctl_box';

const tunnelOf = (input: RouterConfigInput): TunnelInput | null => input.tunnel ?? null;

/** `host:port` → host and port; a bracketed IPv6 host loses its brackets. */
export function splitEndpoint(endpoint: string): { host: string; port: number } {
  const at = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(endpoint.slice(at + 1)) };
}

/** Comment lines for the top of every format: the box's side of the tunnel, to add on the box. */
export function boxPeerNotes(input: RouterConfigInput, showKey: string): string[] {
  const tunnel = tunnelOf(input);
  if (!tunnel) return [];
  const key = tunnel.routerPublicKey ?? 'ROUTER_PUBLIC_KEY';
  const clientIp = input.device.clientIp;
  return [
    ...(clientIp !== undefined && clientIp !== tunnel.address
      ? [
          `WARNING: CoA/Disconnect requests go to the registered client address ${clientIp}, not to the`,
          `tunnel address: hotspot-ctl devices update <id> --client-ip ${tunnel.address}`,
        ]
      : []),
    `This router reaches hotspot-ctl over WireGuard: its tunnel address is ${tunnel.address}, the box's ${tunnel.box.address}.`,
    'On the box, add this peer to /etc/wireguard/wg0.conf (then: systemctl reload wg-quick@wg0):',
    '  [Peer]',
    `  # ${input.device.name} (${input.device.nasId})`,
    `  PublicKey = ${key}`,
    `  AllowedIPs = ${tunnel.address}/32`,
    ...(tunnel.routerPublicKey === null
      ? [
          'ROUTER_PUBLIC_KEY is made by the router when this runs; read it with',
          `  ${showKey}`,
          'and record it: hotspot-ctl devices update <id> --tunnel-public-key <key>.',
        ]
      : []),
  ];
}

/** RouterOS 7 commands ("WireGuard" manual: /interface wireguard, its peers; /ip address). */
export function routerOsWireguard(
  input: RouterConfigInput,
  s: (value: string) => string,
  mark: string,
): string[] {
  const tunnel = tunnelOf(input);
  if (!tunnel) return [];
  const wg = s(ROUTEROS_WG_INTERFACE);
  const { box } = tunnel;
  return [
    // A WireGuard interface makes its private key when it is added: adding it only once keeps the
    // key (and the box's peer for it) valid when the script runs again.
    `:if ([:len [/interface wireguard find name=${wg}]] = 0) do={ /interface wireguard add name=${wg} comment=${s(mark)} }`,
    `/interface wireguard peers remove [find comment=${s(mark)}]`,
    `/interface wireguard peers add interface=${wg} public-key=${s(box.publicKey)} endpoint-address=${s(box.endpointHost)} endpoint-port=${String(box.endpointPort)} allowed-address=${box.address}/32 persistent-keepalive=${String(KEEPALIVE_SECONDS)}s comment=${s(mark)}`,
    `/ip address remove [find comment=${s(mark)}]`,
    `/ip address add address=${tunnel.address}/${String(tunnel.prefix)} interface=${wg} comment=${s(mark)}`,
    `/ip firewall nat remove [find comment=${s(`${mark}: to the box over WireGuard`)}]`,
    `/ip firewall nat add chain=srcnat action=masquerade out-interface=${wg} comment=${s(`${mark}: to the box over WireGuard`)}`,
    `:put ("hotspot-ctl: WireGuard public key of this router: " . [/interface wireguard get [find name=${wg}] public-key])`,
  ];
}

export const ROUTEROS_SHOW_KEY = `:put [/interface wireguard get [find name=${ROUTEROS_WG_INTERFACE}] public-key]`;
export const OPENWRT_SHOW_KEY = `uci get network.${OPENWRT_WG_INTERFACE}.private_key | wg pubkey`;

/**
 * OpenWrt `uci` commands (network: an interface of proto wireguard and a wireguard_<interface>
 * section for its peer; firewall: a zone for it that masquerades and takes CoA from the box).
 */
export function openWrtWireguard(input: RouterConfigInput, q: (value: string) => string): string[] {
  const tunnel = tunnelOf(input);
  if (!tunnel) return [];
  const { box } = tunnel;
  const net = (option: string, value: string): string =>
    `uci set ${q(`network.${OPENWRT_WG_PEER}.${option}=${value}`)}`;
  const zone = (option: string, value: string): string =>
    `uci set ${q(`firewall.${OPENWRT_WG_INTERFACE}.${option}=${value}`)}`;
  const rule = (option: string, value: string): string =>
    `uci set ${q(`firewall.${OPENWRT_WG_INTERFACE}_coa.${option}=${value}`)}`;
  const iface = `network.${OPENWRT_WG_INTERFACE}`;
  return [
    '# WireGuard to hotspot-ctl (packages: wireguard-tools, kmod-wireguard). The interface makes its',
    '# private key here, once: running this again keeps it.',
    `uci -q get ${iface} >/dev/null || {`,
    `  uci set ${iface}=interface`,
    `  uci set ${iface}.proto=wireguard`,
    `  uci set ${iface}.private_key="$(wg genkey)"`,
    '}',
    `uci -q delete ${iface}.addresses`,
    `uci add_list ${q(`${iface}.addresses=${tunnel.address}/${String(tunnel.prefix)}`)}`,
    `uci -q delete network.${OPENWRT_WG_PEER}`,
    `uci set network.${OPENWRT_WG_PEER}=wireguard_${OPENWRT_WG_INTERFACE}`,
    net('description', 'hotspot-ctl'),
    net('public_key', box.publicKey),
    net('endpoint_host', box.endpointHost),
    net('endpoint_port', String(box.endpointPort)),
    net('persistent_keepalive', String(KEEPALIVE_SECONDS)),
    net('route_allowed_ips', '1'),
    `uci add_list ${q(`network.${OPENWRT_WG_PEER}.allowed_ips=${box.address}/32`)}`,
    'uci commit network',
    '# Its firewall zone: masquerades what goes to the box, takes only CoA/Disconnect from it.',
    `uci -q delete firewall.${OPENWRT_WG_INTERFACE}`,
    `uci set firewall.${OPENWRT_WG_INTERFACE}=zone`,
    zone('name', OPENWRT_WG_INTERFACE),
    zone('network', OPENWRT_WG_INTERFACE),
    zone('input', 'REJECT'),
    zone('output', 'ACCEPT'),
    zone('forward', 'REJECT'),
    zone('masq', '1'),
    `uci -q delete firewall.${OPENWRT_WG_INTERFACE}_coa`,
    `uci set firewall.${OPENWRT_WG_INTERFACE}_coa=rule`,
    rule('name', 'hotspot-ctl CoA'),
    rule('src', OPENWRT_WG_INTERFACE),
    rule('src_ip', box.address),
    rule('proto', 'udp'),
    rule('dest_port', String(input.device.coaPort)),
    rule('target', 'ACCEPT'),
    'uci commit firewall',
    '# Guests reach the portal on the box through the tunnel too: let their firewall zone forward to',
    `# it, for example: uci add firewall forwarding; uci set firewall.@forwarding[-1].src=<guest zone>;`,
    `# uci set firewall.@forwarding[-1].dest=${OPENWRT_WG_INTERFACE}; uci commit firewall`,
    '/etc/init.d/network reload',
    '/etc/init.d/firewall reload',
    `echo "hotspot-ctl: WireGuard public key of this router: $(${OPENWRT_SHOW_KEY})"`,
    '',
  ];
}
