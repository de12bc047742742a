import { counterErrors } from './counter.errors.js';
import type { WifiDeps } from './deps.js';
import { listAudit, presentAudit } from './audit.js';
import type { SiteScope } from './sites.js';

/**
 * GET /api/v1/admin/audit and `hotspot-ctl audit list`: the audit trail newest first, a page at a
 * time. The filters are optional strings as a query string carries them; `cursor` is the
 * `next_cursor` of the page before (opaque: the last entry's time and id).
 */
export interface AuditListRequest {
  target_type?: string | undefined;
  target_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

function instant(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) throw counterErrors.auditTimeInvalid();
  return new Date(ms).toISOString();
}

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

export async function auditPage(deps: Pick<WifiDeps, 'db'>, request: AuditListRequest, scope: SiteScope) {
  const limit =
    request.limit === undefined || request.limit === '' ? AUDIT_PAGE_DEFAULT : Number(request.limit);
  if (!/^\d+$/.test(request.limit ?? '1') || !Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
    throw counterErrors.auditLimitInvalid();
  const from = instant(request.from);
  const to = instant(request.to);
  const after = decodeCursor(request.cursor);
  const rows = await listAudit(deps.db, {
    ...(request.target_type && { targetType: request.target_type }),
    ...(request.target_id && { targetId: request.target_id }),
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
