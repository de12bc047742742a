import { api, dataOf } from './api.js';
import { $, formError, show } from './dom.js';
import { apiError, data, onSubmit, requiredValue, t } from './forms.js';
import { fillList, removeThen, time } from './lists.js';
import { passkeysSupported, registerPasskey } from './passkeys.js';
import { qrSvg } from './qr.js';

/** The account page's two-step verification (TOTP with a QR code) and passkeys. */

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string;
}

function mfaState(on: boolean): void {
  $('mfa-state').textContent = t(on ? 'account.mfaOn' : 'account.mfaOff');
  show($('mfa-setup'), !on);
  show($('mfa-disable'), on);
}

/** The secret leaves the page as soon as it is no longer needed. */
function forgetSecret(): void {
  $('mfa-qr').replaceChildren();
  $('mfa-secret').textContent = '';
  $('enable-code', HTMLInputElement).value = '';
}

function initMfa(onChange: () => Promise<void>): void {
  $('mfa-setup').addEventListener('click', () => {
    void (async () => {
      const result = await api('POST', '/auth/mfa/setup');
      if (result.status !== 200) {
        formError($('mfa-enable', HTMLFormElement), t('common.network'));
        show($('mfa-enable'));
        return;
      }
      const { secret, uri } = dataOf(result) as { secret: string; uri: string };
      $('mfa-qr').replaceChildren(qrSvg(uri, t('account.mfaScan')));
      $('mfa-secret').textContent = secret.replace(/(.{4})/g, '$1 ').trim();
      show($('mfa-setup'), false);
      show($('mfa-enable'));
      $('enable-code').focus();
    })();
  });

  onSubmit('mfa-enable', async (form) => {
    const code = requiredValue('enable-code');
    if (code === null) return;
    const result = await api('POST', '/auth/mfa/enable', { code });
    if (result.status !== 200) {
      apiError(form, result, { code: 'enable-code' });
      return;
    }
    const codes = (dataOf(result) as { recovery_codes?: string[] } | undefined)?.recovery_codes ?? [];
    $('mfa-code-list').replaceChildren(
      ...codes.map((c) => {
        const li = document.createElement('li');
        li.textContent = c;
        return li;
      }),
    );
    forgetSecret();
    show(form, false);
    show($('mfa-codes'));
    $('mfa-state').textContent = t('account.mfaOn');
    await onChange();
  });

  $('mfa-codes-done').addEventListener('click', () => {
    $('mfa-code-list').replaceChildren();
    show($('mfa-codes'), false);
    mfaState(true);
  });

  onSubmit('mfa-disable', async (form) => {
    const code = requiredValue('disable-code');
    if (code === null) return;
    const result = await api('POST', '/auth/mfa/disable', { code: code.replace(/\s/g, '') });
    if (result.status !== 200) {
      apiError(form, result, { code: 'disable-code' });
      return;
    }
    $('disable-code', HTMLInputElement).value = '';
    mfaState(false);
    await onChange();
  });
}

function initPasskeys(onChange: () => Promise<void>): void {
  // Removing one also refreshes the activity list, which gains a "Passkey removed" line.
  const loadPasskeys = (): Promise<void> =>
    fillList<Passkey>('passkeys', '/auth/passkeys', (p) => ({
      text: p.name,
      detail: t('account.lastUsed', { time: time(p.last_used_at) }),
      action: {
        label: t('account.remove'),
        aria: `${t('account.remove')}: ${p.name}`,
        run: async () => {
          if (await removeThen('passkeys', `/auth/passkeys/${encodeURIComponent(p.id)}`, loadPasskeys))
            await onChange();
        },
      },
    }));
  void loadPasskeys();
  const supported = passkeysSupported();
  onSubmit('passkey-add', async (form) => {
    if (!supported) {
      formError(form, t('account.passkeyUnsupported'));
      return;
    }
    const result = await registerPasskey($('passkey-name', HTMLInputElement).value.trim());
    if (result === 'cancelled') {
      formError(form, t('account.passkeyCancelled'));
      return;
    }
    if (result.status !== 201) {
      apiError(form, result, { name: 'passkey-name' });
      return;
    }
    $('passkey-name', HTMLInputElement).value = '';
    await Promise.all([loadPasskeys(), onChange()]);
  });
}

export function initSecurity(onChange: () => Promise<void>): void {
  mfaState(data.mfaOn === true);
  initMfa(onChange);
  initPasskeys(onChange);
}
