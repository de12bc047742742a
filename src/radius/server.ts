import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { decodeAttributes, frame, text, verifyRequest, type Attributes, type Frame } from './codec.js';
import { DropLog, LogBudget, type CounterName, type Counters, type DropReason } from './counters.js';
import type { LastSeen } from './last-seen.js';
import type { Nas, NasDirectory } from './nas.js';

/**
 * The RADIUS listeners: a UDP socket for authorization, one for accounting, and RadSec (TLS,
 * radsec.ts). Every packet goes through the same steps (RadiusPipeline): framing, duplicate
 * cache, code check, device by NAS-Identifier, authenticators with the device's secret; then its
 * route (access.ts, accounting.ts) decides. A packet that fails a step is dropped without an
 * answer, counted, and logged at a bounded rate.
 */

/** A verified request from a known router, handed to a route. */
export interface RadiusRequest {
  frame: Frame;
  attrs: Attributes;
  nas: Nas;
  /** "address:port" of the sender, for logs. */
  source: string;
}

export type RouteResult =
  | { reply: Buffer; count: CounterName }
  | { drop: DropReason; detail?: string }
  /** Answer nothing and count nothing more (the route already did). */
  | { ignore: true };

export type Route = (request: RadiusRequest) => Promise<RouteResult>;

/** How long an answered request's reply is kept to answer its retransmissions (RFC 5080 §2.2.2). */
const DUPLICATE_WINDOW_MS = 5_000;
const DUPLICATE_MAX_ENTRIES = 65_536;

interface Pending {
  reply: Buffer | null;
  at: number;
}

/** Replies by (source address, source port, identifier, request authenticator). */
class DuplicateCache {
  readonly #entries = new Map<string, Pending>();

  constructor(private readonly clock: Clock) {}

  get(key: string): Pending | undefined {
    this.#prune();
    return this.#entries.get(key);
  }

  start(key: string): void {
    this.#entries.set(key, { reply: null, at: this.clock.now().getTime() });
  }

  finish(key: string, reply: Buffer | null): void {
    if (reply === null) this.#entries.delete(key);
    else this.#entries.set(key, { reply, at: this.clock.now().getTime() });
  }

  /** Entries are in insertion order, so expired ones are at the front. */
  #prune(): void {
    const oldest = this.clock.now().getTime() - DUPLICATE_WINDOW_MS;
    for (const [key, entry] of this.#entries) {
      if (entry.at > oldest && this.#entries.size <= DUPLICATE_MAX_ENTRIES) break;
      this.#entries.delete(key);
    }
  }
}

/** The route a packet code takes, and the counter of requests that reach it. */
export interface CodeRoute {
  route: Route;
  requests: CounterName;
}

export interface PipelineOptions {
  name: 'auth' | 'acct' | 'radsec';
  /** Packet codes this listener takes, each with its route; anything else is dropped. */
  routes: ReadonlyMap<number, CodeRoute>;
}

export interface ListenerOptions extends PipelineOptions {
  host: string;
  port: number;
}

export interface ServerDeps {
  clock: Clock;
  log: Logger;
  nas: NasDirectory;
  counters: Counters;
  lastSeen: LastSeen;
}

/** Where a packet came from and how to answer it: a UDP sender, or a RadSec connection. */
export interface Peer {
  /** "address:port", for logs and the duplicate cache. */
  source: string;
  send(reply: Buffer): void;
  /**
   * RadSec: the router its client certificate names (docs/decisions/0025). Its packets are signed
   * with the secret "radsec" (RFC 6614 §2.3) and must carry that router's NAS-Identifier.
   */
  certificate?: { nasId: string; fingerprint: string };
}

/** RFC 6614 §2.3: the shared secret of RADIUS over TLS is the string "radsec". */
export const RADSEC_SECRET = 'radsec';

/**
 * The steps every request goes through, whatever carried it: framing, duplicate cache, code
 * check, device by NAS-Identifier (and, over RadSec, the certificate's router), authenticators;
 * then its route.
 */
export class RadiusPipeline {
  readonly #duplicates: DuplicateCache;
  readonly #drops: DropLog;
  /** Internal errors are logged with their stack, within the same budget as drops. */
  readonly #errors: LogBudget;

  constructor(
    private readonly deps: ServerDeps,
    private readonly options: PipelineOptions,
  ) {
    this.#duplicates = new DuplicateCache(deps.clock);
    this.#drops = new DropLog(deps.log.child({ listener: options.name }), deps.clock);
    this.#errors = new LogBudget(deps.clock);
  }

  drop(reason: DropReason, source: string, nasId?: string, detail?: string): void {
    this.deps.counters.bump(`dropped_${reason}`);
    this.#drops.drop(reason, { source, nas_id: nasId, ...(detail !== undefined && { detail }) });
  }

