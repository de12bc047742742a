import { messageOf } from './api.js';
import { $, busy, clearErrors, clearOnInput, fieldError, formError, go } from './dom.js';
import { typedHandOff, type Router } from './hotspot.js';

/**
 * "I already have a login": a username and password the guest already holds (from a purchase on
 * another device, or a browser that forgot it), handed to the router's own login (DESIGN.md §4.8).
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
