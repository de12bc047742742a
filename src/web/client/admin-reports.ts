import { dataOf, ok } from './api.js';
import { $, show } from './dom.js';
import { data, onSubmit, t } from './forms.js';
import { adminApi, chosenSite, element, failure, time } from './admin-shell.js';
import { barChart, heatGrid, hBars, legend, shortPeriod, type Bar, type Series } from './chart.js';
import { figure, num, REFUND, revenueFigure } from './revenue-chart.js';

/**
 * /admin/reports: GET /api/v1/admin/reports/{name} for the chosen range, group and site (the
 * page's site filter), drawn as an SVG chart (chart.ts) over its tables; each table has a link to
 * the same report as CSV (`&format=csv`, `&table=` for a breakdown).
 */

type Cell = string | number | null;
type Row = Record<string, Cell>;
interface Table {
  columns: string[];
  rows: Row[];
}
interface Report extends Table {
  report: string;
  from: string;
  to: string;
  group: string;
  totals: Record<string, number>;
  tables: Record<string, Table>;
  as_of: string;
}

const words = (key: string, fallback: string): string => (key in data.strings ? t(key) : fallback);
const amount = new Intl.NumberFormat('en-GB');
const cellText = (c: Cell | undefined): string => (typeof c === 'number' ? amount.format(c) : (c ?? ''));

/** The query of the form, with the page's site. */
function query(): URLSearchParams {
  const params = new URLSearchParams({
    from: ($('report-from') as HTMLInputElement).value,
    to: ($('report-to') as HTMLInputElement).value,
    group: ($('report-group') as HTMLSelectElement).value,
  });
  if (chosenSite !== '') params.set('site', chosenSite);
  return params;
}

const reportName = (): string => ($('report-name') as HTMLSelectElement).value;

let width = 0;
let shown: Report | null = null;
/** Which request is the latest: an older answer that arrives after it is dropped. */
let asked = 0;

async function load(): Promise<void> {
  const slot = $('report');
  const loading = $('report-loading');
  const error = $('report-form-error');
  slot.setAttribute('aria-busy', 'true');
  show(loading);
  show(error, false);
  const mine = ++asked;
  const result = await adminApi('GET', `/reports/${encodeURIComponent(reportName())}?${query().toString()}`);
  if (mine !== asked) return;
  show(loading, false);
  slot.removeAttribute('aria-busy');
  if (!ok(result)) {
    error.textContent = failure(result);
    show(error);
    return;
  }
  shown = dataOf(result) as Report;
  draw(shown);
}

function draw(report: Report): void {
  const slot = $('report');
  width = Math.max(280, slot.clientWidth);
  const parts: Node[] = [...chart(report)];
  parts.push(tableBlock(report, report, 'main'));
  for (const [name, table] of Object.entries(report.tables)) parts.push(tableBlock(report, table, name));
  parts.push(element('p', t('reports.asOf', { time: time(report.as_of) }), 'hint'));
  slot.replaceChildren(...parts);
  slot.dataset.report = report.report;
  slot.dataset.group = report.group;
}

const span = (r: Report) => ({ group: t(`reports.group.${r.group}`).toLowerCase(), from: r.from, to: r.to });

function chart(r: Report): Node[] {
  switch (r.report) {
    case 'revenue':
      return revenueChart(r);
    case 'usage':
      return usageChart(r);
    case 'funnel':
      return funnelChart(r);
    case 'busy-hours':
      return busyChart(r);
    case 'top-guests':
      return listChart(r, (row) => String(row.phone ?? ''), 'spent_tzs', 'TZS');
    case 'voucher-stock':
      return listChart(
        r,
        (row) => `${String(row.plan ?? '')} ${shortPeriod(String(row.created_at ?? '').slice(0, 10))}`,
        'unused_value_tzs',
        'TZS',
      );
    default:
      return [];
  }
}

function revenueChart(r: Report): Node[] {
  const summary = t('reports.revenueSummary', {
    ...span(r),
    total: amount.format(r.totals.revenue_tzs ?? 0),
    refunds: amount.format(r.totals.refunds_tzs ?? 0),
  });
  return [revenueFigure(r.rows, summary, width)];
}

function usageChart(r: Report): Node[] {
  const max = Math.max(0, ...r.rows.map((row) => num(row.bytes)));
  const [unit, size] = max >= 1e9 ? ['GB', 1e9] : ['MB', 1e6];
  const data: Series = { label: unit, colour: '#1f6feb', values: r.rows.map((row) => num(row.bytes) / size) };
  const sessions = {
    label: t('reports.sessions'),
    colour: '#b35900',
    unit: t('reports.sessions'),
    values: r.rows.map((row) => num(row.sessions)),
  };
  const total = num(r.totals.bytes) / size;
  const summary = t('reports.usageSummary', {
    ...span(r),
    total: `${total.toFixed(1)} ${unit}`,
    sessions: amount.format(r.totals.sessions ?? 0),
  });
  const svg = barChart(
    { summary, unit, labels: r.rows.map((row) => String(row.period)), stacks: [data], line: sessions },
    width,
  );
  return [
    figure(svg, [legend([{ label: `${t('reports.data')} (${unit})`, colour: data.colour }, sessions])]),
  ];
}

