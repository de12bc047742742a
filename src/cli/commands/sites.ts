import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { SITE_ACCOUNT_SETTINGS } from '../../config/index.js';
import {
  ACCOUNT_PROVIDERS,
  accountField,
  createSite,
  listSites,
  ownAccounts,
  presentSite,
  siteByRef,
  updateSite,
  type AccountProvider,
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
  ['payment_accounts', (s) => ownAccounts(s).join(',') || null],
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
  } catch (err) {
    // Not a usage error: the command line is right, the file is not there to read (exit 1, as for
    // the other commands' files).
    throw new Error(`--logo: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
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
  /** The --<provider>-<credential> values by commander's camelCase key, and --no-<provider>-account. */
  [account: string]: string | boolean | undefined;
}

/** commander's key for a flag: --selcom-api-key → selcomApiKey. */
const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The flag of one credential: SELCOM_API_KEY → selcom-api-key. */
const credentialFlag = (env: string): string => env.toLowerCase().replace(/_/g, '-');

/**
 * `payment_accounts` from the flags: a provider any of whose credentials was given gets an account
 * of the given ones (the domain says which are missing); `--no-<provider>-account` drops it.
 */
function accountsRequest(flags: SiteFlags): SiteRequest['payment_accounts'] {
  const out: Partial<Record<AccountProvider, Record<string, string> | null>> = {};
  for (const provider of ACCOUNT_PROVIDERS) {
    if (flags[camel(`${provider}-account`)] === false) out[provider] = null;
    const given = SITE_ACCOUNT_SETTINGS[provider].flatMap((env) => {
      const value = flags[camel(credentialFlag(env))];
      return typeof value === 'string' ? [[accountField(provider, env), value]] : [];
    });
    if (given.length > 0) out[provider] = Object.fromEntries(given) as Record<string, string>;
  }
  return Object.keys(out).length > 0 ? out : undefined;
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
  payment_accounts: accountsRequest(flags),
});

const showSite = (site: SiteRow): string => formatRecord(Object.entries(presentSite(site)));

/** The branding, time zone and payment account options `add` and `update` share. */
function valueOptions(cmd: Command): Command {
  cmd
    .option('--display-name <name>', 'the name guests see on the portal (default: SERVICE_NAME)')
    .option('--logo <file>', 'a PNG, JPEG, GIF or WebP logo for the portal, at most 100 KB', logoFile)
    .option('--brand-color <#rrggbb>', 'colour of the portal header and buttons (dark enough for white text)')
    .option('--background-color <#rrggbb>', 'background colour of the portal pages (light)')
    .option('--time-zone <zone>', 'IANA time zone of its day, e.g. Africa/Nairobi (default: VENUE_TIMEZONE)');
  for (const provider of ACCOUNT_PROVIDERS)
    for (const env of SITE_ACCOUNT_SETTINGS[provider])
      cmd.option(
        `--${credentialFlag(env)} <value>`,
        `the site's own ${provider} account: its ${env} (give all of ${SITE_ACCOUNT_SETTINGS[provider].join(', ')})`,
      );
  return cmd;
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
      .option('--no-time-zone', 'the day follows VENUE_TIMEZONE again')
      .option('--no-selcom-account', "drop the site's own Selcom account: the box's SELCOM_* apply")
      .option('--no-azampay-account', "drop the site's own AzamPay account: the box's AZAMPAY_* apply"),
  ).action(async (ref: string, flags: SiteFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const site = await withApp(ctx, async (app) =>
      updateSite(app.deps, (await siteByRef(app.deps, ref)).id, siteRequest(flags), null, cliActor()),
    );
    ctx.out.result(presentSite(site), () => showSite(site));
  });
}
