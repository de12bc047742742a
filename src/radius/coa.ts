import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { CoaClient, DisconnectAnswer, SessionTarget } from '../wifi/index.js';
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
import type { NasDirectory } from './nas.js';

/**
 * The RFC 5176 Disconnect-Request sender behind the Wi-Fi domain's CoaClient port. One request
 * per session, from its own socket; retransmissions reuse the identifier, authenticator and
 * source port (RFC 5176 §2.3, RFC 5080 §2.2.1). A reply counts only when its Response
 * Authenticator (and Message-Authenticator, if any) verifies with the router's secret.
 */

export interface CoaOptions {
  /** Wait this long for an answer before sending again. */
  timeoutMs?: number;
  /** Sends in all (the first one included). */
  attempts?: number;
}

export const COA_TIMEOUT_MS = 2_000;
export const COA_ATTEMPTS = 3;

export interface CoaDeps {
  clock: Clock;
  log: Logger;
  nas: NasDirectory;
  /** Source address to send from (RADIUS_HOST unless that is a wildcard). */
  bindHost: string;
}

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

export function createCoaClient(deps: CoaDeps, options: CoaOptions = {}): CoaClient {
  const timeoutMs = options.timeoutMs ?? COA_TIMEOUT_MS;
  const attempts = options.attempts ?? COA_ATTEMPTS;
  return {
    async disconnect(target) {
      const nas = await deps.nas.find(target.nasId);
      if (!nas) return { answer: 'no_answer' };
      const request = encodeRequest(
        CODE.disconnectRequest,
        randomInt(256),
        disconnectAttributes(target),
        nas.secret,
      );
      const answer = await exchange(deps, target, request, nas.secret, { timeoutMs, attempts });
      deps.log.info(
        { event: 'coa.disconnect', nas_id: target.nasId, to: `${target.clientIp}:${String(target.coaPort)}`, ...answer },
        'Disconnect-Request answered',
      );
      return answer;
    },
  };
}

function exchange(
  deps: CoaDeps,
  target: SessionTarget,
  request: Buffer,
  secret: string,
  limits: { timeoutMs: number; attempts: number },
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
      if (!framed.ok || !verifyReply(request, framed.frame, secret)) return; // not our router's answer
      const reply = framed.frame;
      if (reply.code === CODE.disconnectAck) {
        finish({ answer: 'ack' });
        return;
      }
      if (reply.code !== CODE.disconnectNak) return;
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
