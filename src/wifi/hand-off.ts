import type { AppError } from '../lib/errors.js';
import { sha256Hex } from '../lib/crypto.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import { checkLogin, findLiveForPurchase, type LiveGrantLookup, type LoginCheck } from './grants.js';
import { isUuid } from './purchases.schema.js';
import {
  CHILLI_FIELDS,
  given,
  handOffUrl,
  MIKROTIK_FIELDS,
  parseChilliParams,
  parseChilliRouter,
  parseMikrotikParams,
  routerOf,
  type RouterParams,
} from './router-params.js';

/**
 * Handing a guest's browser to the router's own login with their credentials, so the router logs
 * the device in: after a purchase on CoovaChilli (uam-login, DESIGN.md §4.3) or MikroTik
 * (hotspot-login, §4.7), and for a login the guest already has and types (§4.8). Each answers the
 * URL to send the browser to; checks run in this order: the request's values (422), the router
 * (422), then the purchase (404, 403, 409) or the login (401, 409).
 */

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>;
type Request<F extends readonly string[]> = Partial<Record<F[number], unknown>>;

/** Body fields of each route (any other field is a 400). */
export const UAM_LOGIN_FIELDS = ['purchase_key', ...CHILLI_FIELDS] as const;
export const HOTSPOT_LOGIN_FIELDS = ['purchase_key', ...MIKROTIK_FIELDS] as const;
/** The query of GET /api/v1/public/router. */
export const ROUTER_CHECK_FIELDS = ['nasid', 'uamip', 'link_login_only'] as const;
export const ACCESS_LOGIN_FIELDS = [
  'username',
  'password',
  ...CHILLI_FIELDS,
  ...MIKROTIK_FIELDS.filter((f) => f !== 'nasid'),
] as const;

/** Why a purchase has no live grant → the HTTP error (DESIGN.md §4.3). */
const PURCHASE_REFUSALS: Readonly<Record<Exclude<LiveGrantLookup['kind'], 'live'>, () => AppError>> = {
  unknown_invoice: wifiErrors.invoiceNotFound,
  key_mismatch: wifiErrors.purchaseKeyMismatch,
  not_paid: wifiErrors.grantNotPaid,
  expired: wifiErrors.grantExpired,
  revoked: wifiErrors.grantRevoked,
};

/** Why a typed login opens nothing → the HTTP error (DESIGN.md §4.8). */
const LOGIN_REFUSALS: Readonly<Record<Exclude<LoginCheck['kind'], 'live'>, () => AppError>> = {
  invalid: wifiErrors.invalidLogin,
  revoked: wifiErrors.grantRevoked,
  expired: wifiErrors.grantExpired,
  used_up: wifiErrors.grantUsedUp,
};

/** POST /api/v1/public/purchases/{invoiceID}/uam-login: a paid purchase on CoovaChilli. */
export const uamLogin = (deps: Deps, request: Request<typeof UAM_LOGIN_FIELDS> & { invoiceId: string }) =>
  purchaseHandOff(deps, request.invoiceId, purchaseKeyOf(request.purchase_key), parseChilliParams(request));

/** POST /api/v1/public/purchases/{invoiceID}/hotspot-login: a paid purchase on MikroTik. */
export const hotspotLogin = (
  deps: Deps,
  request: Request<typeof HOTSPOT_LOGIN_FIELDS> & { invoiceId: string },
) =>
  purchaseHandOff(deps, request.invoiceId, purchaseKeyOf(request.purchase_key), parseMikrotikParams(request));

function purchaseKeyOf(key: unknown): string {
  if (typeof key !== 'string' || key.length < 16 || key.length > 1024) throw wifiErrors.purchaseKeyInvalid();
  return key;
}

async function purchaseHandOff(
  deps: Deps,
  invoiceId: string,
  purchaseKey: string,
  params: RouterParams,
): Promise<string> {
  const router = await routerOf(deps, params);
  if (!isUuid(invoiceId)) throw wifiErrors.invoiceNotFound();
  const live = await findLiveForPurchase(deps, invoiceId.toLowerCase(), sha256Hex(purchaseKey));
  if (live.kind !== 'live') throw PURCHASE_REFUSALS[live.kind]();
  return handOffUrl(deps.config, router, params, { username: live.grant.username, password: live.password });
}

/**
 * POST /api/v1/public/access/login: a username and password the guest already has (another
 * device on the same plan, a cleared browser) with either router's parameters.
 */
export async function accessLogin(deps: Deps, request: Request<typeof ACCESS_LOGIN_FIELDS>): Promise<string> {
  const params = eitherRouter(request);
  const { username, password } = request;
  if (
    typeof username !== 'string' ||
    username.trim() === '' ||
    typeof password !== 'string' ||
    password === ''
  )
    throw wifiErrors.loginValuesInvalid();
  const router = await routerOf(deps, params);
  const login = await checkLogin(deps, { username, password });
  if (login.kind !== 'live') throw LOGIN_REFUSALS[login.kind]();
  return handOffUrl(deps.config, router, params, {
    username: login.grant.username,
    password: login.password,
  });
}

/** CoovaChilli's parameters or MikroTik's, never a mix of both. */
function eitherRouter(request: Request<typeof ACCESS_LOGIN_FIELDS>): RouterParams {
  // nasid is both routers'; every other field belongs to one of them.
  const isChilli = CHILLI_FIELDS.some((f) => f !== 'nasid' && given(request[f]));
  const isMikrotik = MIKROTIK_FIELDS.some((f) => f !== 'nasid' && given(request[f]));
  if (isChilli && isMikrotik) throw wifiErrors.routerParamsMixed();
  if (isMikrotik) return parseMikrotikParams(request);
  if (isChilli) return parseChilliParams(request);
  throw wifiErrors.routerParamsMissing();
}

/**
 * GET /api/v1/public/router: whether this box knows the router a portal page came through, asked
 * before the guest pays (a purchase on a router the box does not know could never be handed to
 * it). The same checks as a hand-off's; answers which hand-off the portal will use.
 */
export async function checkRouter(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  query: Request<typeof ROUTER_CHECK_FIELDS>,
): Promise<{ nasid: string; hand_off: RouterParams['kind'] }> {
  const { nasid, uamip, link_login_only: link } = query;
  if (given(link)) {
    const router = await routerOf(deps, parseMikrotikParams({ nasid, link_login_only: link }));
    return { nasid: router.device.radius_nas_id, hand_off: 'mikrotik' };
  }
  if (!given(uamip)) throw wifiErrors.routerParamsMissing();
  const router = await routerOf(deps, { kind: 'coovachilli', ...parseChilliRouter({ nasid, uamip }) });
  return { nasid: router.device.radius_nas_id, hand_off: 'coovachilli' };
}
