import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Test } from 'tap';
import { ensureRadsecCa, issueClientCertificate, type RadsecFiles } from '../../src/radius/radsec-certs.js';
import { freePort, scratchDir } from './app.js';
import { startRadiusApp, type RadiusTestApp } from './radius.js';
import type { DeviceRequest } from '../../src/wifi/index.js';

/**
 * RadSec tests: throwaway certificates made with `openssl` in a temporary directory of the test's
 * own (through the same code `devices radsec-cert` runs), and the app with its RadSec listener on
 * a free loopback port (RADSEC_CERT_FILE, …_KEY_FILE, …_CA_FILE name that directory's files).
 */

export { scratchDir } from './app.js';

export interface ClientCert {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  keyFile: string;
  fingerprint: string;
}

export interface RadsecTestApp extends RadiusTestApp {
  radsec: number;
  pki: RadsecFiles;
  /** A client certificate from the box's CA naming `nasId` (not pinned to any device). */
  issue(nasId: string, dir?: string): Promise<ClientCert>;
}

export async function clientCert(files: RadsecFiles, nasId: string, dir: string): Promise<ClientCert> {
  const issued = await issueClientCertificate(files, nasId, dir);
  return {
    cert: readFileSync(issued.certFile),
    key: readFileSync(issued.keyFile),
    certFile: issued.certFile,
    keyFile: issued.keyFile,
    fingerprint: issued.fingerprint,
  };
}

export async function startRadsecApp(
  t: Test,
  options: { device?: DeviceRequest; env?: Record<string, string> } = {},
): Promise<RadsecTestApp> {
  const scratch = scratchDir(t);
  const pki = await ensureRadsecCa(path.join(scratch, 'pki'), ['127.0.0.1']);
  const port = await freePort();
  const app = await startRadiusApp(t, {
    env: {
      RADSEC_PORT: String(port),
      RADSEC_CERT_FILE: pki.serverCert,
      RADSEC_KEY_FILE: pki.serverKey,
      RADSEC_CA_FILE: pki.caCert,
      ...options.env,
    },
    ...(options.device && { device: options.device }),
  });
  let n = 0;
  return {
    ...app,
    radsec: port,
    pki,
    issue: (nasId, dir) => clientCert(pki, nasId, dir ?? path.join(scratch, `client-${String(n++)}`)),
  };
}

/** A TLS connection to the RadSec listener, presenting `client` (or no certificate). */
export function connectRadsec(
  app: Pick<RadsecTestApp, 'radsec' | 'pki'>,
  client: Pick<ClientCert, 'cert' | 'key'> | null,
): tls.TLSSocket {
  return tls.connect({
    host: '127.0.0.1',
    port: app.radsec,
    ca: readFileSync(app.pki.caCert),
    ...(client && { cert: client.cert, key: client.key }),
    minVersion: 'TLSv1.2',
  });
}

/** A connection with `client`'s certificate, open once the handshake is done; closed when the test ends. */
export async function radsecSession(
  t: Test,
  app: Pick<RadsecTestApp, 'radsec' | 'pki'>,
  client: Pick<ClientCert, 'cert' | 'key'>,
): Promise<{ socket: tls.TLSSocket; reader: ReplyReader }> {
  const socket = connectRadsec(app, client);
  t.teardown(() => socket.destroy());
  const reader = new ReplyReader(socket);
  await once(socket, 'secureConnect');
  return { socket, reader };
}

/** Reads RADIUS packets off a TLS stream, framed by their Length field (the client's side of it). */
export class ReplyReader {
  readonly packets: Buffer[] = [];
  closed = false;
  #buffer = Buffer.alloc(0);
  #waiters: (() => void)[] = [];

  constructor(socket: tls.TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      while (this.#buffer.length >= 4 && this.#buffer.length >= this.#buffer.readUInt16BE(2)) {
        const length = this.#buffer.readUInt16BE(2);
        this.packets.push(this.#buffer.subarray(0, length));
        this.#buffer = this.#buffer.subarray(length);
      }
      this.#wake();
    });
    const end = (): void => {
      this.closed = true;
      this.#wake();
    };
    socket.on('close', end);
    socket.on('error', end);
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves with the first `count` replies, or rejects when the connection closes first. */
  async take(count: number): Promise<Buffer[]> {
    while (this.packets.length < count) {
      if (this.closed) throw new Error(`connection closed after ${String(this.packets.length)} replies`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    return this.packets.slice(0, count);
  }

  /** Resolves once the connection is closed (by either side). */
  async closedNow(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
