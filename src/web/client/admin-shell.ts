import { api, dataOf, messageOf, ok, type ApiResult } from './api.js';
import { $, go, show } from './dom.js';
import { data, t } from './forms.js';
import { amount, bytesWords } from './portal-format.js';

/**
 * What every signed-in admin page shares: the staff admin API with the session check, sign-out,
 * the role's capabilities (the server already left out what the role may not use), number and
 * time formats, the tables, the status line and the confirmation dialog.
 */

export interface Capabilities {
  plans: boolean;
  devices: boolean;
  disconnect: boolean;
  sms: boolean;
  counter: boolean;
  markPaid: boolean;
  vouchers: boolean;
  audit: boolean;
  sites: boolean;
  addSite: boolean;
}

export const can = data.can as Capabilities;

/**
 * The sites the staff member sees when there are several (else none: a single venue never sees
 * the word), and the one the page's lists are narrowed to ('' for all of them).
 */
export const sites = (data.sites ?? []) as { id: string; name: string }[];
export const chosenSite = typeof data.site === 'string' ? data.site : '';

/** An admin API path narrowed to the chosen site (`?site_id=`), when one is chosen. */
export const withSite = (path: string): string =>
  chosenSite === ''
    ? path
    : `${path}${path.includes('?') ? '&' : '?'}site_id=${encodeURIComponent(chosenSite)}`;

/** A Site column for rows that belong to a site, when the staff member sees several (and all of them). */
export function siteColumn<T extends { site_id: string }>(): Column<T>[] {
  if (sites.length < 2 || chosenSite !== '') return [];
  const names = new Map(sites.map((s) => [s.id, s.name]));
  return [{ head: 'site.column', cell: (row) => names.get(row.site_id) ?? row.site_id, words: true }];
}

/** A form's site choice (`<id>`, present only with several sites): its value, or undefined. */
export function siteChoice(id: string): string | undefined {
  const select = document.getElementById(id);
  return select instanceof HTMLSelectElement ? select.value : undefined;
}

/** Sets a form's site choice to the row's site when the form has one. */
export function chooseSite(id: string, siteId: string): void {
  const select = document.getElementById(id);
  if (select instanceof HTMLSelectElement) select.value = siteId;
}

// The site filter (a GET form) applies as soon as the choice changes.
const siteFilter = document.getElementById('site-filter');
if (siteFilter instanceof HTMLSelectElement && siteFilter.form) {
  const form = siteFilter.form;
  siteFilter.addEventListener('change', () => {
    form.requestSubmit();
  });
  const button = document.getElementById('site-filter-show');
  if (button) show(button, false);
}

const here = (): string => `${location.pathname}${location.search}`;

/**
 * A staff admin API call (`path` below /api/v1/admin). A lost session (401: expired, signed out
 * elsewhere, role taken away) sends the person to sign in again and come back here.
 */
export async function adminApi(method: string, path: string, body?: unknown): Promise<ApiResult> {
  const result = await api(method, `/api/v1/admin${path}`, body);
  if (result.status === 401) go(`/admin/login?next=${encodeURIComponent(here())}`);
  return result;
}

/** The API's own message for a failure, or ours when there is none (no connection). */
export const failure = (result: ApiResult): string =>
  messageOf(result) || t(result.status === 429 ? 'common.tooMany' : 'common.network');

$('sign-out').addEventListener('click', () => {
  void api('POST', '/api/v1/admin/auth/logout').then(() => {
    go('/admin/login');
  });
});

const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** A time in the browser's zone, or in `timeZone` (the venue's, for "today"). */
export function time(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '';
  const format = timeZone
    ? new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone })
    : when;
  return format.format(new Date(iso));
}

export const tzs = (n: number): string => t('money.tzs', { amount: amount(n) });

export const bytes = (n: number): string => bytesWords(n);

/** 3725 → "1 h 2 min"; at most two units. */
export function shortDuration(seconds: number): string {
  const parts: string[] = [];
  let left = Math.max(0, Math.floor(seconds));
  for (const [key, size] of [
    ['dur.days', 86_400],
    ['dur.hours', 3_600],
    ['dur.minutes', 60],
    ['dur.seconds', 1],
  ] as const) {
    const n = Math.floor(left / size);
    if (n === 0 || parts.length === 2) continue;
    parts.push(t(key, { n }));
    left -= n * size;
  }
  return parts.length === 0 ? t('dur.seconds', { n: 0 }) : parts.join(' ');
}

