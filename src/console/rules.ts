import type { ClientStatus, ClientType } from '../db/tables/console.js';
import { consoleErrors } from './errors.js';

/** The scopes a client may be allowed (identity-service.md §4.6). */
export const KNOWN_SCOPES = ['openid', 'profile', 'email', 'phone'] as const;
export const MAX_REDIRECT_URIS = 20;
export const MAX_REDIRECT_URI_LENGTH = 512;
export const NAME_MAX = 100;

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** Schemes that can never be a place to send a browser back to. */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'file', 'vbscript', 'about', 'blob']);

/** Trimmed, 1-100 characters. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  const length = [...trimmed].length; // eslint-disable-line @typescript-eslint/no-misused-spread -- counting code points is the point
  if (length < 1 || length > NAME_MAX) throw consoleErrors.nameInvalid();
  return trimmed;
}

/** '' counts as public (identity-service.md §4.8). */
export function checkClientType(value: string | undefined): ClientType {
  if (value === undefined || value === '' || value === 'public') return 'public';
  if (value === 'confidential') return 'confidential';
  throw consoleErrors.clientTypeInvalid();
}

/** One redirect URI: absolute `scheme://…`, ≤ 512 chars, https/http/app scheme, no wildcard or fragment. */
export function checkRedirectUri(uri: string): string {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH || /\s/.test(uri)) {
    throw consoleErrors.redirectUriInvalid([uri]);
  }
  if (uri.includes('*')) throw consoleErrors.redirectUriWildcard([uri]);
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) throw consoleErrors.redirectUriInvalid([uri]);
  if (FORBIDDEN_SCHEMES.has(scheme)) throw consoleErrors.redirectUriScheme([uri]);
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw consoleErrors.redirectUriInvalid([uri]);
  }
  if (parsed.hash !== '' || uri.includes('#')) throw consoleErrors.redirectUriInvalid([uri]);
  if ((scheme === 'http' || scheme === 'https') && parsed.hostname === '')
    throw consoleErrors.redirectUriInvalid([uri]);
  return uri;
}

export function checkRedirectUris(uris: readonly string[], options: { allowEmpty: boolean }): string[] {
  if (uris.length > MAX_REDIRECT_URIS || (uris.length === 0 && !options.allowEmpty))
    throw consoleErrors.redirectUrisCount();
  return [...new Set(uris.map(checkRedirectUri))];
}

export function checkScopes(scopes: readonly string[], options: { allowEmpty: boolean }): string[] {
  if (scopes.length === 0) {
    if (options.allowEmpty) return [];
    throw consoleErrors.scopesRequired();
  }
  for (const s of scopes)
    if (!(KNOWN_SCOPES as readonly string[]).includes(s)) throw consoleErrors.scopeUnknown([s]);
  return KNOWN_SCOPES.filter((s) => scopes.includes(s));
}

/** Optional http(s) URL; '' or null clears. */
export function checkOptionalUrl(value: string | null): string | null {
  if (value === null || value === '') return null;
  try {
    const url = new URL(value);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && value.length <= 2048) return value;
  } catch {
    // fall through
  }
  throw consoleErrors.urlInvalid([value]);
}

export function checkStatus(value: string): ClientStatus {
  if (value === 'testing' || value === 'production' || value === 'disabled') return value;
  throw consoleErrors.statusInvalid();
}

/**
 * identity-service.md §3.1: the moves of its table. Outside it: production → testing, and a
 * requested disabled → disabled (the table has "no change" rows for testing and production
 * only; a PATCH without a status is no move and passes). A move INTO
 * production (from testing or disabled) must pass the publishing gate (an https redirect URI and
 * a homepage URL, on the PATCH's result); production → production has no condition, so a PATCH
 * that keeps a client in production is not gated (docs/decisions/0004-console.md).
 */
export function checkStatusMove(
  from: ClientStatus,
  to: ClientStatus,
  result: { redirectUris: readonly string[]; homepageUrl: string | null },
  requested: boolean,
): void {
  if (from === 'production' && to === 'testing') throw consoleErrors.statusTransition();
  if (requested && from === 'disabled' && to === 'disabled') throw consoleErrors.alreadyDisabled();
  if (to === 'production' && from !== 'production') {
    const https = result.redirectUris.some((u) => u.toLowerCase().startsWith('https://'));
    if (!https || result.homepageUrl === null) throw consoleErrors.publishingGate();
  }
}
