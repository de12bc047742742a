import path from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { insertReportRows, reportRows } from '../helpers/report-data.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPlan } from '../helpers/wifi.js';

/**
 * The Reports page in headless Chromium (issue 21): a month of seeded sales in every channel,
 * sessions and vouchers; the revenue chart as SVG bars on a TZS axis, the table's totals as the
 * API gives them, a new group fetched and drawn again, the busy-hours grid, and the CSV link.
 * With UPDATE_SCREENSHOTS=1 the charts are saved to docs/screenshots/ at 390 and 1440 px.
 */

const SHOTS = path.join(import.meta.dirname, '../../docs/screenshots');
const DAY = 86_400_000;
const amount = new Intl.NumberFormat('en-GB');

interface Report {
  columns: string[];
  rows: Record<string, unknown>[];
  totals: Record<string, number>;
}

async function seededApp(t: Test): Promise<TestApp> {
  // The browser's own "last 30 days" are the default range: the app's clock is today too.
  const now = Date.now();
  const app = await startTestApp(t, { selfIssuer: true, clock: new ManualClock(new Date(now)) });
  const plans = [
    await aPlan(app.app, { name: 'Hour', price_tzs: 1000 }),
    await aPlan(app.app, { name: 'Day', price_tzs: 5000, duration_seconds: 86_400 }),
  ];
  const devices = [(await aDevice(app.app)).device];
  const rows = reportRows(21, {
    plans,
    devices,
    from: now - 27 * DAY,
    to: now - 60_000,
    invoices: 300,
    sessions: 600,
    batches: 3,
    codesPerBatch: 10,
    now,
  });
  await insertReportRows(app.app.deps.db, rows);
  return app;
}

/** The report the CSV link of `table` stands for, as JSON from the API (the page's own query). */
async function apiReport(page: Page, table = 'main'): Promise<Report> {
  const href = await page.locator(`#report-table-${table} a.csv`).getAttribute('href');
  const url = new URL(href ?? '', page.url());
  url.searchParams.delete('format');
  const res = await page.request.get(url.toString());
  return ((await res.json()) as { data: Report }).data;
}

