import type { Logger } from '../lib/log.js';
import {
  recordAccounting,
  type AccountingRecord,
  type AccountingResult,
  type WifiDeps,
} from '../wifi/index.js';
import { CODE, encodeReply } from './codec.js';
import type { RequestFields } from './fields.js';
import { normaliseMac } from './mac.js';
import type { RadiusRequest, RouteResult } from './server.js';

/**
 * The Accounting-Request "route" (RFC 2866): read the packet into an AccountingRecord, have the
 * Wi-Fi domain commit it, and only then answer Accounting-Response. Packets arriving together
 * share one transaction (group commit): the answer still waits for its own record's commit.
 */

const GIGA = 2 ** 32;
const SESSION_TYPES = new Set(['Start', 'Interim-Update', 'Stop']);
/** A router's claim of holding a packet longer than a day is not believed. */
const MAX_DELAY_SECONDS = 86_400;

/** Acct-*-Octets plus Acct-*-Gigawords × 2^32 (RFC 2869 §5.1, §5.2). */
const total = (attrs: RequestFields, direction: 'Input' | 'Output'): number =>
  (attrs.integer(`Acct-${direction}-Gigawords`) ?? 0) * GIGA +
  (attrs.integer(`Acct-${direction}-Octets`) ?? 0);

/** An enumerated attribute by name, or its number when the dictionary has no name for it. */
const enumName = (attrs: RequestFields, name: 'Acct-Status-Type' | 'Acct-Terminate-Cause'): string | null => {
  const named = attrs.text(name);
  if (named !== undefined) return named;
  const n = attrs.integer(name);
  return n === undefined ? null : String(n);
};

/** The record of a packet, or why it is malformed. */
export function readAccounting(req: RadiusRequest): AccountingRecord | { malformed: string } {
  const statusType = enumName(req.attrs, 'Acct-Status-Type');
  if (statusType === null) return { malformed: 'no Acct-Status-Type' };
  const acctSessionId = req.attrs.text('Acct-Session-Id') ?? '';
  // RFC 2866 §5.13 lets a router leave User-Name out: such a session is kept, tied to no grant.
  const username = req.attrs.text('User-Name') ?? '';
  if (SESSION_TYPES.has(statusType) && acctSessionId === '') return { malformed: 'no Acct-Session-Id' };
  return {
    deviceId: req.nas.deviceId,
    statusType,
    acctSessionId,
    username,
    framedIp: req.attrs.text('Framed-IP-Address') ?? null,
    mac: normaliseMac(req.attrs.text('Calling-Station-Id')),
    inputOctets: total(req.attrs, 'Input'),
    outputOctets: total(req.attrs, 'Output'),
    sessionTime: req.attrs.integer('Acct-Session-Time') ?? 0,
    terminateCause: enumName(req.attrs, 'Acct-Terminate-Cause'),
    delaySeconds: Math.min(req.attrs.integer('Acct-Delay-Time') ?? 0, MAX_DELAY_SECONDS),
  };
}

interface Waiting {
  record: AccountingRecord;
  resolve: (result: AccountingResult) => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 256;

/**
 * Group commit: records queue while a transaction runs and go together in the next one. If a
 * batch fails, its records are retried one by one, so one bad record fails only itself.
 */
export class AccountingWriter {
  #queue: Waiting[] = [];
  #running = false;
  #idle: (() => void)[] = [];

  constructor(private readonly deps: Pick<WifiDeps, 'db' | 'clock'> & { log: Logger }) {}

  write(record: AccountingRecord): Promise<AccountingResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ record, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        // After the poll phase: every datagram already waiting joins this batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      try {
        const results = await recordAccounting(
          this.deps,
          batch.map((w) => w.record),
        );
        batch.forEach((w, i) => {
          const result = results[i];
          if (result) w.resolve(result);
          else w.reject(new Error('accounting result missing'));
        });
      } catch (err) {
        if (batch.length === 1) batch[0]?.reject(err);
        else for (const w of batch) await this.#single(w);
      }
      // Let the datagrams that arrived during the commit be read before the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.#running = false;
    for (const done of this.#idle.splice(0)) done();
  }

  /** Resolves once every record written so far is committed (or failed): a stopping worker waits for it. */
  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #single(w: Waiting): Promise<void> {
    try {
      const [result] = await recordAccounting(this.deps, [w.record]);
      // Never leave the packet's handler waiting: an answer or an error, always.
      if (result) w.resolve(result);
      else w.reject(new Error('accounting result missing'));
    } catch (err) {
      w.reject(err);
    }
  }
}

/**
 * `committed` hears every record's result once it is committed (before the answer is sent), for
 * follow-up work that must not hold the answer back.
 */
export function accountingRoute(
  writer: AccountingWriter,
  committed: (result: AccountingResult) => void = () => undefined,
): (req: RadiusRequest) => RouteResult | Promise<RouteResult> {
  return (req) => {
    // Message-Authenticator only answers Status-Server (RFC 5997); see 0022-radius-security.md.
    const reply = (count: 'acct_responses' | 'status_server'): RouteResult => ({
      reply: encodeReply(req.frame, CODE.accountingResponse, [], req.nas.secret, {
        messageAuthenticator: count === 'status_server',
      }),
      count,
    });
    if (req.frame.code === CODE.statusServer) {
      // RFC 5997 §3: Status-Server must carry Message-Authenticator.
      if (req.frame.maOffset === null) return { drop: 'no_message_authenticator' };
      return reply('status_server');
    }
    const record = readAccounting(req);
    if ('malformed' in record) return { drop: 'malformed', detail: record.malformed };
    return writer.write(record).then((result) => {
      committed(result); // committed: only now may the router forget the packet
      return reply('acct_responses');
    });
  };
}
