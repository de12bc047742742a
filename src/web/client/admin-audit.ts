import { dataOf, ok } from './api.js';
import { $, show } from './dom.js';
import { onSubmit } from './forms.js';
import { adminApi, drawTable, element, failure, time } from './admin-shell.js';

/**
 * /admin/audit (admins): GET /api/v1/admin/audit, newest first, narrowed by the filter form; the
 * "Older entries" button follows the API's next_cursor.
 */

interface Entry {
  at: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  reason: string | null;
  before: unknown;
  after: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The fields that changed between before and after, as "field: old → new" ("field: new" where it
 * was not there before); a record inside the record (a refund's grant) by its changed fields.
 */
function changedLines(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  prefix = '',
): string[] {
  return Object.keys(after).flatMap((k) => {
    const [was, is] = [before[k], after[k]];
    if (JSON.stringify(was) === JSON.stringify(is)) return [];
    if (isRecord(was) && isRecord(is)) return changedLines(was, is, `${prefix}${k}.`);
    return [
      was === undefined
        ? `${prefix}${k}: ${JSON.stringify(is)}`
        : `${prefix}${k}: ${JSON.stringify(was)} → ${JSON.stringify(is)}`,
    ];
  });
}

function changes(e: Entry): Node[] {
  if (!isRecord(e.after)) return [];
  const lines = changedLines(isRecord(e.before) ? e.before : {}, e.after).map((line) => element('li', line));
  if (lines.length === 0) return [];
  const list = document.createElement('ul');
  list.className = 'changes';
  list.append(...lines);
  return [list];
}

let query = new URLSearchParams();
let entries: Entry[] = [];

async function load(cursor: string | null): Promise<void> {
  const params = new URLSearchParams(query);
  if (cursor) params.set('cursor', cursor);
  const slot = $('audit');
  slot.setAttribute('aria-busy', 'true');
  const result = await adminApi('GET', `/audit${params.size > 0 ? `?${params.toString()}` : ''}`);
  slot.removeAttribute('aria-busy');
  const error = $('audit-error');
  show(error, !ok(result));
  if (!ok(result)) {
    error.textContent = failure(result);
    return;
  }
  entries = cursor ? [...entries, ...(dataOf(result) as Entry[])] : (dataOf(result) as Entry[]);
  drawTable<Entry>('audit', entries, [
    { head: 'audit.when', cell: (e) => time(e.at), nowrap: true },
    { head: 'audit.who', cell: (e) => e.actor },
    { head: 'audit.action', cell: (e) => e.action, nowrap: true },
    { head: 'audit.target', cell: (e) => `${e.target_type} ${e.target_id}` },
    { head: 'audit.reason', cell: (e) => e.reason ?? '', wrap: true },
    { head: 'audit.changes', cell: changes, wrap: true },
  ]);
  const next = (result.body as { next_cursor?: string | null }).next_cursor ?? null;
  const more = $('audit-more', HTMLButtonElement);
  show(more, next !== null);
  more.onclick = next === null ? null : () => void load(next);
}

onSubmit('audit-filter', async () => {
  query = new URLSearchParams();
  const set = (name: string, id: string): void => {
    const value = ($(id) as HTMLInputElement | HTMLSelectElement).value.trim();
    if (value !== '') query.set(name, value);
  };
  set('target_type', 'audit-type');
  set('target_id', 'audit-target');
  set('from', 'audit-from');
  set('to', 'audit-to');
  await load(null);
});

void load(null);