t.test('the reports page draws the API’s reports as charts and tables', { skip: chromiumSkip }, async (t) => {
  const app = await seededApp(t);
  const session = (await staffClient(app, 'viewer')).cookies.get('admin_session') ?? '';
  const context = await launchBrowser(t, { viewport: { width: 390, height: 844 } });
  const foreign = foreignRequests(context, [app.base]);
  await context.addCookies([{ name: 'admin_session', value: session, url: app.base }]);
  const page = await firstPage(context);
  await page.goto(`${app.base}/admin/reports`);

  // Revenue, the default: stacked bars on an axis in TZS, with a summary for screen readers.
  await page.locator('#report[data-report="revenue"] svg.chart').waitFor();
  const chart = page.locator('#report svg.chart');
  t.ok((await chart.locator('g.bars rect').count()) > 0, 'bars drawn');
  t.equal(await chart.locator('text.unit').first().textContent(), 'TZS', 'the axis says TZS');
  t.equal(await chart.getAttribute('role'), 'img');
  t.match(await chart.getAttribute('aria-label'), /^Net revenue per day from \d{4}-\d{2}-\d{2} to/);
  t.ok(await page.locator('.legend').getByText('Mobile money').isVisible(), 'the legend names the channels');

  // Every bar, refunds below zero included, inside the plot: above the lowest grid line.
  const fit = await chart.evaluate((svg) => {
    const lines = [...svg.querySelectorAll('line.grid, line.axis')].map((l) => Number(l.getAttribute('y1')));
    const bottom = Math.max(...lines);
    const bars = [...svg.querySelectorAll('g.bars rect')].map(
      (r) => Number(r.getAttribute('y')) + Number(r.getAttribute('height')),
    );
    return { bottom, deepest: Math.max(...bars) };
  });
  t.ok(
    fit.deepest < fit.bottom,
    `the deepest bar (${String(fit.deepest)}) ends above the axis's end (${String(fit.bottom)})`,
  );

  // The totals row says what the API says.
  const revenue = await apiReport(page);
  t.ok((revenue.totals.sales ?? 0) > 0, 'the seeded sales are in the range');
  for (const column of ['sales', 'sales_tzs', 'refunds_tzs', 'revenue_tzs', 'cash_tzs'])
    t.equal(
      await page.locator(`#report-table-main tfoot td[data-column="${column}"]`).textContent(),
      amount.format(revenue.totals[column] ?? NaN),
      `total ${column}`,
    );

  // Weekly rows: asked for again and drawn again.
  const [weekly] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/reports/revenue?') && r.url().includes('group=week')),
    page.locator('#report-group').selectOption('week'),
  ]);
  t.equal(weekly.status(), 200);
  await page.locator('#report[data-group="week"] svg.chart').waitFor();
  const week = await apiReport(page);
  t.equal(await page.locator('#report-table-main tbody tr').count(), week.rows.length, 'one row per week');
  t.ok(week.rows.length < revenue.rows.length, 'fewer rows than days');

  // The CSV link gives a CSV whose header is the table's columns.
  const href = await page.locator('#report-table-by_plan a.csv').getAttribute('href');
  const csv = await page.request.get(new URL(href ?? '', page.url()).toString());
  t.match(csv.headers()['content-type'], /^text\/csv/);
  const header = (await csv.text()).split(/\r?\n/)[0] ?? '';
  const heads = page.locator('#report-table-by_plan thead th');
  t.equal(
    header,
    (await heads.evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')))).join(','),
    'the headings stand for the CSV’s columns',
  );
  t.same(
    await heads.allTextContents(),
    ['Plan id', 'Name', 'Sales', 'Refunds', 'Revenue (TZS)'],
    'headings in words, with their units',
  );

  // The form's date fields are styled as its selects (they were the browser's bare 21 px inputs
  // with a 13 px font): a finger's height, the page's font.
  for (const id of ['#report-name', '#report-from', '#report-to']) {
    const field = page.locator(id);
    const height = (await field.boundingBox())?.height ?? 0;
    t.ok(height >= 36, `${id} is a finger's height (${String(Math.round(height))} px)`);
    t.equal(
      await field.evaluate(
        (el) => (el.ownerDocument.defaultView?.getComputedStyle(el).fontSize ?? '') as string,
      ),
      '16px',
      `${id} has the page's font`,
    );
  }

  // Busy hours: a grid of 7 weekdays × 24 hours.
  await page.locator('#report-name').selectOption('busy-hours');
  await page.locator('#report[data-report="busy-hours"] svg.chart').waitFor();
  t.equal(await page.locator('#report svg.chart g.heat rect').count(), 7 * 24, '168 cells');
  t.same(foreign, [], 'nothing from another origin');

  if (process.env.UPDATE_SCREENSHOTS === '1') {
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${app.base}/admin/reports`);
      await page.locator('#report[data-report="revenue"] svg.chart').waitFor();
      await page
        .locator('#report-form')
        .screenshot({ path: path.join(SHOTS, `admin-reports-form-${String(width)}.png`) });
      for (const name of ['revenue', 'usage', 'funnel', 'busy-hours', 'top-guests', 'voucher-stock']) {
        await page.goto(`${app.base}/admin/reports`);
        if (name !== 'revenue') await page.locator('#report-name').selectOption(name);
        await page.locator(`#report[data-report="${name}"] svg.chart`).waitFor();
        // The chart with its legend: the page under it is the tables, as on every admin page.
        await page
          .locator('#report figure.chart-box')
          .screenshot({ path: path.join(SHOTS, `admin-reports-${name}-${String(width)}.png`) });
      }
    }
  }
});
