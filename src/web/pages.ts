import type { CoreDeps } from '../deps.js';
import type { RouteResult } from '../http/route.js';
import type { HttpRequest } from '../http/types.js';
import type { Assets } from './assets.js';
import type { Html } from './html.js';
import { renderPage } from './layout.js';
import { safeNext } from './security.js';
import { identityEn, type IdentityKey } from './strings/identity.en.js';

/** What the identity pages share: their string table, the shell, and redirects. */

export const s = (key: IdentityKey): string => identityEn[key];

/**
 * A string with its `{name}` placeholders filled. The values are inserted as they are: a
 * replacement string would read `$&`, `$'` and the like in them as patterns (a client named
 * "Pay$'Now" would repeat the rest of the sentence).
 */
export const sf = (key: IdentityKey, vars: Readonly<Record<string, string>>): string =>
  identityEn[key].replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole);

export interface IdentityPage {
  title: IdentityKey;
  script: string;
  main: Html;
  data?: Record<string, unknown>;
  extraImgSrc?: readonly string[];
}

export function identityPage(
  deps: Pick<CoreDeps, 'config'>,
  assets: Assets,
  page: IdentityPage,
): RouteResult {
  return renderPage(assets, {
    lang: 'en',
    title: s(page.title),
    serviceName: deps.config.serviceName,
    script: page.script,
    main: page.main,
    data: { strings: identityEn, ...page.data },
    ...(page.extraImgSrc ? { extraImgSrc: page.extraImgSrc } : {}),
  });
}

/** A page redirect (303 so it is always a GET), never cached. */
export const seeOther = (location: string): RouteResult => ({
  status: 303,
  redirect: location,
  headers: { 'Cache-Control': 'no-store' },
});

/** This request's own path and query: where to come back to after signing in. */
export const here = (req: HttpRequest): string => `${req.path}${req.search}`;

export const toLogin = (next: string): RouteResult => seeOther(`/login?next=${encodeURIComponent(next)}`);

/** The `next` query parameter, checked (security.ts); `/account` when absent or foreign. */
export const nextOf = (query: Readonly<Record<string, string>>): string => safeNext(query.next);
