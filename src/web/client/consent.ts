import { api, dataOf, messageOf } from './api.js';
import { $, busy, go } from './dom.js';
import { data, t } from './forms.js';

/** /consent: the person's answer goes to POST /oauth/consent; its redirect_uri is where to go. */
const params = (data.params ?? {}) as Record<string, string | undefined>;

async function answer(approve: boolean, button: HTMLButtonElement): Promise<void> {
  busy(button, true);
  const result = await api('POST', '/oauth/consent', { ...params, approve });
  busy(button, false);
  const target = (dataOf(result) as { redirect_uri?: unknown } | undefined)?.redirect_uri;
  if (result.status === 200 && typeof target === 'string') {
    go(target);
    return;
  }
  const slot = $('consent-error');
  slot.textContent = messageOf(result) || t('common.network');
  slot.hidden = false;
}

for (const [id, approve] of [
  ['approve', true],
  ['decline', false],
] as const) {
  const button = $(id, HTMLButtonElement);
  button.addEventListener('click', () => void answer(approve, button));
}
