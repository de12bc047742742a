import { t } from './forms.js';
import { element, time } from './admin-shell.js';
import { filteredTable } from './admin-filters.js';

/**
 * /admin/audit (admins): GET /api/v1/admin/audit, newest first, with the admin lists' filter bar
 * (who, action, record, a search, a date range), pages and CSV.
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

filteredTable<Entry>({
  id: 'audit',
  path: '/audit',
  searchHint: t('audit.searchHint'),
  texts: [
    { name: 'actor', label: 'audit.who' },
    { name: 'action', label: 'audit.action' },
    { name: 'target', label: 'audit.target' },
  ],
  columns: [
    { head: 'audit.when', cell: (e) => time(e.at) },
    { head: 'audit.who', cell: (e) => e.actor },
    { head: 'audit.action', cell: (e) => e.action },
    { head: 'audit.target', cell: (e) => `${e.target_type} ${e.target_id}` },
    { head: 'audit.reason', cell: (e) => e.reason ?? '', wrap: true },
    { head: 'audit.changes', cell: changes, wrap: true },
  ],
});
