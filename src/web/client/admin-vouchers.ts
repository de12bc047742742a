import { dataOf, ok } from './api.js';
import { $, show } from './dom.js';
import { apiError, onSubmit, t } from './forms.js';
import {
  adminApi,
  askConfirm,
  can,
  element,
  failure,
  loadTable,
  numberOrText,
  siteColumn,
  status,
  time,
  tzs,
  withSite,
} from './admin-shell.js';

/**
 * /admin/vouchers (DESIGN.md §4.8, docs/decisions/0027-vouchers.md): the batches (GET
 * /api/v1/admin/vouchers) with a download of each one's states (…/export, no codes). Admins make
 * a batch (POST): its codes are shown this once, with print buttons (plain forms that post them
 * to /admin/vouchers/{id}/print and open the sheet in a new tab) and a CSV of them, the one copy
 * there will be. "Print again" posts codes from that CSV the same way; "Revoke" revokes a batch.
 */

interface Batch {
  id: string;
  plan_id: string;
  plan_name: string | null;
  site_id: string;
  count: number;
  prefix: string;
  /** The price the batch was made at (its own, whatever the plan says now). */
  price_tzs: number;
  valid_until: string | null;
  created_at: string;
  revoked_at: string | null;
  counts: { unused: number; redeemed: number; revoked: number; expired: number };
}

interface Created {
  id: string;
  plan_name?: string;
  valid_until: string | null;
  codes: { id: string; code: string }[];
}

const BATCH_FIELDS = {
  plan_id: 'batch-plan',
  count: 'batch-count',
  prefix: 'batch-prefix',
  length: 'batch-length',
  valid_until: 'batch-valid-until',
};

/** A batch as people tell it apart: the first block of its id. */
const shortId = (id: string): string => id.slice(0, 8);

const printAction = (batchId: string): string => `/admin/vouchers/${encodeURIComponent(batchId)}/print`;

/** A download of `url` (same origin: the session cookie goes with it) as `name`. */
function download(url: string, name: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

const load = (): Promise<Batch[] | null> =>
  loadTable<Batch>(
    'batches',
    '/vouchers',
    [
      { head: 'vouchers.planCol', cell: (b) => b.plan_name ?? b.plan_id },
      { head: 'vouchers.priceCol', cell: (b) => tzs(b.price_tzs) },
      { head: 'vouchers.countCol', cell: (b) => String(b.count) },
      { head: 'vouchers.unused', cell: (b) => String(b.counts.unused) },
      { head: 'vouchers.redeemed', cell: (b) => String(b.counts.redeemed) },
      { head: 'vouchers.revoked', cell: (b) => String(b.counts.revoked) },
      { head: 'vouchers.expired', cell: (b) => String(b.counts.expired) },
      { head: 'vouchers.createdCol', cell: (b) => time(b.created_at) },
      { head: 'vouchers.validCol', cell: (b) => (b.valid_until ? time(b.valid_until) : t('vouchers.noEnd')) },
      ...siteColumn<Batch>(),
    ],
    (b) => [
      {
        label: t('vouchers.export'),
        aria: t('vouchers.exportAria', { batch: shortId(b.id) }),
        run: () => {
          download(`/api/v1/admin/vouchers/${encodeURIComponent(b.id)}/export`, `vouchers-${b.id}.csv`);
          return Promise.resolve();
        },
      },
      ...(can.vouchers && b.counts.unused > 0
        ? [
            {
              label: t('vouchers.reprint'),
              aria: t('vouchers.reprintAria', { batch: shortId(b.id) }),
              run: () => {
                reprint(b);
                return Promise.resolve();
              },
            },
            {
              label: t('vouchers.revoke'),
              aria: t('vouchers.revokeAria', { batch: shortId(b.id) }),
              danger: true,
              run: () => revoke(b),
            },
          ]
        : []),
    ],
  );

async function revoke(b: Batch): Promise<void> {
  const question = t('vouchers.revokeQuestion', {
    n: b.counts.unused,
    batch: shortId(b.id),
    plan: b.plan_name ?? b.plan_id,
  });
  if (!(await askConfirm(question, t('vouchers.revoke')))) return;
  const result = await adminApi('POST', `/vouchers/${encodeURIComponent(b.id)}/revoke`);
  const answer = dataOf(result) as { revoked: number } | undefined;
  status(
    'vouchers-status',
    ok(result) && answer
      ? t('vouchers.revokedNow', { n: answer.revoked, batch: shortId(b.id) })
      : failure(result),
  );
  await load();
}

/** The print-again dialog: the saved codes pasted, or read from the CSV file, posted to a new tab. */
function reprint(b: Batch): void {
  const dialog = $('reprint', HTMLDialogElement);
  const form = $('reprint-form', HTMLFormElement);
  form.reset();
  form.action = printAction(b.id);
  $('reprint-heading').textContent = t('vouchers.reprintHeading', { batch: shortId(b.id) });
  dialog.showModal();
}

function initReprint(): void {
  const dialog = $('reprint', HTMLDialogElement);
  const file = $('reprint-file', HTMLInputElement);
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    void chosen.text().then((text) => {
      $('reprint-codes', HTMLTextAreaElement).value = text;
    });
  });
  // The sheet opens in its own tab; this page goes back to the list.
  $('reprint-form', HTMLFormElement).addEventListener('submit', () => {
    setTimeout(() => {
      dialog.close();
    }, 0);
  });
  $('reprint-cancel').addEventListener('click', () => {
    dialog.close();
  });
}

