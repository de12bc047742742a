import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { createServer } from 'node:net';
import type { Clock } from '../../lib/clock.js';

/**
 * The network and system probes of `hotspot-ctl doctor` (docs/decisions/0033-doctor.md): each is
 * short (PROBE_TIMEOUT_MS at most) and never throws, so the checks can run them all at once.
 */
export const PROBE_TIMEOUT_MS = 2000;

/** What a peer's `Date` header says about our clock: positive = we are ahead. */
export interface ClockSample {
  source: string;
  skewMs: number;
}

export type HttpProbe =
  | { answered: true; status: number; body: string; clock: ClockSample | null }
  | { answered: false; detail: string };

/**
 * One HTTP request with a short timeout. The answer's `Date` header, compared with our clock at
 * the middle of the exchange, is a clock sample.
 */
export async function probeHttp(
  clock: Clock,
  source: string,
  url: string,
  init: RequestInit = {},
): Promise<HttpProbe> {
  const sent = clock.now().getTime();
  try {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = await res.text();
    const received = clock.now().getTime();
    const date = Date.parse(res.headers.get('date') ?? '');
    return {
      answered: true,
      status: res.status,
      body,
      clock: Number.isNaN(date) ? null : { source, skewMs: (sent + received) / 2 - date },
    };
  } catch (err) {
    return { answered: false, detail: errorText(err) };
  }
}

/** The most telling words of a failed fetch: its cause's code (ECONNREFUSED) or the message. */
function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    if (typeof cause?.code === 'string') return cause.code;
    if (err.name === 'TimeoutError') return `no answer within ${String(PROBE_TIMEOUT_MS / 1000)} s`;
    return typeof cause?.message === 'string' ? cause.message : err.message;
  }
  return String(err);
}

/** Whether a TCP port can be bound here: 'free', or the error code (EADDRINUSE, EACCES). */
export function bindTcp(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

/** Whether a UDP port can be bound here: 'free', or the error code. */
export function bindUdp(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.close();
      resolve(err.code ?? err.message);
    });
    socket.bind({ address: host, port, exclusive: true }, () => socket.close(() => resolve('free')));
  });
}

/** Resolves a host name: its first address, or the error (ENOTFOUND, a timeout). */
export async function lookupHost(
  host: string,
): Promise<{ ok: true; address: string } | { ok: false; detail: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${String(PROBE_TIMEOUT_MS / 1000)} s`)),
      PROBE_TIMEOUT_MS,
    );
  });
  try {
    const { address } = await Promise.race([dns.lookup(host), timeout]);
    return { ok: true, address };
  } catch (err) {
    return { ok: false, detail: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** `timedatectl show -p NTPSynchronized --value`: true/false, or null where it cannot tell. */
export function ntpSynchronized(): Promise<boolean | null> {
  return new Promise((resolve) => {
    execFile(
      'timedatectl',
      ['show', '-p', 'NTPSynchronized', '--value'],
      { timeout: PROBE_TIMEOUT_MS },
      (err, stdout) => {
        const value = stdout.trim();
        resolve(err || (value !== 'yes' && value !== 'no') ? null : value === 'yes');
      },
    );
  });
}

/** Loopback host names and addresses (where plain http is fine). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\./.test(h);
}

/** IP literals need no DNS. */
export function isIpLiteral(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(':');
}
