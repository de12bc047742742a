import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import {
  createSite,
  listSites,
  presentSite,
  siteByRef,
  updateSite,
  type SiteRequest,
  type SiteRow,
  cliActor,
} from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { formatRecord, formatTable, type Column } from '../output.js';

const COLUMNS: readonly Column<SiteRow>[] = [
  ['id', (s) => s.id],
  ['slug', (s) => s.slug],
  ['name', (s) => s.name],
  ['display_name', (s) => s.display_name],
  ['time_zone', (s) => s.time_zone],
  ['brand', (s) => s.brand_color],
  ['background', (s) => s.background_color],
  ['logo', (s) => (s.logo_data === null ? 'no' : 'yes')],
];

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** `--logo FILE`: the image as the data: URL the Site request takes (the domain checks its bytes). */
function logoFile(file: string): string {
  const type = IMAGE_TYPES[extname(file).toLowerCase()];
  if (type === undefined) throw new InvalidArgumentError('must be a .png, .jpg, .gif or .webp file');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new InvalidArgumentError(`cannot read ${file}`);
  }
  return `data:${type};base64,${bytes.toString('base64')}`;
}

interface SiteFlags {
  slug?: string;
  name?: string;
  /** false: --no-display-name, and likewise below (commander's default for such a pair is true). */
  displayName?: string | boolean;
  logo?: string | boolean;
  brandColor?: string | boolean;
  backgroundColor?: string | boolean;
  timeZone?: string | boolean;
}

/** A value flag with its `--no-` twin: the value, null to clear it, undefined when neither was given. */
const valueOrClear = (flag: string | boolean | undefined): string | null | undefined =>
  typeof flag === 'string' ? flag : flag === false ? null : undefined;

/** Flags → the Site request the admin API takes, so both surfaces share validation and messages. */
const siteRequest = (flags: SiteFlags): SiteRequest => ({
  slug: flags.slug,
  name: flags.name,
  display_name: valueOrClear(flags.displayName),
  logo: valueOrClear(flags.logo),
  brand_color: valueOrClear(flags.brandColor),
  background_color: valueOrClear(flags.backgroundColor),
  time_zone: valueOrClear(flags.timeZone),
});

const showSite = (site: SiteRow): string => formatRecord(Object.entries(presentSite(site)));

/** The branding and time zone options `add` and `update` share. */
function valueOptions(cmd: Command): Command {
  return cmd
    .option('--display-name <name>', 'the name guests see on the portal (default: SERVICE_NAME)')
    .option('--logo <file>', 'a PNG, JPEG, GIF or WebP logo for the portal, at most 100 KB', logoFile)
    .option('--brand-color <#rrggbb>', 'colour of the portal header and buttons (dark enough for white text)')
    .option('--background-color <#rrggbb>', 'background colour of the portal pages (light)')
    .option('--time-zone <zone>', 'IANA time zone of its day, e.g. Africa/Nairobi (default: VENUE_TIMEZONE)');
}

export function registerSites(program: Command): void {
  const sites = program
    .command('sites')
    .description('Sites: venues with their own routers, plans, portal branding and time zone');

  sites
    .command('list')
    .description('List the sites (the default one first)')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, (app) => listSites(app.deps));
      ctx.out.result(rows.map(presentSite), () => formatTable(rows, COLUMNS));
    });

  valueOptions(
    sites
      .command('add')
      .description('Add a site (prints it, with its id)')
      .requiredOption('--slug <slug>', 'short name for --site: lower-case letters, digits and hyphens')
      .requiredOption('--name <name>', 'the name staff see'),
  ).action(async (flags: SiteFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const site = await withApp(ctx, (app) => createSite(app.deps, siteRequest(flags), null, cliActor()));
    ctx.out.result(presentSite(site), () => showSite(site));
  });

  valueOptions(
    sites
      .command('update')
      .description('Change the given values of a site; the others stay')
      .argument('<site>', 'site slug or id')
      .option('--slug <slug>', 'short name for --site')
      .option('--name <name>', 'the name staff see')
      .option('--no-display-name', 'guests see SERVICE_NAME again')
      .option('--no-logo', 'remove the logo')
      .option('--no-brand-color', "back to the portal's own header colour")
      .option('--no-background-color', "back to the portal's own background")
      .option('--no-time-zone', 'the day follows VENUE_TIMEZONE again'),
  ).action(async (ref: string, flags: SiteFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const site = await withApp(ctx, async (app) =>
      updateSite(app.deps, (await siteByRef(app.deps, ref)).id, siteRequest(flags), null, cliActor()),
    );
    ctx.out.result(presentSite(site), () => showSite(site));
  });
}
