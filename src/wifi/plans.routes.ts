import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { listActivePlans } from './plans.js';
import { presentPublicPlan } from './plans.present.js';

export function planRoutes(deps: Pick<WifiDeps, 'db'>): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/public/plans',
      api: 'wifi',
      handler: async () => ({ data: (await listActivePlans(deps)).map(presentPublicPlan) }),
    }),
  ];
}
