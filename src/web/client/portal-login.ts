import { api, dataOf, messageOf } from './api.js';
import { $, busy, clearErrors, clearOnInput, fieldError, formError, go } from './dom.js';
import { typedHandOff, type Router } from './hotspot.js';

/**
 * "I already have a code or login": a voucher code, redeemed for a username and password, or a
 * username and password the guest already holds (from a purchase on another device, or a browser
 * that forgot it), handed to the router's own login (DESIGN.md §4.8).
 */

type Translate = (key: string) => string;

/** What the API's refusals mean for the guest (a wrong login is shown at the password). */
const REFUSALS: Readonly<Record<number, string>> = {
  0: 'error.network',
  401: 'login.invalid',
  409: 'login.ended',
  422: 'router.unknown',
  429: 'login.tooMany',
};

export function initTypedLogin(router: Router, t: Translate): void {
  const form = $('login', HTMLFormElement);
  const user = $('login-user', HTMLInputElement);
  const pass = $('login-pass', HTMLInputElement);
  clearOnInput(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    const username = user.value.trim();
    const password = pass.value.trim();
    if (username === '') fieldError(user, t('login.userRequired'));
    if (password === '') fieldError(pass, t('login.passRequired'));
    if (username === '' || password === '') {
      (username === '' ? user : pass).focus();
      return;
    }
    const button = $('login-submit', HTMLButtonElement);
    busy(button, true);
    void typedHandOff(username, password, router).then((result) => {
      if ('url' in result) {
        go(result.url);
        return;
      }
      busy(button, false);
      const { status } = result.error;
      // A 422 is about the router (unknown, or not the one named) unless it names a login field.
      const aboutLogin = status === 422 && /username|password/.test(messageOf(result.error));
      const message = t(aboutLogin ? 'error.generic' : (REFUSALS[status] ?? 'error.generic'));
      if (status !== 401) {
        formError(form, message);
        return;
      }
      fieldError(pass, message);
      pass.focus();
    });
  });
}

/** A code from a voucher's QR code (`/portal?voucher=…`), kept until the router sends the guest here. */
const VOUCHER_KEY = 'hotspot.voucher';

export function keepVoucherFromUrl(): void {
  const code = new URLSearchParams(location.search).get('voucher');
  try {
    if (code) localStorage.setItem(VOUCHER_KEY, code);
  } catch {
    // Storage refused (private mode): the code is still in this page's address.
  }
}

function keptVoucher(): string | null {
  try {
    return new URLSearchParams(location.search).get('voucher') ?? localStorage.getItem(VOUCHER_KEY);
  } catch {
    return new URLSearchParams(location.search).get('voucher');
  }
}

const VOUCHER_REFUSALS: Readonly<Record<number, string>> = {
  0: 'error.network',
  404: 'voucher.unknown',
  409: 'voucher.ended',
  429: 'login.tooMany',
};

/**
 * The voucher field: redeem the code, then hand its login to the router like a paid purchase's.
 * `lang` is the portal's language as the guest chose it: the server keeps it for their reminders.
 */
export function initVoucher(router: Router, t: Translate, lang: () => string): void {
  const form = $('voucher', HTMLFormElement);
  const input = $('voucher-code', HTMLInputElement);
  clearOnInput(form);
  const kept = keptVoucher();
  if (kept) {
    input.value = kept;
    $('have-login', HTMLDetailsElement).open = true;
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    const code = input.value.trim();
    if (code === '') {
      fieldError(input, t('voucher.required'));
      input.focus();
      return;
    }
    const button = $('voucher-submit', HTMLButtonElement);
    busy(button, true);
    void (async () => {
      const redeemed = await api(
        'POST',
        '/api/v1/public/vouchers/redeem',
        { code },
        { 'Accept-Language': lang() },
      );
      const login =
        redeemed.status === 200 ? (dataOf(redeemed) as { username: string; password: string }) : null;
      if (!login) {
        busy(button, false);
        fieldError(input, t(VOUCHER_REFUSALS[redeemed.status] ?? 'error.generic'));
        input.focus();
        return;
      }
      try {
        localStorage.removeItem(VOUCHER_KEY);
      } catch {
        // nothing kept
      }
      // The code is spent: its login goes in the login form too, for another try or device.
      $('login-user', HTMLInputElement).value = login.username;
      $('login-pass', HTMLInputElement).value = login.password;
      const result = await typedHandOff(login.username, login.password, router);
      if ('url' in result) {
        go(result.url);
        return;
      }
      busy(button, false);
      formError(form, t(result.error.status === 0 ? 'error.network' : 'error.generic'));
    })();
  });
}
