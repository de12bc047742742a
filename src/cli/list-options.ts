import { Option, type Command } from 'commander';
import type { App } from '../app.js';
import { parseListQuery, type ListSpec } from '../wifi/list-query.js';
import type { ListFilter } from '../wifi/list-filter.store.js';
import { contextOf, withApp } from './context.js';
import { parseInstantOption, parseWholeNumber } from './option-parsers.js';
import { formatTable, type Column } from './output.js';

/**
 * The admin lists' search, filters and paging (wifi/list-query.ts) as options of a CLI `list`
 * command: the same values, checked by the same code, as the admin API's query string. Without
 * any, a list is the newest 200 as before.
 */
interface ListFlags {
  search?: string;
  status?: string;
  router?: string;
  from?: string;
  to?: string;
  page?: number;
  perPage?: number;
}

/** Adds the options `spec` allows to a list command. */
function addListOptions(command: Command, spec: ListSpec, searched: string): Command {
  command.option('--search <text>', `only rows matching this (${searched})`);
  // A fixed set, as report's --group: a value outside it is a usage error (exit 2), README.
  if (spec.statuses)
    command.addOption(new Option('--status <state>', 'only rows in this state').choices(spec.statuses));
  if (spec.router) command.option('--router <id>', 'only this router’s (from devices list)');
  return command
    .option(
      '--from <date>',
      'only from this ISO-8601 date or date-time on (a bare date: that day in VENUE_TIMEZONE)',
      parseInstantOption,
    )
    .option('--to <date>', 'only up to this date (a bare date takes in the whole day)', parseInstantOption)
    .option('--page <n>', 'this page of --per-page rows (newest first)', parseWholeNumber)
    .option('--per-page <n>', 'rows per page, 1-200 (default 50 when paging)', parseWholeNumber);
}

/**
 * The filter the flags ask for, and the page (null: the plain newest-200 list). The CLI's lists
 * cover every site, so a bare date is a day of VENUE_TIMEZONE (`timeZone`), as on the admin API.
 */
function listFilterOf(
  flags: ListFlags,
  spec: ListSpec,
  timeZone: string,
): { filter: ListFilter; page: { page: number; perPage: number } | null } {
  const query: Record<string, string> = {};
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) query[name] = String(value);
  };
  set('q', flags.search);
  set('status', flags.status);
  set('router', flags.router);
  set('from', flags.from);
  set('to', flags.to);
  set('page', flags.page);
  set('per_page', flags.perPage);
  const { filter, page } = parseListQuery(query, undefined, spec, timeZone);
  return { filter, page };
}

/** A page's rows and whether another follows (the filter read one row more than the page). */
function pageRows<T>(rows: readonly T[], page: { perPage: number } | null): { rows: T[]; more: boolean } {
  if (!page) return { rows: [...rows], more: false };
  return { rows: rows.slice(0, page.perPage), more: rows.length > page.perPage };
}

/**
 * A `list` command under `parent` with the list options of `spec`: the rows `read` gives for the
 * filter, as JSON (`present`) or a table (`columns`), saying when another page follows.
 */
export function listCommand<T>(
  parent: Command,
  options: {
    description: string;
    spec: ListSpec;
    read: (app: App, filter: ListFilter) => Promise<T[]>;
    present: (row: T) => unknown;
    columns: readonly Column<T>[];
    none: string;
    /** What --search looks in, for its help. */
    searched: string;
  },
): void {
  const { spec } = options;
  addListOptions(parent.command('list').description(options.description), spec, options.searched).action(
    async (flags: ListFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { filter, page } = listFilterOf(flags, spec, ctx.config().venueTimezone);
      const { rows, more } = pageRows(await withApp(ctx, (app) => options.read(app, filter)), page);
      ctx.out.result(rows.map(options.present), () =>
        rows.length === 0
          ? `${options.none}\n`
          : formatTable(rows, options.columns) +
            (more ? `more on page ${String((page?.page ?? 1) + 1)}\n` : ''),
      );
    },
  );
}
