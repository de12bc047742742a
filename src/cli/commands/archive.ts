import type { Command } from 'commander';
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

type Ctx = ReturnType<typeof contextOf>;

const show = (ctx: Ctx, doc: Record<string, unknown>, said: string): void => {
  ctx.out.result(doc, () => `${said}\n${formatRecord(Object.entries(doc))}`);
};

export function registerPlanArchive(plans: Command): void {
  plans
    .command('archive')
    .description('Take a plan off sale and out of the lists; what was sold on it keeps working')
    .argument('<id>', 'plan id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const plan = await withApp(ctx, (app) => archivePlan(app.deps, id, { actor: cliActor() }));
      show(ctx, presentPlan(plan), 'archived (off sale)');
    });
  plans
    .command('unarchive')
    .description('Bring an archived plan back, still off sale (plans update ID --active sells it)')
    .argument('<id>', 'plan id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const plan = await withApp(ctx, (app) => unarchivePlan(app.deps, id, { actor: cliActor() }));
      show(ctx, presentPlan(plan), 'unarchived (off sale until you put it on sale)');
    });
  plans
    .command('delete')
    .description('Delete a plan nothing was ever sold on (else archive it)')
    .argument('<id>', 'plan id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const plan = await withApp(ctx, (app) => deletePlan(app.deps, id, { actor: cliActor() }));
      show(ctx, presentPlan(plan), 'deleted');
    });
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
  devices
    .command('unarchive')
    .description('Bring an archived router back: RADIUS answers it again')
    .argument('<id>', 'device id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const device = await withApp(ctx, (app) => unarchiveDevice(app.deps, id, { actor: cliActor() }));
      show(ctx, presentDevice(device), 'unarchived');
    });
  devices
    .command('delete')
    .description('Delete a router that never had a session (else archive it)')
    .argument('<id>', 'device id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const device = await withApp(ctx, (app) => deleteDevice(app.deps, id, { actor: cliActor() }));
      show(ctx, presentDevice(device), 'deleted');
    });
}
