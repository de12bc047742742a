import { Option, type Command } from 'commander';
import { formatDuration } from '../../lib/duration.js';
import {
  auditPage,
  cliActor,
  extendGrant,
  issueAtCounter,
  markInvoicePaid,
  presentGrant,
  presentAnswers,
  presentInvoice,
  presentRefund,
  recentGrants,
  recheckInvoice,
  refundInvoice,
  revokeGrant,
  type CounterSale,
  type Staff,
} from '../../wifi/index.js';
import { formatAnswers } from '../answers.js';
import { GRANT_LIST } from '../../wifi/counter.routes.js';
import { contextOf, withApp } from '../context.js';
import { listCommand } from '../list-options.js';
import { formatRecord, formatTable, type Column } from '../output.js';
import { parseDurationOption, parseInstantOption, parseWholeNumber } from '../option-parsers.js';

/**
 * The counter tools at the box (DESIGN.md §4.8): `grants list|issue|extend|revoke`, `invoices
 * recheck|mark-paid|refund`, `audit list`. The operator at the CLI covers every site and is recorded in
 * the audit trail as `cli:<OS user>`; a counter sale's sold_by says the same.
 */

const cli = (): Staff => ({ actor: cliActor(), scope: null });

type GrantListRow = Awaited<ReturnType<typeof recentGrants>>[number];

const GRANT_COLUMNS: readonly Column<GrantListRow>[] = [
  ['id', (g) => g.id],
  ['username', (g) => g.username],
  ['plan', (g) => g.plan_name],
  ['channel', (g) => g.channel],
  ['amount_tzs', (g) => g.amount_tzs],
  ['phone', (g) => g.phone],
  ['expires_at', (g) => g.expires_at],
  ['live', (g) => g.live],
  ['revoked_at', (g) => g.revoked_at],
];

/** A sale's credentials, shown this once. */
function saleDoc(sale: CounterSale) {
  return {
    invoice: presentInvoice(sale.invoice),
    grant: presentGrant(sale.grant),
    credentials: {
      username: sale.grant.username,
      password: sale.password,
      expires_at: sale.grant.expires_at,
    },
  };
}

const saleText = (doc: ReturnType<typeof saleDoc>, sale: CounterSale): string =>
  formatRecord([
    ['invoice', doc.invoice.number],
    ['channel', doc.invoice.channel],
    ['amount_tzs', doc.invoice.amount_tzs],
    ['phone', doc.invoice.phone || '(none)'],
    ['username', doc.credentials.username],
    ['password', doc.credentials.password],
    ['valid for', formatDuration(sale.invoice.duration_seconds)],
    ['expires_at', doc.credentials.expires_at],
  ]) +
  (doc.invoice.phone ? 'the credentials were sent by SMS\n' : 'shown once: write them down for the guest\n');

