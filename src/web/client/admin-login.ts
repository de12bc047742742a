import { api, messageOf } from './api.js';
import { $, go, safeNext, show } from './dom.js';
import { apiError, data, onSubmit, requiredValue } from './forms.js';

/**
 * /admin/login: email and password; when the API answers `mfa code required` the code field
 * appears and the same form is sent again with it. Then on to `next` (checked again here).
 */
const next = safeNext(data.next, '/admin');
const codeBox = $('code-box');

onSubmit('admin-login', async (form) => {
  const email = requiredValue('email');
  const password = email === null ? null : requiredValue('password');
  if (email === null || password === null) return;
  let code: string | undefined;
  if (!codeBox.hidden) {
    const typed = requiredValue('code');
    if (typed === null) return;
    code = typed.replace(/\s/g, '');
  }
  const result = await api('POST', '/api/v1/admin/auth/login', {
    email,
    password,
    ...(code === undefined ? {} : { code }),
  });
  if (result.status === 200) {
    go(next);
    return;
  }
  if (messageOf(result) === 'mfa code required') show(codeBox);
  apiError(form, result, { 'mfa code': 'code', 'email or password': 'password' });
});
