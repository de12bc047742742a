/**
 * Response headers of every page, and the one check that keeps `next` on our own origin
 * (lib/next.ts; docs/decisions/0030-web-pages.md).
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

export { safeNext } from '../lib/next.js';