/** A table column: its heading (string key) and what a row shows in it (text, or elements). */
export interface Column<T> {
  head: string;
  cell: (row: T) => string | Node[];
  /**
   * Free text (a message, a reason) that may wrap between words on a wide screen; every other
   * value (an address, an id, a time, an amount) stays on one line (app.css).
   */
  wrap?: boolean;
  /** A name (a plan's, a router's, a site's): may wrap between its words, with no wide minimum. */
  words?: boolean;
  /** Kept for columns that said so before every value stayed on one line; changes nothing now. */
  nowrap?: boolean;
}

/** The tone of each status word the lists show: the same pill on every page (app.css .badge). */
const TONES: Readonly<Record<string, 'good' | 'warn' | 'bad' | 'info' | ''>> = {
  active: 'good',
  paid: 'good',
  sale: 'good',
  online: 'good',
  delivered: 'good',
  sent: 'good',
  on_sale: 'good',
  live: 'good',
  redeemed: 'info',
  unused: 'info',
  queued: 'warn',
  pending: 'warn',
  down: 'warn',
  failed: 'bad',
  offline: 'bad',
  revoked: 'bad',
  cancelled: 'bad',
  expired: '',
  ended: '',
  refunded: '',
  refund: 'warn',
  archived: '',
  off_sale: '',
};

/** A status as a pill: its word (never colour alone), tinted by the kind of state. */
export function badge(state: string, text: string = state): HTMLSpanElement {
  const tone = TONES[state] ?? '';
  return element('span', text, tone ? `badge ${tone}` : 'badge');
}

/** A button for a row; `aria` names the row it acts on. */
export interface RowAction {
  label: string;
  aria: string;
  run: (button: HTMLButtonElement) => Promise<void>;
  danger?: boolean;
}

function actionButton(action: RowAction): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  if (action.danger) button.className = 'danger';
  button.textContent = action.label;
  button.setAttribute('aria-label', action.aria);
  button.addEventListener('click', () => {
    button.disabled = true;
    void action.run(button).finally(() => {
      button.disabled = false;
    });
  });
  return button;
}

/**
 * Loads a list from the API and draws it as a table in the slot `id` (on a phone each row is
 * a card, each cell labelled with its heading: app.css). Returns the rows, or null on failure
 * (the API's message is then shown under the slot).
 */
export async function loadTable<T>(
  id: string,
  path: string,
  columns: readonly Column<T>[],
  actions?: (row: T) => RowAction[],
): Promise<T[] | null> {
  const slot = $(id);
  const error = $(`${id}-error`);
  slot.setAttribute('aria-busy', 'true');
  const result = await adminApi('GET', withSite(path));
  slot.removeAttribute('aria-busy');
  show(error, !ok(result));
  if (!ok(result)) {
    error.textContent = messageOf(result) || t('common.loadFailed');
    return null;
  }
  const rows = dataOf(result) as T[];
  drawTable(id, rows, columns, actions);
  return rows;
}

/**
 * Text that wraps between words only: a word with a hyphen or a slash (an invoice number, a URL)
 * is kept on one line, where a browser would break it after the hyphen.
 */
function wholeWords(text: string): Node[] {
  if (text === '') return [];
  return text
    .split(/(\s+)/)
    .map((part) =>
      /[-/]/.test(part) && !/\s/.test(part) ? element('span', part, 'word') : document.createTextNode(part),
    );
}

/** A value with secondary facts under it, muted, one line each (empty ones left out): the table
 * stays narrow at 1440 px, and on a phone the value and its facts are one grid item. */
export function stacked(
  main: string | readonly Node[],
  ...under: readonly (string | null | undefined)[]
): Node[] {
  const box = document.createElement('span');
  if (typeof main === 'string') box.append(main);
  else box.append(...main);
  for (const fact of under) if (fact) box.append(element('span', fact, 'heard'));
  return [box];
}