/** One CSV field (RFC 4180), as the CLI's `vouchers create --csv` writes it. */
const csvField = (value: string | null | undefined): string =>
  value === null || value === undefined
    ? ''
    : /[",\r\n]/.test(value)
      ? `"${value.replace(/"/g, '""')}"`
      : value;

/** The new codes as the CLI's `--csv` file (src/wifi/vouchers.present.ts codesCsv). */
function codesCsv(created: Created): string {
  const rows = [
    ['code', 'voucher_id', 'batch_id', 'plan', 'valid_until'],
    ...created.codes.map((c) => [c.code, c.id, created.id, created.plan_name ?? '', created.valid_until]),
  ];
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

let csvUrl: string | null = null;

function forgetCodes(): void {
  $('codes-list').replaceChildren();
  $('print-codes', HTMLTextAreaElement).value = '';
  $('codes-about').textContent = '';
  if (csvUrl !== null) URL.revokeObjectURL(csvUrl);
  csvUrl = null;
  show($('codes-box'), false);
}

/** The codes of a new batch, once: listed, in the print form, and as a CSV to download. */
function showCodes(created: Created): void {
  forgetCodes();
  $('codes-about').textContent = t('vouchers.codesAbout', {
    count: created.codes.length,
    plan: created.plan_name ?? '',
    batch: shortId(created.id),
  });
  $('codes-list').replaceChildren(...created.codes.map((c) => element('li', c.code)));
  $('print-codes', HTMLTextAreaElement).value = created.codes.map((c) => c.code).join('\n');
  $('print-form', HTMLFormElement).action = printAction(created.id);
  csvUrl = URL.createObjectURL(new Blob([codesCsv(created)], { type: 'text/csv' }));
  const url = csvUrl;
  $('codes-csv').onclick = () => {
    download(url, `voucher-codes-${created.id}.csv`);
  };
  const box = $('codes-box');
  show(box);
  box.focus();
}

async function loadPlans(): Promise<void> {
  const result = await adminApi('GET', withSite('/plans'));
  if (!ok(result)) return;
  const plans = dataOf(result) as { id: string; name: string; price_tzs: number }[];
  $('batch-plan', HTMLSelectElement).replaceChildren(
    ...plans.map((p) => {
      const option = document.createElement('option');
      option.value = p.id;
      option.textContent = `${p.name} · ${tzs(p.price_tzs)}`;
      return option;
    }),
  );
}

if (can.vouchers) {
  void loadPlans();
  initReprint();
  $('codes-done').addEventListener('click', () => {
    forgetCodes();
    void load();
  });
  onSubmit('batch-form', async (form) => {
    status('vouchers-status', null);
    const text = (id: string): string => $(id, HTMLInputElement).value.trim();
    const result = await adminApi('POST', '/vouchers', {
      plan_id: $('batch-plan', HTMLSelectElement).value,
      count: numberOrText(text('batch-count')),
      length: numberOrText(text('batch-length')),
      ...(text('batch-prefix') === '' ? {} : { prefix: text('batch-prefix').toUpperCase() }),
      ...(text('batch-valid-until') === '' ? {} : { valid_until: text('batch-valid-until') }),
    });
    if (result.status !== 201) {
      apiError(form, result, BATCH_FIELDS);
      return;
    }
    const created = dataOf(result) as Created;
    showCodes(created);
    await load();
  });
}

void load();
