import type { CoreDeps } from '../deps.js';
import { publicClient } from '../console/index.js';
import { defineRoute, type Route } from '../http/route.js';
import { optionalSession } from '../identity/index.js';
import { isAppError } from '../lib/errors.js';
import type { Assets } from './assets.js';
import { html } from './html.js';
import { identityPage, s, seeOther, sf, toLogin } from './pages.js';
import type { IdentityKey } from './strings/identity.en.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config'>;

const SCOPES = new Set(['openid', 'profile', 'email', 'phone']);

/** Only an https logo is shown (and allowed by the page's CSP); anything else is left out. */
function httpsOrigin(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * GET /consent?<authorize parameters>: who asks, for what, in words; the buttons post the same
 * parameters to POST /oauth/consent, which re-validates everything (identity-service.md §4.6).
 */
export function consentRoutes(deps: Deps, assets: Assets): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/consent',
      api: 'identity',
      auth: optionalSession(deps),
      handler: async ({ principal, req }) => {
        const search = new URLSearchParams(req.search);
        const authorize = `/oauth/authorize?${search.toString()}`;
        if (!principal) return toLogin(authorize);
        const user = principal.user;
        if (user.email_verified !== 1 && user.phone_verified !== 1)
          return seeOther(`/verify-email?next=${encodeURIComponent(authorize)}`);
        let client: Awaited<ReturnType<typeof publicClient>>;
        try {
          client = await publicClient(deps, search.get('client_id') ?? '');
        } catch (err) {
          if (!isAppError(err) || err.status !== 404) throw err;
          return {
            ...identityPage(deps, assets, {
              title: 'consent.title',
              script: 'consent.js',
              main: html`<h1>${s('consent.title')}</h1>
                <p class="notice warn" role="alert">${s('consent.unknown')}</p>`,
            }),
            status: 400,
          };
        }
        const name = client.name;
        const logo = httpsOrigin(client.logo_url) ? client.logo_url : undefined;
        const homepage =
          client.homepage_url && /^https?:\/\//.test(client.homepage_url) ? client.homepage_url : null;
        const scopes = [...new Set((search.get('scope') ?? '').split(' '))].filter((x) => SCOPES.has(x));
        // The authorize parameters go back as they came; POST /oauth/consent re-validates them
        // all (and ignores names it does not know).
        const params = Object.fromEntries([...search].filter(([name]) => name !== 'response_type'));
        return identityPage(deps, assets, {
          title: 'consent.title',
          script: 'consent.js',
          data: { params },
          ...(logo ? { extraImgSrc: [httpsOrigin(logo) ?? ''] } : {}),
          main: html`<section class="card">
            ${logo ? html`<img class="client-logo" src="${logo}" alt="" referrerpolicy="no-referrer" />` : ''}
            <h1>${sf('consent.heading', { client: name })}</h1>
            ${homepage ? html`<p><a href="${homepage}" rel="noopener noreferrer" target="_blank">${s('consent.homepage')}</a></p>` : ''}
            <p>${sf('consent.intro', { client: name })}</p>
            <ul class="scopes">
              ${scopes.map((x) => html`<li>${s(`scope.${x}` as IdentityKey)}</li>`)}
            </ul>
            <p class="muted">${sf('common.signedInAs', { who: user.email ?? user.phone ?? '' })}</p>
            <button type="button" class="primary" id="approve">${s('consent.approve')}</button>
            <button type="button" id="decline">${s('consent.decline')}</button>
            <p class="error" id="consent-error" role="alert" hidden></p>
            <p class="hint">${s('consent.note')}</p>
          </section>`,
        });
      },
    }),
  ];
}
