import { isIP } from 'node:net';

/**
 * The block an address belongs to for per-client budgets: an IPv4 address itself, an IPv6
 * address's /64 (one subscriber's usual allocation: counting single IPv6 addresses would give
 * whoever holds a /64 an endless supply of budgets). Anything else is returned as it is.
 */
export function addressBlock(address: string): string {
  const ip = address.split('%')[0] ?? '';
  if (isIP(ip) !== 6) return address;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const front = groups(head);
  const back = groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) takes two groups.
  const backSize = back.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const full = [...front, ...Array<string>(Math.max(0, 8 - front.length - backSize)).fill('0'), ...back];
  const prefix = full.slice(0, 4).map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
  return `${prefix.join(':')}::/64`;
}
