import type { Config } from '../config/index.js';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { SmsSender } from '../notify/index.js';
import type { PaymentOutcomes } from './payment-outcomes.js';
import type { CoaClient, PaymentGateway } from './ports.js';
import type { Vault } from '../lib/vault.js';

/**
 * Everything a Wi-Fi domain function may ask for; app.ts's `Deps` satisfies it. Each function
 * takes the subset it uses (`Pick<WifiDeps, 'db' | 'clock'>`).
 */
export interface WifiDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  notifier: SmsSender;
  payments: PaymentGateway;
  coa: CoaClient;
  vault: Vault;
  /** Payment outcomes counted for GET /metrics (absent in the CLI and in unit tests). */
  outcomes?: PaymentOutcomes;
}
