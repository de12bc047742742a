import { databaseReady, type Db } from '../db/index.js';
import { AppError } from '../lib/errors.js';
import { defineRoute, type Route } from './route.js';

export const SERVICE = 'hotspot-ctl';

/** Health probes (DESIGN.md §4.1): /healthz satisfies both specs' shapes. */
export function healthRoutes(deps: { db: Db }): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      api: 'identity',
      handler: () => ({ raw: { success: true, data: { status: 'ok', service: SERVICE } } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      api: 'wifi',
      handler: async () => {
        if (!(await databaseReady(deps.db))) throw new AppError('not_ready', 503, 'database unavailable');
        return { data: { status: 'ready', checks: { database: 'ok' } } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/health',
      api: 'wifi',
      handler: () => ({ data: { status: 'ok', service: SERVICE } }),
    }),
  ];
}
