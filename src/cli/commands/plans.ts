import { Option, type Command } from 'commander';
import { formatDuration } from '../../lib/duration.js';
import {
  createPlan,
  listAllPlans,
  presentPlan,
  presentSpeedChange,
  updatePlan,
  updatePlanAndApply,
  type PlanRequest,
  type PlanRow,
  cliActor,
} from '../../wifi/index.js';
import { formatAnswers } from '../answers.js';
import { archivedColumn, archivedFilter, archivedOptions, registerPlanArchive } from './archive.js';
import { siteColumn, siteIdOf, siteOption } from '../sites.js';
import { contextOf, withApp } from '../context.js';
import { formatRecord, formatTable, type Column } from '../output.js';
import { parseBytes, parseDurationOption, parseSpeed, parseWholeNumber } from '../option-parsers.js';

/** A speed for people: 4000 → "4M", 512 → "512k"; none is null (the tables' `-`). */
const speed = (kbps: number | null): string | null =>
  kbps === null ? null : kbps % 1000 === 0 ? `${String(kbps / 1000)}M` : `${String(kbps)}k`;

const COLUMNS: readonly Column<PlanRow>[] = [
  ['id', (p) => p.id],
  ['name', (p) => p.name],
  ['price_tzs', (p) => p.price_tzs],
  ['duration', (p) => formatDuration(p.duration_seconds)],
  ['data_limit', (p) => p.data_limit_bytes],
  ['active', (p) => p.active === 1],
  ['sort_order', (p) => p.sort_order],
  ['max_devices', (p) => p.max_devices],
  ['download', (p) => speed(p.download_kbps)],
  ['upload', (p) => speed(p.upload_kbps)],
  ['remember_device', (p) => p.remember_device === 1],
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
  download?: number | 'none';
  upload?: number | 'none';
  applyToLive?: boolean;
  site?: string;
  rememberDevice?: boolean;
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
    download_kbps: flags.download === 'none' ? null : flags.download,
    upload_kbps: flags.upload === 'none' ? null : flags.upload,
    remember_device: flags.rememberDevice,
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
    .option('--max-devices <n>', 'devices one purchase may have online at once (default 1)', parseWholeNumber)
    .option(
      '--download <speed>',
      'speed limit to the guest: kbit/s, or 512k, 4M, 1G (1M = 1000k); none = no limit',
      parseSpeed,
    )
    .option('--upload <speed>', 'speed limit from the guest, as --download', parseSpeed)
    .option(
      '--remember-device',
      'let the router log a device back in by its MAC while the access lasts (MAC authentication)',
    )
    .option('--no-remember-device', 'guests log in through the portal every time (the default)')
    .option('--site <site>', 'the site that sells it (slug or id); default: the default site');
}

export function registerPlans(program: Command): void {
  const plans = program.command('plans').description('Wi-Fi access plans guests can buy');

  siteOption(
    archivedOptions(plans.command('list').description('List every plan, on sale or not (not archived)')),
    'only the plans of this site (slug or id)',
  ).action(async (flags: { site?: string; archived?: boolean; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const { rows, site } = await withApp(ctx, async (app) => ({
      rows: await listAllPlans(app.deps, await siteIdOf(app, flags.site), archivedFilter(flags)),
      site: await siteColumn<PlanRow>(app),
    }));
    ctx.out.result(rows.map(presentPlan), () =>
      rows.length === 0
        ? 'no plans yet\n'
        : formatTable(rows, [...COLUMNS, ...archivedColumn<PlanRow>(flags), ...site]),
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
    const plan = await withApp(ctx, async (app) =>
      createPlan(
        app.deps,
        { ...planRequest(flags), site_id: await siteIdOf(app, flags.site) },
        null,
        cliActor(),
      ),
    );
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
      .option('--inactive', 'take the plan off sale')
      .option(
        '--apply-to-live',
        "also give the plan's speed to access already sold and still live, and tell the routers (CoA)",
      ),
  ).action(async (id: string, flags: PlanFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const { plan, applied } = await withApp(ctx, async (app) => {
      const request = { ...planRequest(flags), site_id: await siteIdOf(app, flags.site) };
      if (!flags.applyToLive)
        return { plan: await updatePlan(app.deps, id, request, null, cliActor()), applied: null };
      const done = await updatePlanAndApply(app.deps, id, request, cliActor());
      return { plan: done.plan, applied: presentSpeedChange(done.applied) };
    });
    if (!applied) {
      ctx.out.result(presentPlan(plan), () => showPlan(plan));
      return;
    }
    ctx.out.result({ ...presentPlan(plan), apply_to_live: applied }, () =>
      [
        showPlan(plan),
        formatRecord([
          ['live grants changed', applied.grants_updated],
          ['routers', applied.status],
        ]),
        formatAnswers(applied.sessions, 'no live sessions to change'),
      ].join('\n'),
    );
  });

  registerPlanArchive(plans);
}
