import { ok } from './api.js';
import { t } from './forms.js';
import { adminApi, askConfirm, badge, element, failure, status, type RowAction } from './admin-shell.js';

/**
 * Archive, unarchive and delete on the plans and routers pages (issue 21,
 * docs/decisions/0037-archive.md), admin role only (the pages pass these actions to admins
 * only), and the list's Active / Archived / All filter, kept in the page's address (`?status=`).
 */

export const ARCHIVE_STATUSES = ['', 'archived', 'all'] as const;
export type ArchiveStatus = (typeof ARCHIVE_STATUSES)[number];

/** The list's status filter: a select in the lists' filter bar above the table slot `id`. */
export function archiveFilter(id: string, reload: () => Promise<unknown>): () => ArchiveStatus {
  const params = new URLSearchParams(location.search);
  const asked = params.get('status') ?? '';
  let chosen: ArchiveStatus = (ARCHIVE_STATUSES as readonly string[]).includes(asked)
    ? (asked as ArchiveStatus)
    : '';
  const form = document.createElement('form');
  form.className = 'filters';
  form.setAttribute('role', 'search');
  form.setAttribute('aria-label', t('list.filters'));
  const box = document.createElement('div');
  const label = element('label', t('list.status'));
  const select = document.createElement('select');
  select.id = `${id}-show`;
  label.htmlFor = select.id;
  select.append(
    new Option(t('archive.showActive'), ''),
    new Option(t('archive.showArchived'), 'archived'),
    new Option(t('archive.showAll'), 'all'),
  );
  select.value = chosen;
  box.append(label, select);
  form.append(box);
  document.getElementById(id)?.before(form);
  select.addEventListener('change', () => {
    chosen = select.value as ArchiveStatus;
    const next = new URLSearchParams(location.search);
    if (chosen === '') next.delete('status');
    else next.set('status', chosen);
    const query = next.toString();
    history.replaceState(null, '', `${location.pathname}${query === '' ? '' : `?${query}`}`);
    void reload();
  });
  return () => chosen;
}

/** A list path with the filter's `status` when one is chosen. */
export const withStatus = (path: string, chosen: ArchiveStatus): string =>
  chosen === '' ? path : `${path}?status=${chosen}`;

interface Archivable {
  id: string;
  name: string;
  archived_at: string | null;
}

export interface ArchiveTarget<T extends Archivable> {
  /** `plans` or `devices`: the API's collection and the strings' prefix. */
  kind: 'plans' | 'devices';
  statusId: string;
  reload: () => Promise<unknown>;
  /** Routers: their open sessions, offered to be disconnected when archiving is refused for them. */
  liveSessions?: (row: T) => number;
}

async function run(
  target: ArchiveTarget<Archivable>,
  row: Archivable,
  method: 'POST' | 'DELETE',
  action: 'archive' | 'unarchive' | 'delete',
  query = '',
): Promise<boolean | 409> {
  const base = `/${target.kind}/${encodeURIComponent(row.id)}`;
  const result = await adminApi(method, action === 'delete' ? base : `${base}/${action}${query}`);
  if (!ok(result)) {
    status(target.statusId, failure(result));
    return result.status === 409 ? 409 : false;
  }
  status(target.statusId, t(`archive.${action}d`, { name: row.name }));
  await target.reload();
  return true;
}

/** Archive (or Unarchive) and Delete for one row, each asked in the page's dialog first. */
export function archiveActions<T extends Archivable>(target: ArchiveTarget<T>, row: T): RowAction[] {
  const k = target.kind;
  const base = target as ArchiveTarget<Archivable>;
  const archived = row.archived_at !== null;
  const archive: RowAction = archived
    ? {
        label: t('archive.unarchive'),
        aria: t('archive.unarchiveAria', { name: row.name }),
        run: async () => {
          if (
            !(await askConfirm(
              t(`archive.${k}.unarchiveQuestion`, { name: row.name }),
              t('archive.unarchive'),
            ))
          )
            return;
          await run(base, row, 'POST', 'unarchive');
        },
      }
    : {
        label: t('archive.archive'),
        aria: t('archive.archiveAria', { name: row.name }),
        run: async () => {
          if (
            !(await askConfirm(t(`archive.${k}.archiveQuestion`, { name: row.name }), t('archive.archive')))
          )
            return;
          const done = await run(base, row, 'POST', 'archive');
          const n = target.liveSessions?.(row) ?? 0;
          if (done !== 409 || target.liveSessions === undefined) return;
          const force = t('archive.force', { n });
          if (!(await askConfirm(t('archive.forceQuestion', { name: row.name, n }), force))) return;
          await run(base, row, 'POST', 'archive', '?force=true');
        },
      };
  return [
    archive,
    {
      label: t('archive.delete'),
      aria: t('archive.deleteAria', { name: row.name }),
      danger: true,
      run: async () => {
        if (!(await askConfirm(t(`archive.${k}.deleteQuestion`, { name: row.name }), t('archive.delete'))))
          return;
        await run(base, row, 'DELETE', 'delete');
      },
    },
  ];
}

/** The Archived pill beside an archived row's name. */
export const archivedPill = (row: Archivable): Node[] =>
  row.archived_at === null ? [] : [document.createTextNode(' '), badge('archived', t('archive.pill'))];
