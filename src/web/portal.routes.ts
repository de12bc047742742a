import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import type { Assets } from './assets.js';
import type { Config } from '../config/index.js';
import {
  guestLanguage,
  MOBILE_NETWORKS,
  portalBrand,
  siteLogo,
  siteStylesheet,
  type GuestLanguage,
  type MobileNetwork,
} from '../wifi/index.js';
import { html } from './html.js';
import { renderPage } from './layout.js';
import { portalEn, type PortalKey } from './strings/portal.en.js';
import { portalSw } from './strings/portal.sw.js';

const TABLES: Readonly<Record<GuestLanguage, Readonly<Record<PortalKey, string>>>> = {
  en: portalEn,
  sw: portalSw,
};

/**
 * The networks a guest may name (wifi/networks.ts), by the names their mobile-money services go
 * by, which no language translates.
 */
const NETWORK_NAMES: Readonly<Record<MobileNetwork, string>> = {
  vodacom: 'M-Pesa (Vodacom)',
  tigo: 'Mixx by Yas (Tigo)',
  airtel: 'Airtel Money',
  halotel: 'HaloPesa (Halotel)',
  azampesa: 'AzamPesa',
};

/**
 * `networks`: a configured provider must be told the guest's network (AzamPay), so the guest whose
 * number moved between networks may name theirs; otherwise the field would only be noise.
 */
function portalMain(s: Readonly<Record<PortalKey, string>>, networks: boolean) {
  const T = (key: PortalKey) => html`data-t="${key}">${s[key]}`;
  const networkField = networks
    ? html`<div class="field">
<label for="network" ${T('network.label')}</label>
<select id="network" name="network" aria-describedby="network-hint network-error">
<option value="" ${T('network.auto')}</option>
${MOBILE_NETWORKS.map((n) => html`<option value="${n}">${NETWORK_NAMES[n]}</option> `)}</select>
<p class="hint" id="network-hint" ${T('network.hint')}</p>
<p class="error" id="network-error" hidden></p>
</div>
`
    : html``;
  return html`<div class="lang" role="group" aria-labelledby="lang-label">
<span id="lang-label" ${T('lang.label')}</span>
<button type="button" class="chip" data-lang="en" lang="en">English</button>
<button type="button" class="chip" data-lang="sw" lang="sw">Kiswahili</button>
</div>
<h1 ${T('heading')}</h1>
<p class="lead" ${T('intro')}</p>
<p id="router" class="notice" role="status" hidden></p>
<p id="status" class="notice" role="status" aria-live="polite" hidden></p>
<p><a id="continue" class="button" hidden></a></p>
<section id="not-hotspot" class="notice warn" hidden>
<h2 ${T('notHotspot.heading')}</h2>
<p ${T('notHotspot.body')}</p>
</section>
<p id="unknown-router" class="notice warn" role="alert" hidden ${T('router.unknown')}</p>
<section id="creds" class="card" hidden aria-labelledby="creds-heading">
<h2 id="creds-heading" ${T('creds.heading')}</h2>
<p ${T('creds.body')}</p>
<dl class="creds">
<dt ${T('creds.username')}</dt><dd id="cred-user" class="mono"></dd>
<dt ${T('creds.password')}</dt><dd id="cred-pass" class="mono"></dd>
</dl>
<p id="cred-expires" class="muted"></p>
<button type="button" class="primary" id="connect" hidden ${T('connect.button')}</button>
</section>
<section id="waiting" class="card" hidden aria-live="polite">
<h2 ${T('confirm.heading')}</h2>
<p id="waiting-body"></p>
<p id="waiting-invoice" class="muted"></p>
<p class="pulse" ${T('confirm.waiting')}</p>
<button type="button" id="check-now" ${T('confirm.check')}</button>
<button type="button" class="link" id="cancel" ${T('confirm.cancel')}</button>
</section>
<section id="outcome" class="card" hidden role="alert">
<h2 id="outcome-heading"></h2>
<p id="outcome-body"></p>
<button type="button" class="primary" id="retry" ${T('retry')}</button>
<button type="button" class="link" id="another" ${T('confirm.cancel')}</button>
</section>
<form id="buy" novalidate hidden>
<fieldset>
<legend ${T('plans.heading')}</legend>
<div id="plans" class="plans" tabindex="-1" aria-describedby="plans-error"><p ${T('plans.loading')}</p></div>
<p class="error" id="plans-error" hidden></p>
</fieldset>
<div class="field">
<label for="phone" ${T('phone.label')}</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" required aria-describedby="phone-hint phone-error">
<p class="hint" id="phone-hint" ${T('phone.hint')}</p>
<p class="error" id="phone-error" hidden></p>
</div>
${networkField}<button type="submit" id="pay" class="primary" ${T('pay.button')}</button>
<p class="error" id="buy-error" role="alert" hidden></p>
</form>
<p><button type="button" id="buy-more" hidden ${T('buyMore')}</button></p>
<details id="have-login" class="card" hidden>
<summary ${T('login.heading')}</summary>
<p ${T('login.body')}</p>
<form id="voucher" novalidate>
<div class="field">
<label for="voucher-code" ${T('voucher.label')}</label>
<input id="voucher-code" name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required aria-describedby="voucher-code-error">
<p class="error" id="voucher-code-error" hidden></p>
</div>
<button type="submit" id="voucher-submit" class="primary" ${T('voucher.button')}</button>
<p class="error" id="voucher-error" role="alert" hidden></p>
</form>
<p ${T('login.orLogin')}</p>
<form id="login" novalidate>
<div class="field">
<label for="login-user" ${T('creds.username')}</label>
<input id="login-user" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required aria-describedby="login-user-error">
<p class="error" id="login-user-error" hidden></p>
</div>
<div class="field">
<label for="login-pass" ${T('creds.password')}</label>
<input id="login-pass" name="password" type="password" autocomplete="current-password" autocapitalize="none" required aria-describedby="login-pass-error">
<p class="error" id="login-pass-error" hidden></p>
</div>
<button type="submit" id="login-submit" class="primary" ${T('login.button')}</button>
<p class="error" id="login-error" role="alert" hidden></p>
</form>
</details>`;
}

