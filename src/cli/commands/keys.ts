import type { Command } from 'commander';
import { contextOf, withApp } from '../context.js';
import { formatTable } from '../output.js';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('OAuth signing keys (RS256): list and rotate');

  keys
    .command('list')
    .description(
      'List signing keys: pending (published, not yet signing), active, retired (published until unpublish_at)',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, ({ deps }) => deps.keys.list());
      ctx.out.result(rows, () =>
        formatTable(rows, [
          ['kid', (r) => r.kid],
          ['state', (r) => r.state],
          ['created', (r) => r.created_at],
          ['signs from', (r) => r.signs_from],
          ['unpublish at', (r) => r.unpublish_at],
        ]),
      );
    });

  keys
    .command('rotate')
    .description('Create a new signing key: published now, signing in 5 minutes (or at once with --now)')
    .option(
      '--now',
      'start signing with the new key immediately (verifiers that cached the JWKS may briefly fail)',
    )
    .option(
      '--retire-old',
      'with --now, for a key that may have leaked: stop publishing every other key at once (tokens signed with them are refused from then on)',
    )
    .action(async (opts: { now?: boolean; retireOld?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const row = await withApp(ctx, ({ deps }) =>
        deps.keys.rotate({ now: opts.now === true, retireOld: opts.retireOld === true }),
      );
      const doc = {
        kid: row.kid,
        created_at: row.created_at,
        signs_from: row.signs_from,
        ...(opts.retireOld ? { unpublished: row.unpublished } : {}),
      };
      ctx.out.result(doc, () => {
        const made = `new key ${row.kid}: published now, signs from ${row.signs_from}\n`;
        if (!opts.retireOld) return made;
        const ended =
          row.unpublished.length === 0
            ? 'no other key was published\n'
            : `no longer published: ${row.unpublished.join(', ')}\n` +
              'access and ID tokens signed with them are refused from now on; clients need new ones\n';
        return made + ended;
      });
    });
}
