import { password as promptPassword } from '@inquirer/prompts';
import { Option, type Command } from 'commander';
import { addStaff, listStaff, removeStaff, STAFF_ROLES, staffCandidateExists } from '../../identity/index.js';
import { contextOf, withApp } from '../context.js';
import { formatTable } from '../output.js';

/** The password for a new account: prompted on a terminal, otherwise the first line of stdin. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) return promptPassword({ message: 'Password for the new account:', mask: '*' });
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
    .action(async (opts: { email: string; role: string; password?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const result = await withApp(ctx, async ({ deps }) => {
        const password =
          opts.password ??
          ((await staffCandidateExists(deps, opts.email)) ? undefined : await readPassword());
        return addStaff(deps, { email: opts.email, role: opts.role, password });
      });
      ctx.out.result(
        result,
        () =>
          `${result.created ? 'created account and ' : ''}set ${result.staff.email ?? ''} as ${result.staff.role ?? ''}\n`,
      );
    });

  staff
    .command('list')
    .description('List staff accounts')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, ({ deps }) => listStaff(deps));
      ctx.out.result(rows, () =>
        rows.length === 0
          ? 'no staff yet: hotspot-ctl staff add --email you@example.com --role owner\n'
          : formatTable(rows, [
              ['email', (r) => r.email],
              ['role', (r) => r.role],
              ['mfa', (r) => (r.mfa_enabled ? 'on' : 'off')],
              ['since', (r) => r.created_at],
            ]),
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
