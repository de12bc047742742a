import path from 'node:path';
import t from 'tap';
import { readOutbox } from '../../src/notify/index.js';
import { boxEnv, runCli } from '../helpers/cli.js';

/** The counter tools at the CLI: grants issue|extend|revoke|list, invoices mark-paid|refund, audit list. */

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a typed JSON.parse for the assertions
const json = <T = Record<string, unknown>>(stdout: string) => JSON.parse(stdout) as T;

t.test('grants issue, extend, revoke and the audit trail from the CLI', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  const plan = json<{ id: string }>(
    (await runCli(['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'], env))
      .stdout,
  );

  const usage = await runCli(['grants', 'issue', '--plan', plan.id], env);
  t.equal(usage.code, 2, 'how it was paid must be said');
  t.match(usage.stderr, /--paid-cash AMOUNT or --complimentary/);
  const both = await runCli(
    ['grants', 'issue', '--plan', plan.id, '--paid-cash', '1000', '--complimentary'],
    env,
  );
  t.equal(both.code, 2);
  const bad = await runCli(['grants', 'issue', '--plan', plan.id, '--paid-cash', '0'], env);
  t.equal(bad.code, 1);
  t.match(bad.stderr, 'amount_tzs must be a whole number from 1 to 10000000 for a cash sale');

  const cash = await runCli(
    ['grants', 'issue', '--plan', plan.id, '--phone', '0712345678', '--paid-cash', '1000'],
    env,
  );
  t.equal(cash.code, 0, cash.stderr);
  t.match(cash.stdout, /username\s+[a-z2-9]+/);
  t.match(cash.stdout, /the credentials were sent by SMS/);
  t.match(await readOutbox(dataDir), [{ to: '+255712345678', text: /username [a-z2-9]+ password/ }]);

  const gift = await runCli(['grants', 'issue', '--plan', plan.id, '--complimentary', '--json'], env);
  t.equal(gift.code, 0, gift.stderr);
  const sale = json<{
    invoice: { channel: string; amount_tzs: number; sold_by: string; phone: string };
    grant: { id: string; username: string };
    credentials: { password: string };
  }>(gift.stdout);
  t.match(sale.invoice, { channel: 'complimentary', amount_tzs: 0, sold_by: /^cli:/, phone: '' });

  const extended = await runCli(['grants', 'extend', sale.grant.username, '--by', '30m', '--json'], env);
  t.equal(extended.code, 0, extended.stderr);
  const grant = json<{ expires_at: string; issued_at: string }>(extended.stdout);
  t.equal(Date.parse(grant.expires_at) - Date.parse(grant.issued_at), 90 * 60_000, 'one hour and 30 minutes');

  const revoked = await runCli(['grants', 'revoke', sale.grant.id, '--reason', 'misuse', '--json'], env);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(json(revoked.stdout), {
    grant: { revoke_reason: 'misuse' },
    disconnect: { status: 'no_sessions' },
  });
  const again = await runCli(['grants', 'extend', sale.grant.id, '--by', '1h'], env);
  t.equal(again.code, 1);
  t.match(again.stderr, 'the access has been revoked');

  const listed = json<{ id: string; live: boolean }[]>(
    (await runCli(['--json', 'grants', 'list'], env)).stdout,
  );
  t.same(
    listed.map((g) => g.live),
    [false, true],
  );
  // The admin lists' filters and paging (wifi/list-query.ts), as options.
  const usernames = async (...args: string[]) => {
    const res = await runCli(['--json', 'grants', 'list', ...args], env);
    t.equal(res.code, 0, res.stderr);
    return json<{ username: string }[]>(res.stdout).map((g) => g.username);
  };
  const [giftUser, cashUser] = json<{ username: string }[]>(
    (await runCli(['--json', 'grants', 'list'], env)).stdout,
  ).map((g) => g.username);
  t.same(await usernames('--status', 'revoked'), [giftUser], 'the revoked one');
  t.same(await usernames('--status', 'live'), [cashUser]);
  t.same(await usernames('--search', '0712345678'), [cashUser], 'the phone as typed');
  t.same(await usernames('--page', '1', '--per-page', '1'), [giftUser], 'the newest, one a page');
  t.same(await usernames('--page', '2', '--per-page', '1'), [cashUser]);
  const paged = await runCli(['grants', 'list', '--per-page', '1'], env);
  t.match(paged.stdout, /more on page 2\n$/, 'the table says another page follows');
  const badPage = await runCli(['grants', 'list', '--per-page', '500'], env);
  t.equal(badPage.code, 1);
  t.equal(badPage.stderr, 'error: per_page must be a whole number from 1 to 200\n');

  const audit = await runCli(['--json', 'audit', 'list', '--limit', '3'], env);
  t.equal(audit.code, 0, audit.stderr);
  const page = json<{ data: { action: string; actor: string }[]; next_cursor: string | null }>(audit.stdout);
  t.same(
    page.data.map((e) => e.action),
    ['grant.revoke', 'grant.extend', 'grant.issue'],
  );
  t.match(page.data[0], { actor: /^cli:/ });
  t.type(page.next_cursor, 'string');
  const rest = json<{ data: { action: string }[] }>(
    (await runCli(['--json', 'audit', 'list', '--cursor', String(page.next_cursor)], env)).stdout,
  );
  t.same(
    rest.data.map((e) => e.action),
    ['grant.issue', 'plan.create'],
    'the CLI’s own plan change is in the trail too',
  );
  t.match((await runCli(['audit', 'list', '--target-type', 'plan'], env)).stdout, /plan\.create/);
});

