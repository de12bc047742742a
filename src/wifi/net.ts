import { isIP, isIPv4 } from 'node:net';

/** Address checks for router settings and UAM requests (IPv4: CoovaChilli's uamip is IPv4). */

export interface Ipv4Network {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
  /** Canonical text: network address / prefix (host bits cleared). */
  text: string;
}

export function ipv4ToNumber(address: string): number | null {
  if (!isIPv4(address)) return null;
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

export const numberToIpv4 = (n: number): string =>
  [24, 16, 8, 0].map((shift) => String(Math.floor(n / 2 ** shift) % 256)).join('.');

const maskOf = (prefix: number): number => (prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix));

/** "10.1.0.1/24" → 10.1.0.0/24; null unless it is an IPv4 address with a /0-/32 prefix. */
export function parseIpv4Cidr(text: string): Ipv4Network | null {
  const match = /^([0-9.]+)\/(\d{1,2})$/.exec(text.trim());
  if (!match) return null;
  const address = ipv4ToNumber(match[1] ?? '');
  const prefix = Number(match[2]);
  if (address === null || prefix > 32) return null;
  // Unsigned AND: JavaScript's & works on signed 32-bit integers.
  const base = (address & maskOf(prefix)) >>> 0;
  return { base, prefix, text: `${numberToIpv4(base)}/${String(prefix)}` };
}

export function networkContains(network: Ipv4Network, address: number): boolean {
  return (address & maskOf(network.prefix)) >>> 0 === network.base;
}

/** "aa-bb-cc-dd-ee-ff" or "AA:BB:…" → "AA:BB:CC:DD:EE:FF"; null otherwise. */
export function parseMac(text: string): string | null {
  const match = /^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/i.exec(text.trim());
  return match ? text.trim().toUpperCase().replaceAll('-', ':') : null;
}

export const isIpAddress = (text: string): boolean => isIP(text) !== 0;

/** An absolute http(s) URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
