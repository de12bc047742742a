import { defineRoute, type Route } from '../http/route.js';
import type { WifiDeps } from './deps.js';
import { reportCsv, reportErrors, reportFileName, runReport } from './reports.js';
import { requireStaff } from './staff.http.js';

/**
 * GET /api/v1/admin/reports/{name} (issue 21; docs/decisions/0036-reports.md): any staff role
 * reads the reports of its sites; viewers see guests' phones masked. JSON `{data: report}`, or
 * the report's table as CSV with `?format=csv` or `Accept: text/csv` (`?table=` names a breakdown).
 */
export function reportRoutes(deps: WifiDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin/reports/:name',
      api: 'wifi',
      auth: requireStaff(deps, 'viewer'),
      handler: async ({ req, principal, params, query }) => {
        const format = query.format ?? '';
        if (!['', 'json', 'csv'].includes(format)) throw reportErrors.formatInvalid();
        const csv = format === 'csv' || (format === '' && /\btext\/csv\b/.test(req.headers.accept ?? ''));
        const report = await runReport(
          deps,
          params.name ?? '',
          { from: query.from, to: query.to, group: query.group, site: query.site },
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
