import { dataOf, ok } from './api.js';
import { archiveActions, archivedPill, archiveFilter, withStatus } from './admin-archive.js';
import { $, clearErrors, show } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import {
  adminApi,
  answerList,
  badge,
  bytes,
  can,
  chooseSite,
  element,
  failure,
  inUnit,
  loadTable,
  numberOrText,
  shortDuration,
  siteChoice,
  siteColumn,
  status,
  tzs,
  type RouterAnswer,
} from './admin-shell.js';

/**
 * /admin/plans: the plans (GET /api/v1/admin/plans); admins create one (POST) or change one
 * (PATCH, always with every value, `active` included, since an omitted `active` turns a plan
 * back on, and `remember_device`). The API checks the values; its message appears next to the
 * field it is about.
 * A changed speed reaches access already sold only when asked ("apply to guests online now":
 * POST …/apply-to-live after the PATCH), and the page reports what each router answered.
 */

interface Plan {
  id: string;
  name: string;
  description: string;
  price_tzs: number;
  duration_seconds: number;
  data_limit_bytes: number | null;
  active: boolean;
  sort_order: number;
  max_devices: number;
  download_kbps: number | null;
  upload_kbps: number | null;
  remember_device: boolean;
  site_id: string;
  archived_at: string | null;
}

/** POST /api/v1/admin/plans/{id}/apply-to-live. */
interface SpeedChange {
  grants_updated: number;
  status: string;
  sessions: RouterAnswer[];
}

/** Which field each of the API's plan messages is about (src/wifi/errors.ts). */
const FIELDS = {
  'name must': 'plan-name',
  description: 'plan-description',
  price_tzs: 'plan-price',
  duration_seconds: 'plan-duration',
  data_limit_bytes: 'plan-data',
  max_devices: 'plan-max-devices',
  sort_order: 'plan-sort',
  'active must': 'plan-active',
  download_kbps: 'plan-download',
  upload_kbps: 'plan-upload',
  remember_device: 'plan-remember-device',
};

const decimal = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 3 });

/** 4000 → "4 Mbit/s", 1500 → "1.5 Mbit/s", 512 → "512 kbit/s"; null → "no limit". */
const speed = (kbps: number | null): string =>
  kbps === null
    ? t('plan.noLimit')
    : kbps >= 1000
      ? t('speed.Mbps', { n: decimal.format(kbps / 1000) })
      : t('speed.kbps', { n: decimal.format(kbps) });

const input = (id: string): HTMLInputElement => $(id, HTMLInputElement);
const unit = (id: string): HTMLSelectElement => $(`${id}-unit`, HTMLSelectElement);
let editing: Plan | null = null;
const chosenStatus = archiveFilter('plans', () => load());

const load = (): Promise<Plan[] | null> =>
  loadTable<Plan>(
    'plans',
    withStatus('/plans', chosenStatus()),
    [
      { head: 'plan.name', cell: (p) => [document.createTextNode(p.name), ...archivedPill(p)], words: true },
      { head: 'plan.price', cell: (p) => tzs(p.price_tzs), nowrap: true },
      { head: 'plan.duration', cell: (p) => shortDuration(p.duration_seconds) },
      {
        head: 'plan.dataLimit',
        cell: (p) => (p.data_limit_bytes === null ? t('plan.noLimit') : bytes(p.data_limit_bytes)),
      },
      { head: 'plan.downloadHead', cell: (p) => speed(p.download_kbps), nowrap: true },
      { head: 'plan.uploadHead', cell: (p) => speed(p.upload_kbps), nowrap: true },
      { head: 'plan.maxDevices', cell: (p) => String(p.max_devices) },
      { head: 'plan.remembers', cell: (p) => t(p.remember_device ? 'plan.yes' : 'plan.no') },
      { head: 'plan.sortOrder', cell: (p) => String(p.sort_order) },
      {
        head: 'plan.status',
        cell: (p) => [badge(p.active ? 'on_sale' : 'off_sale', t(p.active ? 'plan.onSale' : 'plan.offSale'))],
      },
      ...siteColumn<Plan>(),
    ],
    can.plans
      ? (p) => [
          {
            label: t('common.edit'),
            aria: `${t('common.edit')}: ${p.name}`,
            run: () => {
              edit(p);
              return Promise.resolve();
            },
          },
          ...archiveActions({ kind: 'plans', statusId: 'plans-status', reload: load }, p),
        ]
      : undefined,
  );