/** Draws `rows` as a table in the slot `id` (or "nothing yet"), each row with its actions. */
export function drawTable<T>(
  id: string,
  rows: readonly T[],
  columns: readonly Column<T>[],
  actions?: (row: T) => RowAction[],
): void {
  const slot = $(id);
  if (rows.length === 0) {
    const p = document.createElement('p');
    p.textContent = t('common.none');
    slot.replaceChildren(p);
    return;
  }
  const table = document.createElement('table');
  table.className = 'rows';
  const head = table.createTHead().insertRow();
  for (const column of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = t(column.head);
    head.append(th);
  }
  if (actions) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.className = 'actions';
    const label = document.createElement('span');
    label.className = 'sr-only';
    label.textContent = t('common.actions');
    th.append(label);
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const column of columns) {
      const td = tr.insertCell();
      td.dataset.label = t(column.head);
      if (column.wrap) td.className = 'wrap';
      else if (column.words) td.className = 'words';
      // The value in one box: on a phone it sits beside its label, or under it when too wide.
      const value = document.createElement('span');
      value.className = 'value';
      const cell = column.cell(row);
      if (typeof cell !== 'string') value.append(...cell);
      else if (column.wrap || column.words) value.append(...wholeWords(cell));
      else value.textContent = cell;
      if (value.hasChildNodes()) td.append(value);
    }
    if (actions) {
      const td = tr.insertCell();
      td.className = 'actions';
      td.append(...actions(row).map(actionButton));
    }
  }
  slot.replaceChildren(table);
}

/**
 * Shows `text` (or elements) in a status line and moves focus there, so keyboard and
 * screen-reader users get it.
 */
export function status(id: string, text: string | Node[] | null): void {
  const line = $(id);
  if (Array.isArray(text)) line.replaceChildren(...text);
  else line.textContent = text ?? '';
  show(line, text !== null);
  if (text !== null) line.focus();
}

/** An element with text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

/** One router's answer about one session (Disconnect- or CoA-Request), as the admin API reports it. */
export interface RouterAnswer {
  nas_id: string;
  acct_session_id: string;
  answer: string;
  error_cause?: string | null;
}

/**
 * Each router's answer as a list, one line per session ("lobby-01 (acct-1): ack: …"), worded by
 * `words` (`answer.` for a disconnect, `change.` for a speed change), like the sessions page.
 */
export function answerList(sessions: readonly RouterAnswer[], words: 'answer' | 'change'): HTMLUListElement {
  const list = document.createElement('ul');
  list.append(
    ...sessions.map((s) =>
      element(
        'li',
        t('sessions.answer', {
          router: s.nas_id,
          session: s.acct_session_id,
          answer:
            s.answer === 'nak' && !s.error_cause && words === 'change'
              ? t('change.nakNoCause')
              : t(`${words}.${s.answer}`, { cause: s.error_cause ?? '?' }),
        }),
      ),
    ),
  );
  return list;
}

/** Asks in the page's dialog; resolves true only when the person confirms. */
export function askConfirm(question: string, yes: string): Promise<boolean> {
  const dialog = $('confirm', HTMLDialogElement);
  const yesButton = $('confirm-yes', HTMLButtonElement);
  const noButton = $('confirm-no', HTMLButtonElement);
  $('confirm-text').textContent = question;
  yesButton.textContent = yes;
  return new Promise((resolve) => {
    const answer = (value: boolean) => () => {
      yesButton.onclick = null;
      noButton.onclick = null;
      dialog.onclose = null;
      dialog.close();
      resolve(value);
    };
    yesButton.onclick = answer(true);
    noButton.onclick = answer(false);
    dialog.onclose = answer(false); // Escape
    dialog.showModal();
    noButton.focus();
  });
}

/** `text` as a number when it is one (so the API checks the value), else as typed (the API says why). */
export function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** A number typed in a unit as the API's whole base unit (seconds, bytes); else as typed. */
export function inUnit(text: string, unit: number): number | string {
  const n = numberOrText(text);
  if (typeof n === 'string') return n;
  const scaled = n * unit;
  const whole = Math.round(scaled);
  return Math.abs(scaled - whole) < 1e-6 ? whole : scaled;
}
