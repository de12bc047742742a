import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  encodeList,
  encodedLength,
  writeList,
  decodeAttributeList,
  md5,
  type Attributes,
  type EncodeAttribute,
  type EncodeContext,
} from './attributes.js';
import { hmacMd5 } from './hmac.js';

export {
  hidePassword,
  revealPassword,
  integer,
  text,
  type Attributes,
  type EncodeAttribute,
} from './attributes.js';

/**
 * Pure bytes ↔ attributes. The `radius` package holds the dictionaries (standard and vendor)
 * and decodes attribute lists by name; everything it gets wrong, leaves out or does slowly is
 * done here and pinned by the vectors in test/radius/vectors/:
 * - framing is checked first (RFC 2865 §3: 20..4096 octets, attributes that add up exactly), so
 *   a malformed datagram is refused before the package can throw or misread it;
 * - Message-Authenticator (RFC 3579 §3.2) is computed and verified here, in the RFC 5176 §3.4
 *   order for Accounting/CoA/Disconnect requests (over a zero authenticator, before the request
 *   authenticator), and it is the FIRST attribute of every reply (BlastRADIUS, CVE-2024-3596);
 * - User-Password is revealed here from the raw attribute (RFC 2865 §5.2), CHAP checked here;
 * - packets are assembled here from the dictionary's attribute numbers and types (the package's
 *   encoder allocates 4 KiB per packet with a deprecated constructor and signs in its own order).
 * MD5 comes from node:crypto; HMAC-MD5 is built on it with each secret's pad blocks computed once
 * (hmac.ts).
 */

export const CODE = {
  accessRequest: 1,
  accessAccept: 2,
  accessReject: 3,
  accountingRequest: 4,
  accountingResponse: 5,
  accessChallenge: 11,
  statusServer: 12,
  disconnectRequest: 40,
  disconnectAck: 41,
  disconnectNak: 42,
  coaRequest: 43,
  coaAck: 44,
  coaNak: 45,
} as const;

const CODE_NAMES: Readonly<Record<number, string>> = {
  1: 'Access-Request',
  2: 'Access-Accept',
  3: 'Access-Reject',
  4: 'Accounting-Request',
  5: 'Accounting-Response',
  11: 'Access-Challenge',
  12: 'Status-Server',
  40: 'Disconnect-Request',
  41: 'Disconnect-ACK',
  42: 'Disconnect-NAK',
  43: 'CoA-Request',
  44: 'CoA-ACK',
  45: 'CoA-NAK',
};

export const codeName = (code: number): string => CODE_NAMES[code] ?? `code-${String(code)}`;

export const ATTR = {
  userName: 1,
  userPassword: 2,
  chapPassword: 3,
  proxyState: 33,
  chapChallenge: 60,
  messageAuthenticator: 80,
} as const;

export const HEADER_LENGTH = 20;
export const MAX_PACKET_LENGTH = 4096;
const AUTH_START = 4;
const AUTH_END = 20;
const MA_LENGTH = 16;
const ZERO16 = Buffer.alloc(16);

/** Requests whose authenticator is an MD5 over the packet (RFC 2866 §3, RFC 5176 §3.5). */
const SIGNED_REQUESTS: ReadonlySet<number> = new Set([
  CODE.accountingRequest,
  CODE.disconnectRequest,
  CODE.coaRequest,
]);

/**
 * A datagram whose framing checked out. Its attributes stay in `bytes` (no object per attribute):
 * `rawValue`, `rawValues` and fields.ts read them from there.
 */
export interface Frame {
  code: number;
  identifier: number;
  authenticator: Buffer;
  /** Exactly `length` octets (padding after Length is dropped, RFC 2865 §3). */
  bytes: Buffer;
  /** Offset of the Message-Authenticator value in `bytes`, or null when there is none. */
  maOffset: number | null;
}

export type FrameResult = { ok: true; frame: Frame } | { ok: false; reason: string };