t.test('invoices mark-paid from the CLI settles the invoice with a by-hand payment', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  // A pending invoice needs the portal: the CLI has no purchase command, so the test uses the app.
  const { startTestApp } = await import('../helpers/app.js');
  const { aPlan, aPurchaseKey, postPurchase } = await import('../helpers/wifi.js');
  const app = await startTestApp(t, { dataDir });
  const plan = await aPlan(app.app);
  const started = await postPurchase(app.base, { plan_id: plan.id, phone: '0712000003' }, aPurchaseKey());
  const number = String(started.body.data?.invoice_number);

  const missing = await runCli(['invoices', 'mark-paid', number], env);
  t.equal(missing.code, 2, '--reason is required');
  // Typed off a receipt in lower case: the same invoice.
  const marked = await runCli(
    ['invoices', 'mark-paid', ` ${number.toLowerCase()} `, '--reason', 'cash handed over', '--json'],
    env,
  );
  t.equal(marked.code, 0, marked.stderr);
  t.match(json(marked.stdout), { invoice: { number, status: 'paid' }, credentials: { password: String } });
  const payments = await app.app.deps.db.selectFrom('payments').selectAll().execute();
  t.match(payments, [{ provider: 'by_hand', amount_tzs: 1000, channel: 'mobile_money' }]);
  const recheck = await runCli(['invoices', 'recheck', number], env);
  t.equal(recheck.code, 1);
  t.match(recheck.stderr, 'the invoice is already paid');
});

t.test('invoices refund from the CLI: a reason, by number, once; the access is revoked', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  const plan = json<{ id: string }>(
    (await runCli(['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--json'], env))
      .stdout,
  );
  const sale = json<{ invoice: { id: string; number: string }; grant: { username: string } }>(
    (await runCli(['grants', 'issue', '--plan', plan.id, '--paid-cash', '800', '--json'], env)).stdout,
  );
  const number = sale.invoice.number;

  const missing = await runCli(['invoices', 'refund', number], env);
  t.equal(missing.code, 2, '--reason is required');

  const text = await runCli(['invoices', 'refund', number, '--reason', 'guest changed their mind'], env);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, new RegExp(`invoice\\s+${number}`));
  t.match(text.stdout, /refunded_tzs\s+800/);
  t.match(text.stdout, new RegExp(`access\\s+${sale.grant.username} revoked`));
  t.match(text.stdout, /no live sessions to disconnect/);

  const twice = await runCli(['invoices', 'refund', sale.invoice.id, '--reason', 'again', '--json'], env);
  t.equal(twice.code, 1);
  t.match(twice.stderr, 'the invoice is already refunded');

  const audit = json<{ data: { action: string; actor: string; reason: string; after: unknown }[] }>(
    (await runCli(['--json', 'audit', 'list', '--target-type', 'invoice'], env)).stdout,
  );
  t.match(audit.data, [
    {
      action: 'invoice.refund',
      actor: /^cli:/,
      reason: 'guest changed their mind',
      after: {
        refunded_at: String,
        refund: { kind: 'refund', amount_tzs: -800, channel: 'cash', provider: 'by_hand' },
        grant: { username: sale.grant.username, revoke_reason: 'refunded' },
      },
    },
  ]);
  t.equal(audit.data.length, 1, 'one entry: the second refund wrote none');
});

