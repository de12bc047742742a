import { api, messageOf } from './api.js';
import { $, fieldError, show } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';

/** /forgot-password and /reset-password (one module: they are two halves of one errand). */

if (document.getElementById('forgot')) {
  onSubmit('forgot', async (form) => {
    const identifier = requiredValue('identifier');
    if (identifier === null) return;
    const result = await api('POST', '/auth/forgot-password', { identifier });
    if (result.status !== 200) {
      apiError(form, result, { identifier: 'identifier' });
      return;
    }
    const done = $('forgot-done');
    done.textContent = messageOf(result);
    show(done);
  });
}

if (document.getElementById('reset')) {
  // The mailed link's token is read once and taken out of the address bar (and history).
  const linkToken = new URLSearchParams(location.search).get('token');
  if (linkToken !== null) history.replaceState(null, '', location.pathname);

  onSubmit('reset', async (form) => {
    const token = linkToken ?? requiredValue('token');
    const password = token === null ? null : requiredValue('new-password');
    if (token === null || password === null) return;
    if (Array.from(password).length < 8) {
      fieldError($('new-password'), t('register.passwordHint'));
      return;
    }
    if ($('confirm-password', HTMLInputElement).value !== password) {
      fieldError($('confirm-password'), t('reset.mismatch'));
      return;
    }
    const result = await api('POST', '/auth/reset-password', { token: token.trim(), new_password: password });
    if (result.status !== 200) {
      // A refused SMS code belongs next to the code field (a refused link has no field).
      apiError(form, result, {
        ...(linkToken === null ? { 'reset link': 'token' } : {}),
        password: 'new-password',
      });
      return;
    }
    show(form, false);
    show($('reset-done'));
  });
}
