import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { decodeAttributes, frame, text, verifyRequest, type Attributes, type Frame } from './codec.js';
import { DropLog, LogBudget, type CounterName, type Counters, type DropReason } from './counters.js';
import type { LastSeen } from './last-seen.js';
import type { Nas, NasDirectory } from './nas.js';

/**
 * The RADIUS sockets: one for authorization, one for accounting. Every datagram goes through
 * the same steps: framing, duplicate cache, code check, device by NAS-Identifier, authenticators
 * with the device's secret; then its route (access.ts, accounting.ts) decides. A packet that fails
 * a step is dropped without an answer, counted, and logged at a bounded rate.
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

export interface ListenerOptions {
  name: 'auth' | 'acct';
  host: string;
  port: number;
  /** Packet codes this port takes; anything else is dropped. */
  codes: ReadonlySet<number>;
  /** Counted for every request that passed the checks and reached the route. */
  requests: CounterName;
  route: Route;
}

export interface ServerDeps {
  clock: Clock;
  log: Logger;
  nas: NasDirectory;
  counters: Counters;
  lastSeen: LastSeen;
}

/** One UDP socket and its pipeline. */
export class RadiusListener {
  readonly #socket: dgram.Socket;
  readonly #duplicates: DuplicateCache;
  readonly #drops: DropLog;
  /** Internal errors are logged with their stack, within the same budget as drops. */
  readonly #errors: LogBudget;

  constructor(
    private readonly deps: ServerDeps,
    private readonly options: ListenerOptions,
  ) {
    this.#socket = dgram.createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
    this.#duplicates = new DuplicateCache(deps.clock);
    this.#drops = new DropLog(deps.log.child({ listener: options.name }), deps.clock);
    this.#errors = new LogBudget(deps.clock);
    this.#socket.on('message', (msg, rinfo) => void this.#handle(msg, rinfo));
    this.#socket.on('error', (err) =>
      deps.log.error({ event: 'radius.socket_error', listener: options.name, err }, 'RADIUS socket error'),
    );
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

  #drop(reason: DropReason, source: string, nasId?: string, detail?: string): void {
    this.deps.counters.bump(`dropped_${reason}`);
    this.#drops.drop(reason, { source, nas_id: nasId, ...(detail !== undefined && { detail }) });
  }

  async #handle(msg: Buffer, rinfo: dgram.RemoteInfo): Promise<void> {
    const source = `${rinfo.address}:${String(rinfo.port)}`;
    const framed = frame(msg);
    if (!framed.ok) {
      this.#drop('malformed', source, undefined, framed.reason);
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
        this.#send(seen.reply, rinfo);
      }
      return;
    }
    if (!this.options.codes.has(f.code)) {
      this.#drop('unexpected_code', source, undefined, `code ${String(f.code)}`);
      return;
    }
    this.#duplicates.start(key);
    let reply: Buffer | null = null;
    try {
      reply = await this.#process(f, source);
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
    if (reply) this.#send(reply, rinfo);
  }

  /** A reply to a request that was in flight when the socket closed (shutdown) goes nowhere. */
  #send(reply: Buffer, to: dgram.RemoteInfo): void {
    try {
      this.#socket.send(reply, to.port, to.address);
    } catch (err) {
      this.deps.log.warn({ event: 'radius.send_failed', err }, 'RADIUS reply not sent');
    }
  }

  /** The reply to send, or null when the packet is dropped. */
  async #process(f: Frame, source: string): Promise<Buffer | null> {
    const attrs = decodeAttributes(f);
    if (!attrs) return this.#fail('malformed', source, undefined, 'undecodable attributes');
    const nasId = text(attrs, 'NAS-Identifier');
    if (nasId === undefined) return this.#fail('unknown_nas', source, undefined, 'no NAS-Identifier');
    let nas = await this.deps.nas.find(nasId);
    if (!nas) return this.#fail('unknown_nas', source, nasId);
    let check = verifyRequest(f, nas.secret);
    if (check !== 'ok') {
      const fresh = await this.deps.nas.reload(nasId);
      if (fresh) {
        nas = fresh;
        check = verifyRequest(f, nas.secret);
      }
    }
    if (check !== 'ok') return this.#fail('bad_authenticator', source, nasId, check);
    this.deps.counters.bump(this.options.requests);
    const result = await this.options.route({ frame: f, attrs, nas, source });
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
    this.#drop(reason, source, nasId, detail);
    return null;
  }
}