/** Whether a configured provider needs the guest's network named (AzamPay's checkout does). */
const networkChoice = (config: Pick<Config, 'paymentProviders' | 'paymentProvider'>): boolean =>
  (config.paymentProviders ?? [config.paymentProvider]).includes('azampay');

const NOT_FOUND = { status: 404, body: 'not found\n', type: 'text/plain; charset=utf-8' } as const;

/** A site's logo and colours: public, small, and named by a version in their URL (sites.present.ts). */
const BRAND_HEADERS = { 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' };

/**
 * GET /portal: where CoovaChilli sends guests (`res=notyet&uamip&uamport&challenge…`), and our
 * MikroTik login.html (`res=notyet&nasid&link_login_only&chap_id…`; DESIGN.md §4.7), in the
 * branding of the site of that router (§4.9): its name in the header, its logo and colours.
 */
export function portalRoutes(deps: Pick<CoreDeps, 'config' | 'db' | 'vault'>, assets: Assets): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/portal',
      api: 'identity',
      handler: async ({ req, query }) => {
        const lang = guestLanguage(req.headers['accept-language']);
        const brand = await portalBrand(deps, { nasid: query.nasid, uamip: query.uamip });
        return renderPage(assets, {
          lang,
          title: TABLES[lang]['page.title'],
          serviceName: brand.name,
          logoUrl: brand.logoUrl,
          stylesheetUrl: brand.stylesheetUrl,
          script: 'portal.js',
          main: portalMain(TABLES[lang], networkChoice(deps.config)),
          data: { lang, strings: TABLES },
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/sites/:id/logo',
      api: 'identity',
      handler: async ({ params }) => {
        const logo = await siteLogo(deps, params.id ?? '');
        return logo ? { body: logo.bytes, type: logo.type, headers: BRAND_HEADERS } : NOT_FOUND;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/portal/sites/:id/brand.css',
      api: 'identity',
      handler: async ({ params }) => {
        const css = await siteStylesheet(deps, params.id ?? '');
        return css === undefined
          ? NOT_FOUND
          : { body: css, type: 'text/css; charset=utf-8', headers: BRAND_HEADERS };
      },
    }),
  ];
}
