import { a, sectionHead } from './admin-page.js';
import { html, type Html } from './html.js';

/**
 * /admin/reports (issue 21): the reports API drawn as charts with their tables. The server renders
 * the controls; the page script (client/admin-reports.ts) fetches the report, draws its chart as
 * inline SVG (client/chart.ts) and the tables, each with a link to the API's CSV of it.
 */

export const REPORTS = ['revenue', 'funnel', 'usage', 'busy-hours', 'top-guests', 'voucher-stock'] as const;

export function reportsMain(): Html {
  return html`${sectionHead('reports.title', 'reports.intro')}
    <form id="report-form" class="card report-controls" novalidate>
      <div class="field">
        <label for="report-name">${a('reports.report')}</label>
        <select id="report-name" name="report">
          ${REPORTS.map((name) => html`<option value="${name}">${a(`reports.name.${name}`)}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="report-from">${a('reports.from')}</label>
        <input id="report-from" name="from" type="date" required />
      </div>
      <div class="field">
        <label for="report-to">${a('reports.to')}</label>
        <input id="report-to" name="to" type="date" required />
      </div>
      <div class="field">
        <label for="report-group">${a('reports.group')}</label>
        <select id="report-group" name="group">
          <option value="day">${a('reports.group.day')}</option>
          <option value="week">${a('reports.group.week')}</option>
          <option value="month">${a('reports.group.month')}</option>
        </select>
      </div>
      <button type="submit" class="primary" id="report-form-submit">${a('reports.show')}</button>
      <p class="error" id="report-form-error" role="alert" hidden></p>
    </form>
    <p class="notice" id="report-loading" role="status" hidden>${a('reports.loading')}</p>
    <section id="report" aria-live="polite" aria-busy="true"></section>`;
}
