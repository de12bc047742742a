import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';

/**
 * A router's RFC 5176 Disconnect/CoA endpoint for tests, written from the RFC independently of
 * src/radius: it checks the request authenticator (MD5 over the packet with a zero authenticator
 * and the secret, §3.5) and the Message-Authenticator (HMAC-MD5 over the packet with a zero
 * authenticator and the M-A zeroed, §3.4), then answers ACK or NAK (with Error-Cause) as told.
 */

export interface ReceivedRequest {
  code: number;
  identifier: number;
  authenticator: string;
  attributes: { type: number; value: Buffer }[];
  authenticatorOk: boolean;
  messageAuthenticatorOk: boolean | null;
  /** Index of Message-Authenticator among the attributes. */
  messageAuthenticatorIndex: number;
  from: number;
}

/**
 * A forged reply: `authenticator` is signed with another secret (what an attacker without the
 * secret can send); `identifier` is signed right but answers another identifier.
 */
export type Forgery = 'authenticator' | 'identifier';

export type Reply = ({ ack: true } | { nak: number }) & { forged?: Forgery };

/** One reply, several sent in order (the last may be the genuine one), or none. */
export type Answer = Reply | Reply[] | 'silent';

const md5 = (...parts: Buffer[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

export class CoaListener {
  readonly received: ReceivedRequest[] = [];
  #socket: Socket = createSocket('udp4');
  #waiters: (() => void)[] = [];
  /** Requests whose replies are all handed to the kernel. */
  #answered = 0;

  constructor(
    private readonly secret: string,
    public answer: (req: ReceivedRequest) => Answer = () => ({ ack: true }),
  ) {}

  async listen(): Promise<number> {
    this.#socket.on('message', (msg, rinfo) => {
      const req = this.#parse(msg, rinfo.port);
      this.received.push(req);
      for (const w of this.#waiters.splice(0)) w();
      const answer =
        req.authenticatorOk && req.messageAuthenticatorOk !== false ? this.answer(req) : 'silent';
      if (answer === 'silent') return;
      const replies = Array.isArray(answer) ? answer : [answer];
      let unsent = replies.length;
      const sent = (): void => {
        if (--unsent > 0) return;
        this.#answered++;
        for (const w of this.#waiters.splice(0)) w();
      };
      for (const reply of replies)
        this.#socket.send(this.#reply(msg, reply), rinfo.port, rinfo.address, sent);
    });
    await new Promise<void>((resolve) => this.#socket.bind(0, '127.0.0.1', resolve));
    return this.#socket.address().port;
  }

  /** Resolves once `count` requests have arrived. */
  async receivedCount(count: number): Promise<void> {
    while (this.received.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Resolves once `count` requests have been answered and the event loop turned once more: the
   * replies were sent, so the requester's socket has read them in that turn's poll phase.
   */
  async answeredCount(count: number): Promise<void> {
    while (this.#answered < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }

  close(): void {
    this.#socket.close();
  }

  #parse(msg: Buffer, from: number): ReceivedRequest {
    const attributes: { type: number; value: Buffer }[] = [];
    for (let at = 20; at + 2 <= msg.length;) {
      const len = msg[at + 1] ?? 0;
      if (len < 2) break;
      attributes.push({ type: msg[at] ?? 0, value: msg.subarray(at + 2, at + len) });
      at += len;
    }
    const zeroAuth = Buffer.from(msg);
    zeroAuth.fill(0, 4, 20);
    const expectedAuth = md5(zeroAuth, Buffer.from(this.secret));
    const maIndex = attributes.findIndex((a) => a.type === 80);
    let maOk: boolean | null = null;
    if (maIndex >= 0) {
      const offset = attributes[maIndex]!.value.byteOffset - msg.byteOffset;
      const copy = Buffer.from(zeroAuth);
      copy.fill(0, offset, offset + 16);
      maOk = timingSafeEqual(
        createHmac('md5', this.secret).update(copy).digest(),
        attributes[maIndex]!.value,
      );
    }
    return {
      code: msg[0] ?? 0,
      identifier: msg[1] ?? 0,
      authenticator: msg.subarray(4, 20).toString('hex'),
      attributes,
      authenticatorOk: timingSafeEqual(expectedAuth, msg.subarray(4, 20)),
      messageAuthenticatorOk: maOk,
      messageAuthenticatorIndex: maIndex,
      from,
    };
  }

  /**
   * ACK or NAK (with Error-Cause) of the request's kind: Disconnect 40 → 41/42, CoA 43 → 44/45;
   * Response Authenticator over the request's authenticator.
   */
  #reply(request: Buffer, answer: Reply): Buffer {
    const attrs =
      'nak' in answer
        ? Buffer.from([101, 6, 0, 0, (answer.nak >> 8) & 0xff, answer.nak & 0xff])
        : Buffer.alloc(0);
    const identifier = ((request[1] ?? 0) + (answer.forged === 'identifier' ? 1 : 0)) & 0xff;
    const code = (request[0] ?? 40) + ('nak' in answer ? 2 : 1);
    const head = Buffer.from([code, identifier, 0, 0]);
    head.writeUInt16BE(20 + attrs.length, 2);
    const secret = answer.forged === 'authenticator' ? `not-${this.secret}` : this.secret;
    const auth = md5(head, request.subarray(4, 20), attrs, Buffer.from(secret));
    return Buffer.concat([head, auth, attrs]);
  }
}

/** Attribute values by type as text. */
export const attrText = (req: ReceivedRequest, type: number): string | undefined =>
  req.attributes.find((a) => a.type === type)?.value.toString('utf8');