  /** One packet (a datagram, or one framed off a RadSec stream). */
  async handle(msg: Buffer, peer: Peer): Promise<void> {
    const { source } = peer;
    const framed = frame(msg);
    if (!framed.ok) {
      this.drop('malformed', source, undefined, framed.reason);
      return;
    }
    const f = framed.frame;
    const key = `${source}/${String(f.identifier)}/${f.authenticator.toString('base64')}`;
    const seen = this.#duplicates.get(key);
    if (seen) {
      if (seen.reply === null) {
        this.deps.counters.bump('duplicates_in_progress');
      } else {
        this.deps.counters.bump('duplicates_answered');
        peer.send(seen.reply);
      }
      return;
    }
    const route = this.options.routes.get(f.code);
    if (!route) {
      this.drop('unexpected_code', source, undefined, `code ${String(f.code)}`);
      return;
    }
    this.#duplicates.start(key);
    let reply: Buffer | null = null;
    try {
      reply = await this.#process(f, peer, route);
    } catch (err) {
      this.deps.counters.bump('dropped_internal_error');
      // A failing database fails every packet: logged within a budget, like drops.
      const admitted = this.#errors.admit('internal_error');
      if (admitted)
        this.deps.log.error(
          { event: 'radius.internal_error', listener: this.options.name, source, err, ...admitted },
          'RADIUS request failed',
        );
    } finally {
      this.#duplicates.finish(key, reply);
    }
    if (reply) peer.send(reply);
  }

  /** The device a request names, with the secret its packet is signed with; null when dropped. */
  async #nasOf(f: Frame, nasId: string, peer: Peer): Promise<Nas | null> {
    const nas = await this.deps.nas.find(nasId);
    if (!nas) return this.#fail('unknown_nas', peer.source, nasId);
    const cert = peer.certificate;
    if (cert) {
      // RadSec: the certificate names the router; the packet must speak for that router only.
      if (cert.nasId !== nas.nasId || !certificateAccepted(nas, cert.fingerprint))
        return this.#fail('certificate_mismatch', peer.source, nasId, `certificate of ${cert.nasId}`);
      const overTls = { ...nas, secret: RADSEC_SECRET };
      const check = verifyRequest(f, overTls.secret);
      return check === 'ok' ? overTls : this.#fail('bad_authenticator', peer.source, nasId, check);
    }
    let current = nas;
    let check = verifyRequest(f, current.secret);
    if (check !== 'ok') {
      const fresh = await this.deps.nas.reload(nasId);
      if (fresh) {
        current = fresh;
        check = verifyRequest(f, current.secret);
      }
    }
    return check === 'ok' ? current : this.#fail('bad_authenticator', peer.source, nasId, check);
  }

  /** The reply to send, or null when the packet is dropped. */
  async #process(f: Frame, peer: Peer, route: CodeRoute): Promise<Buffer | null> {
    const { source } = peer;
    const attrs = decodeAttributes(f);
    if (!attrs) return this.#fail('malformed', source, undefined, 'undecodable attributes');
    const nasId = text(attrs, 'NAS-Identifier');
    if (nasId === undefined) return this.#fail('unknown_nas', source, undefined, 'no NAS-Identifier');
    const nas = await this.#nasOf(f, nasId, peer);
    if (!nas) return null;
    this.deps.counters.bump(route.requests);
    const result = await route.route({ frame: f, attrs, nas, source });
    if ('drop' in result) return this.#fail(result.drop, source, nasId, result.detail);
    // A valid packet (DESIGN.md §4.7 router health): one its route dropped (an Access-Request
    // without the Message-Authenticator its router needs: anybody could send that) is none. A
    // router registered as legacy is taken at its word, as its logins are.
    this.deps.lastSeen.seen(nas.deviceId);
    if ('ignore' in result) return null;
    this.deps.counters.bump(result.count);
    return result.reply;
  }

  #fail(reason: DropReason, source: string, nasId?: string, detail?: string): null {
    this.drop(reason, source, nasId, detail);
    return null;
  }
}

/**
 * A router whose certificate `devices radsec-cert` issued is pinned to that certificate (the
 * latest one: issuing a new one retires the old); one with a certificate from the operator's own
 * CA (no pin) is known by the certificate's CN alone.
 */
export const certificateAccepted = (nas: Pick<Nas, 'radsecFingerprint'>, fingerprint: string): boolean =>
  nas.radsecFingerprint === null || nas.radsecFingerprint === fingerprint;

/** One UDP socket and its pipeline. */
export class RadiusListener {
  readonly #socket: dgram.Socket;
  readonly #pipeline: RadiusPipeline;
  readonly #log: Logger;

  constructor(
    deps: ServerDeps,
    private readonly options: ListenerOptions,
  ) {
    this.#socket = dgram.createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
    this.#pipeline = new RadiusPipeline(deps, options);
    this.#socket.on('message', (msg, rinfo) => {
      const peer: Peer = {
        source: `${rinfo.address}:${String(rinfo.port)}`,
        send: (reply) => {
          this.#send(reply, rinfo);
        },
      };
      void this.#pipeline.handle(msg, peer);
    });
    this.#socket.on('error', (err) =>
      deps.log.error({ event: 'radius.socket_error', listener: options.name, err }, 'RADIUS socket error'),
    );
    this.#log = deps.log;
  }

  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#socket.once('error', reject);
      this.#socket.bind(this.options.port, this.options.host, () => {
        this.#socket.off('error', reject);
        resolve(this.#socket.address());
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      try {
        this.#socket.close(() => resolve());
      } catch {
        resolve(); // never bound, or already closed
      }
    });
  }

  /** A reply to a request that was in flight when the socket closed (shutdown) goes nowhere. */
  #send(reply: Buffer, to: dgram.RemoteInfo): void {
    try {
      this.#socket.send(reply, to.port, to.address);
    } catch (err) {
      this.#log.warn({ event: 'radius.send_failed', err }, 'RADIUS reply not sent');
    }
  }
}
