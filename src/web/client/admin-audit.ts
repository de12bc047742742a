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

/** The fields that changed between before and after (top level), as "field: old → new". */
function changes(e: Entry): Node[] {
  if (typeof e.after !== 'object' || e.after === null) return [];
  const before = (e.before ?? {}) as Record<string, unknown>;
  const after = e.after as Record<string, unknown>;
  const lines = Object.keys(after)
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) =>
      element(
        'li',
        e.before === null
          ? `${k}: ${JSON.stringify(after[k])}`
          : `${k}: ${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`,
      ),
    );
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