t.test('grants list --from/--to: a bare date is a day of VENUE_TIMEZONE, and must exist', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  // The CLI runs on the wall clock: the sales are made by a box on the same store at set times.
  const { startTestApp } = await import('../helpers/app.js');
  const { ManualClock } = await import('../../src/lib/clock.js');
  const { aPaidPurchase, aPlan } = await import('../helpers/wifi.js');
  // Dar es Salaam (VENUE_TIMEZONE) is UTC+3: 22:00 UTC on the 28th is 01:00 on 29 November there.
  const app = await startTestApp(t, { dataDir, clock: new ManualClock('2026-11-28T20:30:00Z') });
  const plan = await aPlan(app.app);
  await aPaidPurchase(app, plan, { phone: '0712000001' }); // 23:30 on the 28th
  app.clock.advance('90m');
  await aPaidPurchase(app, plan, { phone: '0712000002' }); // 01:00 on the 29th

  const phones = async (...args: string[]) => {
    const res = await runCli(['--json', 'grants', 'list', ...args], env);
    t.equal(res.code, 0, res.stderr);
    return json<{ phone: string }[]>(res.stdout).map((g) => g.phone);
  };
  t.same(await phones('--from', '2026-11-29', '--to', '2026-11-29'), ['+255712000002'], 'the 01:00 sale');
  t.same(await phones('--to', '2026-11-28'), ['+255712000001'], 'the 23:30 sale is the day before');
  const impossible = await runCli(['grants', 'list', '--from', '2026-02-31'], env);
  t.equal(impossible.code, 1);
  t.equal(impossible.stderr, 'error: from and to must be ISO-8601 dates or date-times\n');
});

t.test('audit list --from/--to: a bare date is a day of VENUE_TIMEZONE, and must exist', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir, { VENUE_TIMEZONE: 'Pacific/Kiritimati' });
  // The CLI runs on the wall clock: the entries are made by a box on the same store at set times.
  const { startTestApp } = await import('../helpers/app.js');
  const { ManualClock } = await import('../../src/lib/clock.js');
  const { staffClient } = await import('../helpers/staff.js');
  // Kiritimati (VENUE_TIMEZONE) is UTC+14: 09:30 UTC on the 28th is 23:30 there, 11:30 is 01:30 on the 29th.
  const app = await startTestApp(t, {
    dataDir,
    clock: new ManualClock('2026-11-28T09:30:00Z'),
    env: { VENUE_TIMEZONE: 'Pacific/Kiritimati' },
  });
  const owner = await staffClient(app, 'owner');
  const plan = (name: string) =>
    owner.post('/api/v1/admin/plans', { name, price_tzs: 1000, duration_seconds: 3600 });
  await plan('Before'); // 23:30 on the 28th
  app.clock.advance('2h');
  await plan('After'); // 01:30 on the 29th

  const names = async (...args: string[]) => {
    const res = await runCli(['--json', 'audit', 'list', ...args], env);
    t.equal(res.code, 0, res.stderr);
    return json<{ data: { after: { name: string } }[] }>(res.stdout).data.map((e) => e.after.name);
  };
  t.same(await names('--from', '2026-11-29', '--to', '2026-11-29'), ['After'], 'the 01:30 entry');
  t.same(await names('--to', '2026-11-28'), ['Before'], 'the 23:30 entry is the day before');
  const impossible = await runCli(['audit', 'list', '--from', '2026-02-31'], env);
  t.equal(impossible.code, 1);
  t.equal(impossible.stderr, 'error: from and to must be ISO-8601 date-times\n');
});
