import { SITE_ACCOUNT_SETTINGS, secretEnvNames, type Config } from '../config/index.js';
import type { CoreDeps } from '../deps.js';
import { ACCOUNT_PROVIDERS, accountField, type AccountProvider } from '../wifi/index.js';
import { checkbox, choice } from './admin-fields.js';
import { a, sectionHead, statusLine, tableSlot, type capabilities, type SiteContext } from './admin-page.js';
import { field, submitRow } from './forms.js';
import { html, type Html } from './html.js';

/**
 * The admin UI's side of sites (DESIGN.md §4.9, docs/decisions/0024-sites.md): the Sites page,
 * and the site choice of the plan and router forms, which appears only when the staff member
 * sees more than one site.
 */

/** Which site a new plan or router goes to: the page's filter, else the first (the default). */
export function siteField(id: string, sites: SiteContext): Html {
  if (sites.sites.length < 2) return html``;
  return choice({
    id,
    label: a('site.field'),
    hint: a('site.fieldHint'),
    choices: sites.sites.map((s) => [s.id, s.name] as const),
    selected: sites.site === '' ? (sites.sites[0]?.id ?? '') : sites.site,
  });
}

/** /admin/sites: the list, and for admins the form (adding needs a role covering every site). */
export function sitesMain(deps: Pick<CoreDeps, 'config'>, can: ReturnType<typeof capabilities>): Html {
  return html`${sectionHead('sites.title', 'sites.intro', !can.sites)} ${statusLine('sites-status')}
  ${tableSlot('sites', 'sites.title')}
  ${can.sites && !can.addSite ? html`<p class="hint" id="sites-scoped">${a('sites.scopedNote')}</p>` : ''}
  ${can.sites ? siteForm(deps, can.addSite) : ''}`;
}

function siteForm(deps: Pick<CoreDeps, 'config'>, mayAdd: boolean): Html {
  return html`<form
    id="site-form"
    class="card"
    novalidate
    aria-labelledby="site-form-heading"
    ${mayAdd ? '' : html` hidden`}
  >
    <h2 id="site-form-heading">${a('sites.new')}</h2>
    ${field({ id: 'site-name', label: a('site.name'), maxlength: 100 })}
    ${field({ id: 'site-slug', label: a('site.slug'), hint: a('site.slugHint'), autocomplete: 'off', maxlength: 40 })}
    ${field({
      id: 'site-display-name',
      label: a('site.displayName'),
      hint: a('site.displayNameHint').replace('{service}', deps.config.serviceName),
      maxlength: 100,
      required: false,
    })}
    ${field({
      id: 'site-time-zone',
      label: a('site.timeZone'),
      hint: a('site.timeZoneHint').replace('{zone}', deps.config.venueTimezone),
      autocomplete: 'off',
      required: false,
    })}
    ${field({ id: 'site-brand-color', label: a('site.brandColor'), hint: a('site.brandColorHint'), autocomplete: 'off', required: false, maxlength: 7 })}
    ${field({ id: 'site-background-color', label: a('site.backgroundColor'), hint: a('site.backgroundColorHint'), autocomplete: 'off', required: false, maxlength: 7 })}
    <div class="field">
      <label for="site-logo">${a('site.logo')}</label>
      <input
        id="site-logo"
        name="site-logo"
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        aria-describedby="site-logo-hint site-logo-error"
      />
      <p class="hint" id="site-logo-hint">${a('site.logoHint')}</p>
      <p class="error" id="site-logo-error" hidden></p>
    </div>
    ${checkbox({ id: 'site-logo-remove', label: a('site.logoRemove'), hidden: true })}
    ${accountFields(deps.config)} ${submitRow('site-form', a('sites.create'))}
    <button type="button" id="site-cancel" hidden>${a('common.cancel')}</button>
  </form>`;
}

/**
 * The providers a site may have its own account with on this box (docs/decisions/0032): the
 * configured ones (PAYMENT_PROVIDERS, else PAYMENT_PROVIDER) that take site accounts, in order.
 */
const accountProviders = (config: Pick<Config, 'paymentProviders' | 'paymentProvider'>): AccountProvider[] =>
  (config.paymentProviders ?? [config.paymentProvider]).filter((p): p is AccountProvider =>
    ACCOUNT_PROVIDERS.includes(p as AccountProvider),
  );

/**
 * A fieldset per provider for the site's own credentials: write-only (the page never gets them
 * back), secret ones as password fields. The script sends a provider's account only when its
 * fields are filled, and the drop box (shown when the site has one) goes back to the box's.
 */
function accountFields(config: Pick<Config, 'paymentProviders' | 'paymentProvider'>): Html {
  const providers = accountProviders(config);
  if (providers.length === 0) return html``;
  const secret = new Set(secretEnvNames());
  return html`<h3>${a('site.accounts')}</h3>
    <p class="hint">${a('site.accountsIntro')}</p>
    ${providers.map(
      (provider) =>
        html`<fieldset id="site-account-${provider}" data-provider="${provider}">
          <legend>${a(`site.account.${provider}`)}</legend>
          ${SITE_ACCOUNT_SETTINGS[provider].map((env) => {
            const id = `site-${provider}-${accountField(provider, env).replace(/_/g, '-')}`;
            return html`<div class="field">
              <label for="${id}">${a(`site.account.${env}`)}</label>
              <input
                id="${id}"
                name="${id}"
                type="${secret.has(env) ? 'password' : 'text'}"
                autocomplete="${secret.has(env) ? 'new-password' : 'off'}"
                maxlength="500"
                data-field="${accountField(provider, env)}"
                aria-describedby="${id}-error"
              />
              <p class="error" id="${id}-error" hidden></p>
            </div>`;
          })}
          ${checkbox({ id: `site-${provider}-drop`, label: a(`site.accountDrop.${provider}`), hidden: true })}
        </fieldset>`,
    )}`;
}
