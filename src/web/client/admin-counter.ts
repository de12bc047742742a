import { dataOf, ok } from './api.js';
import { $, show } from './dom.js';
import { apiError, onSubmit, t } from './forms.js';
import {
  adminApi,
  askConfirm,
  badge,
  can,
  failure,
  numberOrText,
  siteColumn,
  stacked,
  status,
  time,
  tzs,
  withSite,
} from './admin-shell.js';
import { displayPhone } from './portal-format.js';
import { filteredTable } from './admin-filters.js';

const GRANT_STATES = ['live', 'ended', 'revoked', 'refunded'];

/**
 * /admin/counter (DESIGN.md §4.8): operators issue access for cash or free (POST
 * /api/v1/admin/grants: the login is shown once, and sent by SMS when a phone is given), extend
 * and revoke grants, and ask the provider again about an unpaid invoice; admins mark one paid by
 * hand, or refund a paid sale by hand, with a reason. Every one of these lands in the audit trail.
 */

interface Grant {
  id: string;
  invoice_id: string;
  invoice_number: string;
  username: string;
  plan_name: string | null;
  channel: string;
  amount_tzs: number;
  phone: string;
  expires_at: string;
  revoked_at: string | null;
  refunded_at: string | null;
  live: boolean;
  site_id: string;
}

interface Invoice {
  id: string;
  number: string;
  plan_name: string | null;
  phone: string;
  amount_tzs: number;
  status: string;
  channel: string;
  created_at: string;
  site_id: string;
}

interface Sale {
  invoice: { phone: string };
  credentials: { username: string; password: string; expires_at: string };
}

const ISSUE_FIELDS = {
  plan_id: 'issue-plan',
  'phone number': 'issue-phone',
  amount_tzs: 'issue-amount',
  channel: 'issue-channel',
};

/** The grant's state as a pill (its tone from the state's word, its text in the page's words). */
const grantState = (g: Grant): Node[] => {
  const state =
    g.refunded_at !== null ? 'refunded' : g.revoked_at !== null ? 'revoked' : g.live ? 'live' : 'ended';
  return [badge(state, t(`counter.${state}`))];
};

/** Admins refund a sale that took money and was not refunded yet (revoked or run out, too). */
const refundable = (g: Grant): boolean => can.markPaid && g.refunded_at === null && g.amount_tzs > 0;

const refundAction = (g: Grant) =>
  refundable(g)
    ? [
        {
          label: t('counter.refund'),
          aria: t('counter.refundAria', { user: g.username, number: g.invoice_number }),
          danger: true,
          run: () => refund(g),
        },
      ]
    : [];

const loadGrants = filteredTable<Grant>({
  id: 'grants',
  path: '/grants',
  searchHint: t('counter.searchHint'),
  choices: [{ name: 'status', label: 'list.status', values: GRANT_STATES, show: (s) => t(`counter.${s}`) }],
  columns: [
    // The phone under the login, the channel under the plan: the table fits 1440 px.
    { head: 'counter.user', cell: (g) => stacked(g.username, g.phone ? displayPhone(g.phone) : null) },
    {
      head: 'counter.planCol',
      cell: (g) => stacked(g.plan_name ?? '', t(`channel.${g.channel}`)),
      words: true,
    },
    { head: 'counter.amountCol', cell: (g) => tzs(g.amount_tzs) },
    { head: 'counter.expiresCol', cell: (g) => time(g.expires_at) },
    { head: 'counter.state', cell: grantState },
    ...siteColumn<Grant>(),
  ],
  ...(can.counter && {
    actions: (g) =>
      g.revoked_at !== null
        ? refundAction(g)
        : [
            {
              label: t('counter.extend'),
              aria: t('counter.extendAria', { user: g.username }),
              run: () => extend(g),
            },
            ...(g.live
              ? [
                  {
                    label: t('counter.revoke'),
                    aria: t('counter.revokeAria', { user: g.username }),
                    danger: true,
                    run: () => revoke(g),
                  },
                ]
              : []),
            ...refundAction(g),
          ],
  }),
});

