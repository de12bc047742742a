import type { Logger } from './log.js';

/**
 * Work a request starts but does not wait for (a sign-up's code mail, a security alert, a
 * password reset). Each task is kept until it settles, so shutdown can let them finish before
 * the database closes: a code the answer promised is not lost to a restart. Failures are logged,
 * never thrown.
 */
export class Background {
  readonly #tasks = new Set<Promise<void>>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /**
   * Starts `work` after the current turn of the event loop (the answer is written first, so not
   * even its first synchronous steps run ahead of it), logging `event`, `msg` and `context` (ids,
   * never secrets) if it fails.
   */
  run(event: string, msg: string, work: () => Promise<unknown>, context: Record<string, unknown> = {}): void {
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .then(
        () => undefined,
        (err: unknown) => {
          this.#log.warn({ event, ...context, err }, msg);
        },
      )
      .finally(() => this.#tasks.delete(task));
    this.#tasks.add(task);
  }

  /** How many tasks are still running. */
  get pending(): number {
    return this.#tasks.size;
  }

  /** Resolves once every task, including those started meanwhile, has settled. */
  async drain(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.all(this.#tasks);
  }
}
