import { addStaffForSites } from '../../src/wifi/index.js';
import type { TestApp } from './app.js';
import { Client } from './client.js';

export const STAFF_PASSWORD = 'staff password 1';

let n = 0;

/**
 * A staff member of `role` (created as the CLI does) signed in to the admin API; with `sites`
 * (slugs or ids), a role limited to those sites.
 */
export async function staffClient(
  app: TestApp,
  role: 'owner' | 'admin' | 'operator' | 'viewer',
  sites: readonly string[] = [],
): Promise<Client & { email: string }> {
  n++;
  const email = `${role}${String(n)}@venue.test`;
  await addStaffForSites(app.app.deps, { email, role, password: STAFF_PASSWORD, sites });
  const client = Object.assign(new Client(app.base), { email });
  const res = await client.post('/api/v1/admin/auth/login', { email, password: STAFF_PASSWORD });
  if (res.status !== 200) throw new Error(`staff login: ${String(res.status)} ${JSON.stringify(res.body)}`);
  return client;
}