/** The invoices still waiting for the provider, every one of them, a page at a time. */
const loadUnpaid = filteredTable<Invoice>({
  id: 'unpaid',
  path: '/invoices',
  fixed: { status: 'pending' },
  searchHint: t('invoices.searchHint'),
  columns: [
    { head: 'counter.invoice', cell: (i) => stacked(i.number, time(i.created_at)) },
    { head: 'counter.planCol', cell: (i) => i.plan_name ?? '', words: true },
    { head: 'counter.phoneCol', cell: (i) => displayPhone(i.phone) },
    { head: 'counter.amountCol', cell: (i) => tzs(i.amount_tzs) },
    { head: 'counter.status', cell: (i) => [badge(i.status)] },
    ...siteColumn<Invoice>(),
  ],
  ...(can.counter && {
    actions: (i) => [
      {
        label: t('counter.recheck'),
        aria: t('counter.recheckAria', { number: i.number }),
        run: () => recheck(i),
      },
      ...(can.markPaid
        ? [
            {
              label: t('counter.markPaid'),
              aria: t('counter.markPaidAria', { number: i.number }),
              run: () => markPaid(i),
            },
          ]
        : []),
    ],
  }),
});

const reload = async (): Promise<void> => {
  await Promise.all([loadGrants(), loadUnpaid()]);
};

/** The login of a sale, shown once until the staff member closes it. */
function showCredentials(sale: Sale): void {
  $('credentials-username').textContent = sale.credentials.username;
  $('credentials-password').textContent = sale.credentials.password;
  $('credentials-expires').textContent = time(sale.credentials.expires_at);
  $('credentials-note').textContent = sale.invoice.phone
    ? t('counter.sentBySms', { phone: displayPhone(sale.invoice.phone) })
    : t('counter.notSent');
  const box = $('counter-credentials');
  show(box);
  box.focus();
}

$('credentials-done').addEventListener('click', () => {
  $('credentials-username').textContent = '';
  $('credentials-password').textContent = '';
  show($('counter-credentials'), false);
});

/** Opens a dialog form and resolves with its submit, or null when cancelled. */
function dialogForm(
  dialogId: string,
  formId: string,
  cancelId: string,
  heading: string,
): Promise<HTMLFormElement | null> {
  const dialog = $(dialogId, HTMLDialogElement);
  const form = $(formId, HTMLFormElement);
  form.reset();
  $(`${dialogId}-heading`).textContent = heading;
  return new Promise((resolve) => {
    const done = (value: HTMLFormElement | null) => {
      form.onsubmit = null;
      $(cancelId).onclick = null;
      dialog.onclose = null;
      dialog.close();
      resolve(value);
    };
    form.onsubmit = (event) => {
      event.preventDefault();
      done(form);
    };
    $(cancelId).onclick = () => done(null);
    dialog.onclose = () => done(null);
    dialog.showModal();
  });
}

async function extend(g: Grant): Promise<void> {
  const form = await dialogForm(
    'extend',
    'extend-form',
    'extend-cancel',
    t('counter.extendHeading', { user: g.username }),
  );
  if (!form) return;
  const reason = $('extend-reason', HTMLInputElement).value.trim();
  const result = await adminApi('POST', `/grants/${encodeURIComponent(g.id)}/extend`, {
    seconds: Number($('extend-by', HTMLSelectElement).value),
    ...(reason === '' ? {} : { reason }),
  });
  const grant = dataOf(result) as { expires_at: string } | undefined;
  status(
    'counter-status',
    ok(result) && grant
      ? t('counter.extended', { user: g.username, time: time(grant.expires_at) })
      : failure(result),
  );
  await loadGrants();
}

