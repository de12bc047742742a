import { api, dataOf, type ApiResult } from './api.js';

/**
 * The router a portal page was opened through, read from its URL, and the hand-off of a guest's
 * browser to that router's own login (DESIGN.md §4.3, §4.7, §4.8):
 * - CoovaChilli sends `res, uamip, uamport, challenge, nasid, userurl…` (the challenge is missing
 *   when it reports a result: `res=success|already|logoff`);
 * - our MikroTik login.html sends `res, nasid, link_login_only, chap_id, chap_challenge, dst, …`.
 */
export type Router =
  | {
      kind: 'coovachilli';
      res: string;
      nasid: string | undefined;
      uamip: string;
      uamport: number;
      challenge: string | null;
      userurl: string | undefined;
    }
  | {
      kind: 'mikrotik';
      res: string;
      nasid: string;
      linkLoginOnly: string;
      chapId: string;
      chapChallenge: string;
      dst: string | undefined;
    };

/** An http(s) URL the API accepts (anything else would make the whole login fail). */
function httpUrl(value: string | null): string | undefined {
  if (value === null || !/^https?:\/\//i.test(value) || value.length > 2048) return undefined;
  try {
    return new URL(value).hostname === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

const nasidOf = (value: string | null): string | undefined =>
  value !== null && /^[\x21-\x7e]{1,253}$/.test(value) ? value : undefined;

/** The router behind the page's URL, or null when the page was not opened through one. */
export function readRouter(search: string): Router | null {
  const q = new URLSearchParams(search);
  const res = q.get('res') ?? 'notyet';
  const nasid = nasidOf(q.get('nasid'));
  const link = httpUrl(q.get('link_login_only'));
  if (link !== undefined)
    return nasid === undefined
      ? null
      : {
          kind: 'mikrotik',
          res,
          nasid,
          linkLoginOnly: link,
          chapId: q.get('chap_id') ?? '',
          chapChallenge: q.get('chap_challenge') ?? '',
          dst: httpUrl(q.get('dst')),
        };
  const uamip = q.get('uamip') ?? '';
  const uamport = Number(q.get('uamport'));
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(uamip) || !Number.isInteger(uamport) || uamport < 1 || uamport > 65535)
    return null;
  const challenge = q.get('challenge') ?? '';
  return {
    kind: 'coovachilli',
    res,
    nasid,
    uamip,
    uamport,
    challenge: /^[0-9a-f]{32}$/i.test(challenge) ? challenge : null,
    userurl: httpUrl(q.get('userurl')),
  };
}

/** Whether a login can be handed to the router now: CoovaChilli needs a fresh challenge. */
export const canHandOff = (router: Router): boolean =>
  router.kind === 'mikrotik' || router.challenge !== null;

/** Where the guest wanted to go before the router sent them here. */
export const wantedUrl = (router: Router): string | undefined =>
  router.kind === 'mikrotik' ? router.dst : router.userurl;

/** The router's fields as the API's hand-off routes take them. */
function fields(router: Router): Record<string, unknown> {
  if (router.kind === 'mikrotik')
    return {
      nasid: router.nasid,
      link_login_only: router.linkLoginOnly,
      chap_id: router.chapId,
      chap_challenge: router.chapChallenge,
      ...(router.dst === undefined ? {} : { dst: router.dst }),
    };
  return {
    ...(router.nasid === undefined ? {} : { nasid: router.nasid }),
    uamip: router.uamip,
    uamport: router.uamport,
    challenge: router.challenge,
    ...(router.userurl === undefined ? {} : { userurl: router.userurl }),
  };
}

/** Whether this box knows the router: asked before the guest pays. */
export async function checkRouter(router: Router): Promise<'known' | 'unknown' | 'unreachable'> {
  const query = new URLSearchParams(
    router.kind === 'mikrotik'
      ? { nasid: router.nasid, link_login_only: router.linkLoginOnly }
      : { uamip: router.uamip, ...(router.nasid === undefined ? {} : { nasid: router.nasid }) },
  );
  const result = await api('GET', `/api/v1/public/router?${query.toString()}`);
  // Only the API's refusal (422) means unknown; a busy or unreachable server sells as before.
  return result.status === 200 ? 'known' : result.status === 422 ? 'unknown' : 'unreachable';
}

/**
 * Whether `url` goes to the router itself: CoovaChilli's /logon on uamip:uamport, or MikroTik's
 * link-login-only. The server promises as much; the page checks again before it navigates.
 */
function pointsAtRouter(url: string, router: Router): boolean {
  try {
    const target = new URL(url);
    const expected =
      router.kind === 'mikrotik'
        ? new URL(router.linkLoginOnly)
        : new URL(`http://${router.uamip}:${String(router.uamport)}/logon`);
    return target.origin === expected.origin && target.pathname === expected.pathname;
  } catch {
    return false;
  }
}

export type HandOff = { url: string } | { error: ApiResult };

async function handOff(path: string, body: Record<string, unknown>, router: Router): Promise<HandOff> {
  const result = await api('POST', path, { ...body, ...fields(router) });
  const url =
    result.status === 200
      ? (dataOf(result) as { redirect_url?: unknown } | undefined)?.redirect_url
      : undefined;
  return typeof url === 'string' && pointsAtRouter(url, router) ? { url } : { error: result };
}

/** The router's login URL for a paid purchase (uam-login or hotspot-login). */
export const purchaseHandOff = (invoiceId: string, purchaseKey: string, router: Router): Promise<HandOff> =>
  handOff(
    `/api/v1/public/purchases/${encodeURIComponent(invoiceId)}/${router.kind === 'mikrotik' ? 'hotspot-login' : 'uam-login'}`,
    { purchase_key: purchaseKey },
    router,
  );

/** The router's login URL for a username and password the guest typed. */
export const typedHandOff = (username: string, password: string, router: Router): Promise<HandOff> =>
  handOff('/api/v1/public/access/login', { username, password }, router);