export function registerGrants(program: Command): void {
  const grants = program.command('grants').description('Wi-Fi access grants: the counter tools');

  listCommand(grants, {
    description: 'List access grants, newest first: the newest 200, or a page of those matching the options',
    spec: GRANT_LIST,
    read: (app, filter) => recentGrants(app.deps, undefined, filter),
    present: (row) => row,
    columns: GRANT_COLUMNS,
    none: 'no grants',
    searched: 'username, phone, invoice number',
  });

  grants
    .command('issue')
    .description('Issue access without mobile money: sold for cash at the counter, or complimentary')
    .requiredOption('--plan <id>', 'the plan (from plans list)')
    .option('--phone <number>', 'the guest’s phone: the credentials go there by SMS')
    .addOption(
      new Option('--paid-cash <amount>', 'the cash taken, in TZS')
        .argParser(parseWholeNumber)
        .conflicts('complimentary'),
    )
    .option('--complimentary', 'given away (a payment of 0 TZS)')
    .action(
      async (
        flags: { plan: string; phone?: string; paidCash?: number; complimentary?: boolean },
        cmd: Command,
      ) => {
        if (flags.paidCash === undefined && flags.complimentary !== true)
          cmd.error('error: say how it was paid: --paid-cash AMOUNT or --complimentary', { exitCode: 2 });
        const ctx = contextOf(cmd);
        const sale = await withApp(ctx, (app) =>
          issueAtCounter(
            app.deps,
            {
              plan_id: flags.plan,
              phone: flags.phone,
              channel: flags.complimentary === true ? 'complimentary' : 'cash',
              amount_tzs: flags.paidCash,
            },
            cli(),
          ),
        );
        const doc = saleDoc(sale);
        ctx.out.result(doc, () => saleText(doc, sale));
      },
    );

  grants
    .command('extend')
    .description('Give a grant more time (a run-out grant gets it from now; a revoked one cannot)')
    .argument('<grant>', 'grant id or username')
    .requiredOption('--by <duration>', 'how much more: seconds or 30m, 1h, 1d', parseDurationOption)
    .option('--reason <text>', 'recorded in the audit trail')
    .action(async (ref: string, flags: { by: number; reason?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const grant = await withApp(ctx, (app) =>
        extendGrant(app.deps, ref, { seconds: flags.by, reason: flags.reason }, cli()),
      );
      ctx.out.result(presentGrant(grant), () =>
        formatRecord([
          ['grant', grant.id],
          ['username', grant.username],
          ['expires_at', grant.expires_at],
        ]),
      );
    });

  grants
    .command('revoke')
    .description("Revoke a grant and send Disconnect-Requests to its live sessions' routers")
    .argument('<grant>', 'grant id or username')
    .option('--reason <text>', 'recorded as the revocation reason', 'staff revoke')
    .action(async (ref: string, flags: { reason: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { grant, disconnect } = await withApp(ctx, (app) =>
        revokeGrant(app.deps, ref, { reason: flags.reason }, cli()),
      );
      const doc = {
        grant: presentGrant(grant),
        disconnect: { status: disconnect.status, sessions: presentAnswers(disconnect.sessions) },
      };
      ctx.out.result(doc, () =>
        [
          formatRecord([
            ['grant', grant.id],
            ['revoked_at', grant.revoked_at],
            ['reason', grant.revoke_reason],
            ['routers', disconnect.status],
          ]),
          formatAnswers(presentAnswers(disconnect.sessions), 'no live sessions to disconnect'),
        ].join('\n'),
      );
    });

  const invoices = program.command('invoices').description('Invoices: the counter tools');

  invoices
    .command('recheck')
    .description('Ask the payment provider now what became of an unpaid invoice, and settle what it says')
    .argument('<invoice>', 'invoice id or number')
    .action(async (ref: string, _flags: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const result = await withApp(ctx, (app) => recheckInvoice(app.deps, ref, cli()));
      const doc = {
        invoice: presentInvoice(result.invoice),
        provider_status: result.providerStatus,
        outcome: result.outcome,
      };
      ctx.out.result(doc, () =>
        formatRecord([
          ['invoice', doc.invoice.number],
          ['provider says', doc.provider_status],
          ['status', doc.invoice.status],
        ]),
      );
    });

  invoices
    .command('mark-paid')
    .description('Mark an unpaid invoice paid by hand: the grant is issued and the credentials sent')
    .argument('<invoice>', 'invoice id or number')
    .requiredOption('--reason <text>', 'why (recorded in the audit trail)')
    .action(async (ref: string, flags: { reason: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const sale = await withApp(ctx, (app) =>
        markInvoicePaid(app.deps, ref, { reason: flags.reason }, cli()),
      );
      const doc = saleDoc(sale);
      ctx.out.result(doc, () => saleText(doc, sale));
    });

  invoices
    .command('refund')
    .description(
      'Record that a paid sale was refunded by hand (cash back, or reversed at the provider): its access is revoked',
    )
    .argument('<invoice>', 'invoice id or number')
    .requiredOption('--reason <text>', 'why (recorded in the audit trail)')
    .action(async (ref: string, flags: { reason: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const doc = presentRefund(
        await withApp(ctx, (app) => refundInvoice(app.deps, ref, { reason: flags.reason }, cli())),
      );
      ctx.out.result(doc, () =>
        [
          formatRecord([
            ['invoice', doc.invoice.number],
            ['channel', doc.refund.channel],
            ['refunded_tzs', -doc.refund.amount_tzs],
            ['refunded_at', doc.invoice.refunded_at],
            ['access', doc.grant ? `${doc.grant.username} revoked` : '(none)'],
            ['routers', doc.disconnect.status],
          ]),
          formatAnswers(doc.disconnect.sessions, 'no live sessions to disconnect'),
        ].join('\n'),
      );
    });

  program
    .command('audit')
    .description('The audit trail of staff actions on Wi-Fi data')
    .command('list')
    .description('List audit entries, newest first')
    .option('--target-type <type>', 'grant, invoice, plan, device, site, session, sms, …')
    .option('--target-id <id>', 'one record')
    .option(
      '--from <time>',
      'entries at or after this ISO-8601 date or time (a bare date: that day in VENUE_TIMEZONE)',
      parseInstantOption,
    )
    .option(
      '--to <time>',
      'entries before this ISO-8601 time (a bare date takes in the whole day)',
      parseInstantOption,
    )
    .option('--limit <n>', 'at most this many (1-200)', parseWholeNumber, 50)
    .option('--cursor <cursor>', 'the next page (the next_cursor a --json list printed)')
    .action(
      async (
        flags: {
          targetType?: string;
          targetId?: string;
          from?: string;
          to?: string;
          limit: number;
          cursor?: string;
        },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        const page = await withApp(ctx, (app) =>
          auditPage(
            app.deps,
            {
              target_type: flags.targetType,
              target_id: flags.targetId,
              from: flags.from,
              to: flags.to,
              limit: String(flags.limit),
              cursor: flags.cursor,
            },
            null,
            // The CLI covers every site: a bare date is a day of VENUE_TIMEZONE, as in the lists.
            ctx.config().venueTimezone,
          ),
        );
        type Entry = (typeof page.entries)[number];
        const columns: readonly Column<Entry>[] = [
          ['at', (e) => e.at],
          ['actor', (e) => e.actor],
          ['action', (e) => e.action],
          ['target', (e) => `${e.target_type}:${e.target_id}`],
          ['reason', (e) => e.reason],
        ];
        ctx.out.result({ data: page.entries, next_cursor: page.nextCursor }, () =>
          page.entries.length === 0
            ? 'no audit entries\n'
            : formatTable(page.entries, columns) +
              (page.nextCursor ? `more: --cursor ${page.nextCursor}\n` : ''),
        );
      },
    );
}
