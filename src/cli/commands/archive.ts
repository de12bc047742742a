import type { Command } from 'commander';
import type { Column } from '../output.js';
import {
  archiveDevice,
  archivePlan,
  cliActor,
  deleteDevice,
  deletePlan,
  presentAnswers,
  presentDevice,
  presentPlan,
  unarchiveDevice,
  unarchivePlan,
  type ArchivedFilter,
} from '../../wifi/index.js';
import { formatAnswers } from '../answers.js';
import { contextOf, withApp } from '../context.js';
import type { App } from '../../app.js';
import { formatRecord } from '../output.js';

/**
 * `plans|devices archive|unarchive|delete ID` (issue 21 item 4, docs/decisions/0037-archive.md):
 * the same domain functions as the admin API, so refusals carry the same messages. Each prints
 * the record as it now is (a deleted one as it was); `--json` the admin API's object.
 */

/** `list --archived` / `--all`: which records a list shows (default: not archived). */
export function archivedOptions(cmd: Command): Command {
  return cmd.option('--archived', 'only the archived ones').option('--all', 'archived ones too');
}

export const archivedFilter = (flags: { archived?: boolean; all?: boolean }): ArchivedFilter =>
  flags.all ? 'all' : flags.archived ? 'archived' : 'current';

/** The human table's `archived` column, when the list can hold archived records at all. */
export const archivedColumn = <T extends { archived_at: string | null }>(flags: {
  archived?: boolean;
  all?: boolean;
}): Column<T>[] => (archivedFilter(flags) === 'current' ? [] : [['archived', (r) => r.archived_at]]);

type Ctx = ReturnType<typeof contextOf>;

const show = (ctx: Ctx, doc: Record<string, unknown>, said: string): void => {
  ctx.out.result(doc, () => `${said}\n${formatRecord(Object.entries(doc))}`);
};

/** One `<noun> <verb> ID` command that runs `act` and prints the record it answers. */
function simple(
  noun: Command,
  verb: string,
  description: string,
  act: (app: App, id: string) => Promise<Record<string, unknown>>,
  said: string,
): void {
  noun
    .command(verb)
    .description(description)
    .argument('<id>', `${noun.name() === 'plans' ? 'plan' : 'device'} id`)
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      show(ctx, await withApp(ctx, (app) => act(app, id)), said);
    });
}

export function registerPlanArchive(plans: Command): void {
  const who = () => ({ actor: cliActor() });
  simple(
    plans,
    'archive',
    'Take a plan off sale and out of the lists; what was sold on it keeps working',
    async (app, id) => presentPlan(await archivePlan(app.deps, id, who())),
    'archived (off sale)',
  );
  simple(
    plans,
    'unarchive',
    'Bring an archived plan back, still off sale (plans update ID --active sells it)',
    async (app, id) => presentPlan(await unarchivePlan(app.deps, id, who())),
    'unarchived (off sale until you put it on sale)',
  );
  simple(
    plans,
    'delete',
    'Delete a plan nothing was ever sold on (else archive it)',
    async (app, id) => presentPlan(await deletePlan(app.deps, id, who())),
    'deleted',
  );
}

export function registerDeviceArchive(devices: Command): void {
  devices
    .command('archive')
    .description('Put a router away: RADIUS and the portal treat it as unknown from now on')
    .argument('<id>', 'device id')
    .option('--force', 'also when guests are online on it: disconnect them (they keep their access)')
    .action(async (id: string, flags: { force?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { device, disconnect } = await withApp(ctx, (app) =>
        archiveDevice(app.deps, id, { actor: cliActor(), force: flags.force === true }),
      );
      const sessions = presentAnswers(disconnect.sessions);
      const doc = { ...presentDevice(device), disconnect: { status: disconnect.status, sessions } };
      ctx.out.result(doc, () =>
        [
          `archived\n${formatRecord(Object.entries(presentDevice(device)))}`,
          formatAnswers(sessions, 'no live sessions to disconnect'),
        ].join('\n'),
      );
    });
  const who = () => ({ actor: cliActor() });
  simple(
    devices,
    'unarchive',
    'Bring an archived router back: RADIUS answers it again',
    async (app, id) => presentDevice(await unarchiveDevice(app.deps, id, who())),
    'unarchived',
  );
  simple(
    devices,
    'delete',
    'Delete a router that never had a session (else archive it)',
    async (app, id) => presentDevice(await deleteDevice(app.deps, id, who())),
    'deleted',
  );
}
