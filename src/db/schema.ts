/**
 * Row types of every table, as stored. Timestamps are ISO-8601 UTC strings; booleans are
 * integers 0/1 (portable between SQLite and PostgreSQL through kysely).
 */
export interface AppMetaTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface DB {
  app_meta: AppMetaTable;
}
