import type { Config } from './config/index.js';
import type { Db, GroupCommit } from './db/index.js';
import type { Background } from './lib/background.js';
import type { Clock } from './lib/clock.js';
import type { Logger } from './lib/log.js';
import type { Vault } from './lib/vault.js';
import type { Notifier } from './notify/index.js';

/**
 * What every feature may ask for. Domain functions declare the subset they use
 * (`Pick<CoreDeps, 'db' | 'clock'>`); app.ts adds the feature ports on top.
 */
export interface CoreDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  notifier: Notifier;
  /** Group commit for hot write paths (one fsync for the transactions that arrive together). */
  commits: GroupCommit;
  /** Seals secrets the box must read back (device secrets, guest passwords, TOTP secrets). */
  vault: Vault;
  /** Work started by a request and finished after its answer (mail, SMS); drained at shutdown. */
  background: Background;
}
