import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { reportCsv, reportErrors, reportFileName, reportParameterUnknown, runReport } from './reports.js';
import { requireStaff } from './staff.http.js';

/**
 * GET /api/v1/admin/reports/{name} (issue 21; docs/decisions/0036-reports.md): any staff role
 * reads the reports of its sites; viewers see guests' phones masked. JSON `{data: report}`, or
 * the report's table as CSV with `?format=csv` or `Accept: text/csv` (`?table=` names a breakdown).
 */
const QUERY_PARAMETERS = new Set(['from', 'to', 'group', 'site', 'site_id', 'format', 'table']);

export function reportRoutes(deps: WifiDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/reports/:name',
      api: 'wifi',
      auth: requireStaff(deps, 'viewer'),
      handler: async ({ req, principal, params, query }) => {
        // A filter misspelt (or named as another endpoint names it) must not quietly widen the
        // report to every site: every parameter is one of these.
        const unknown = Object.keys(query).find((k) => !QUERY_PARAMETERS.has(k));
        if (unknown !== undefined) throw reportParameterUnknown(unknown.slice(0, 40));
        // `site_id`, as the admin lists name it, is the same filter as `site`.
        if (query.site !== undefined && query.site_id !== undefined && query.site !== query.site_id)
          throw reportErrors.siteTwice();
        const site = query.site ?? query.site_id;
        const format = query.format ?? '';
        if (!['', 'json', 'csv'].includes(format)) throw reportErrors.formatInvalid();
        const csv = format === 'csv' || (format === '' && /\btext\/csv\b/.test(req.headers.accept ?? ''));
        const report = await runReport(
          deps,
          params.name ?? '',
          { from: query.from, to: query.to, group: query.group, site },
          { scope: principal.sites, maskPhones: principal.role === 'viewer' },
        );
        if (!csv) {
          if (query.table !== undefined) throw reportErrors.tableInvalid();
          return { data: report, headers: { 'Cache-Control': 'no-store' } };
        }
        return {
          body: reportCsv(report, query.table),
          type: 'text/csv; charset=utf-8',
          headers: {
            'Cache-Control': 'no-store',
            'Content-Disposition': `attachment; filename="${reportFileName(report, query.table)}"`,
          },
        };
      },
    }),
  ];
}