function funnelChart(r: Report): Node[] {
  const colours: Record<string, string> = {
    started: '#57606a',
    paid: '#0b6e4f',
    failed: REFUND,
    expired: '#b35900',
    pending: '#1f6feb',
    other: '#8250df',
  };
  const items: Bar[] = ['started', 'paid', 'failed', 'expired', 'pending', 'other'].map((k) => ({
    label: words(`reports.funnel.${k}`, k),
    value: num(r.totals[k]),
    colour: colours[k] ?? '#57606a',
  }));
  const summary = t('reports.funnelSummary', {
    ...span(r),
    started: num(r.totals.started),
    paid: num(r.totals.paid),
    failed: num(r.totals.failed),
    expired: num(r.totals.expired),
  });
  return [figure(hBars(summary, t('reports.purchases'), items, width))];
}

function busyChart(r: Report): Node[] {
  const days: string[] = [];
  const values: number[][] = [];
  let top = { n: -1, day: '', hour: 0 };
  for (const row of r.rows) {
    const w = num(row.weekday) - 1;
    const h = num(row.hour);
    const n = num(row.sessions);
    days[w] = String(row.day);
    (values[w] ??= [])[h] = n;
    if (n > top.n) top = { n, day: String(row.day), hour: h };
  }
  const hours = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));
  const summary = t('reports.busySummary', {
    ...span(r),
    day: top.day,
    hour: String(top.hour).padStart(2, '0'),
    n: Math.max(0, top.n),
  });
  return [figure(heatGrid(summary, days, hours, values, t('reports.scale'), width))];
}

/** The first 25 rows of a table as bars of one column (top guests; voucher batches by plan and day made). */
function listChart(r: Report, labelOf: (row: Row) => string, valueColumn: string, unit: string): Node[] {
  if (r.rows.length === 0) return [];
  const items = r.rows.slice(0, 25).map((row) => ({
    label: labelOf(row),
    value: num(row[valueColumn]),
    colour: '#0b6e4f',
  }));
  const summary = t('reports.barSummary', {
    title: words(`reports.col.${valueColumn}`, valueColumn),
    from: r.from,
    to: r.to,
  });
  return [
    figure(hBars(summary, `${words(`reports.col.${valueColumn}`, valueColumn)} (${unit})`, items, width)),
  ];
}

/** A table with its heading, a totals row and the link to its CSV. */
function tableBlock(r: Report, table: Table, name: string): HTMLElement {
  const section = document.createElement('section');
  section.className = 'report-table';
  section.id = `report-table-${name}`;
  const title = t(`reports.table.${name}`);
  const head = element('h2', title);
  const params = query();
  params.set('format', 'csv');
  if (name !== 'main') params.set('table', name);
  const link = element('a', t('reports.csv'), 'csv');
  link.href = `/api/v1/admin/reports/${encodeURIComponent(r.report)}?${params.toString()}`;
  link.setAttribute('download', '');
  link.setAttribute('aria-label', t('reports.csvAria', { table: title }));
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap';
  const el = document.createElement('table');
  el.className = 'rows';
  // Headings in words with their units; data-column keeps the column's name (the CSV's).
  const heading = (c: string): string => words(`reports.th.${c}`, c);
  const tr = el.createTHead().insertRow();
  for (const c of table.columns) {
    const th = element('th', heading(c));
    th.scope = 'col';
    th.dataset.column = c;
    tr.append(th);
  }
  const body = el.createTBody();
  for (const row of table.rows) {
    const line = body.insertRow();
    for (const c of table.columns) {
      const td = line.insertCell();
      td.dataset.label = heading(c);
      td.textContent =
        c === 'period' && r.group === 'month'
          ? shortPeriod(String(row[c]), true)
          : c === 'channel'
            ? words(`reports.channel.${cellText(row[c])}`, cellText(row[c]))
            : cellText(row[c]);
    }
  }
  if (name === 'main' && Object.keys(r.totals).length > 0) {
    const foot = el.createTFoot().insertRow();
    table.columns.forEach((c, i) => {
      const td = foot.insertCell();
      td.dataset.label = heading(c);
      td.dataset.column = c;
      td.textContent = i === 0 ? t('reports.total') : c in r.totals ? cellText(r.totals[c]) : '';
    });
  }
  wrap.append(el);
  section.append(head, link, wrap);
  return section;
}

function defaults(): void {
  // The browser has no injected clock: the default range is the last 30 days of the person's own calendar.
  // eslint-disable-next-line no-restricted-syntax -- see above
  const to = new Date();
  const from = new Date(to.getTime() - 29 * 86_400_000);
  const day = (d: Date): string =>
    `${String(d.getFullYear())}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  ($('report-from') as HTMLInputElement).value = day(from);
  ($('report-to') as HTMLInputElement).value = day(to);
}

defaults();
onSubmit('report-form', load);
for (const id of ['report-name', 'report-group'])
  $(id).addEventListener('change', () => {
    void load();
  });
// Charts are drawn at the slot's width in CSS pixels: draw again when it changes.
let pending = false;
window.addEventListener('resize', () => {
  if (pending || !shown) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    if (shown && Math.max(280, $('report').clientWidth) !== width) draw(shown);
  });
});
void load();