/** The largest unit the value is a whole number of (else the smallest unit). */
function pickUnit(id: string, value: number): void {
  const select = unit(id);
  const sizes = [...select.options].map((o) => Number(o.value)).sort((x, y) => y - x);
  const size = sizes.find((s) => value % s === 0) ?? sizes.at(-1) ?? 1;
  select.value = String(size);
  input(id).value = String(value / size);
}

function edit(plan: Plan): void {
  editing = plan;
  const form = $('plan-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  $('plan-form-heading').textContent = t('plans.editing', { name: plan.name });
  $('plan-form-submit').textContent = t('plans.save');
  show($('plan-cancel'));
  input('plan-name').value = plan.name;
  $('plan-description', HTMLTextAreaElement).value = plan.description;
  input('plan-price').value = String(plan.price_tzs);
  pickUnit('plan-duration', plan.duration_seconds);
  if (plan.data_limit_bytes !== null) pickUnit('plan-data', plan.data_limit_bytes);
  if (plan.download_kbps !== null) pickUnit('plan-download', plan.download_kbps);
  if (plan.upload_kbps !== null) pickUnit('plan-upload', plan.upload_kbps);
  input('plan-max-devices').value = String(plan.max_devices);
  input('plan-sort').value = String(plan.sort_order);
  input('plan-active').checked = plan.active;
  input('plan-remember-device').checked = plan.remember_device;
  chooseSite('plan-site', plan.site_id);
  show($('plan-apply-live-row'));
  input('plan-name').focus();
}

function createMode(): void {
  editing = null;
  const form = $('plan-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  $('plan-form-heading').textContent = t('plans.new');
  $('plan-form-submit').textContent = t('plans.create');
  show($('plan-apply-live-row'), false);
  show($('plan-cancel'), false);
}

/** A speed as typed in its unit, as the API's kbit/s; empty: no limit (null). */
function speedValue(id: string): number | string | null {
  const text = input(id).value.trim();
  return text === '' ? null : inUnit(text, Number(unit(id).value));
}

/** The plan's speed to the access already sold, then what changed and what each router said. */
async function applyToLive(plan: Plan): Promise<void> {
  status('plans-status', t('plans.applying', { name: plan.name }));
  // Up to three tries 2 s apart per router: the answers may take a few seconds.
  const result = await adminApi('POST', `/plans/${encodeURIComponent(plan.id)}/apply-to-live`);
  if (!ok(result)) {
    status('plans-status', t('plans.applyFailed', { name: plan.name, reason: failure(result) }));
    return;
  }
  const change = dataOf(result) as SpeedChange;
  const n = change.grants_updated;
  status('plans-status', [
    element('h2', t('plans.applied', { name: plan.name })),
    element('p', t(n === 0 ? 'plans.grants.0' : n === 1 ? 'plans.grants.1' : 'plans.grants.n', { n })),
    ...(change.sessions.length === 0
      ? [element('p', t('plans.noSessions'))]
      : [element('p', t('plans.routers')), answerList(change.sessions, 'change')]),
  ]);
}

if (can.plans) {
  onSubmit('plan-form', async (form) => {
    const name = requiredValue('plan-name');
    const price = name === null ? null : requiredValue('plan-price');
    const duration = price === null ? null : requiredValue('plan-duration');
    if (name === null || price === null || duration === null) return;
    const data = input('plan-data').value.trim();
    const body = {
      name,
      description: $('plan-description', HTMLTextAreaElement).value,
      price_tzs: numberOrText(price),
      duration_seconds: inUnit(duration, Number(unit('plan-duration').value)),
      data_limit_bytes: data === '' ? null : inUnit(data, Number(unit('plan-data').value)),
      max_devices: numberOrText(input('plan-max-devices').value),
      sort_order: numberOrText(input('plan-sort').value),
      active: input('plan-active').checked,
      remember_device: input('plan-remember-device').checked,
      download_kbps: speedValue('plan-download'),
      upload_kbps: speedValue('plan-upload'),
      site_id: siteChoice('plan-site'),
    };
    const plan = editing;
    const applyLive = plan !== null && input('plan-apply-live').checked;
    const result = plan
      ? await adminApi('PATCH', `/plans/${encodeURIComponent(plan.id)}`, body)
      : await adminApi('POST', '/plans', body);
    if (!ok(result)) {
      apiError(form, result, FIELDS);
      return;
    }
    const saved = dataOf(result) as Plan;
    createMode();
    if (applyLive) {
      await applyToLive(saved);
      await load();
      return;
    }
    await load();
    status('plans-status', t(plan ? 'plans.updated' : 'plans.created', { name: saved.name }));
  });
  $('plan-cancel').addEventListener('click', () => {
    createMode();
    input('plan-name').focus();
  });
}

void load();
