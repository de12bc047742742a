import type { Config } from '../config/index.js';
import {
  authorize,
  authorizeDevice,
  rememberDevice,
  type Decision,
  type RejectReason,
  type WifiDeps,
} from '../wifi/index.js';
import {
  ATTR,
  CODE,
  chapMatches,
  encodeReply,
  rawValue,
  revealPassword,
  sameBytes,
  type EncodeAttribute,
} from './codec.js';
import { dataLimitAttributes, rateAttributes } from './limits.js';
import { normaliseMac } from './mac.js';
import type { NasVendor } from './nas.js';
import type { RadiusRequest, RouteResult } from './server.js';

/**
 * The Access-Request "route": BlastRADIUS policy, then PAP or CHAP against the access-grant
 * service, then one table from its decision to the reply (docs/decisions/0020-radius-server.md).
 */

/** What a guest's router shows (or logs) on a reject. Unknown user and wrong password read the same. */
const REJECT_MESSAGES: Readonly<Record<RejectReason | 'no_credentials', string>> = {
  unknown: 'Unknown username or wrong password',
  bad_password: 'Unknown username or wrong password',
  no_credentials: 'Unknown username or wrong password',
  revoked: 'This access has been revoked',
  expired: 'This access has expired',
  too_many_devices: 'This access is already in use on another device',
  data_exhausted: 'The data allowance of this access is used up',
};

/** The largest value of a 4-octet integer attribute such as Session-Timeout (RFC 2865 §5.27). */
export const MAX_INTEGER = 2 ** 32 - 1;

/** Access-Accept attributes for an accepted grant. */
export function acceptAttributes(
  config: Pick<Config, 'radiusInterimInterval' | 'radiusIdleTimeout'>,
  vendor: NasVendor,
  accept: Extract<Decision, { decision: 'accept' }>,
): EncodeAttribute[] {
  return [
    // A plan longer than 136 years (the attribute's range) is as good as unlimited.
    ['Session-Timeout', Math.min(accept.secondsLeft, MAX_INTEGER)],
    ['Acct-Interim-Interval', config.radiusInterimInterval],
    ...(config.radiusIdleTimeout > 0 ? [['Idle-Timeout', config.radiusIdleTimeout] as const] : []),
    ...(accept.limits.dataLeftBytes === null ? [] : dataLimitAttributes(vendor, accept.limits.dataLeftBytes)),
    ...rateAttributes(vendor, accept.limits),
  ];
}

/** How the request proves the password: PAP (User-Password) or CHAP; null when it carries neither. */
function credentialCheck(req: RadiusRequest): ((password: string) => boolean) | null {
  const hidden = rawValue(req.frame, ATTR.userPassword);
  if (hidden) {
    const given = revealPassword(hidden, req.nas.secret, req.frame.authenticator);
    if (!given) return null;
    // Constant time over the bytes; a length mismatch answers at once, which tells only that the
    // guess is not the length every generated grant password has (codes.ts), no secret.
    return (password) => sameBytes(given, Buffer.from(password, 'utf8'));
  }
  const chap = rawValue(req.frame, ATTR.chapPassword);
  if (chap) {
    const challenge = rawValue(req.frame, ATTR.chapChallenge) ?? req.frame.authenticator;
    return (password) => chapMatches(chap, challenge, password);
  }
  return null;
}

export function accessRoute(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>,
): (req: RadiusRequest) => RouteResult | Promise<RouteResult> {
  const reject = (req: RadiusRequest, reason: RejectReason | 'no_credentials'): RouteResult => ({
    reply: encodeReply(
      req.frame,
      CODE.accessReject,
      [['Reply-Message', REJECT_MESSAGES[reason]]],
      req.nas.secret,
    ),
    count: 'auth_rejects',
  });

  /** The grant service's decision, and the reply it makes. */
  const decide = async (
    req: RadiusRequest,
    login: { username: string; check: (password: string) => boolean; mac: string | null; byMac: boolean },
  ): Promise<RouteResult> => {
    const { username, check, mac, byMac } = login;
    const decision =
      byMac && mac !== null
        ? await authorizeDevice(deps, mac)
        : await authorize(deps, { username, check, mac });
    if (decision.decision === 'reject') return reject(req, decision.reason);
    if (!byMac && mac !== null) await rememberDevice(deps, decision, mac);
    return {
      reply: encodeReply(
        req.frame,
        CODE.accessAccept,
        [
          ...acceptAttributes(deps.config, req.nas.vendor, decision),
          // RFC 2865 §5.1: the router accounts the session under the grant's username.
          ...(byMac ? [['User-Name', decision.username] as const] : []),
        ],
        req.nas.secret,
      ),
      count: 'auth_accepts',
    };
  };

  // Everything before the grant service answers at once (no promise for a dropped packet).
  return (req) => {
    // BlastRADIUS (CVE-2024-3596): Message-Authenticator is required unless the device is marked
    // legacy; even then a Proxy-State without it is refused (FreeRADIUS limit_proxy_state).
    if (req.frame.maOffset === null) {
      if (req.nas.requireMessageAuthenticator) return { drop: 'no_message_authenticator' };
      if (rawValue(req.frame, ATTR.proxyState)) return { drop: 'proxy_state_without_message_authenticator' };
    }
    if (req.frame.code === CODE.statusServer) {
      // RFC 5997: Status-Server must carry Message-Authenticator; answered like a liveness probe.
      if (req.frame.maOffset === null) return { drop: 'no_message_authenticator' };
      return { reply: encodeReply(req.frame, CODE.accessAccept, [], req.nas.secret), count: 'status_server' };
    }
    const username = req.attrs.text('User-Name');
    if (username === undefined || username.trim() === '')
      return { drop: 'malformed', detail: 'no User-Name' };
    const check = credentialCheck(req);
    if (!check) return reject(req, 'no_credentials');
    const mac = normaliseMac(req.attrs.text('Calling-Station-Id'));
    // MAC authentication (CoovaChilli macauth, MikroTik login-by=mac): User-Name is the device's
    // MAC, the password the same text. Grant usernames are never twelve hex digits (codes.ts).
    const byMac = normaliseMac(username) !== null;
    if (byMac && (mac === null || normaliseMac(username) !== mac || !check(username)))
      return reject(req, 'unknown');
    return decide(req, { username, check, mac, byMac });
  };
}
