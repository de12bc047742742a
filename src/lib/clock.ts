import { parseDuration } from './duration.js';

/** A cancellable timer handed out by a Clock. */
export interface Timer {
  cancel(): void;
}

/**
 * The only source of time in the daemon. Domain code reads `now()`; edge code that needs a
 * deadline (request timeout, shutdown grace) asks for a timer, so tests can move time by hand.
 */
export interface Clock {
  now(): Date;
  setTimer(ms: number, fn: () => void): Timer;
  /**
   * A clock moved by hand (tests) tells `listener` each time it moves; the RADIUS workers, other
   * processes, follow the daemon's clock this way (radius/workers.ts). The system clock has none.
   */
  watch?(listener: (now: Date) => void): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

interface PendingTimer {
  at: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when a test says so; due timers fire during `advance`. */
export class ManualClock implements Clock {
  #ms: number;
  #timers: PendingTimer[] = [];
  #watchers: ((now: Date) => void)[] = [];

  constructor(start: Date | string = '2026-01-15T09:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer: PendingTimer = { at: this.#ms + ms, fn, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward by a duration ("16m", "1h") or a number of milliseconds. */
  advance(by: string | number): void {
    const ms = typeof by === 'number' ? by : parseDuration(by) * 1000;
    const target = this.#ms + ms;
    for (;;) {
      const due = this.#timers.filter((t) => !t.cancelled && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#ms = Math.max(this.#ms, due.at);
      due.cancelled = true;
      due.fn();
    }
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    this.#ms = target;
    for (const watcher of this.#watchers) watcher(this.now());
  }

  watch(listener: (now: Date) => void): void {
    this.#watchers.push(listener);
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }
}

/**
 * Another process's manual clock, followed (a RADIUS worker's, when the daemon runs on a test's
 * ManualClock): it stands still between the moves it is told of. Timers run on real time.
 */
export class FollowedClock implements Clock {
  constructor(private ms: number) {}

  now(): Date {
    return new Date(this.ms);
  }

  moveTo(ms: number): void {
    this.ms = ms;
  }

  setTimer(ms: number, fn: () => void): Timer {
    return systemClock.setTimer(ms, fn);
  }
}
