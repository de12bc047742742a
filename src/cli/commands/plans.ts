import { Option, type Command } from 'commander';
import { formatDuration } from '../../lib/duration.js';
import {
  createPlan,
  listAllPlans,
  presentPlan,
  updatePlan,
  type PlanRequest,
  type PlanRow,
} from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { formatRecord, formatTable, type Column } from '../output.js';
import { parseBytes, parseDurationOption, parseWholeNumber } from '../option-parsers.js';

const COLUMNS: readonly Column<PlanRow>[] = [
  ['id', (p) => p.id],
  ['name', (p) => p.name],
  ['price_tzs', (p) => p.price_tzs],
  ['duration', (p) => formatDuration(p.duration_seconds)],
  ['data_limit', (p) => p.data_limit_bytes],
  ['active', (p) => p.active === 1],
  ['sort_order', (p) => p.sort_order],
  ['max_devices', (p) => p.max_devices],
];

interface PlanFlags {
  name?: string;
  description?: string;
  price?: number;
  duration?: number;
  dataLimit?: number | 'none';
  sortOrder?: number;
  maxDevices?: number;
  active?: boolean;
  inactive?: boolean;
}

/** Flags → the Plan request the admin API takes, so both surfaces share validation and messages. */
function planRequest(flags: PlanFlags): PlanRequest {
  return {
    name: flags.name,
    description: flags.description,
    price_tzs: flags.price,
    duration_seconds: flags.duration,
    data_limit_bytes: flags.dataLimit === 'none' ? null : flags.dataLimit,
    sort_order: flags.sortOrder,
    max_devices: flags.maxDevices,
    active: flags.inactive ? false : flags.active,
  };
}

const showPlan = (plan: PlanRow): string =>
  formatRecord(
    Object.entries(presentPlan(plan)).map(([k, v]) => [
      k,
      k === 'duration_seconds' ? `${String(v)} (${formatDuration(Number(v))})` : v,
    ]),
  );

/** The optional value flags `add` and `update` share. */
function valueOptions(cmd: Command): Command {
  return cmd
    .option('--description <text>', 'shown to guests under the name')
    .option(
      '--data-limit <bytes>',
      'data allowance: bytes, or with MB / GB (1GB = 10^9 bytes); none = no limit',
      parseBytes,
    )
    .option('--sort-order <n>', 'position in the portal list (lower first, default 0)', parseWholeNumber)
    .option(
      '--max-devices <n>',
      'devices one purchase may have online at once (default 1)',
      parseWholeNumber,
    );
}

export function registerPlans(program: Command): void {
  const plans = program.command('plans').description('Wi-Fi access plans guests can buy');

  plans
    .command('list')
    .description('List every plan, on sale or not')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, (app) => listAllPlans(app.deps));
      ctx.out.result(rows.map(presentPlan), () =>
        rows.length === 0 ? 'no plans yet\n' : formatTable(rows, COLUMNS),
      );
    });

  valueOptions(
    plans
      .command('add')
      .description('Create a plan (prints it, with its id)')
      .requiredOption('--name <name>', 'plan name shown to guests')
      .requiredOption('--price <tzs>', 'price in TZS, at least 500', parseWholeNumber)
      .requiredOption(
        '--duration <duration>',
        'access time from payment: seconds, or 30m, 1h, 1d, 7d',
        parseDurationOption,
      )
      .option('--inactive', 'create it off sale'),
  ).action(async (flags: PlanFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const plan = await withApp(ctx, (app) => createPlan(app.deps, planRequest(flags)));
    ctx.out.result(presentPlan(plan), () => showPlan(plan));
  });

  valueOptions(
    plans
      .command('update')
      .description('Change the given values of a plan; the others stay')
      .argument('<id>', 'plan id')
      .option('--name <name>', 'plan name shown to guests')
      .option('--price <tzs>', 'price in TZS, at least 500', parseWholeNumber)
      .option(
        '--duration <duration>',
        'access time from payment: seconds, or 30m, 1h, 1d, 7d',
        parseDurationOption,
      )
      .addOption(new Option('--active', 'put the plan on sale').conflicts('inactive'))
      .option('--inactive', 'take the plan off sale'),
  ).action(async (id: string, flags: PlanFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const plan = await withApp(ctx, (app) => updatePlan(app.deps, id, planRequest(flags)));
    ctx.out.result(presentPlan(plan), () => showPlan(plan));
  });
}
