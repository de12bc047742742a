/** Daemon-wide key/value facts (install id, first start). */
export interface AppMetaTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface CoreTables {
  app_meta: AppMetaTable;
}
