import { dataOf } from './api.js';
import { $, fieldError } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import { adminApi, badge, can, status, time } from './admin-shell.js';
import { filteredTable } from './admin-filters.js';
import { displayPhone } from './portal-format.js';

/**
 * /admin/sms: the SMS staff sent (GET /api/v1/admin/messages); operators send one (POST): 202
 * means the gateway accepted it, not that the phone got it; a refusal is kept in the list too.
 */

interface Message {
  recipient: string;
  message: string;
  sender_id: string;
  status: string;
  provider_reference: string | null;
  error: string | null;
  created_at: string;
}

const FIELDS = { recipient: 'sms-recipient', 'message must': 'sms-message', sender_id: 'sms-sender' };

const load = filteredTable<Message>({
  id: 'messages',
  path: '/messages',
  searchHint: t('sms.searchHint'),
  choices: [{ name: 'status', label: 'list.status', values: ['accepted', 'failed'] }],
  columns: [
    { head: 'sms.when', cell: (m) => time(m.created_at) },
    { head: 'sms.to', cell: (m) => displayPhone(m.recipient) },
    { head: 'sms.text', cell: (m) => m.message, wrap: true },
    { head: 'sms.from', cell: (m) => m.sender_id },
    { head: 'sms.status', cell: (m) => [badge(m.status)] },
    { head: 'sms.detail', cell: (m) => m.error ?? m.provider_reference ?? '', wrap: true },
  ],
});

if (can.sms) {
  const message = $('sms-message', HTMLTextAreaElement);
  const encoder = new TextEncoder();
  const count = (): void => {
    $('sms-message-hint').textContent = t('sms.bytes', { n: encoder.encode(message.value).length });
  };
  message.addEventListener('input', count);

  onSubmit('sms-form', async (form) => {
    status('sms-status', null);
    const recipient = requiredValue('sms-recipient');
    if (recipient === null) return;
    if (message.value.trim() === '') {
      fieldError(message, t('common.required'));
      message.focus();
      return;
    }
    const sender = $('sms-sender', HTMLInputElement).value.trim();
    const result = await adminApi('POST', '/messages', {
      recipient,
      message: message.value,
      ...(sender === '' ? {} : { sender_id: sender }),
    });
    if (result.status === 202) {
      const record = dataOf(result) as Message;
      form.reset();
      count();
      status('sms-status', t('sms.accepted', { recipient: displayPhone(record.recipient) }));
    } else {
      apiError(form, result, FIELDS);
    }
    await load();
  });
}
