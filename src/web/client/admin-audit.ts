import { t } from './forms.js';
import { element, stacked, time } from './admin-shell.js';
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** An id by its first 8 characters (the full one is in the JSON under the list). */
const shortId = (id: string): string => `${id.slice(0, 8)}…`;

/**
 * A value in a few characters: an id shortened, a time as the lists show it, a record by what
 * names it (an invoice's number, a grant's username) or its shortened id.
 */
function short(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'string') return UUID.test(v) ? shortId(v) : INSTANT.test(v) ? time(v) : v;
  if (isRecord(v)) {
    const name = v.number ?? v.username ?? v.name ?? v.id;
    return typeof name === 'string' ? short(name) : '{…}';
  }
  return JSON.stringify(v);
}

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
      was === undefined ? `${prefix}${k}: ${short(is)}` : `${prefix}${k}: ${short(was)} → ${short(is)}`,
    ];
  });
}

/** The changed fields in short, and the entry's whole before and after behind a toggle. */
function changes(e: Entry): Node[] {
  if (!isRecord(e.after)) return [];
  const lines = changedLines(isRecord(e.before) ? e.before : {}, e.after).map((line) => element('li', line));
  if (lines.length === 0) return [];
  const list = document.createElement('ul');
  list.className = 'changes';
  list.append(...lines);
  const details = document.createElement('details');
  details.append(
    element('summary', t('audit.fullJson')),
    element('pre', JSON.stringify({ before: e.before, after: e.after }, null, 2)),
  );
  return [list, details];
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
    {
      head: 'audit.target',
      cell: (e) => stacked(e.target_type, UUID.test(e.target_id) ? shortId(e.target_id) : e.target_id),
    },
    { head: 'audit.reason', cell: (e) => e.reason ?? '', wrap: true },
    { head: 'audit.changes', cell: changes, wrap: true },
  ],
});
