import type { Clock } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';

/**
 * The limiters of identity-service.md §8, and the portal's (DESIGN.md §4.8); routes name the one
 * they use. `access-login` and `sms-delivery` count failures only (docs/decisions/0023, 0047).
 */
export const LIMITERS = {
  register: { max: 5, windowSeconds: 60 },
  login: { max: 10, windowSeconds: 60 },
  'social-login': { max: 10, windowSeconds: 60 },
  token: { max: 30, windowSeconds: 60 },
  'otp-send': { max: 3, windowSeconds: 3600 },
  'admin-login': { max: 10, windowSeconds: 60 },
  'console-project-create': { max: 5, windowSeconds: 3600 },
  'console-client-create': { max: 20, windowSeconds: 3600 },
  'access-login': { max: 30, windowSeconds: 60 },
  'sms-delivery': { max: 60, windowSeconds: 60 },
} as const satisfies Record<string, { max: number; windowSeconds: number }>;

export type LimiterName = keyof typeof LIMITERS;

/** Where fixed-window counters live. A failing store makes limiting fail open. */
export interface RateLimitStore {
  /**
   * Adds `by` hits (1 unless given; -1 takes one back) to `key`, which names its window, and
   * returns the count so far.
   */
  increment(key: string, expiresAtMs: number, by?: number): number | Promise<number>;
  /** Forgets windows that ended before `nowMs`. */
  prune(nowMs: number): void | Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters = new Map<string, { count: number; expiresAtMs: number }>();

  increment(key: string, expiresAtMs: number, by = 1): number {
    const entry = this.#counters.get(key);
    if (entry) return (entry.count += by);
    this.#counters.set(key, { count: by, expiresAtMs });
    return by;
  }

  prune(nowMs: number): void {
    for (const [key, entry] of this.#counters) if (entry.expiresAtMs <= nowMs) this.#counters.delete(key);
  }

  get size(): number {
    return this.#counters.size;
  }
}

export const TOO_MANY_REQUESTS = 'too many requests, try again later';

export class RateLimiter {
  readonly #store: RateLimitStore;
  readonly #clock: Clock;
  readonly #log: Logger;

  constructor(deps: { store: RateLimitStore; clock: Clock; log: Logger }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#log = deps.log;
  }

  /** Counts one request from `ip` against `name`; throws a 429 AppError past the budget. */
  async hit(name: LimiterName, ip: string): Promise<void> {
    const window = this.#window(name, ip);
    const count = await this.#ask(name, () => this.#store.increment(window.key, window.endMs));
    if (count > LIMITERS[name].max) throw tooMany(window);
  }

  /**
   * For limiters of failed guesses: counts this attempt against `name` (a 429 past the budget, as
   * `hit`), and gives back the means to take it back when the attempt turns out not to have
   * failed. Counting up front keeps concurrent guesses within the budget too.
   */
  async attempt(name: LimiterName, ip: string): Promise<{ takeBack(): Promise<void> }> {
    const window = this.#window(name, ip);
    const count = await this.#ask(name, () => this.#store.increment(window.key, window.endMs));
    if (count > LIMITERS[name].max) {
      await this.#ask(name, () => this.#store.increment(window.key, window.endMs, -1));
      throw tooMany(window);
    }
    return {
      takeBack: async () => {
        await this.#ask(name, () => this.#store.increment(window.key, window.endMs, -1));
      },
    };
  }

  #window(name: LimiterName, ip: string): { key: string; endMs: number; nowMs: number } {
    const windowMs = LIMITERS[name].windowSeconds * 1000;
    const nowMs = this.#clock.now().getTime();
    const start = Math.floor(nowMs / windowMs) * windowMs;
    return { key: `${name}|${ip}|${String(start)}`, endMs: start + windowMs, nowMs };
  }

  /** The store's answer; 0 (allow) when it fails. */
  async #ask(name: LimiterName, query: () => number | Promise<number>): Promise<number> {
    try {
      return await query();
    } catch (err) {
      this.#log.warn(
        { event: 'rate_limit.store_failed', limiter: name, err },
        'rate-limit store failed; allowing',
      );
      return 0;
    }
  }

  async prune(): Promise<void> {
    try {
      await this.#store.prune(this.#clock.now().getTime());
    } catch (err) {
      this.#log.warn({ event: 'rate_limit.prune_failed', err }, 'rate-limit store prune failed');
    }
  }
}

function tooMany(window: { endMs: number; nowMs: number }): AppError {
  const retryAfter = Math.max(1, Math.ceil((window.endMs - window.nowMs) / 1000));
  return new AppError('rate_limited', 429, TOO_MANY_REQUESTS, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}