async function revoke(g: Grant): Promise<void> {
  if (!(await askConfirm(t('counter.revokeQuestion', { user: g.username }), t('counter.revoke')))) return;
  const result = await adminApi('POST', `/grants/${encodeURIComponent(g.id)}/revoke`, {});
  status('counter-status', ok(result) ? t('counter.revokedNow', { user: g.username }) : failure(result));
  await loadGrants();
}

async function recheck(i: Invoice): Promise<void> {
  const result = await adminApi('POST', `/invoices/${encodeURIComponent(i.id)}/recheck`);
  const answer = dataOf(result) as { provider_status: string } | undefined;
  status(
    'counter-status',
    ok(result) && answer
      ? t('counter.recheckResult', { number: i.number, status: answer.provider_status })
      : failure(result),
  );
  await reload();
}

async function markPaid(i: Invoice): Promise<void> {
  const form = await dialogForm(
    'mark-paid',
    'mark-paid-form',
    'mark-paid-cancel',
    t('counter.markPaidHeading', { number: i.number }),
  );
  if (!form) return;
  const result = await adminApi('POST', `/invoices/${encodeURIComponent(i.id)}/mark-paid`, {
    reason: $('mark-paid-reason', HTMLTextAreaElement).value,
  });
  if (ok(result)) {
    status('counter-status', t('counter.markedPaid', { number: i.number, phone: displayPhone(i.phone) }));
    showCredentials(dataOf(result) as Sale);
  } else {
    status('counter-status', failure(result));
  }
  await reload();
}

async function refund(g: Grant): Promise<void> {
  const amount = tzs(g.amount_tzs);
  const form = await dialogForm(
    'refund',
    'refund-form',
    'refund-cancel',
    t('counter.refundHeading', { number: g.invoice_number, amount }),
  );
  if (!form) return;
  const result = await adminApi('POST', `/invoices/${encodeURIComponent(g.invoice_id)}/refund`, {
    reason: $('refund-reason', HTMLTextAreaElement).value,
  });
  status(
    'counter-status',
    ok(result)
      ? t('counter.refundedNow', { number: g.invoice_number, amount, user: g.username })
      : failure(result),
  );
  await loadGrants();
}

async function loadPlans(): Promise<void> {
  const result = await adminApi('GET', withSite('/plans'));
  if (!ok(result)) return;
  const select = $('issue-plan', HTMLSelectElement);
  const plans = dataOf(result) as { id: string; name: string; price_tzs: number; active: boolean }[];
  select.replaceChildren(
    ...plans.map((p) => {
      const option = document.createElement('option');
      option.value = p.id;
      option.textContent = `${p.name} · ${tzs(p.price_tzs)}`;
      option.dataset.price = String(p.price_tzs);
      return option;
    }),
  );
  fillPrice();
}

/** Cash: the plan's price to start with (the staff member may take less). */
function fillPrice(): void {
  const option = $('issue-plan', HTMLSelectElement).selectedOptions[0];
  $('issue-amount', HTMLInputElement).value = option?.dataset.price ?? '';
}

if (can.counter) {
  const channel = $('issue-channel', HTMLSelectElement);
  channel.addEventListener('change', () => show($('issue-amount-row'), channel.value === 'cash'));
  $('issue-plan', HTMLSelectElement).addEventListener('change', fillPrice);
  void loadPlans();

  onSubmit('issue-form', async (form) => {
    status('counter-status', null);
    const phone = $('issue-phone', HTMLInputElement).value.trim();
    const result = await adminApi('POST', '/grants', {
      plan_id: $('issue-plan', HTMLSelectElement).value,
      channel: channel.value,
      ...(phone === '' ? {} : { phone }),
      ...(channel.value === 'cash'
        ? { amount_tzs: numberOrText($('issue-amount', HTMLInputElement).value) }
        : {}),
    });
    if (result.status === 201) {
      $('issue-phone', HTMLInputElement).value = '';
      showCredentials(dataOf(result) as Sale);
      await loadGrants();
    } else {
      apiError(form, result, ISSUE_FIELDS);
    }
  });
}
