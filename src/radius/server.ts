import dgram from 'node:dgram';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { frame, verifyRequest, type Frame } from './codec.js';
import { DropLog, LogBudget, type CounterName, type Counters, type DropReason } from './counters.js';
import { readFields, type RequestFields } from './fields.js';
import type { LastSeen } from './last-seen.js';
import type { Nas, NasDirectory } from './nas.js';

/**
 * The RADIUS listeners: a UDP socket for authorization, one for accounting, and RadSec (TLS,
 * radsec.ts). Every packet goes through the same steps (RadiusPipeline): framing, duplicate
 * cache, code check, device by NAS-Identifier, authenticators with the device's secret; then its
 * route (access.ts, accounting.ts) decides. A packet that fails a step is dropped without an
 * answer, counted, and logged at a bounded rate. A packet whose answer needs nothing
 * asynchronous (a cached router, a route that answers at once) is handled in one synchronous
 * run, without a promise; only what waits (a database read through the query queue, a commit)
 * continues asynchronously.
 */

/** A verified request from a known router, handed to a route. */
export interface RadiusRequest {
  frame: Frame;
  /** The attributes a login or accounting request needs (fields.ts). */
  attrs: RequestFields;
  nas: Nas;
  /** "address:port" of the sender, for logs. */
  source: string;
}

export type RouteResult =
  | { reply: Buffer; count: CounterName }
  | { drop: DropReason; detail?: string }
  /** Answer nothing and count nothing more (the route already did). */
  | { ignore: true };

