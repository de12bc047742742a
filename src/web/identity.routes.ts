import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route, type RouteContext, type RouteResult } from '../http/route.js';
import { optionalSession, socialLoginChoices, type SessionPrincipal } from '../identity/index.js';
import type { Assets } from './assets.js';
import { field, submitRow } from './forms.js';
import { html } from './html.js';
import { here, identityPage, nextOf, s, seeOther, sf, toLogin } from './pages.js';
import type { IdentityKey } from './strings/identity.en.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config'>;

const withNext = (path: string, next: string): string => `${path}?next=${encodeURIComponent(next)}`;

/** What the social login callback's refusals (`/login?error=social_<reason>`) mean to a person. */
const LOGIN_ERRORS: ReadonlyMap<string, IdentityKey> = new Map([
  ['social_state', 'login.socialState'],
  ['social_cancelled', 'login.socialCancelled'],
  ['social_failed', 'login.socialFailed'],
  ['social_email_unverified', 'login.socialEmailUnverified'],
] as const);

/** /login, /register, /verify-email, /forgot-password, /reset-password. */
export function identityPageRoutes(deps: Deps, assets: Assets): Route[] {
  const session = optionalSession(deps);
  const page = (
    path: string,
    handler: (ctx: RouteContext<undefined, SessionPrincipal | null>) => RouteResult | Promise<RouteResult>,
  ) => defineRoute({ method: 'GET', path, api: 'identity', auth: session, handler });

  return [
    page('/login', async ({ principal, query }) => {
      const next = nextOf(query);
      // Already signed in: straight on, unless authorize sent the person here to sign in again
      // (OIDC prompt=login or select_account, or max_age: `prompt=login`).
      const again = principal && query.prompt === 'login' ? principal.user : null;
      if (principal && !again) return seeOther(next);
      const notice = LOGIN_ERRORS.get(query.error ?? '');
      const providers = await socialLoginChoices(deps);
      return identityPage(deps, assets, {
        title: 'login.title',
        script: 'login.js',
        data: { next },
        main: html`<h1>${s('login.title')}</h1>
          ${notice ? html`<p class="notice warn" id="login-notice" role="alert">${s(notice)}</p>` : ''}
          ${
            again
              ? html`<p class="notice" id="login-again">
                  ${sf('login.again', { who: again.email ?? again.phone ?? '' })}
                </p>`
              : ''
          }
          <form id="login" class="card" novalidate>
            ${field({ id: 'identifier', label: s('common.emailOrPhone'), autocomplete: 'username' })}
            ${field({ id: 'password', label: s('common.password'), type: 'password', autocomplete: 'current-password' })}
            ${submitRow('login', s('login.submit'))}
            <div id="other-logins" ${providers.length === 0 ? html` hidden` : ''}>
              <p class="muted">${s('login.or')}</p>
              <button type="button" id="passkey" hidden>${s('login.passkey')}</button>
              ${providers.map(
                (p) =>
                  html`<a class="button alt" href="${withNext(`/auth/social/${p.name}/begin`, next)}"
                    >${sf('login.social', { provider: p.display_name })}</a
                  >`,
              )}
            </div>
          </form>
          <form id="mfa" class="card" novalidate hidden>
            <h2>${s('login.mfaHeading')}</h2>
            <p>${s('login.mfaIntro')}</p>
            ${field({ id: 'code', label: s('common.code'), autocomplete: 'one-time-code', maxlength: 20 })}
            ${submitRow('mfa', s('login.mfaSubmit'))}
          </form>
          <p><a href="/forgot-password">${s('login.forgot')}</a></p>
          <p>${s('login.new')} <a href="${withNext('/register', next)}">${s('login.register')}</a></p>`,
      });
    }),
    page('/register', ({ principal, query }) => {
      const next = nextOf(query);
      if (principal) return seeOther(next);
      return identityPage(deps, assets, {
        title: 'register.title',
        script: 'register.js',
        data: { next },
        main: html`<h1>${s('register.title')}</h1>
          <form id="register" class="card" novalidate>
            ${field({ id: 'identifier', label: s('register.identifier'), hint: s('register.identifierHint'), autocomplete: 'username' })}
            ${field({ id: 'password', label: s('register.password'), type: 'password', hint: s('register.passwordHint'), autocomplete: 'new-password' })}
            ${submitRow('register', s('register.submit'))}
          </form>
          <p>${s('register.have')} <a href="${withNext('/login', next)}">${s('register.signIn')}</a></p>`,
      });
    }),
    page('/verify-email', ({ principal, query, req }) => {
      if (!principal) return toLogin(here(req));
      const next = nextOf(query);
      const { email, phone } = principal.user;
      const emailVerified = principal.user.email_verified === 1;
      const phoneVerified = principal.user.phone_verified === 1;
      return identityPage(deps, assets, {
        title: 'verify.title',
        script: 'verify.js',
        data: { next, email, phone, emailVerified, phoneVerified },
        main: html`<h1>${s('verify.title')}</h1>
          <p id="verified" class="notice" ${emailVerified || phoneVerified ? '' : html` hidden`}>
            ${s('verify.verified')} <a href="${next}" id="continue">${s('common.continue')}</a>
          </p>
          ${
            email === null
              ? ''
              : emailVerified
                ? html`<p>${sf('verify.emailDone', { email })}</p>`
                : html`<form id="email-code" class="card" novalidate>
                    <p>${sf('verify.emailIntro', { email })}</p>
                    ${field({ id: 'email-otp', label: s('common.code'), autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 6 })}
                    ${submitRow('email-code', s('verify.submit'))}
                    <button type="button" id="email-resend">${s('verify.resend')}</button>
                    <p class="hint">${s('verify.limits')}</p>
                    <p id="email-sent" class="notice" role="status" hidden>${s('verify.sent')}</p>
                  </form>`
          }
          ${
            phoneVerified && phone !== null
              ? html`<p>${sf('verify.phoneDone', { phone })}</p>`
              : html`<section class="card">
                  <h2>${s('verify.phoneHeading')}</h2>
                  <p>${s('verify.phoneIntro')}</p>
                  <form id="phone-send" novalidate>
                    ${field({ id: 'phone', label: s('verify.phone'), type: 'tel', inputmode: 'tel', autocomplete: 'tel', hint: s('verify.phoneHint'), value: phone ?? '' })}
                    ${submitRow('phone-send', s('verify.phoneSend'))}
                    <p class="hint">${s('verify.limits')}</p>
                  </form>
                  <form id="phone-code" novalidate hidden>
                    ${field({ id: 'phone-otp', label: s('verify.phoneCode'), autocomplete: 'one-time-code', inputmode: 'numeric', maxlength: 6 })}
                    ${submitRow('phone-code', s('verify.submit'))}
                  </form>
                </section>`
          }`,
      });
    }),
    page('/forgot-password', () =>
      identityPage(deps, assets, {
        title: 'forgot.title',
        script: 'password.js',
        main: html`<h1>${s('forgot.title')}</h1>
          <form id="forgot" class="card" novalidate>
            <p>${s('forgot.intro')}</p>
            ${field({ id: 'identifier', label: s('common.emailOrPhone'), autocomplete: 'username' })}
            ${submitRow('forgot', s('forgot.submit'))}
            <p id="forgot-done" class="notice" role="status" hidden></p>
          </form>
          <p><a href="/reset-password">${s('forgot.haveCode')}</a></p>`,
      }),
    ),
    page('/reset-password', ({ query }) => {
      // The mailed link carries the token; without one (an SMS code) the person types it.
      const hasToken = typeof query.token === 'string' && query.token !== '';
      return identityPage(deps, assets, {
        title: 'reset.title',
        script: 'password.js',
        main: html`<h1>${s('reset.title')}</h1>
          <form id="reset" class="card" novalidate>
            ${hasToken ? '' : field({ id: 'token', label: s('reset.code'), autocomplete: 'one-time-code', inputmode: 'numeric' })}
            ${field({ id: 'new-password', label: s('reset.password'), type: 'password', autocomplete: 'new-password', hint: s('reset.passwordHint') })}
            ${field({ id: 'confirm-password', label: s('reset.confirm'), type: 'password', autocomplete: 'new-password' })}
            ${submitRow('reset', s('reset.submit'))}
          </form>
          <p id="reset-done" class="notice" role="status" hidden>
            ${s('reset.done')} <a href="/login">${s('reset.signIn')}</a>
          </p>`,
      });
    }),
  ];
}
