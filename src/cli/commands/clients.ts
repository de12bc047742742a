import { Argument, type Command } from 'commander';
import { listAllClients, setFirstParty } from '../../console/index.js';
import { contextOf, withApp } from '../context.js';
import { formatTable } from '../output.js';

export function registerClients(program: Command): void {
  const clients = program.command('clients').description('OAuth clients of every project (operator view)');

  clients
    .command('list')
    .description('List every OAuth client on this box')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, ({ deps }) => listAllClients(deps));
      ctx.out.result(rows, () =>
        rows.length === 0
          ? 'no OAuth clients yet\n'
          : formatTable(rows, [
              ['client_id', (r) => r.client_id],
              ['name', (r) => r.name],
              ['type', (r) => r.type],
              ['status', (r) => r.status],
              ['first party', (r) => (r.first_party ? 'yes' : 'no')],
            ]),
      );
    });

  clients
    .command('first-party')
    .description('Mark a client first-party (its users skip the consent screen) or not')
    .argument('<client_id>', 'the client')
    .addArgument(new Argument('<on|off>', 'first-party or not').choices(['on', 'off']))
    .action(async (clientId: string, value: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = await withApp(ctx, ({ deps }) => setFirstParty(deps, clientId, value === 'on'));
      ctx.out.result(
        client,
        () => `${client.client_id} is ${client.first_party ? 'now' : 'no longer'} first-party\n`,
      );
    });
}
