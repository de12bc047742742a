import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { presentPublicPlan } from './plans.present.js';
import { listPortalPlans } from './sites-portal.js';

export function planRoutes(deps: Pick<WifiDeps, 'db' | 'vault'>): Route[] {
  return [
    defineRoute({
      // The plans of the site of the router named by `nasid` or `uamip` (DESIGN.md §4.9), as the
      // portal has them in its URL; without either, the default site's (a single venue: all).
      method: 'GET',
      path: '/api/v1/public/plans',
      api: 'wifi',
      handler: async ({ query }) => ({
        data: (await listPortalPlans(deps, { nasid: query.nasid, uamip: query.uamip })).map(
          presentPublicPlan,
        ),
      }),
    }),
  ];
}
