import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';

/**
 * What the RADIUS listener counts. Drops are never answered; their counters (and the bounded
 * drop log below) are how an operator sees a misconfigured router or an attack.
 * docs/decisions/0022-radius-security.md says where they show.
 */
export const COUNTERS = [
  'auth_requests',
  'auth_accepts',
  'auth_rejects',
  'acct_requests',
  'acct_responses',
  'status_server',
  'duplicates_answered',
  'duplicates_in_progress',
  'dropped_malformed',
  'dropped_unknown_nas',
  'dropped_bad_authenticator',
  'dropped_no_message_authenticator',
  'dropped_proxy_state_without_message_authenticator',
  'dropped_unexpected_code',
  'dropped_internal_error',
  'dropped_certificate_mismatch',
  'radsec_connections',
  'radsec_connections_rejected',
  'radsec_connections_malformed',
] as const;
export type CounterName = (typeof COUNTERS)[number];

export type DropReason =
  | 'malformed'
  | 'unknown_nas'
  | 'bad_authenticator'
  | 'no_message_authenticator'
  | 'proxy_state_without_message_authenticator'
  | 'unexpected_code'
  | 'internal_error'
  /** RadSec: a packet naming another router than the client certificate does. */
  | 'certificate_mismatch';

export class Counters {
  readonly #values = new Map<CounterName, number>(COUNTERS.map((c) => [c, 0]));
  /** Values already written to the database by `drain`. */
  readonly #flushed = new Map<CounterName, number>();

  bump(name: CounterName, by = 1): void {
    this.#values.set(name, (this.#values.get(name) ?? 0) + by);
  }

  get(name: CounterName): number {
    return this.#values.get(name) ?? 0;
  }

  snapshot(): Record<CounterName, number> {
    return Object.fromEntries(COUNTERS.map((c) => [c, this.get(c)])) as Record<CounterName, number>;
  }

  /** Gives back the increments of a drain whose write failed: the next drain carries them again. */
  undrain(deltas: Partial<Record<CounterName, number>>): void {
    for (const [c, delta] of Object.entries(deltas) as [CounterName, number][])
      this.#flushed.set(c, (this.#flushed.get(c) ?? 0) - delta);
  }

  /** The increments since the previous drain (only non-zero ones), marked as flushed. */
  drain(): Partial<Record<CounterName, number>> {
    const out: Partial<Record<CounterName, number>> = {};
    for (const c of COUNTERS) {
      const delta = this.get(c) - (this.#flushed.get(c) ?? 0);
      if (delta > 0) out[c] = delta;
      this.#flushed.set(c, this.get(c));
    }
    return out;
  }
}

/** Log lines per kind per window; the rest are counted and reported with the next line. */
const LINES_PER_WINDOW = 5;
const WINDOW_MS = 60_000;

/**
 * Decides which lines of a kind may be logged: at most five per kind per minute, so a flood (of
 * garbage, or of failing requests) cannot flood the log. `admit` answers null for a line to
 * leave out, else how many were left out since the last line written (to report with it).
 */
export class LogBudget {
  readonly #windows = new Map<string, { start: number; lines: number; suppressed: number }>();

  constructor(private readonly clock: Clock) {}

  admit(kind: string): { suppressed?: number } | null {
    const now = this.clock.now().getTime();
    let w = this.#windows.get(kind);
    if (!w || now - w.start >= WINDOW_MS) {
      w = { start: now, lines: 0, suppressed: w?.suppressed ?? 0 };
      this.#windows.set(kind, w);
    }
    if (w.lines >= LINES_PER_WINDOW) {
      w.suppressed++;
      return null;
    }
    w.lines++;
    const suppressed = w.suppressed;
    w.suppressed = 0;
    return suppressed > 0 ? { suppressed } : {};
  }
}

/**
 * Logs dropped packets within a LogBudget per reason. Never logs packet contents or secrets:
 * only the source, the NAS-Identifier and a short reason.
 */
export class DropLog {
  readonly #budget: LogBudget;

  constructor(
    private readonly log: Logger,
    clock: Clock,
  ) {
    this.#budget = new LogBudget(clock);
  }

  drop(reason: DropReason, fields: { source: string; nas_id?: string | undefined; detail?: string }): void {
    const admitted = this.#budget.admit(reason);
    if (admitted)
      this.log.warn({ event: 'radius.dropped', reason, ...fields, ...admitted }, 'RADIUS packet dropped');
  }
}