/** Checks the header and walks the attributes; never throws. */
export function frame(datagram: Buffer): FrameResult {
  if (datagram.length < HEADER_LENGTH) return { ok: false, reason: 'shorter than a header' };
  const length = datagram.readUInt16BE(2);
  if (length < HEADER_LENGTH || length > MAX_PACKET_LENGTH) return { ok: false, reason: 'bad length field' };
  if (datagram.length < length) return { ok: false, reason: 'truncated' };
  const bytes = datagram.length === length ? datagram : datagram.subarray(0, length);
  let maOffset: number | null = null;
  for (let at = HEADER_LENGTH; at < length;) {
    if (at + 2 > length) return { ok: false, reason: 'attribute header cut off' };
    const type = bytes[at] ?? 0;
    const len = bytes[at + 1] ?? 0;
    if (len < 2 || at + len > length) return { ok: false, reason: 'bad attribute length' };
    if (type === ATTR.messageAuthenticator) {
      if (len !== 2 + MA_LENGTH || maOffset !== null)
        return { ok: false, reason: 'bad Message-Authenticator' };
      maOffset = at + 2;
    }
    at += len;
  }
  return {
    ok: true,
    frame: {
      code: bytes[0] ?? 0,
      identifier: bytes[1] ?? 0,
      authenticator: bytes.subarray(AUTH_START, AUTH_END),
      bytes,
      maOffset,
    },
  };
}

/**
 * Decodes the attributes by name with the `radius` package (replies to our CoA requests, tests).
 * Null when the package cannot make sense of them (an integer shorter than 4 octets, a
 * vendor attribute that is not one…): the packet is malformed. Requests are read by fields.ts.
 */
export const decodeAttributes = (f: Frame): Attributes | null => decodeAttributeList(f.bytes);

/** Offset of the first attribute of `type` at or after `from` in a framed packet, or -1. */
function attributeAt(f: Frame, type: number, from = HEADER_LENGTH): number {
  const { bytes } = f;
  for (let at = from; at < bytes.length; at += bytes[at + 1] ?? bytes.length)
    if (bytes[at] === type) return at;
  return -1;
}

/** First raw value of an attribute type (a view into the packet). */
export function rawValue(f: Frame, type: number): Buffer | undefined {
  const at = attributeAt(f, type);
  return at < 0 ? undefined : f.bytes.subarray(at + 2, at + (f.bytes[at + 1] ?? 2));
}

/** Every raw value of an attribute type, in order (views into the packet). */
export function rawValues(f: Frame, type: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = attributeAt(f, type); at >= 0; at = attributeAt(f, type, at + (f.bytes[at + 1] ?? 2)))
    out.push(f.bytes.subarray(at + 2, at + (f.bytes[at + 1] ?? 2)));
  return out;
}

/** Equal bytes, compared in constant time when the lengths match. */
export const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/**
 * A copy of `bytes` with `authenticator` in the header and, when `maOffset` is given, a zero
 * Message-Authenticator value: the form both digests are taken over. One copy and one update
 * cost less than feeding the digest the packet in slices.
 */
function signingForm(bytes: Buffer, authenticator: Buffer, maOffset: number | null): Buffer {
  const out = Buffer.from(bytes);
  authenticator.copy(out, AUTH_START);
  if (maOffset !== null) out.fill(0, maOffset, maOffset + MA_LENGTH);
  return out;
}

/**
 * RFC 3579 §3.2: HMAC-MD5 keyed with the secret over the packet, with `authenticator` in the
 * header and the Message-Authenticator value (at `maOffset`) taken as 16 zero octets.
 */
export function messageAuthenticator(
  bytes: Buffer,
  maOffset: number,
  authenticator: Buffer,
  secret: string,
): Buffer {
  return hmacMd5(secret, signingForm(bytes, authenticator, maOffset));
}

/** MD5(Code ‖ Id ‖ Length ‖ `authenticator` ‖ Attributes ‖ Secret): RFC 2865 §3, RFC 2866 §3. */
function packetDigest(bytes: Buffer, authenticator: Buffer, secret: string): Buffer {
  return md5(signingForm(bytes, authenticator, null), secret);
}

export type RequestCheck = 'ok' | 'bad_authenticator' | 'bad_message_authenticator';

/**
 * Verifies a request with `secret`: the request authenticator of Accounting/CoA/Disconnect
 * requests, and a Message-Authenticator when present (over a zero authenticator for those
 * codes, RFC 5176 §3.4; over the random one for Access-Request and Status-Server).
 */
export function verifyRequest(f: Frame, secret: string): RequestCheck {
  const signed = SIGNED_REQUESTS.has(f.code);
  if (signed && !sameBytes(packetDigest(f.bytes, ZERO16, secret), f.authenticator))
    return 'bad_authenticator';
  if (f.maOffset !== null) {
    const given = f.bytes.subarray(f.maOffset, f.maOffset + MA_LENGTH);
    const expected = messageAuthenticator(f.bytes, f.maOffset, signed ? ZERO16 : f.authenticator, secret);
    if (!sameBytes(expected, given)) return 'bad_message_authenticator';
  }
  return 'ok';
}

/**
 * CHAP (RFC 2865 §5.3, RFC 1994): CHAP-Password is ident ‖ MD5(ident ‖ password ‖ challenge);
 * the challenge is CHAP-Challenge, or the request authenticator when that is absent.
 */
