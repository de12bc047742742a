import schedule from 'node-schedule';
import type { Logger } from './lib/log.js';

export interface ScheduledJob {
  name: string;
  /** cron expression (seconds field optional), e.g. every minute: `* * * * *`. */
  cron: string;
  run: () => unknown;
}

/**
 * Runs plain job functions on a cron schedule. A job that throws or rejects is logged and runs
 * again next time; a job still running when its next turn comes is skipped, not doubled.
 */
export class Scheduler {
  readonly #log: Logger;
  readonly #jobs = new Map<string, schedule.Job>();
  readonly #definitions = new Map<string, ScheduledJob>();
  /** Runs in progress, by job name. */
  readonly #running = new Map<string, Promise<void>>();

  constructor(log: Logger) {
    this.#log = log.child({ feature: 'scheduler' });
  }

  add(job: ScheduledJob): void {
    if (this.#jobs.has(job.name)) throw new Error(`job ${job.name} is already scheduled`);
    const scheduled = schedule.scheduleJob(job.name, job.cron, () => {
      void this.runNow(job);
    });
    this.#jobs.set(job.name, scheduled);
    this.#definitions.set(job.name, job);
  }

  /** Runs a scheduled job by name at once, exactly as its schedule would (tests, operators). */
  async trigger(name: string): Promise<void> {
    const job = this.#definitions.get(name);
    if (!job) throw new Error(`no job named ${name} is scheduled`);
    await this.runNow(job);
  }

  /** When node-schedule will next run the job (wall-clock time), or null when it will not. */
  nextRun(name: string): Date | null {
    const next = this.#jobs.get(name)?.nextInvocation();
    return next ? new Date(next.getTime()) : null;
  }

  /** Runs a job once, outside its schedule, with the same error handling. */
  async runNow(job: ScheduledJob): Promise<void> {
    if (this.#running.has(job.name)) {
      this.#log.warn({ event: 'job.skipped', job: job.name }, 'previous run still going');
      return;
    }
    const run = (async () => {
      try {
        await job.run();
      } catch (err) {
        this.#log.error({ event: 'job.failed', job: job.name, err }, 'job failed');
      } finally {
        this.#running.delete(job.name);
      }
    })();
    this.#running.set(job.name, run);
    await run;
  }

  get names(): string[] {
    return [...this.#jobs.keys()];
  }

  /** Cancels every schedule and resolves once the runs already in progress have finished. */
  async stop(): Promise<void> {
    for (const job of this.#jobs.values()) job.cancel();
    this.#jobs.clear();
    this.#definitions.clear();
    await Promise.all(this.#running.values());
  }
}
