import type { Command } from 'commander';
import type { App } from '../app.js';
import { hasSeveralSites, listSites, siteByRef } from '../wifi/index.js';
import type { Column } from './output.js';

/**
 * `--site` on the commands of things a site owns (plans, devices, staff): a site's slug or id.
 * The word shows in human output only once a box has more than the default site.
 */

export const SITE_HELP = 'site (slug or id); default: the default site';

export const siteOption = (cmd: Command, help = SITE_HELP): Command => cmd.option('--site <site>', help);

/** The id of the site `--site` names, or undefined when it was not given. */
export async function siteIdOf(app: App, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : (await siteByRef(app.deps, ref)).id;
}

/** A `site` column (the slug) for human tables, or none while there is only the default site. */
export async function siteColumn<T extends { site_id: string }>(app: App): Promise<Column<T>[]> {
  if (!(await hasSeveralSites(app.deps))) return [];
  const slugs = new Map((await listSites(app.deps)).map((s) => [s.id, s.slug]));
  return [['site', (row) => slugs.get(row.site_id) ?? row.site_id]];
}
