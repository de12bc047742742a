import type { Command } from 'commander';
import { issueMetricsToken, metricsTokenState, revokeMetricsToken } from '../../metrics/metrics-token.js';
import { contextOf, withApp } from '../context.js';

/** `hotspot-ctl metrics token|revoke|show`: the scrape token of GET /metrics (metrics-token.ts). */
export function registerMetrics(program: Command): void {
  const metrics = program
    .command('metrics')
    .description('GET /metrics: the token a Prometheus on another box scrapes with');

  metrics
    .command('token')
    .description('Make a new scrape token (shown once) and stop the earlier one')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const made = await withApp(ctx, ({ deps }) => issueMetricsToken(deps.db, deps.clock));
      ctx.out.result(made, () => `${made.token}\n`);
      ctx.out.note(
        'Shown once: put it in a file only Prometheus reads, and scrape with\n' +
          '  authorization: { type: Bearer, credentials_file: <that file> }\n' +
          'Any earlier metrics token no longer works.' +
          (config.metrics === 'on' ? '' : '\nGET /metrics is off: set METRICS=on and restart the daemon.'),
      );
    });

  metrics
    .command('revoke')
    .description('Remove the scrape token: only loopback clients and signed-in staff read /metrics')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const removed = await withApp(ctx, ({ deps }) => revokeMetricsToken(deps.db));
      ctx.out.result({ revoked: removed }, () =>
        removed ? 'metrics token removed\n' : 'there was no metrics token\n',
      );
    });

  metrics
    .command('show')
    .description('Whether /metrics is on and since when the scrape token exists (never the token)')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const state = await withApp(ctx, ({ deps }) => metricsTokenState(deps.db));
      const doc = { metrics: config.metrics, token_created_at: state.created_at };
      ctx.out.result(
        doc,
        () =>
          [
            `GET /metrics: ${config.metrics}`,
            `scrape token: ${state.created_at === null ? 'none' : `made ${state.created_at}`}`,
          ].join('\n') + '\n',
      );
    });
}
