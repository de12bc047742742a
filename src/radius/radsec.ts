import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import tls from 'node:tls';
import { ConfigError } from '../config/index.js';
import { HEADER_LENGTH, MAX_PACKET_LENGTH } from './codec.js';
import { LogBudget } from './counters.js';
import { RadiusPipeline, certificateAccepted, type PipelineOptions, type ServerDeps } from './server.js';

/**
 * RadSec (RFC 6614): RADIUS over TLS on one TCP connection per router, beside the UDP listeners
 * and through the same pipeline (server.ts). What it adds (docs/decisions/0025-remote-routers.md):
 * - mutual TLS 1.2+: a router's client certificate must chain to RADSEC_CA_FILE, and its subject
 *   CN is the router's NAS id (a certificate `devices radsec-cert` issued is also pinned by its
 *   fingerprint); a connection without one, or naming no registered router, is closed;
 * - packets are cut from the byte stream by their Length field (RFC 6614 §2.5: several in one
 *   read, or one split over several); a Length outside 20..4096 ends the connection, since the
 *   stream can no longer be framed;
 * - every packet is signed with the secret "radsec" (§2.3) and must carry the NAS-Identifier of
 *   the router its certificate names;
 * - Access-Request, Accounting-Request and Status-Server share the connection (§2.5).
 */

/** At most this many bytes of an incomplete packet are held per connection (one packet's worth). */
const MAX_BUFFERED = MAX_PACKET_LENGTH;
/** A connection that sends nothing for this long is closed (routers reconnect when they need to). */
const IDLE_TIMEOUT_MS = 10 * 60_000;
/** More connections than a venue's routers would ever open at once. */
const MAX_CONNECTIONS = 1024;

export interface RadsecOptions {
  host: string;
  port: number;
  certFile: string;
  keyFile: string;
  caFile: string;
  routes: PipelineOptions['routes'];
}

/** Why a connection was refused, as counted and logged (never with certificate contents). */
type Refusal = 'tls_handshake' | 'no_nas_id_in_certificate' | 'unknown_router' | 'certificate_not_current';

/** The NAS id a client certificate names: its subject CN. */
function certificateNasId(cert: tls.PeerCertificate): string | null {
  // Node gives a repeated CN as an array; a certificate naming two routers names none.
  const cn: unknown = cert.subject.CN;
  return typeof cn === 'string' && cn !== '' ? cn : null;
}

/** A PEM file the listener needs; a missing or unreadable one stops the start with its setting named. */
function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError([
      `${setting}: cannot read ${file} (${code}); hotspot-ctl devices radsec-cert creates the default files`,
    ]);
  }
}

/**
 * The listener's certificate, key and CA, read and checked as a TLS context: a missing file, one
 * that is not PEM, or a key that does not match the certificate stops the start with its setting
 * named (and `hotspot-ctl setup` refuses to write a RADSEC_PORT the start would stop on).
 */
export function radsecCredentials(files: Pick<RadsecOptions, 'certFile' | 'keyFile' | 'caFile'>): {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
} {
  const pem = {
    cert: readPem('RADSEC_CERT_FILE', files.certFile),
    key: readPem('RADSEC_KEY_FILE', files.keyFile),
    ca: readPem('RADSEC_CA_FILE', files.caFile),
  };
  try {
    tls.createSecureContext(pem);
  } catch (err) {
    // A key that does not match the certificate, or a file that is not PEM.
    throw new ConfigError([
      `RADSEC_CERT_FILE: cannot use it with RADSEC_KEY_FILE and RADSEC_CA_FILE: ${(err as Error).message}`,
    ]);
  }
  return pem;
}

export class RadsecListener {
  readonly #server: tls.Server;
  readonly #pipeline: RadiusPipeline;
  readonly #refusals: LogBudget;
  /** Every TCP connection, handshaking or not, so close() ends them all. */
  readonly #sockets = new Set<Socket>();

