import { Option, type Command } from 'commander';
import {
  REPORT_GROUPS,
  REPORT_NAMES,
  reportCsv,
  runReport,
  type Report,
  type ReportTable,
} from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { formatTable } from '../output.js';
import { parseDateOption } from '../option-parsers.js';
import { siteIdOf } from '../sites.js';

/**
 * `hotspot-ctl report NAME` (issue 21; docs/decisions/0036-reports.md): the admin API's reports
 * at the box, for every site (the operator at the CLI sees them all, phones whole). A table, one
 * JSON document (`--json`) or the CSV of the main table or of a breakdown (`--csv [--table T]`).
 * On a terminal, a report that takes more than a second says so on stderr while it reads.
 */

const PROGRESS_EVERY_MS = 1000;

const tableText = (table: ReportTable): string =>
  table.rows.length === 0
    ? '(no rows)\n'
    : formatTable(
        table.rows,
        table.columns.map((c) => [c, (r) => r[c]] as const),
      );

function reportText(report: Report): string {
  const zones = [...new Set(Object.values(report.time_zones))].join(', ');
  const head = `${report.report} from ${report.from} to ${report.to}${report.rows.some((r) => 'period' in r) ? ` by ${report.group}` : ''} (days in ${zones})\n\n`;
  const totals = Object.entries(report.totals)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const tables = Object.entries(report.tables).map(
    ([name, table]) => `\n${name.replace(/_/g, ' ')}:\n${tableText(table)}`,
  );
  return head + tableText(report) + (totals ? `\ntotals: ${totals}\n` : '') + tables.join('');
}

/** Runs `work`, telling a terminal on stderr every second that it is still reading. */
async function withProgress<T>(what: string, work: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work();
  let seconds = 0;
  const timer = setInterval(() => {
    seconds += PROGRESS_EVERY_MS / 1000;
    process.stderr.write(`\rreading the ${what} report… ${String(seconds)} s`);
  }, PROGRESS_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    if (seconds > 0) process.stderr.write('\n');
  }
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(`Show a report: ${REPORT_NAMES.join(', ')} (days in each site's time zone)`)
    .argument('<name>', REPORT_NAMES.join(', '))
    .option('--from <date>', 'first day, YYYY-MM-DD (default: 29 days before --to)', parseDateOption)
    .option('--to <date>', 'last day, YYYY-MM-DD, included (default: today)', parseDateOption)
    .addOption(
      new Option('--group <period>', 'rows per day, ISO week or month').choices(REPORT_GROUPS).default('day'),
    )
    .option('--site <site>', 'one site (slug or id); default: every site')
    .addOption(new Option('--csv', 'print the table as CSV').conflicts('json'))
    .option('--table <name>', 'with --csv: a breakdown instead of the main table (e.g. by_plan)')
    .action(
      async (
        name: string,
        flags: {
          from?: string;
          to?: string;
          group: string;
          site?: string;
          csv?: boolean;
          table?: string;
          json?: boolean;
        },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        if (cmd.optsWithGlobals<{ json?: boolean }>().json === true && flags.csv === true)
          cmd.error('error: --csv and --json cannot be used together', { exitCode: 2 });
        // The table and --json show every breakdown: a --table there would be quietly ignored.
        if (flags.table !== undefined && flags.csv !== true)
          cmd.error('error: --table picks the table --csv prints: add --csv', { exitCode: 2 });
        const report = await withApp(ctx, async (app) =>
          withProgress(name, async () =>
            runReport(
              app.deps,
              name,
              { from: flags.from, to: flags.to, group: flags.group, site: await siteIdOf(app, flags.site) },
              { scope: null, maskPhones: false },
            ),
          ),
        );
        if (flags.csv === true) process.stdout.write(reportCsv(report, flags.table));
        else ctx.out.result(report, () => reportText(report));
      },
    );
}
