import dgram from 'node:dgram';
import { randomBytes, randomInt } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type {
  CoaClient,
  CoaProbeAnswer,
  DisconnectAnswer,
  SessionTarget,
  SessionTerms,
} from '../wifi/index.js';
import { MAX_INTEGER } from './access.js';
import {
  CODE,
  decodeAttributes,
  encodeRequest,
  frame,
  integer,
  text,
  verifyReply,
  type EncodeAttribute,
} from './codec.js';
import { dataLimitAttributes, rateAttributes } from './limits.js';
import type { NasDirectory, NasVendor } from './nas.js';

/**
 * The RFC 5176 Disconnect-Request and CoA-Request sender behind the Wi-Fi domain's CoaClient
 * port. One request per session, from its own socket; retransmissions reuse the identifier,
 * authenticator and source port (RFC 5176 §2.3, RFC 5080 §2.2.1). A reply counts only when its
 * Response Authenticator (and Message-Authenticator, if any) verifies with the router's secret.
 */

export interface CoaOptions {
  /** Wait this long for an answer before sending again. */
  timeoutMs?: number;
  /** Sends in all (the first one included). */
  attempts?: number;
}

export const COA_TIMEOUT_MS = 2_000;
export const COA_ATTEMPTS = 3;
/** `probe` (doctor): two sends a second apart, so about 2 s in all. */
export const PROBE_LIMITS = { timeoutMs: 1_000, attempts: 2 } as const;

export interface CoaDeps {
  clock: Clock;
  log: Logger;
  nas: NasDirectory;
  /** Source address to send from (RADIUS_HOST unless that is a wildcard). */
  bindHost: string;
  config: Pick<Config, 'radiusInterimInterval' | 'radiusIdleTimeout'>;
}

/** The answers each request kind expects (RFC 5176 §3). */
const ANSWERS = {
  [CODE.disconnectRequest]: { ack: CODE.disconnectAck, nak: CODE.disconnectNak },
  [CODE.coaRequest]: { ack: CODE.coaAck, nak: CODE.coaNak },
} as const;
type RequestCode = keyof typeof ANSWERS;

/** The identifiers CoovaChilli and RouterOS match a session on (User-Name is mandatory for chilli). */
export function disconnectAttributes(target: SessionTarget): EncodeAttribute[] {
  return [
    ['User-Name', target.username],
    ['Acct-Session-Id', target.acctSessionId],
    ...(target.framedIp !== null && isIPv4(target.framedIp)
      ? [['Framed-IP-Address', target.framedIp] as const]
      : []),
    ['NAS-Identifier', target.nasId],
  ];
}

/**
 * The probe's only attribute: an Acct-Session-Id made up for it, so no router can match a session
 * (no User-Name, no Framed-IP-Address) and every one answers Disconnect-NAK (RFC 5176 §3.5,
 * Session-Context-Not-Found) or drops it; nothing is cut. Its prefix names the sender in a
 * router's log.
 */
export const probeAttributes = (): EncodeAttribute[] => [
  ['Acct-Session-Id', `hotspot-ctl-doctor-${randomBytes(8).toString('hex')}`],
];

/**
 * A CoA-Request's attributes: the session's identifiers and its new terms. CoovaChilli applies a
 * CoA like a new Access-Accept and clears every limit the request leaves out, counting
 * Session-Timeout and the octet limits from the session's start, so it gets the whole set,
 * measured from the start; RouterOS changes only what the request carries, so it gets the rate
 * (or "0/0" for none). A router of unknown make gets both.
 */
export function changeAttributes(
  config: Pick<Config, 'radiusInterimInterval' | 'radiusIdleTimeout'>,
  vendor: NasVendor,
  target: SessionTarget,
  terms: SessionTerms,
): EncodeAttribute[] {
  const rate = rateAttributes(vendor, terms, { lift: true });
  if (vendor === 'mikrotik') return [...disconnectAttributes(target), ...rate];
  return [
    ...disconnectAttributes(target),
    ['Session-Timeout', Math.min(terms.sessionSeconds + terms.secondsLeft, MAX_INTEGER)],
    ['Acct-Interim-Interval', config.radiusInterimInterval],
    ...(config.radiusIdleTimeout > 0 ? [['Idle-Timeout', config.radiusIdleTimeout] as const] : []),
    ...(terms.dataLeftBytes === null
      ? []
      : dataLimitAttributes('chillispot', terms.sessionOctets + terms.dataLeftBytes)),
    ...rate,
  ];
}

