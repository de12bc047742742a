import type { Clock } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';

/** The limiters of identity-service.md §8; routes name the one they use. */
export const LIMITERS = {
  register: { max: 5, windowSeconds: 60 },
  login: { max: 10, windowSeconds: 60 },
  'social-login': { max: 10, windowSeconds: 60 },
  token: { max: 30, windowSeconds: 60 },
  'otp-send': { max: 3, windowSeconds: 3600 },
  'admin-login': { max: 10, windowSeconds: 60 },
  'console-project-create': { max: 5, windowSeconds: 3600 },
  'console-client-create': { max: 20, windowSeconds: 3600 },
} as const satisfies Record<string, { max: number; windowSeconds: number }>;

export type LimiterName = keyof typeof LIMITERS;

/** Where fixed-window counters live. A failing store makes limiting fail open. */
export interface RateLimitStore {
  /** Adds one hit to `key` (which names its window) and returns the count so far. */
  increment(key: string, expiresAtMs: number): number | Promise<number>;
  /** Forgets windows that ended before `nowMs`. */
  prune(nowMs: number): void;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #counters = new Map<string, { count: number; expiresAtMs: number }>();

  increment(key: string, expiresAtMs: number): number {
    const entry = this.#counters.get(key);
    if (entry) return ++entry.count;
    this.#counters.set(key, { count: 1, expiresAtMs });
    return 1;
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
    const { max, windowSeconds } = LIMITERS[name];
    const windowMs = windowSeconds * 1000;
    const nowMs = this.#clock.now().getTime();
    const windowStart = Math.floor(nowMs / windowMs) * windowMs;
    let count: number;
    try {
      count = await this.#store.increment(`${name}|${ip}|${String(windowStart)}`, windowStart + windowMs);
    } catch (err) {
      this.#log.warn(
        { event: 'rate_limit.store_failed', limiter: name, err },
        'rate-limit store failed; allowing',
      );
      return;
    }
    if (count > max) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
      throw new AppError('rate_limited', 429, TOO_MANY_REQUESTS, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }

  prune(): void {
    try {
      this.#store.prune(this.#clock.now().getTime());
    } catch (err) {
      this.#log.warn({ event: 'rate_limit.prune_failed', err }, 'rate-limit store prune failed');
    }
  }
}
