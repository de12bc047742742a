import { api, dataOf } from './api.js';
import { $, formError, go, safeNext, show } from './dom.js';
import { apiError, data, onSubmit, requiredValue, t } from './forms.js';
import { passkeyLogin, passkeysSupported } from './passkeys.js';

/** /login: password, then the TOTP step when the API asks for it; or a passkey. Then `next`. */
const next = safeNext(data.next);
let mfaToken = '';

const login = onSubmit('login', async (form) => {
  const identifier = requiredValue('identifier');
  const password = identifier === null ? null : requiredValue('password');
  if (identifier === null || password === null) return;
  const result = await api('POST', '/auth/login', { identifier, password });
  if (result.status !== 200) {
    apiError(form, result, { incorrect: 'password' });
    return;
  }
  const answer = dataOf(result) as { mfa_required?: boolean; mfa_token?: string };
  if (answer.mfa_required === true && typeof answer.mfa_token === 'string') {
    mfaToken = answer.mfa_token;
    show(form, false);
    show($('mfa'));
    $('code').focus();
    return;
  }
  go(next);
});

onSubmit('mfa', async (form) => {
  const code = requiredValue('code');
  if (code === null) return;
  const result = await api('POST', '/auth/mfa/verify', {
    mfa_token: mfaToken,
    code: code.replace(/\s/g, ''),
  });
  if (result.status === 200) go(next);
  else apiError(form, result, { 'mfa code': 'code' });
});

if (passkeysSupported()) {
  show($('other-logins'));
  show($('passkey'));
  $('passkey').addEventListener('click', () => {
    void (async () => {
      const identifier = $('identifier', HTMLInputElement).value.trim();
      if (identifier === '') {
        formError(login, t('login.passkeyNeedsId'));
        $('identifier').focus();
        return;
      }
      const result = await passkeyLogin(identifier);
      if (result === 'cancelled') formError(login, t('login.passkeyCancelled'));
      else if (result.status === 200) go(next);
      else apiError(login, result);
    })();
  });
}
