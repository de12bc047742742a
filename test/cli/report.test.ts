import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

/** `hotspot-ctl report`: the admin API's reports at the box, as a table, JSON and CSV. */

interface ReportDoc {
  report: string;
  from: string;
  to: string;
  group: string;
  columns: string[];
  rows: Record<string, string | number | null>[];
  totals: Record<string, number>;
  tables: Record<string, { columns: string[]; rows: Record<string, string | number | null>[] }>;
}

t.test('report revenue as a table, JSON and CSV, and the refused ones', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  const plan = JSON.parse(
    (await runCli(['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'], env))
      .stdout,
  ) as { id: string };
  for (const args of [['--paid-cash', '1000'], ['--paid-cash', '2500'], ['--complimentary']]) {
    const sold = await runCli(['grants', 'issue', '--plan', plan.id, ...args], env);
    t.equal(sold.code, 0, sold.stderr);
  }

  const json = await runCli(['report', 'revenue', '--json'], env);
  t.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as ReportDoc;
  t.match(doc, { report: 'revenue', group: 'day' });
  t.equal(doc.rows.length, 30, 'the last 30 days by default');
  t.match(doc.totals, {
    sales: 3,
    sales_tzs: 3500,
    refunds: 0,
    revenue_tzs: 3500,
    cash_tzs: 3500,
    complimentary_tzs: 0,
  });
  t.match(doc.rows.at(-1), { period: doc.to, sales: 3, revenue_tzs: 3500 }, 'today holds the sales');
  t.match(doc.tables.by_plan?.rows, [{ plan_id: plan.id, name: 'Hour', sales: 3, revenue_tzs: 3500 }]);

  const monthly = await runCli(
    ['report', 'revenue', '--from', doc.from, '--to', doc.to, '--group', 'month', '--csv'],
    env,
  );
  t.equal(monthly.code, 0, monthly.stderr);
  const [header, ...lines] = monthly.stdout.trimEnd().split('\r\n');
  t.equal(header, doc.columns.join(','));
  t.equal(
    lines.reduce((n, l) => n + Number(l.split(',')[doc.columns.indexOf('revenue_tzs')]), 0),
    3500,
    'the CSV rows add up to the revenue',
  );
  const byPlan = await runCli(['report', 'revenue', '--csv', '--table', 'by_plan'], env);
  t.equal(byPlan.stdout, `plan_id,name,sales,refunds,revenue_tzs\r\n${plan.id},Hour,3,0,3500\r\n`);
  t.match(await runCli(['report', 'revenue', '--table', 'by_plan'], env), {
    code: 2,
    stdout: '',
    stderr: /^error: --table picks the table --csv prints: add --csv\n/,
  });
  // Whether the cash adds up: the CLI's counter sales are its OS user's (cli:<user>).
  const bySeller = await runCli(['report', 'revenue', '--csv', '--table', 'by_seller'], env);
  t.match(
    bySeller.stdout,
    /^seller,name,email,cash_sales,cash_tzs,complimentary,refunds,refunds_tzs,revenue_tzs\r\n(cli:[^,]+),\1,,2,3500,1,0,0,3500\r\n$/,
  );

  const table = await runCli(['report', 'revenue', '--group', 'week'], env);
  t.equal(table.code, 0, table.stderr);
  t.match(
    table.stdout,
    /^revenue from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} by week \(days in Africa\/Dar_es_Salaam\)/,
  );
  t.match(table.stdout, /PERIOD\s+SALES\s+SALES_TZS\s+REFUNDS/);
  t.match(table.stdout, /totals: sales 3, sales_tzs 3500, refunds 0, refunds_tzs 0, revenue_tzs 3500/);
  t.match(table.stdout, /by plan:\nPLAN_ID\s+NAME\s+SALES/);
  t.equal(table.stderr, '', 'no progress lines off a terminal');

  const hours = await runCli(['report', 'busy-hours', '--json'], env);
  t.equal((JSON.parse(hours.stdout) as ReportDoc).rows.length, 168);

  const unknown = await runCli(['report', 'profit'], env);
  t.equal(unknown.code, 1);
  t.match(
    unknown.stderr,
    /^error: no such report \(reports: revenue, funnel, usage, busy-hours, top-guests, voucher-stock\)/,
  );
  const badDate = await runCli(['report', 'usage', '--from', '2026-13-01'], env);
  t.equal(badDate.code, 1);
  t.equal(badDate.stderr, 'error: from and to must be dates (YYYY-MM-DD)\n');
  const badGroup = await runCli(['report', 'usage', '--group', 'year'], env);
  t.equal(badGroup.code, 2, 'a group commander does not know is a usage error');
  const both = await runCli(['report', 'usage', '--csv', '--json'], env);
  t.equal(both.code, 2);
  const site = await runCli(['report', 'usage', '--site', 'nowhere'], env);
  t.equal(site.code, 1);
});