export function createCoaClient(deps: CoaDeps, options: CoaOptions = {}): CoaClient {
  const limits = {
    timeoutMs: options.timeoutMs ?? COA_TIMEOUT_MS,
    attempts: options.attempts ?? COA_ATTEMPTS,
  };
  /** Sends one request to the session's router and logs what it answered. */
  const send = async (
    code: RequestCode,
    target: SessionTarget,
    attributes: (vendor: NasVendor) => EncodeAttribute[],
  ): Promise<DisconnectAnswer> => {
    // An archived router still gets the Disconnect-Requests of its archiving (docs/decisions/0037).
    const nas = await deps.nas.find(target.nasId, { archived: true });
    if (!nas) return { answer: 'no_answer' };
    const request = encodeRequest(code, randomInt(256), attributes(nas.vendor), nas.secret);
    const answer = await exchange(deps, target, request, nas.secret, ANSWERS[code], limits);
    const kind = code === CODE.coaRequest ? 'CoA-Request' : 'Disconnect-Request';
    deps.log.info(
      {
        event: code === CODE.coaRequest ? 'coa.change' : 'coa.disconnect',
        nas_id: target.nasId,
        to: `${target.clientIp}:${String(target.coaPort)}`,
        ...answer,
      },
      `${kind} answered`,
    );
    return answer;
  };
  return {
    disconnect: (target) => send(CODE.disconnectRequest, target, () => disconnectAttributes(target)),
    change: (target, terms) =>
      send(CODE.coaRequest, target, (vendor) => changeAttributes(deps.config, vendor, target, terms)),
    forgetRouter: (nasId) => {
      deps.nas.forget(nasId);
    },
    probe: async (router): Promise<CoaProbeAnswer> => {
      const nas = await deps.nas.find(router.nasId);
      if (!nas) return { answer: 'not_available' };
      const request = encodeRequest(CODE.disconnectRequest, randomInt(256), probeAttributes(), nas.secret);
      const heard = { unverified: false };
      const answer = await exchange(
        deps,
        router,
        request,
        nas.secret,
        ANSWERS[CODE.disconnectRequest],
        PROBE_LIMITS,
        () => {
          heard.unverified = true;
        },
      );
      return answer.answer === 'no_answer' && heard.unverified ? { answer: 'unverified' } : answer;
    },
  };
}

/**
 * Sends `request` to the router's CoA port until a verified ACK or NAK comes or the attempts run
 * out. `onUnverified` hears of a reply that does not verify with `secret` (ignored all the same).
 */
function exchange(
  deps: Pick<CoaDeps, 'clock' | 'log' | 'bindHost'>,
  target: Pick<SessionTarget, 'clientIp' | 'coaPort'>,
  request: Buffer,
  secret: string,
  codes: { ack: number; nak: number },
  limits: { timeoutMs: number; attempts: number },
  onUnverified?: () => void,
): Promise<DisconnectAnswer> {
  const v6 = isIPv6(target.clientIp);
  const socket = dgram.createSocket(v6 ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    let sent = 0;
    let done = false;
    let timer: { cancel(): void } | undefined;
    const finish = (answer: DisconnectAnswer): void => {
      if (done) return;
      done = true;
      timer?.cancel();
      socket.close();
      resolve(answer);
    };
    const send = (): void => {
      if (done) return;
      if (sent >= limits.attempts) {
        finish({ answer: 'no_answer' });
        return;
      }
      sent++;
      socket.send(request, target.coaPort, target.clientIp);
      timer = deps.clock.setTimer(limits.timeoutMs, send);
    };
    socket.on('message', (msg) => {
      const framed = frame(msg);
      if (!framed.ok) return;
      if (!verifyReply(request, framed.frame, secret)) {
        onUnverified?.(); // not our router's answer, or signed with another secret
        return;
      }
      const reply = framed.frame;
      if (reply.code === codes.ack) {
        finish({ answer: 'ack' });
        return;
      }
      if (reply.code !== codes.nak) return;
      const attrs = decodeAttributes(reply);
      const cause = attrs && (text(attrs, 'Error-Cause') ?? integer(attrs, 'Error-Cause'));
      finish({ answer: 'nak', errorCause: cause === undefined || cause === null ? null : String(cause) });
    });
    socket.on('error', (err) => {
      deps.log.warn({ event: 'coa.socket_error', err }, 'CoA socket error');
      finish({ answer: 'no_answer' });
    });
    const wildcard = deps.bindHost === '0.0.0.0' || deps.bindHost === '::' || isIPv6(deps.bindHost) !== v6;
    socket.bind(0, wildcard ? undefined : deps.bindHost, send);
  });
}
