import type { Command } from 'commander';
import { addSocialProvider, listSocialProviders, removeSocialProvider } from '../../identity/index.js';
import { contextOf, withApp } from '../context.js';
import { formatTable } from '../output.js';

/** The client secret: --client-secret, or the first line of stdin (keeps it out of shell history). */
async function readSecret(given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  let input = '';
  for await (const chunk of process.stdin) input += (chunk as Buffer).toString('utf8');
  return input.split(/\r?\n/)[0] ?? '';
}

export function registerSocial(program: Command): void {
  const social = program
    .command('social')
    .description(
      'Social login: upstream OpenID Connect providers (Google, Microsoft, another hotspot-ctl …)',
    );

  social
    .command('add')
    .description('Add or replace a provider; register the printed callback URL with it')
    .requiredOption(
      '--name <name>',
      'short name: /auth/social/<name>/begin, shown as the session’s device label',
    )
    .option('--display-name <text>', 'how the login page names it ("Sign in with <text>"); default: the name')
    .requiredOption('--issuer <url>', 'the provider’s issuer URL (its discovery document is read from there)')
    .requiredOption('--client-id <id>', 'client id this box was given by the provider')
    .option('--client-secret <secret>', 'client secret (read from stdin when omitted)')
    .action(
      async (
        opts: {
          name: string;
          displayName?: string;
          issuer: string;
          clientId: string;
          clientSecret?: string;
        },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        const clientSecret = await readSecret(opts.clientSecret);
        const provider = await withApp(ctx, ({ deps }) =>
          addSocialProvider(deps, {
            name: opts.name,
            ...(opts.displayName === undefined ? {} : { displayName: opts.displayName }),
            issuer: opts.issuer,
            clientId: opts.clientId,
            clientSecret,
          }),
        );
        ctx.out.result(
          provider,
          () => `provider ${provider.name} saved; its redirect URI: ${provider.callback_url}\n`,
        );
      },
    );

  social
    .command('list')
    .description('List social login providers (never their secrets)')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const rows = await withApp(ctx, ({ deps }) => listSocialProviders(deps));
      ctx.out.result(rows, () =>
        rows.length === 0
          ? 'no social login providers\n'
          : formatTable(rows, [
              ['name', (r) => r.name],
              ['display name', (r) => r.display_name],
              ['issuer', (r) => r.issuer],
              ['client_id', (r) => r.client_id],
              ['redirect URI', (r) => r.callback_url],
            ]),
      );
    });

  social
    .command('remove')
    .description('Remove a provider (accounts stay; their link to it goes)')
    .argument('<name>', 'the provider')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      await withApp(ctx, ({ deps }) => removeSocialProvider(deps, name));
      ctx.out.result({ removed: name }, () => `removed ${name}\n`);
    });
}
