import type { Job } from 'node-schedule';
import type { Exclusive } from './db/store.js';
import { lazy } from './lib/lazy.js';
import type { Logger } from './lib/log.js';

/**
 * node-schedule (with cron-parser and luxon, ~60 ms of a start on a small box) is loaded by
 * `start()`, after the daemon listens (bench/footprint.ts).
 */
const nodeSchedule = lazy('node-schedule', async () => (await import('node-schedule')).default);
type NodeSchedule = Awaited<ReturnType<typeof nodeSchedule>>;

export interface ScheduledJob {
  name: string;
  /** cron expression (seconds field optional), e.g. every minute: `* * * * *`. */
  cron: string;
  run: () => unknown;
  /**
   * Runs on every daemon (it writes this process's own tallies). Other jobs run once across the
   * daemons sharing a database: see `Exclusive`.
   */
  local?: boolean;
}

const everywhere: Exclusive = async (_name, work) => {
  await work();
  return true;
};

/**
 * Runs plain job functions on a cron schedule. A job that throws or rejects is logged and runs
 * again next time; a job still running when its next turn comes is skipped, not doubled. Jobs
 * added before `start()` are timed from then on.
 */
export class Scheduler {
  readonly #log: Logger;
  /** node-schedule, once `start()` loaded it. */
  #schedule: NodeSchedule | null = null;
  readonly #jobs = new Map<string, Job>();
  readonly #definitions = new Map<string, ScheduledJob>();
  /** Runs in progress, by job name. */
  readonly #running = new Map<string, Promise<void>>();

  readonly #exclusive: Exclusive;
  /**
   * Runs by job name since this process started (GET /metrics): each run here, failed or not;
   * not a shared job's turn another daemon took, nor one skipped while the last still ran.
   */
  readonly runs = new Map<string, number>();
  /** Failed runs by job name since this process started (GET /metrics). */
  readonly failures = new Map<string, number>();

  constructor(log: Logger, exclusive: Exclusive = everywhere) {
    this.#log = log.child({ feature: 'scheduler' });
    this.#exclusive = exclusive;
  }

  add(job: ScheduledJob): void {
    if (this.#definitions.has(job.name)) throw new Error(`job ${job.name} is already scheduled`);
    this.#definitions.set(job.name, job);
    if (this.#schedule) this.#time(this.#schedule, job);
  }

  /** Times every job added so far, and each one added later as it comes. */
  async start(): Promise<void> {
    const schedule = await nodeSchedule();
    this.#schedule = schedule;
    for (const job of this.#definitions.values()) if (!this.#jobs.has(job.name)) this.#time(schedule, job);
  }

  #time(schedule: NodeSchedule, job: ScheduledJob): void {
    const timed = schedule.scheduleJob(job.name, job.cron, (fireDate: Date) => {
      void this.runNow(job, fireDate);
    });
    this.#jobs.set(job.name, timed);
  }

  /** Runs a scheduled job by name at once, exactly as its schedule would (tests, operators). */
  async trigger(name: string): Promise<void> {
    const job = this.#definitions.get(name);
    if (!job) throw new Error(`no job named ${name} is scheduled`);
    await this.runNow(job);
  }

  /** When node-schedule will next run the job (wall-clock time), or null when it will not (or not started). */
  nextRun(name: string): Date | null {
    const next = this.#jobs.get(name)?.nextInvocation();
    return next ? new Date(next.getTime()) : null;
  }

  /**
   * Runs a job once with the same error handling, for its schedule's `tick` or (without) outside
   * its schedule. A shared job runs only where `Exclusive` lets it.
   */
  async runNow(job: ScheduledJob, tick?: Date): Promise<void> {
    if (this.#running.has(job.name)) {
      this.#log.warn({ event: 'job.skipped', job: job.name }, 'previous run still going');
      return;
    }
    const state = { counted: false };
    const count = (): void => {
      state.counted = true;
      this.runs.set(job.name, (this.runs.get(job.name) ?? 0) + 1);
    };
    const run = (async () => {
      try {
        if (job.local) {
          count();
          await job.run();
        } else {
          const ran = await this.#exclusive(
            job.name,
            async () => {
              count();
              await job.run();
            },
            tick?.toISOString(),
          );
          if (!ran) this.#log.debug({ event: 'job.elsewhere', job: job.name }, 'another daemon ran it');
        }
      } catch (err) {
        if (!state.counted) count(); // the shared job's lock failed: a run that failed here
        this.failures.set(job.name, (this.failures.get(job.name) ?? 0) + 1);
        this.#log.error({ event: 'job.failed', job: job.name, err }, 'job failed');
      } finally {
        this.#running.delete(job.name);
      }
    })();
    this.#running.set(job.name, run);
    await run;
  }

  get names(): string[] {
    return [...this.#definitions.keys()];
  }

  /** Cancels every schedule and resolves once the runs already in progress have finished. */
  async stop(): Promise<void> {
    this.#schedule = null; // jobs added from now on wait for another start()
    for (const job of this.#jobs.values()) job.cancel();
    this.#jobs.clear();
    this.#definitions.clear();
    await Promise.all(this.#running.values());
  }
}
