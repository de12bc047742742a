import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { optionalSession } from '../identity/index.js';
import type { Assets } from './assets.js';
import { field, submitRow } from './forms.js';
import { html } from './html.js';
import { here, identityPage, s, sf, toLogin } from './pages.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config'>;

/** A section whose list the page script fills from the API. */
const listSection = (id: string, heading: string, intro?: string) =>
  html`<section class="card" aria-labelledby="${id}-heading">
    <h2 id="${id}-heading">${heading}</h2>
    ${intro ? html`<p class="hint">${intro}</p>` : ''}
    <ul class="list" id="${id}" aria-live="polite">
      <li>${s('account.loading')}</li>
    </ul>
    <p class="error" id="${id}-error" role="alert" hidden></p>
  </section>`;

/**
 * GET /account: profile, two-step verification (QR drawn in the page), passkeys, sessions,
 * connected apps and security activity. Secrets only ever arrive through no-store API answers
 * and the page itself is no-store too.
 */
export function accountRoutes(deps: Deps, assets: Assets): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/account',
      api: 'identity',
      auth: optionalSession(deps),
      handler: ({ principal, req }) => {
        if (!principal) return toLogin(here(req));
        const user = principal.user;
        const verified = user.email_verified === 1 || user.phone_verified === 1;
        const mfaOn = user.totp_enabled === 1;
        return identityPage(deps, assets, {
          title: 'account.title',
          script: 'account.js',
          data: { mfaOn },
          main: html`<h1>${s('account.title')}</h1>
            <p class="muted">${sf('common.signedInAs', { who: user.email ?? user.phone ?? '' })}</p>
            ${verified ? '' : html`<p class="notice warn">${s('account.unverified')} <a href="/verify-email?next=%2Faccount">${s('account.verifyNow')}</a></p>`}
            <form id="profile" class="card" novalidate>
              <h2>${s('account.profile')}</h2>
              ${field({ id: 'display-name', label: s('account.displayName'), autocomplete: 'name', required: false, maxlength: 100 })}
              ${field({ id: 'avatar-url', label: s('account.avatarUrl'), type: 'url', hint: s('account.avatarHint'), required: false })}
              ${submitRow('profile', s('account.save'))}
              <p id="profile-saved" class="notice" role="status" hidden>${s('account.saved')}</p>
            </form>
            <section class="card" aria-labelledby="mfa-heading">
              <h2 id="mfa-heading">${s('account.mfa')}</h2>
              <p id="mfa-state">${s(mfaOn ? 'account.mfaOn' : 'account.mfaOff')}</p>
              <button type="button" id="mfa-setup" ${mfaOn ? html` hidden` : ''}>
                ${s('account.mfaSetup')}
              </button>
              <form id="mfa-enable" novalidate hidden>
                <p>${s('account.mfaScan')}</p>
                <div id="mfa-qr"></div>
                <p><code id="mfa-secret"></code></p>
                ${field({ id: 'enable-code', label: s('account.mfaCode'), autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 6 })}
                ${submitRow('mfa-enable', s('account.mfaEnable'))}
              </form>
              <div id="mfa-codes" hidden>
                <h3>${s('account.mfaCodes')}</h3>
                <p>${s('account.mfaCodesIntro')}</p>
                <ol class="codes mono" id="mfa-code-list"></ol>
                <button type="button" id="mfa-codes-done">${s('account.mfaCodesDone')}</button>
              </div>
              <form id="mfa-disable" novalidate${mfaOn ? '' : html` hidden`}>
                ${field({ id: 'disable-code', label: s('account.mfaDisableCode'), autocomplete: 'one-time-code', maxlength: 20 })}
                ${submitRow('mfa-disable', s('account.mfaDisable'))}
              </form>
            </section>
            <section class="card" aria-labelledby="passkeys-heading">
              <h2 id="passkeys-heading">${s('account.passkeys')}</h2>
              <p class="hint">${s('account.passkeysIntro')}</p>
              <ul class="list" id="passkeys" aria-live="polite">
                <li>${s('account.loading')}</li>
              </ul>
              <p class="error" id="passkeys-error" role="alert" hidden></p>
              <form id="passkey-add" novalidate>
                ${field({ id: 'passkey-name', label: s('account.passkeyName'), required: false, maxlength: 100 })}
                ${submitRow('passkey-add', s('account.passkeyAdd'))}
              </form>
            </section>
            ${listSection('sessions', s('account.sessions'))}
            ${listSection('apps', s('account.apps'), s('account.appsIntro'))}
            ${listSection('events', s('account.activity'))}
            <button type="button" id="sign-out">${s('account.signOut')}</button>`,
        });
      },
    }),
  ];
}
