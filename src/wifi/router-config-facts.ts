import { isIPv4 } from 'node:net';
import { numberToIpv4, parseIpv4Cidr } from './net.js';
import type { TunnelInput } from './router-config-wireguard.js';

/**
 * What every router configuration format shares (router-config.ts): the input, the placeholders
 * printed where the box must not (or cannot) print a value, and the facts derived from the input.
 */

export interface RouterConfigInput {
  device: {
    name: string;
    nasId: string;
    localNetwork: string;
    /** The router's own address on that network (the hotspot address, chilli's uamlisten). */
    gatewayIp: string;
    uamServer: string;
    coaPort: number;
    uamAuth: 'chap' | 'pap';
    /** Where CoA/Disconnect requests go (radius_client_ip); checked against the tunnel address. */
    clientIp?: string;
  };
  /** The router's own RADIUS secret, or null when it uses the global RADIUS_SECRET (never printed). */
  radiusSecret: string | null;
  uamSecret: { source: 'own'; value: string } | { source: 'global' } | { source: 'none' };
  radius: {
    /** This box's IPv4 address as the router reaches it; null when unknown (placeholder). */
    address: string | null;
    authPort: number;
    acctPort: number;
    interimSeconds: number;
  };
  /** Hosts guests reach before login (portal host, payment API hosts): IPv4 literals or DNS names. */
  walledGarden: readonly string[];
  serviceName: string;
  generatedAt: Date;
  /** A router remote over WireGuard (docs/decisions/0025): its tunnel; absent or null: none. */
  tunnel?: TunnelInput | null;
  /**
   * Returning guests (DESIGN.md §4.8): a plan of the router's site remembers devices, so the
   * router tries MAC authentication first (User-Name and password = the device's MAC).
   */
  macAuth?: boolean;
}

/** What is printed instead of a value the box must not (or cannot) print. */
export const PLACEHOLDERS = {
  radiusAddress: 'REPLACE_WITH_HOTSPOT_CTL_ADDRESS',
  radiusSecret: 'REPLACE_WITH_GLOBAL_RADIUS_SECRET',
  uamSecret: 'REPLACE_WITH_GLOBAL_UAM_SECRET',
} as const;

export interface Facts {
  address: string;
  secret: string;
  /** null: no uam secret at all. */
  uamSecret: string | null;
  portalHost: string | null;
  garden: { ipv4: string[]; names: string[]; all: string[] };
  network: { cidr: string; address: string; netmask: string; listen: string } | null;
  notes: string[];
}

export function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname;
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

/** The walled garden: the portal's host first, then the caller's hosts, each once (DNS is case-blind). */
export function walledGardenHosts(input: Pick<RouterConfigInput, 'device' | 'walledGarden'>): string[] {
  const seen = new Set<string>();
  for (const raw of [hostOf(input.device.uamServer) ?? '', ...input.walledGarden]) {
    const host = raw.trim().toLowerCase();
    if (host !== '') seen.add(host);
  }
  return [...seen];
}

function networkFacts(cidr: string, gateway: string): Facts['network'] {
  const network = parseIpv4Cidr(cidr);
  if (!network || network.prefix > 30) return null;
  return {
    cidr: network.text,
    address: numberToIpv4(network.base),
    netmask: numberToIpv4(network.prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - network.prefix)),
    listen: gateway,
  };
}

export function factsOf(input: RouterConfigInput): Facts {
  const all = walledGardenHosts(input);
  const notes: string[] = [];
  if (input.radius.address === null) {
    notes.push(
      `This box's address is not known: replace ${PLACEHOLDERS.radiusAddress} below with the IPv4 address`,
      'the router reaches hotspot-ctl on (RADIUS, CoA and the portal).',
    );
  }
  if (input.radiusSecret === null) {
    notes.push(
      'This router uses the global RADIUS_SECRET, which hotspot-ctl never prints: replace',
      `${PLACEHOLDERS.radiusSecret} below with it (or give the router its own secret with`,
      '"hotspot-ctl devices rotate-secret" and print this again).',
    );
  }
  return {
    address: input.radius.address ?? PLACEHOLDERS.radiusAddress,
    secret: input.radiusSecret ?? PLACEHOLDERS.radiusSecret,
    uamSecret:
      input.uamSecret.source === 'own'
        ? input.uamSecret.value
        : input.uamSecret.source === 'global'
          ? PLACEHOLDERS.uamSecret
          : null,
    portalHost: hostOf(input.device.uamServer),
    garden: { ipv4: all.filter((h) => isIPv4(h)), names: all.filter((h) => !isIPv4(h)), all },
    network: networkFacts(input.device.localNetwork, input.device.gatewayIp),
    notes,
  };
}

export function headerLines(input: RouterConfigInput, title: string, notes: readonly string[]): string[] {
  return [
    `hotspot-ctl router configuration: ${title}`,
    `Service: ${input.serviceName}`,
    `Router: ${input.device.name}`,
    `NAS-Identifier: ${input.device.nasId}`,
    `Generated: ${input.generatedAt.toISOString()}`,
    ...(notes.length > 0 ? ['', ...notes] : []),
  ];
}

/**
 * The name a router's set-up is saved under (the admin download, and what the RouterOS script
 * tells the operator to import): `hotspot-ctl-<NAS id>.rsc` (RouterOS) or `.sh` (the others), the
 * NAS id cut to characters every file system and RouterOS take.
 */
export function routerConfigFileName(nasId: string, format: 'routeros' | 'coovachilli' | 'openwrt'): string {
  const safe = nasId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `hotspot-ctl-${safe}.${format === 'routeros' ? 'rsc' : 'sh'}`;
}
