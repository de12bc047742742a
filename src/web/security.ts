/**
 * Response headers of every page, and the one check that keeps `next` on our own origin
 * (docs/decisions/0030-web-pages.md).
 */

/** No inline script or style anywhere; nothing loaded from another origin; never framed. */
export function contentSecurityPolicy(extraImgSrc: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self'", ...extraImgSrc].join(' '),
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Every page: CSP, framing refused (RFC 9700 §4.16 asks it of login and consent; no page of
 * ours is meant to be framed), no caching (pages show credentials, codes or account state).
 */
export function pageHeaders(options: { extraImgSrc?: readonly string[] } = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options.extraImgSrc),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

export const DEFAULT_NEXT = '/account';
const PROBE_ORIGIN = 'http://next.invalid';

/**
 * `next` as a path on our own origin, or the fallback. Only `/path?query#fragment` is accepted:
 * no scheme, no `//host`, no backslash (browsers read `/\host` as `//host`), no control
 * characters; the result is what the URL parser makes of it, so what we check is what the
 * browser will follow. The page script repeats the check before it navigates.
 */
export function safeNext(raw: unknown, fallback = DEFAULT_NEXT): string {
  // A repeated parameter arrives as an array: not a path either.
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return fallback;
  if (!raw.startsWith('/') || raw.startsWith('//')) return fallback;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, PROBE_ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== PROBE_ORIGIN) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
