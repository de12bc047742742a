import { data, t } from './forms.js';
import { badge, siteColumn, stacked, time, tzs, type Column } from './admin-shell.js';
import { filteredTable } from './admin-filters.js';
import { displayPhone } from './portal-format.js';

/** /admin/guests, /admin/invoices, /admin/payments: read-only tables, newest first (as the API sends them). */

interface Guest {
  phone: string;
  purchases: number;
  invoices: number;
  spent_tzs: number;
  first_seen: string;
  last_seen: string;
}
interface Invoice {
  number: string;
  plan_name: string | null;
  phone: string;
  amount_tzs: number;
  status: string;
  provider: string;
  provider_reference: string | null;
  failure_reason: string | null;
  created_at: string;
  paid_at: string | null;
  site_id: string;
  /** Who sold it at the counter, in words (null: nobody at the counter). */
  sold_by_name: string | null;
}
interface Payment {
  invoice_number: string;
  channel: string;
  kind: string;
  amount_tzs: number;
  phone: string | null;
  provider: string;
  provider_reference: string | null;
  paid_at: string;
  site_id: string;
  sold_by_name: string | null;
}

const guests: Column<Guest>[] = [
  { head: 'guests.phone', cell: (g) => displayPhone(g.phone) },
  { head: 'guests.purchases', cell: (g) => String(g.purchases) },
  { head: 'guests.invoices', cell: (g) => String(g.invoices) },
  { head: 'guests.spent', cell: (g) => tzs(g.spent_tzs) },
  { head: 'guests.firstSeen', cell: (g) => time(g.first_seen) },
  { head: 'guests.lastSeen', cell: (g) => time(g.last_seen) },
];

// The time under the number, the reference under the provider: the table fits 1440 px.
const invoices: Column<Invoice>[] = [
  { head: 'invoices.number', cell: (i) => stacked(i.number, time(i.created_at)) },
  { head: 'invoices.plan', cell: (i) => i.plan_name ?? '', words: true },
  { head: 'invoices.phone', cell: (i) => displayPhone(i.phone) },
  { head: 'invoices.amount', cell: (i) => tzs(i.amount_tzs) },
  { head: 'invoices.status', cell: (i) => [badge(i.status)] },
  { head: 'invoices.provider', cell: (i) => stacked(i.provider, i.provider_reference) },
  { head: 'invoices.paid', cell: (i) => time(i.paid_at) },
  { head: 'invoices.failure', cell: (i) => i.failure_reason ?? '', wrap: true },
  { head: 'list.soldBy', cell: (i) => i.sold_by_name ?? '' },
  ...siteColumn<Invoice>(),
];

const payments: Column<Payment>[] = [
  { head: 'payments.paid', cell: (p) => time(p.paid_at) },
  { head: 'payments.invoice', cell: (p) => p.invoice_number },
  { head: 'payments.amount', cell: (p) => tzs(p.amount_tzs) },
  { head: 'payments.kind', cell: (p) => [badge(p.kind, t(`payments.kind.${p.kind}`))] },
  { head: 'payments.channel', cell: (p) => t(`channel.${p.channel}`) },
  { head: 'payments.phone', cell: (p) => (p.phone ? displayPhone(p.phone) : '') },
  { head: 'payments.provider', cell: (p) => p.provider },
  { head: 'payments.reference', cell: (p) => p.provider_reference ?? '' },
  { head: 'list.soldBy', cell: (p) => p.sold_by_name ?? '' },
  ...siteColumn<Payment>(),
];

/** Who sold at the counter (issue 21: whether a cashier's cash adds up). */
const SELLER = [{ name: 'seller', label: 'list.seller' }];

switch (data.records) {
  case 'guests':
    filteredTable({ id: 'guests', path: '/guests', columns: guests, searchHint: t('guests.searchHint') });
    break;
  case 'invoices':
    filteredTable({
      id: 'invoices',
      path: '/invoices',
      columns: invoices,
      searchHint: t('invoices.searchHint'),
      texts: SELLER,
      choices: [
        {
          name: 'status',
          label: 'list.status',
          values: ['pending', 'paid', 'failed', 'expired', 'refunded'],
        },
      ],
    });
    break;
  case 'payments':
    filteredTable({
      id: 'payments',
      path: '/payments',
      columns: payments,
      searchHint: t('payments.searchHint'),
      texts: SELLER,
      choices: [
        {
          name: 'kind',
          label: 'payments.channel',
          values: ['mobile_money', 'voucher', 'cash', 'complimentary'],
          show: (v) => t(`channel.${v}`),
        },
      ],
    });
    break;
  default:
    throw new Error(t('common.loadFailed'));
}