  constructor(
    private readonly deps: ServerDeps,
    private readonly options: RadsecOptions,
  ) {
    this.#pipeline = new RadiusPipeline(deps, { name: 'radsec', routes: options.routes });
    this.#refusals = new LogBudget(deps.clock);
    this.#server = tls.createServer({
      ...radsecCredentials(options),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
    });
    this.#server.maxConnections = MAX_CONNECTIONS;
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('secureConnection', (socket) => {
      this.#accept(socket).catch((err: unknown) => {
        // The device lookup failed (the database): this connection is not served; the router retries.
        this.deps.counters.bump('dropped_internal_error');
        this.deps.log.error(
          { event: 'radius.internal_error', listener: 'radsec', err },
          'RadSec connection failed',
        );
        socket.destroy();
      });
    });
    // A client without a certificate, with one from another CA, or speaking no TLS 1.2+.
    this.#server.on('tlsClientError', (err, socket) => {
      this.#refuse(
        'tls_handshake',
        `${socket.remoteAddress ?? '?'}:${String(socket.remotePort)}`,
        err.message,
      );
    });
    this.#server.on('error', (err) =>
      deps.log.error({ event: 'radius.socket_error', listener: 'radsec', err }, 'RadSec listener error'),
    );
  }

  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.options.port, this.options.host, () => {
        this.#server.off('error', reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /** Stops accepting and ends every connection (their requests in flight are not answered). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      for (const socket of this.#sockets) socket.destroy();
      if (!this.#server.listening) {
        resolve();
        return;
      }
      this.#server.close(() => resolve());
    });
  }

  #refuse(reason: Refusal, source: string, detail?: string): void {
    this.deps.counters.bump('radsec_connections_rejected');
    const admitted = this.#refusals.admit(reason);
    if (admitted)
      this.deps.log.warn(
        {
          event: 'radius.radsec_refused',
          reason,
          source,
          ...(detail !== undefined && { detail }),
          ...admitted,
        },
        'RadSec connection refused',
      );
  }

  async #accept(socket: tls.TLSSocket): Promise<void> {
    const source = `${socket.remoteAddress ?? '?'}:${String(socket.remotePort)}`;
    socket.on('error', () => socket.destroy()); // a reset by the router; nothing to answer
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.setKeepAlive(true);
    // Bytes that arrive while the router is looked up wait in the socket (paused) until then.
    socket.pause();
    const cert = socket.getPeerCertificate();
    const nasId = certificateNasId(cert);
    if (nasId === null) {
      this.#refuse('no_nas_id_in_certificate', source);
      socket.destroy();
      return;
    }
    const nas = await this.deps.nas.find(nasId);
    const fingerprint = cert.fingerprint256;
    if (!nas || !certificateAccepted(nas, fingerprint)) {
      this.#refuse(nas ? 'certificate_not_current' : 'unknown_router', source, `certificate of ${nasId}`);
      socket.destroy();
      return;
    }
    this.deps.counters.bump('radsec_connections');
    this.deps.log.info(
      { event: 'radius.radsec_connected', source, nas_id: nasId },
      'RadSec router connected',
    );
    const peer = {
      source,
      certificate: { nasId, fingerprint },
      send: (reply: Buffer) => {
        if (!socket.destroyed) socket.write(reply);
      },
    };
    const framer = new StreamFramer();
    socket.on('data', (chunk: Buffer) => {
      const packets = framer.push(chunk);
      if (packets === null) {
        this.deps.counters.bump('radsec_connections_malformed');
        this.#pipeline.drop('malformed', source, nasId, 'bad length on the TLS stream; connection closed');
        socket.destroy();
        return;
      }
      for (const packet of packets) this.#pipeline.handle(packet, peer);
    });
    socket.resume();
  }
}

/**
 * Cuts RADIUS packets out of a byte stream by their Length field (RFC 6614 §2.5). `push` answers
 * the packets completed by a chunk, or null when the stream cannot be framed (a Length outside
 * 20..4096): the connection must then be dropped.
 */
export class StreamFramer {
  #buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] | null {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const packets: Buffer[] = [];
    while (this.#buffer.length >= 4) {
      const length = this.#buffer.readUInt16BE(2);
      if (length < HEADER_LENGTH || length > MAX_PACKET_LENGTH) return null;
      if (this.#buffer.length < length) break;
      // A copy: the packet outlives this chunk (the duplicate cache keeps its authenticator).
      packets.push(Buffer.from(this.#buffer.subarray(0, length)));
      this.#buffer = this.#buffer.subarray(length);
    }
    if (this.#buffer.length > MAX_BUFFERED) return null;
    return packets;
  }
}
