import { dataOf, messageOf, ok } from './api.js';
import { $, show } from './dom.js';
import { t } from './forms.js';
import { adminApi, drawTable, element, withSite, type Column, type RowAction } from './admin-shell.js';

/**
 * An admin list the person can narrow (issue 21): a filter bar (search, a status or kind, a date
 * range) above the table, pages of PER_PAGE rows below it, and an "Export CSV" link that
 * downloads the filtered list (the API's `format=csv`). The API checks every value and its
 * message shows under the table.
 */

const PER_PAGE = 50;

export interface Choice {
  /** The query parameter: `status` or `kind`. */
  name: 'status' | 'kind';
  /** Its label's string key. */
  label: string;
  /** The values, shown as the API words them (the same words as the status pills)… */
  values: readonly string[];
  /** …unless this words them for people. */
  show?: (value: string) => string;
}

export interface FilteredList<T> {
  id: string;
  /** Below /api/v1/admin. */
  path: string;
  columns: readonly Column<T>[];
  actions?: (row: T) => RowAction[];
  /** The search field's hint: what `q` looks in. */
  searchHint: string;
  choices?: readonly Choice[];
  /** Text filters besides the search: the query parameter and its label's string key. */
  texts?: readonly { name: string; label: string }[];
  /** Parameters every load sends, not in the filter bar (a link's `?router=`). */
  fixed?: Readonly<Record<string, string>>;
}

function field(label: string, control: HTMLInputElement | HTMLSelectElement): HTMLDivElement {
  const box = document.createElement('div');
  const name = element('label', label);
  name.htmlFor = control.id;
  box.append(name, control);
  return box;
}

function input(id: string, type: string): HTMLInputElement {
  const el = document.createElement('input');
  el.id = id;
  el.type = type;
  return el;
}

function select(id: string, choice: Choice): HTMLSelectElement {
  const el = document.createElement('select');
  el.id = id;
  const show = choice.show ?? ((v: string) => v);
  el.append(new Option(t('list.any'), ''), ...choice.values.map((v) => new Option(show(v), v)));
  return el;
}

/** Draws the filter bar, the table and its pager; returns the reload for after an action. */
export function filteredTable<T>(list: FilteredList<T>): () => Promise<void> {
  const { id } = list;
  const slot = $(id);
  const error = $(`${id}-error`);
  const form = document.createElement('form');
  form.className = 'filters';
  form.setAttribute('role', 'search');
  form.setAttribute('aria-label', t('list.filters'));
  const q = input(`${id}-q`, 'search');
  q.placeholder = list.searchHint;
  const selects = (list.choices ?? []).map((c) => ({ choice: c, el: select(`${id}-${c.name}`, c) }));
  const texts = (list.texts ?? []).map((f) => ({
    name: f.name,
    label: f.label,
    el: input(`${id}-${f.name}`, 'text'),
  }));
  const from = input(`${id}-from`, 'date');
  const to = input(`${id}-to`, 'date');
  const apply = element('button', t('list.apply'));
  apply.type = 'submit';
  form.append(
    field(t('list.search'), q),
    ...texts.map((f) => field(t(f.label), f.el)),
    ...selects.map(({ choice, el }) => field(t(choice.label), el)),
    field(t('list.from'), from),
    field(t('list.to'), to),
    apply,
  );
  slot.before(form);

  const pager = document.createElement('nav');
  pager.className = 'pager';
  pager.setAttribute('aria-label', t('list.pages'));
  const prev = element('button', t('list.prev'));
  const next = element('button', t('list.next'));
  const where = element('span', '');
  const csv = element('a', t('list.export'));
  csv.className = 'csv';
  csv.setAttribute('download', '');
  for (const b of [prev, next]) b.type = 'button';
  pager.append(prev, where, next, csv);
  error.after(pager);

  let page = 1;
  const query = (extra: Record<string, string>): string => {
    const params = new URLSearchParams(list.fixed);
    if (q.value.trim() !== '') params.set('q', q.value.trim());
    for (const { choice, el } of selects) if (el.value !== '') params.set(choice.name, el.value);
    for (const { name, el } of texts) if (el.value.trim() !== '') params.set(name, el.value.trim());
    if (from.value !== '') params.set('from', from.value);
    if (to.value !== '') params.set('to', to.value);
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return withSite(`${list.path}?${params.toString()}`);
  };

  const load = async (): Promise<void> => {
    slot.setAttribute('aria-busy', 'true');
    const result = await adminApi('GET', query({ page: String(page), per_page: String(PER_PAGE) }));
    slot.removeAttribute('aria-busy');
    show(error, !ok(result));
    if (!ok(result)) {
      error.textContent = messageOf(result) || t('common.loadFailed');
      return;
    }
    drawTable(id, dataOf(result) as T[], list.columns, list.actions);
    const more = result.headers.get('X-Has-More') === 'true';
    prev.disabled = page === 1;
    next.disabled = !more;
    where.textContent = t('list.page', { page });
    csv.href = `/api/v1/admin${query({ format: 'csv' })}`;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    page = 1;
    void load();
  });
  prev.addEventListener('click', () => {
    page = Math.max(1, page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    page += 1;
    void load();
  });
  void load();
  return load;
}
