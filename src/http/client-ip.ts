import { isIP } from 'node:net';
import type { TrustProxy } from '../config/index.js';

/** "::ffff:10.0.0.5" → "10.0.0.5": IPv4 peers on a dual-stack socket. */
export function normalizeIp(addr: string): string {
  return addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
}

export function isTrusted(peer: string, trust: TrustProxy): boolean {
  switch (trust.kind) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'loopback':
      return peer === '::1' || (isIP(peer) === 4 && peer.startsWith('127.'));
    case 'cidrs': {
      const family = isIP(peer);
      return family !== 0 && trust.list.check(peer, family === 4 ? 'ipv4' : 'ipv6');
    }
  }
}

/**
 * The client's address: the first X-Forwarded-For hop when the direct peer is a trusted proxy
 * and that hop is an IP address; otherwise the peer itself.
 */
export function clientIp(
  peerAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: TrustProxy,
): string {
  const peer = normalizeIp(peerAddress ?? '');
  if (forwardedFor === undefined || !isTrusted(peer, trust)) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const first = normalizeIp(header.split(',')[0]?.trim() ?? '');
  return isIP(first) ? first : peer;
}
