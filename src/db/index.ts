export { openDatabase } from './connect.js';
export type { Db, OpenedDatabase } from './connect.js';
export { migrateToLatest, migrationState, MIGRATIONS } from './migrate.js';
export type { DB } from './schema.js';
export { databaseReady } from './probe.js';
export { GroupCommit } from './group-commit.js';
export { rowCounts } from './stats.js';
export { prepared, marker } from './prepared.js';
export { backup, restore, daemonRunning, backupErrors, DAEMON_PID_FILE } from './backup.js';
