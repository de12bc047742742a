import { api } from './api.js';
import { $, fieldError, go, safeNext } from './dom.js';
import { apiError, data, onSubmit, requiredValue, t } from './forms.js';

/** /register: an email (with @) or a phone number, and a password; then on to verification. */
const next = safeNext(data.next);

onSubmit('register', async (form) => {
  const identifier = requiredValue('identifier');
  const password = identifier === null ? null : requiredValue('password');
  if (identifier === null || password === null) return;
  if (Array.from(password).length < 8) {
    fieldError($('password'), t('register.passwordHint'));
    return;
  }
  const body = identifier.includes('@')
    ? { email: identifier, password }
    : { phone: identifier.replace(/[\s\-.()]/g, ''), password };
  const result = await api('POST', '/auth/register', body);
  if (result.status === 201) go(`/verify-email?next=${encodeURIComponent(next)}`);
  else
    apiError(form, result, {
      password: 'password',
      'email or phone': 'identifier',
      'request body': 'identifier',
    });
});
