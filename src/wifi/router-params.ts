import type { Config } from '../config/index.js';
import { findPortalRouter, type PortalRouter } from './devices.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { hotspotLoginUrl, parseOctalEscapes } from './mikrotik.js';
import { ipv4ToNumber, isHttpUrl } from './net.js';
import { logonUrl, uamCredential } from './uam.js';

/**
 * The router's parameters a portal request carries, so the guest's browser can be handed to the
 * router's own login with their credentials: CoovaChilli's (DESIGN.md §4.3: uamip, uamport,
 * challenge, userurl, and the nasid of §4.7) or MikroTik's (§4.7: nasid, link_login_only,
 * chap_id, chap_challenge, dst, from our generated login.html). Parsed here (422 for a bad value),
 * the router found, and the hand-off URL built for a username and password.
 */

export const CHILLI_FIELDS = ['nasid', 'uamip', 'uamport', 'challenge', 'userurl'] as const;
export const MIKROTIK_FIELDS = ['nasid', 'link_login_only', 'chap_id', 'chap_challenge', 'dst'] as const;

type Fields<F extends readonly string[]> = Partial<Record<F[number], unknown>>;

export interface ChilliParams {
  kind: 'coovachilli';
  nasid: string | undefined;
  uamip: string;
  uamport: number;
  challenge: string;
  userurl: string | undefined;
}

export interface MikrotikParams {
  kind: 'mikrotik';
  nasid: string;
  linkLoginOnly: URL;
  /** HTTP-CHAP's identifier and challenge; null: HTTP-PAP. */
  chap: { id: Buffer; challenge: Buffer } | null;
  dst: string | undefined;
}

export type RouterParams = ChilliParams | MikrotikParams;

const MAX_URL = 2048;

/** An optional field: absent, null and '' are all "not given". */
export const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

export function nasidOf(v: unknown, required: boolean): string | undefined {
  if (!given(v)) {
    if (required) throw wifiErrors.nasidInvalid();
    return undefined;
  }
  if (typeof v !== 'string' || !/^[\x21-\x7e]{1,253}$/.test(v)) throw wifiErrors.nasidInvalid();
  return v;
}

function optionalUrl(v: unknown, error: () => Error): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== 'string' || v.length > MAX_URL || !isHttpUrl(v)) throw error();
  return v;
}

/** What names a CoovaChilli router: its uamip, and its nasid when the portal had one. */
export function parseChilliRouter(
  request: Fields<['nasid', 'uamip']>,
): Pick<ChilliParams, 'nasid' | 'uamip'> {
  const { uamip } = request;
  if (typeof uamip !== 'string' || ipv4ToNumber(uamip) === null) throw wifiErrors.uamipInvalid();
  return { uamip, nasid: nasidOf(request.nasid, false) };
}

/** CoovaChilli's parameters (uam-login, a typed login); the values checked in this order. */
export function parseChilliParams(request: Fields<typeof CHILLI_FIELDS>): ChilliParams {
  const { uamip, nasid } = parseChilliRouter(request);
  const { uamport, challenge } = request;
  if (typeof uamport !== 'number' || !Number.isInteger(uamport) || uamport < 1 || uamport > 65_535)
    throw wifiErrors.uamportInvalid();
  if (typeof challenge !== 'string' || !/^[0-9a-f]{32}$/i.test(challenge))
    throw wifiErrors.challengeInvalid();
  return {
    kind: 'coovachilli',
    nasid,
    uamip,
    uamport,
    challenge,
    userurl: optionalUrl(request.userurl, wifiErrors.userurlInvalid),
  };
}

/** An http(s) URL of the router's own login: no query, fragment or credentials of its own. */
function linkLoginOnlyOf(v: unknown): URL {
  if (typeof v !== 'string' || v.length > MAX_URL || !isHttpUrl(v)) throw wifiErrors.linkLoginOnlyInvalid();
  const url = new URL(v);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw wifiErrors.linkLoginOnlyInvalid();
  return url;
}

function octets(v: unknown, length: number, error: () => Error): Buffer {
  const parsed = typeof v === 'string' && v.length <= 256 ? parseOctalEscapes(v) : null;
  if (parsed?.length !== length) throw error();
  return parsed;
}

/** MikroTik's parameters (hotspot-login, a typed login). */
export function parseMikrotikParams(request: Fields<typeof MIKROTIK_FIELDS>): MikrotikParams {
  const nasid = nasidOf(request.nasid, true) ?? '';
  const linkLoginOnly = linkLoginOnlyOf(request.link_login_only);
  const { chap_id: chapId, chap_challenge: chapChallenge } = request;
  // RouterOS leaves both empty when the profile allows only HTTP-PAP.
  if (given(chapId) !== given(chapChallenge)) throw wifiErrors.chapIncomplete();
  const chap = given(chapId)
    ? {
        id: octets(chapId, 1, wifiErrors.chapIdInvalid),
        challenge: octets(chapChallenge, 16, wifiErrors.chapChallengeInvalid),
      }
    : null;
  return {
    kind: 'mikrotik',
    nasid,
    linkLoginOnly,
    chap,
    dst: optionalUrl(request.dst, wifiErrors.dstInvalid),
  };
}

/**
 * The router the parameters name (devices.ts `findPortalRouter`), and a check that the hand-off
 * goes to that router itself: the guest network also holds every guest's phone, and a link to the
 * portal naming one of them would have a guest's login sent there (docs/decisions/0023). A
 * MikroTik's link_login_only must be the router's own address on the guest network (gateway_ip,
 * by default the network's first address); a CoovaChilli uamip must lie in its network, and be
 * that address when staff set one.
 */
export async function routerOf(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  params:
    Pick<ChilliParams, 'kind' | 'nasid' | 'uamip'> | Pick<MikrotikParams, 'kind' | 'nasid' | 'linkLoginOnly'>,
): Promise<PortalRouter> {
  if (params.kind === 'coovachilli') {
    const router = await findPortalRouter(deps, params);
    if (router.gatewayPinned && params.uamip !== router.gateway) throw wifiErrors.uamipNotGateway();
    return router;
  }
  const router = await findPortalRouter(deps, { nasid: params.nasid, uamip: undefined });
  // URL gives a literal IPv4 host in its canonical form; a name is never the router's address.
  if (params.linkLoginOnly.hostname !== router.gateway) throw wifiErrors.linkLoginOnlyOutside();
  return router;
}

/** Where the guest's browser goes to be logged in by the router with these credentials. */
export function handOffUrl(
  config: Pick<Config, 'uamSecret'>,
  router: PortalRouter,
  params: RouterParams,
  credentials: { username: string; password: string },
): string {
  if (params.kind === 'mikrotik')
    return hotspotLoginUrl({
      linkLoginOnly: params.linkLoginOnly,
      ...credentials,
      chap: params.chap,
      dst: params.dst,
    });
  return logonUrl({
    uamip: params.uamip,
    uamport: params.uamport,
    username: credentials.username,
    credential: uamCredential(
      router.uamAuth,
      credentials.password,
      params.challenge,
      router.uamSecret ?? config.uamSecret,
    ),
    userurl: params.userurl,
  });
}
