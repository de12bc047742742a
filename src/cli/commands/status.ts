import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { DATABASE_FILE } from '../../app.js';
import { migrationState, rowCounts } from '../../db/index.js';
import type { Config } from '../../config/index.js';
import { readOutbox } from '../../notify/index.js';
import { freeWifiWarning } from '../../payments/index.js';
import { storedCounters } from '../../radius/index.js';
import { ONLINE_WITHIN_INTERVALS, routersOnline } from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { formatRecord } from '../output.js';

/** The daemon is asked on loopback when it listens on every address. */
export function localUrl(config: Config): string {
  const host =
    config.httpHost === '0.0.0.0' ? '127.0.0.1' : config.httpHost === '::' ? '[::1]' : config.httpHost;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${String(config.httpPort)}/healthz`;
}

async function probeDaemon(url: string): Promise<{ reachable: boolean; url: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { reachable: res.ok, url };
  } catch {
    return { reachable: false, url };
  }
}

/** The stored RADIUS totals in one line: requests, answers, drops. */
function radiusLine(c: Record<string, number>): string {
  const n = (k: string): number => c[k] ?? 0;
  const dropped = Object.entries(c)
    .filter(([k, v]) => k.startsWith('dropped_') && v > 0)
    .map(([k, v]) => `${k.slice('dropped_'.length)} ${String(v)}`);
  // RadSec (docs/decisions/0025) only when it was ever used.
  const radsec = ['radsec_connections', 'radsec_connections_rejected', 'radsec_connections_malformed'].some(
    (k) => n(k) > 0,
  )
    ? `; RadSec: ${String(n('radsec_connections'))} connections, ${String(n('radsec_connections_rejected'))} refused, ` +
      `${String(n('radsec_connections_malformed'))} closed for a broken stream`
    : '';
  return (
    `${String(n('auth_requests'))} auth (${String(n('auth_accepts'))} accepted, ${String(n('auth_rejects'))} rejected), ` +
    `${String(n('acct_requests'))} accounting; dropped: ${dropped.length === 0 ? 'none' : dropped.join(', ')}${radsec}`
  );
}

/** A database URL without its passwords (in the user part, or as pg's password parameters). */
function safeUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  for (const name of ['password', 'sslpassword'])
    if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
  return parsed.toString();
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('Show daemon reachability, database state and counts')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = ctx.config();
      const dbFile = path.join(config.dataDir, DATABASE_FILE);
      const report = await withApp(
        ctx,
        async (app) => {
          const migrations = await migrationState(app.deps.db);
          const warning = freeWifiWarning(config);
          return {
            // What an operator must not miss (the sandbox giving Wi-Fi away).
            warnings: warning === undefined ? [] : [`WARNING: ${warning}`],
            daemon: await probeDaemon(localUrl(config)),
            database: {
              // PostgreSQL: where it is, without the password.
              file: config.databaseUrl ? safeUrl(config.databaseUrl) : dbFile,
              size_bytes: config.databaseUrl ? null : statSync(dbFile).size,
              migrations_applied: migrations.applied.length,
              migrations_pending: migrations.pending,
            },
            secrets: {
              radius_secret: config.generatedSecrets.includes('RADIUS_SECRET') ? 'generated' : 'configured',
              payment_webhook_secret: config.generatedSecrets.includes('PAYMENT_WEBHOOK_SECRET')
                ? 'generated'
                : 'configured',
            },
            outbox_messages: (await readOutbox(config.dataDir)).length,
            // Key ages: the state and dates of each OAuth signing key (none before the first start).
            signing_keys: migrations.pending.length === 0 ? await app.deps.keys.list() : [],
            counts: await rowCounts(app.deps.db, [
              'users',
              'projects',
              'oauth_clients',
              'plans',
              'devices',
              'invoices',
              'grants',
              'payments',
            ]),
            // Totals the daemon stores every minute (docs/decisions/0022-radius-security.md).
            radius_counters: migrations.pending.length === 0 ? await storedCounters(app.deps.db) : {},
            // Heard from within 2.5 interim intervals (DESIGN.md §4.7).
            routers: migrations.pending.length === 0 ? await routersOnline(app.deps) : null,
          };
        },
        { migrate: false },
      );
      ctx.out.result(report, () =>
        formatRecord([
          ...report.warnings.map((w) => ['payments', w] as const),
          [
            'daemon',
            report.daemon.reachable
              ? `running (${report.daemon.url})`
              : `not reachable (${report.daemon.url})`,
          ],
          [
            'database',
            report.database.size_bytes === null
              ? report.database.file
              : `${report.database.file} (${String(report.database.size_bytes)} bytes)`,
          ],
          [
            'migrations',
            `${String(report.database.migrations_applied)} applied, ${String(report.database.migrations_pending.length)} pending`,
          ],
          ['RADIUS secret', report.secrets.radius_secret],
          ['webhook secret', report.secrets.payment_webhook_secret],
          ['outbox', `${String(report.outbox_messages)} messages`],
          ...report.signing_keys.map(
            (k) => [`key ${k.kid.slice(0, 8)}…`, `${k.state}, created ${k.created_at}`] as const,
          ),
          ...Object.entries(report.counts).map(([table, n]) => [table, n ?? '-'] as const),
          ['RADIUS', radiusLine(report.radius_counters)],
          [
            'routers',
            report.routers === null
              ? '-'
              : `${String(report.routers.online)} of ${String(report.routers.registered)} online (RADIUS heard within ${String(
                  (config.radiusInterimInterval * ONLINE_WITHIN_INTERVALS) / 60,
                )} min)${report.routers.down > 0 ? `, ${String(report.routers.down)} down` : ''}`,
          ],
        ]),
      );
    });
}
