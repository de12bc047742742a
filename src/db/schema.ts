import type { CoreTables } from './tables/core.js';
import type { WifiTables } from './tables/wifi.js';

/**
 * Row types of every table, as stored, one file per feature under tables/. Timestamps are
 * ISO-8601 UTC strings; booleans are integers 0/1 (portable between SQLite and PostgreSQL).
 */
// One `extends` entry per feature's tables.
export interface DB extends CoreTables, WifiTables {}