export function chapMatches(chapPassword: Buffer, challenge: Buffer, password: string): boolean {
  if (chapPassword.length !== 17) return false;
  const expected = md5(chapPassword.subarray(0, 1), password, challenge);
  return sameBytes(expected, chapPassword.subarray(1));
}

/** Header + (zero Message-Authenticator when `withMa`) + attributes; the caller signs it. */
function assemble(
  code: number,
  identifier: number,
  authenticator: Buffer,
  attributes: readonly EncodeAttribute[],
  ctx: EncodeContext,
  withMa: boolean,
): Buffer {
  const list = encodeList(attributes, ctx);
  const length = HEADER_LENGTH + (withMa ? 2 + MA_LENGTH : 0) + encodedLength(list);
  if (length > MAX_PACKET_LENGTH) throw new Error('RADIUS packet longer than 4096 octets');
  const out = Buffer.alloc(length);
  out[0] = code;
  out[1] = identifier;
  out.writeUInt16BE(length, 2);
  authenticator.copy(out, AUTH_START);
  let at = HEADER_LENGTH;
  if (withMa) {
    out[at] = ATTR.messageAuthenticator;
    out[at + 1] = 2 + MA_LENGTH;
    at += 2 + MA_LENGTH;
  }
  writeList(out, at, list);
  return out;
}

const MA_VALUE_OFFSET = HEADER_LENGTH + 2;

/**
 * A reply to `request`: Message-Authenticator first (computed with the request authenticator),
 * then `attributes`, then the request's Proxy-State attributes in order (RFC 2865 §5.33); the
 * Response Authenticator last, over the finished packet. `messageAuthenticator: false` leaves it
 * out (Accounting-Response: see docs/decisions/0022-radius-security.md).
 */
export function encodeReply(
  request: Frame,
  code: number,
  attributes: readonly EncodeAttribute[],
  secret: string,
  options: { messageAuthenticator?: boolean } = {},
): Buffer {
  const withMa = options.messageAuthenticator ?? true;
  const proxyStates = rawValues(request, ATTR.proxyState).map((value): EncodeAttribute => [
    ATTR.proxyState,
    Buffer.from(value),
  ]);
  const out = assemble(
    code,
    request.identifier,
    request.authenticator,
    [...attributes, ...proxyStates],
    { secret, authenticator: request.authenticator },
    withMa,
  );
  // `out` holds the request authenticator and a zero Message-Authenticator: sign it as it is.
  if (withMa) hmacMd5(secret, out).copy(out, MA_VALUE_OFFSET);
  md5(out, secret).copy(out, AUTH_START);
  return out;
}

/**
 * A request we send (Disconnect/CoA to a router; Access/Accounting in tests and the bench), with
 * Message-Authenticator first. Signed codes follow RFC 5176 §3.4: the M-A over a zero
 * authenticator first, then the request authenticator over the packet including it.
 * Access-Request gets a random authenticator (`authenticator` when given, for vectors).
 */
export function encodeRequest(
  code: number,
  identifier: number,
  attributes: readonly EncodeAttribute[],
  secret: string,
  authenticator?: Buffer,
): Buffer {
  const signed = SIGNED_REQUESTS.has(code);
  const start = signed ? ZERO16 : (authenticator ?? randomBytes(16));
  const out = assemble(code, identifier, start, attributes, { secret, authenticator: start }, true);
  hmacMd5(secret, out).copy(out, MA_VALUE_OFFSET); // over `start` and a zero Message-Authenticator
  if (signed) md5(out, secret).copy(out, AUTH_START); // the header still holds the zero authenticator
  return out;
}

/**
 * Checks a reply to the request we sent: same identifier, Response Authenticator over the
 * request authenticator, and a Message-Authenticator when present. FreeRADIUS before 3.2.4
 * computed the ACK/NAK Message-Authenticator over a zero vector; that form is accepted too.
 */
export function verifyReply(request: Buffer, reply: Frame, secret: string): boolean {
  if (reply.identifier !== request[1]) return false;
  const requestAuth = request.subarray(AUTH_START, AUTH_END);
  if (!sameBytes(packetDigest(reply.bytes, requestAuth, secret), reply.authenticator)) return false;
  if (reply.maOffset === null) return true;
  const given = reply.bytes.subarray(reply.maOffset, reply.maOffset + MA_LENGTH);
  return [requestAuth, ZERO16].some((a) =>
    sameBytes(messageAuthenticator(reply.bytes, reply.maOffset ?? 0, a, secret), given),
  );
}
