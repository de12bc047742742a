import { Option, type Command } from 'commander';
import { removeStaff, STAFF_ROLES, staffCandidateExists } from '../../identity/index.js';
import { addStaffForSites, hasSeveralSites, listSites, listStaffWithSites } from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { prompts } from '../prompts.js';
import { formatTable, type Column } from '../output.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The password for a new account: prompted on a terminal, otherwise the first line of stdin. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY)
    return (await prompts()).password({ message: 'Password for the new account:', mask: '*' });
  let input = '';
  for await (const chunk of process.stdin) input += (chunk as Buffer).toString('utf8');
  return input.split(/\r?\n/)[0] ?? '';
}

export function registerStaff(program: Command): void {
  const staff = program
    .command('staff')
    .description('Staff accounts and their roles (owner, admin, operator, viewer)');

  staff
    .command('add')
    .description('Give an account a staff role, creating a verified account when the email has none')
    .requiredOption('--email <email>', 'the staff member’s email (their identity login)')
    .addOption(new Option('--role <role>', 'staff role').choices(STAFF_ROLES).makeOptionMandatory())
    .option(
      '--password <password>',
      'password for a new account (prompted, or read from stdin, when omitted)',
    )
    .option(
      '--site <site>',
      'limit the role to this site (slug or id; repeat for several); without it the role covers every site',
      collect,
      [],
    )
    .action(
      async (opts: { email: string; role: string; password?: string; site: string[] }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const result = await withApp(ctx, async ({ deps }) => {
          const password =
            opts.password ??
            ((await staffCandidateExists(deps, opts.email)) ? undefined : await readPassword());
          return addStaffForSites(deps, { email: opts.email, role: opts.role, password, sites: opts.site });
        });
        const where = opts.site.length === 0 ? '' : ` for ${opts.site.join(', ')}`;
        ctx.out.result(
          result,
          () =>
            `${result.created ? 'created account and ' : ''}set ${result.staff.email ?? ''} as ${result.staff.role ?? ''}${where}\n`,
        );
      },
    );

  staff
    .command('list')
    .description('List staff accounts')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { rows, slugs } = await withApp(ctx, async ({ deps }) => ({
        rows: await listStaffWithSites(deps),
        // The sites column appears once there is more than the default site.
        slugs: (await hasSeveralSites(deps))
          ? new Map((await listSites(deps)).map((s) => [s.id, s.slug]))
          : null,
      }));
      type Row = (typeof rows)[number];
      const columns: Column<Row>[] = [
        ['email', (r) => r.email],
        ['role', (r) => r.role],
        ['mfa', (r) => (r.mfa_enabled ? 'on' : 'off')],
        ['since', (r) => r.created_at],
      ];
      if (slugs !== null)
        columns.push(['sites', (r) => r.site_ids?.map((id) => slugs.get(id) ?? id).join(',') ?? 'all']);
      ctx.out.result(rows, () =>
        rows.length === 0
          ? 'no staff yet: hotspot-ctl staff add --email you@example.com --role owner\n'
          : formatTable(rows, columns),
      );
    });

  staff
    .command('remove')
    .description('Take the staff role away from an account (the account itself stays)')
    .argument('<email>', 'the staff member’s email')
    .action(async (email: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      await withApp(ctx, ({ deps }) => removeStaff(deps, email));
      ctx.out.result({ removed: email }, () => `removed staff role from ${email}\n`);
    });
}
