import { api } from './api.js';
import { $, go, safeNext, show } from './dom.js';
import { apiError, data, onSubmit, requiredValue } from './forms.js';

/** /verify-email: the emailed code (with resend), or a phone number and its SMS code. */
const next = safeNext(data.next);

if (document.getElementById('email-code')) {
  onSubmit('email-code', async (form) => {
    const code = requiredValue('email-otp');
    if (code === null) return;
    const result = await api('POST', '/auth/verify-email/check', { code });
    if (result.status === 200) go(next);
    else apiError(form, result, { code: 'email-otp' });
  });
  $('email-resend').addEventListener('click', () => {
    void (async () => {
      const result = await api('POST', '/auth/verify-email/send');
      show($('email-sent'), result.status === 200);
      if (result.status !== 200) apiError($('email-code', HTMLFormElement), result);
    })();
  });
}

if (document.getElementById('phone-send')) {
  onSubmit('phone-send', async (form) => {
    const phone = requiredValue('phone');
    if (phone === null) return;
    const result = await api('POST', '/auth/verify-phone/send', { phone: phone.replace(/[\s\-.()]/g, '') });
    if (result.status !== 200) {
      apiError(form, result, { phone: 'phone', 'email or phone': 'phone' });
      return;
    }
    show($('phone-code'));
    $('phone-otp').focus();
  });
  onSubmit('phone-code', async (form) => {
    const code = requiredValue('phone-otp');
    if (code === null) return;
    const result = await api('POST', '/auth/verify-phone/check', { code });
    if (result.status === 200) go(next);
    else apiError(form, result, { code: 'phone-otp' });
  });
}
