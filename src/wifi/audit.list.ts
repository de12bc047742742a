import { counterErrors } from './counter.errors.js';
import type { WifiDeps } from './deps.js';
import { listAudit, presentAudit } from './audit.js';
import type { SiteScope } from './sites.js';
import { listErrors, listInstant, type ListQuery } from './list-query.js';
import type { AuditQuery } from './audit.store.js';

/**
 * GET /api/v1/admin/audit and `hotspot-ctl audit list`: the audit trail newest first, a page at a
 * time. The filters are optional strings as a query string carries them; `cursor` is the
 * `next_cursor` of the page before (opaque: the last entry's time and id). `from`/`to` are read as
 * the other lists read them (list-query.ts): a bare date is that day in the list's time zone, and
 * a bare `to` takes in its whole day.
 */
export interface AuditListRequest {
  actor?: string | undefined;
  action?: string | undefined;
  target?: string | undefined;
  q?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const encodeCursor = (createdAt: string, id: string): string =>
  Buffer.from(`${createdAt}|${id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string | undefined): { createdAt: string; id: string } | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (
    createdAt === undefined ||
    id === undefined ||
    id === '' ||
    rest.length > 0 ||
    Number.isNaN(Date.parse(createdAt))
  )
    throw counterErrors.auditCursorInvalid();
  return { createdAt, id };
}

/**
 * A page of the trail by cursor. `timeZone`: the zone whose days a bare `from`/`to` names, as for
 * the other lists (listTimeZone: the one site of the scope, else VENUE_TIMEZONE).
 */
export async function auditPage(
  deps: Pick<WifiDeps, 'db'>,
  request: AuditListRequest,
  scope: SiteScope,
  timeZone: string,
) {
  const limit =
    request.limit === undefined || request.limit === '' ? AUDIT_PAGE_DEFAULT : Number(request.limit);
  if (!/^\d+$/.test(request.limit ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
    throw counterErrors.auditLimitInvalid();
  const from = listInstant(request.from, false, timeZone, counterErrors.auditTimeInvalid);
  const to = listInstant(request.to, true, timeZone, counterErrors.auditTimeInvalid);
  const after = decodeCursor(request.cursor);
  const rows = await listAudit(deps.db, {
    ...textFilters(request),
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
    ...(after !== undefined && { after }),
    sites: scope,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(presentAudit),
    nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}

const TEXT_MAX = 100;

/** The request's text filters, each at most TEXT_MAX characters (422 otherwise). */
function textFilters(request: AuditListRequest): Partial<AuditQuery> {
  const text = (value: string | undefined): string | undefined => {
    const trimmed = value?.trim();
    if (trimmed !== undefined && trimmed.length > TEXT_MAX) throw listErrors.textInvalid();
    return trimmed === '' ? undefined : trimmed;
  };
  const [actor, action, target, targetType, targetId] = [
    text(request.actor),
    text(request.action),
    text(request.target),
    text(request.target_type),
    text(request.target_id),
  ];
  return {
    ...(actor !== undefined && { actor }),
    ...(action !== undefined && { action }),
    ...(target !== undefined && { target }),
    ...(targetType !== undefined && { targetType }),
    ...(targetId !== undefined && { targetId }),
  };
}

/** Whether a request for the audit list asks for the admin lists' paging or CSV (list-query.ts). */
export const wantsListPaging = (
  query: Readonly<Record<string, string>>,
  accept: string | undefined,
): boolean =>
  query.page !== undefined ||
  query.per_page !== undefined ||
  query.format !== undefined ||
  /\btext\/csv\b/i.test(accept ?? '');

/**
 * The audit list with the admin lists' query string (issue 21): the filters above, `q`, a date
 * range (a bare `to` takes in its whole day), `page`/`per_page` or CSV, as list-query.ts parses.
 */
export async function auditList(
  deps: Pick<WifiDeps, 'db'>,
  request: AuditListRequest,
  asked: ListQuery,
  scope: SiteScope,
) {
  const { filter } = asked;
  const rows = await listAudit(deps.db, {
    ...textFilters(request),
    ...(filter.q !== undefined && { q: filter.q }),
    ...(filter.from !== undefined && { from: filter.from }),
    ...(filter.to !== undefined && { to: filter.to }),
    sites: scope,
    limit: filter.limit,
    offset: filter.offset,
  });
  return rows.map(presentAudit);
}

/** An entry as a CSV row: the records before and after as their JSON. */
export const auditCsvRow = (entry: ReturnType<typeof presentAudit>) => ({
  ...entry,
  before: entry.before === null ? null : JSON.stringify(entry.before),
  after: entry.after === null ? null : JSON.stringify(entry.after),
});

export const AUDIT_CSV = [
  'at',
  'actor',
  'action',
  'target_type',
  'target_id',
  'site_id',
  'reason',
  'before',
  'after',
];
