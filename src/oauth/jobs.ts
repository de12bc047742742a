import type { CoreDeps } from '../deps.js';
import { isoAgo } from '../lib/time.js';
import { deleteExpired as storeDeleteExpired } from './grants.store.js';

/** Scheduled: forget codes and tokens that expired more than an hour ago. */
export const deleteExpired = (deps: Pick<CoreDeps, 'db' | 'clock'>) =>
  storeDeleteExpired(deps.db, isoAgo(deps.clock, 3600));
