import type { CoreDeps } from '../deps.js';
import type { Route } from '../http/route.js';
import { loadAssets, type Assets } from './assets.js';
import { assetRoutes } from './assets.routes.js';
import { accountRoutes } from './account.routes.js';
import { adminPageRoutes } from './admin.routes.js';
import { consentRoutes } from './consent.routes.js';
import { identityPageRoutes } from './identity.routes.js';
import { portalRoutes } from './portal.routes.js';
import type { ReminderTexts } from '../wifi/index.js';
import { smsEn } from './strings/sms.en.js';
import { smsSw } from './strings/sms.sw.js';

/** The web pages' public surface: app.ts mounts these routes. */
export { safeNext } from './security.js';

/** The SMS reminders guests get, in each portal language (app.ts hands them to the job). */
export const guestSmsTexts: ReminderTexts = { en: smsEn, sw: smsSw };

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
