import type { AppError } from '../lib/errors.js';
import { sha256Hex } from '../lib/crypto.js';
import type { WifiDeps } from './deps.js';
import { deviceForUamIp } from './devices.js';
import { wifiErrors } from './errors.js';
import { findLiveForPurchase, type LiveGrantLookup } from './grants.js';
import { isHttpUrl, ipv4ToNumber } from './net.js';
import { isUuid } from './purchases.schema.js';
import { logonUrl, uamCredential } from './uam.js';

/** UAM login request fields, wifi-access-api.md §2. */
export const UAM_LOGIN_FIELDS = ['purchase_key', 'uamip', 'uamport', 'challenge', 'userurl'] as const;
type UamLoginRequest = Partial<Record<(typeof UAM_LOGIN_FIELDS)[number], unknown>>;

interface UamLoginValues {
  purchaseKey: string;
  uamip: string;
  uamport: number;
  challenge: string;
  userurl: string | undefined;
}

/** Why there is no live grant → the HTTP error (DESIGN.md §4.3). */
const REFUSALS: Readonly<Record<Exclude<LiveGrantLookup['kind'], 'live'>, () => AppError>> = {
  unknown_invoice: wifiErrors.invoiceNotFound,
  key_mismatch: wifiErrors.purchaseKeyMismatch,
  not_paid: wifiErrors.grantNotPaid,
  expired: wifiErrors.grantExpired,
  revoked: wifiErrors.grantRevoked,
};

/**
 * The local CoovaChilli logon URL for a paid purchase. Checks in order: values (422), the router
 * whose network holds uamip (422), the invoice (404), the purchase key (403), a live grant (409).
 */
export async function uamLogin(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault' | 'config'>,
  request: UamLoginRequest & { invoiceId: string },
): Promise<string> {
  const values = parseUamLogin(request);
  const device = await deviceForUamIp(deps, values.uamip);
  if (!device) throw wifiErrors.uamipUnknown();
  if (!isUuid(request.invoiceId)) throw wifiErrors.invoiceNotFound();
  const live = await findLiveForPurchase(
    deps,
    request.invoiceId.toLowerCase(),
    sha256Hex(values.purchaseKey),
  );
  if (live.kind !== 'live') throw REFUSALS[live.kind]();
  return logonUrl({
    uamip: values.uamip,
    uamport: values.uamport,
    username: live.grant.username,
    credential: uamCredential(
      device.uamAuth,
      live.password,
      values.challenge,
      device.uamSecret ?? deps.config.uamSecret,
    ),
    userurl: values.userurl,
  });
}

function parseUamLogin(request: UamLoginRequest): UamLoginValues {
  const { purchase_key: key, uamip, uamport, challenge, userurl } = request;
  if (typeof key !== 'string' || key.length < 16 || key.length > 1024) throw wifiErrors.purchaseKeyInvalid();
  if (typeof uamip !== 'string' || ipv4ToNumber(uamip) === null) throw wifiErrors.uamipInvalid();
  if (typeof uamport !== 'number' || !Number.isInteger(uamport) || uamport < 1 || uamport > 65_535)
    throw wifiErrors.uamportInvalid();
  if (typeof challenge !== 'string' || !/^[0-9a-f]{32}$/i.test(challenge))
    throw wifiErrors.challengeInvalid();
  const url = userurl === undefined || userurl === null || userurl === '' ? undefined : userurl;
  if (url !== undefined && (typeof url !== 'string' || url.length > 2048 || !isHttpUrl(url)))
    throw wifiErrors.userurlInvalid();
  return { purchaseKey: key, uamip, uamport, challenge, userurl: url };
}