/** A route answers at once when it can, or with a promise when it must wait. */
export type Route = (request: RadiusRequest) => RouteResult | Promise<RouteResult>;

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => v instanceof Promise;

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
  /** Runs right before each UDP reply is sent (a RADIUS worker on a test's clock sends its tally: worker.ts). */
  beforeReply?: () => void;
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
  /** Requests whose answer is a promise not settled yet. */
  #inFlight = 0;
  #settled: (() => void)[] = [];

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

  /** One packet (a datagram, or one framed off a RadSec stream). Never throws. */
  handle(msg: Buffer, peer: Peer): void {
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
    let reply: Buffer | null | Promise<Buffer | null>;
    try {
      reply = this.#process(f, peer, route);
    } catch (err) {
      this.#failed(key, source, err);
      return;
    }
    if (isPromise(reply)) {
      this.#inFlight++;
      reply.then(
        (r) => {
          this.#answer(key, peer, r);
          this.#landed();
        },
        (err: unknown) => {
          this.#failed(key, source, err);
          this.#landed();
        },
      );
    } else this.#answer(key, peer, reply);
  }

  #landed(): void {
    if (--this.#inFlight === 0) for (const done of this.#settled.splice(0)) done();
  }

  /** Resolves once no request is waiting for an answer (a stopping RADIUS worker waits for it). */
  settled(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  /** The request is done: its reply (or none) answers its retransmissions from now on. */
  #answer(key: string, peer: Peer, reply: Buffer | null): void {
    this.#duplicates.finish(key, reply);
    if (reply) peer.send(reply);
  }

  /** The request failed inside: no answer, so the router's retransmission is processed afresh. */
  #failed(key: string, source: string, err: unknown): void {
    this.#duplicates.finish(key, null);
    this.deps.counters.bump('dropped_internal_error');
    // A failing database fails every packet: logged within a budget, like drops.
    const admitted = this.#errors.admit('internal_error');
    if (admitted)
      this.deps.log.error(
        { event: 'radius.internal_error', listener: this.options.name, source, err, ...admitted },
        'RADIUS request failed',
      );
  }

  /**
   * The device a request names, with the secret its packet is signed with; null when dropped.
   * At once from the directory's cache, or after reading the device.
   */
  #nasOf(f: Frame, nasId: string, peer: Peer): Nas | null | Promise<Nas | null> {
    const cached = this.deps.nas.cached(nasId);
    if (cached === null) return this.deps.nas.find(nasId).then((nas) => this.#verified(f, nasId, peer, nas));
    return this.#verified(f, nasId, peer, cached);
  }

  #verified(f: Frame, nasId: string, peer: Peer, nas: Nas | undefined): Nas | null | Promise<Nas | null> {
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
    const check = verifyRequest(f, nas.secret);
    if (check === 'ok') return nas;
    // A secret that fails may just have been rotated: reread the device (at most once a second).
    return this.deps.nas.reload(nasId).then((fresh) => {
      const retry = fresh ? verifyRequest(f, fresh.secret) : check;
      return fresh && retry === 'ok' ? fresh : this.#fail('bad_authenticator', peer.source, nasId, retry);
    });
  }

  /** The reply to send, or null when the packet is dropped. */
  #process(f: Frame, peer: Peer, route: CodeRoute): Buffer | null | Promise<Buffer | null> {
    const { source } = peer;
    const attrs = readFields(f);
    if (!attrs) return this.#fail('malformed', source, undefined, 'undecodable attributes');
    const nasId = attrs.text('NAS-Identifier');
    if (nasId === undefined) return this.#fail('unknown_nas', source, undefined, 'no NAS-Identifier');
    const nas = this.#nasOf(f, nasId, peer);
    if (isPromise(nas))
      return nas.then((n) => (n ? this.#route({ frame: f, attrs, nas: n, source }, nasId, route) : null));
    return nas ? this.#route({ frame: f, attrs, nas, source }, nasId, route) : null;
  }

  #route(request: RadiusRequest, nasId: string, route: CodeRoute): Buffer | null | Promise<Buffer | null> {
    this.deps.counters.bump(route.requests);
    const result = route.route(request);
    return isPromise(result)
      ? result.then((r) => this.#decided(r, request, nasId))
      : this.#decided(result, request, nasId);
  }

  #decided(result: RouteResult, { nas, source }: RadiusRequest, nasId: string): Buffer | null {
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

/**
 * Replies go to the address a datagram came from, always an IP literal: it is handed back at
 * once, not through dns.lookup and a tick per reply as dgram does by default. Anything else (a
 * host name to bind to) goes to dns.lookup.
 */
const literalLookup = ((
  hostname: string,
  options: unknown,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family: number) => void,
) => {
  const family = isIP(hostname);
  if (family === 0) {
    dnsLookup(hostname, options as LookupOptions, callback);
    return;
  }
  callback(null, hostname, family);
}) as unknown as typeof dnsLookup; // dgram calls it as lookup(host, family, callback)

/** One UDP socket and its pipeline. */
export class RadiusListener {
  readonly #socket: dgram.Socket;
  readonly #pipeline: RadiusPipeline;
  readonly #log: Logger;
  readonly #beforeReply: (() => void) | undefined;

  constructor(
    deps: ServerDeps,
    private readonly options: ListenerOptions,
  ) {
    this.#beforeReply = deps.beforeReply;
    this.#socket = dgram.createSocket({
      type: options.host.includes(':') ? 'udp6' : 'udp4',
      lookup: literalLookup,
    });
    this.#pipeline = new RadiusPipeline(deps, options);
    this.#socket.on('message', (msg, rinfo) => {
      const peer: Peer = {
        source: `${rinfo.address}:${String(rinfo.port)}`,
        send: (reply) => {
          this.#send(reply, rinfo);
        },
      };
      this.#pipeline.handle(msg, peer);
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

  /** Resolves once every request read so far is answered (or dropped). */
  settled(): Promise<void> {
    return this.#pipeline.settled();
  }

  /** A reply to a request that was in flight when the socket closed (shutdown) goes nowhere. */
  #send(reply: Buffer, to: dgram.RemoteInfo): void {
    this.#beforeReply?.();
    try {
      this.#socket.send(reply, to.port, to.address);
    } catch (err) {
      this.#log.warn({ event: 'radius.send_failed', err }, 'RADIUS reply not sent');
    }
  }
}
