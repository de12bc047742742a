/** Daemon-wide key/value facts (install id, first start). */
export interface AppMetaTable {
  key: string;
  value: string;
  updated_at: string;
}

/** Limiter windows shared by daemons on one database (http/rate-limit.sql.ts). */
export interface RateLimitsTable {
  key: string;
  count: number;
  expires_at_ms: number;
}

/** The last schedule tick (ISO time) each scheduled job ran for, across daemons (scheduler.ts). */
export interface JobRunsTable {
  name: string;
  tick: string;
  updated_at: string;
}

export interface CoreTables {
  app_meta: AppMetaTable;
  rate_limits: RateLimitsTable;
  job_runs: JobRunsTable;
}
