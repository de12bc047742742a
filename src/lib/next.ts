/**
 * Where to send a browser after signing in: only a path on our own origin, or the fallback
 * (docs/decisions/0030-web-pages.md). One rule for the pages and for social login.
 */

export const DEFAULT_NEXT = '/account';
const PROBE_ORIGIN = 'http://next.invalid';

/**
 * `next` as a path on our own origin, or the fallback. Only `/path?query#fragment` is accepted:
 * no scheme, no `//host`, no backslash (browsers read `/\host` as `//host`), no control
 * characters; the result is what the URL parser makes of it, so what we check is what the
 * browser will follow. A path that the parser folds into `//…` (`/.//host`, `/a/..//host`) is
 * refused too: as a Location header, browsers would read it as another host.
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
  if (url.origin !== PROBE_ORIGIN || url.pathname.startsWith('//')) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
