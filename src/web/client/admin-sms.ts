import { dataOf } from './api.js';
import { $, fieldError } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import { adminApi, badge, can, element, status, time } from './admin-shell.js';
import { filteredTable } from './admin-filters.js';
import { displayPhone } from './portal-format.js';

/**
 * /admin/sms: every SMS the box sent (GET /api/v1/admin/sms): the guests' logins and reminders,
 * account codes and staff messages, each with its delivery state. Operators send one (POST
 * /api/v1/admin/messages): 202 means the gateway accepted it, not that the phone got it; a
 * refusal is kept in the list too.
 */

interface Message {
  kind: string;
  recipient: string;
  message: string;
  sender_id: string;
  state: string;
  attempts: number;
  provider_reference: string | null;
  error: string | null;
  created_at: string;
}

const KINDS = ['credentials', 'reminder_ends', 'reminder_data', 'staff', 'code', 'reset', 'other'] as const;

/** The state's pill, and how many times the gateway was asked when more than once. */
const stateCell = (m: Message): Node[] => [
  badge(m.state),
  ...(m.attempts > 1 ? [element('span', ` ${t('sms.attempts', { n: m.attempts })}`, 'hint')] : []),
];

const FIELDS = { recipient: 'sms-recipient', 'message must': 'sms-message', sender_id: 'sms-sender' };

const load = filteredTable<Message>({
  id: 'messages',
  path: '/sms',
  searchHint: t('sms.searchHint'),
  choices: [
    { name: 'kind', label: 'sms.kind', values: KINDS, show: (kind) => t(`sms.kind.${kind}`) },
    { name: 'status', label: 'list.status', values: ['queued', 'sent', 'delivered', 'failed'] },
  ],
  columns: [
    { head: 'sms.when', cell: (m) => time(m.created_at) },
    { head: 'sms.kind', cell: (m) => t(`sms.kind.${m.kind}`) },
    { head: 'sms.to', cell: (m) => (m.recipient.includes('*') ? m.recipient : displayPhone(m.recipient)) },
    { head: 'sms.text', cell: (m) => m.message, wrap: true },
    { head: 'sms.status', cell: stateCell },
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
