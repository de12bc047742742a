import type { CoreDeps } from '../deps.js';
import type { Route } from '../http/route.js';
import { loadAssets, type Assets } from './assets.js';
import { assetRoutes } from './assets.routes.js';
import { accountRoutes } from './account.routes.js';
import { adminPageRoutes } from './admin.routes.js';
import { consentRoutes } from './consent.routes.js';
import { identityPageRoutes } from './identity.routes.js';
import { portalRoutes } from './portal.routes.js';

/** The web pages' public surface: app.ts mounts these routes. */
export { safeNext } from './security.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'log' | 'vault'>;

export function webRoutes(deps: Deps, assets: Assets = loadAssets()): Route[] {
  if (assets.missing.length > 0)
    deps.log.warn(
      { event: 'web.assets_missing', files: assets.missing },
      'page assets are missing: run npm run build',
    );
  return [
    ...assetRoutes(assets),
    ...portalRoutes(deps, assets),
    ...identityPageRoutes(deps, assets),
    ...consentRoutes(deps, assets),
    ...accountRoutes(deps, assets),
    ...adminPageRoutes(deps, assets),
  ];
}
