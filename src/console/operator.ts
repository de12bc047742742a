import type { CoreDeps } from '../deps.js';
import { listAllClients as storeListAll } from './clients.store.js';
import { presentPublicClient } from './present.js';

/** Every client on the box with its project (the operator's view, for the CLI). */
export async function listAllClients(deps: Pick<CoreDeps, 'db'>) {
  return (await storeListAll(deps.db)).map((c) => ({
    ...presentPublicClient(c),
    project_id: c.project_id,
    type: c.type,
  }));
}
