/**
 * `npm run bench:reports` (issue 21 part 5; docs/decisions/0036-reports.md): a year of a busy
 * venue, 1M RADIUS sessions and 100k payments (with the invoices around them, refunds, grants and
 * vouchers), then every report over the whole year, each timed, with the longest stall of the
 * event loop while it ran (monitorEventLoopDelay, 1 ms resolution). The baseline, measured the same
 * way in the same run: a plain `select count(*)` of the sessions on the daemon's own connection,
 * which on SQLite runs synchronously on the event loop. SQLite always; PostgreSQL too when
 * HOTSPOT_BENCH_PG_URL is given (an empty database or schema it may fill).
 * BENCH_SESSIONS and BENCH_PAYMENTS change the sizes. BENCH_DB_DIR keeps the SQLite database in
 * that directory (and the PostgreSQL one where it is) and reuses it when it is there already, so
 * that a change can be measured again without filling anew; BENCH_SKIP_SQLITE=1 runs PostgreSQL only.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Config } from '../src/config/index.js';
import { backfillFirstRouters } from '../migrations/0040_first_router.js';
import { migrateToLatest, openStore, type Store } from '../src/db/index.js';
import { ManualClock } from '../src/lib/clock.js';
import { REPORT_NAMES, runReport } from '../src/wifi/index.js';
import {
  grantsBySite,
  insertReportRows,
  reportRows,
  routerRow,
  seeded,
  sessionRows,
} from '../test/helpers/report-data.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 100_000);
const NOW = Date.parse('2026-07-01T09:00:00.000Z');
const YEAR_MS = 365 * 86_400_000;
const CHUNK = 1000;

interface Timed {
  ms: number;
  blockMs: number;
}

/** How long `work` took and the longest the event loop could not run meanwhile. */
async function timed(work: () => Promise<unknown>): Promise<Timed> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  // The histogram records a stall when its timer next runs: a stall at the very end of `work` (the
  // report's fold, when nothing after it waits for I/O) shows only after a turn of the loop.
  await new Promise((resolve) => setTimeout(resolve, 5));
  delay.disable();
  return { ms, blockMs: delay.max / 1e6 };
}

async function fill(store: Store): Promise<void> {
  const db = store.db;
  const now = new Date(NOW).toISOString();
  await db
    .insertInto('sites')
    .values(
      ['dar', 'kathmandu'].map((slug, i) => ({
        id: slug,
        slug,
        name: slug,
        display_name: null,
        logo_data: null,
        logo_type: null,
        brand_color: null,
        background_color: null,
        time_zone: i === 0 ? 'Africa/Dar_es_Salaam' : 'Asia/Kathmandu',
        selcom_account_enc: null,
        azampay_account_enc: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  const sites = ['default', 'dar', 'kathmandu'];
  const plans = sites.flatMap((site, s) =>
    [1000, 3000, 10_000].map((price, i) => ({
      id: `plan-${String(s)}-${String(i)}`,
      site_id: site,
      price_tzs: price,
    })),
  );
  await db
    .insertInto('plans')
    .values(
      plans.map((p) => ({
        ...p,
        name: `${String(p.price_tzs)} TZS`,
        description: '',
        duration_seconds: 3600,
        data_limit_bytes: null,
        active: 1,
        sort_order: 0,
        max_devices: 1,
        download_kbps: null,
        upload_kbps: null,
        created_at: now,
        updated_at: now,
        remember_device: 0,
      })),
    )
    .execute();
  const devices = Array.from({ length: 12 }, (_, i) => ({
    id: `dev-${String(i)}`,
    site_id: sites[i % 3] ?? 'default',
  }));
  await db
    .insertInto('devices')
    .values(devices.map((d, i) => routerRow(i, d.site_id, now)))
    .execute();
  // Four people sell at the counter (revenue's by_seller): three staff members and the CLI.
  const sellers = ['cli:bench', ...[1, 2, 3].map((i) => `00000000-0000-4000-8000-00000000000${String(i)}`)];
  // One session in a thousand still open: usage reads their live octets beside the closed ones' final octets.
  const world = { plans, devices, from: NOW - YEAR_MS, to: NOW, now: NOW, sellers, openOneIn: 1000 };
  // About 70 % of the invoices end paid (reportRows): this many give PAYMENTS payment rows.
  const rows = reportRows(1, {
    ...world,
    invoices: Math.round(PAYMENTS / 0.7),
    sessions: 0,
    batches: 100,
    codesPerBatch: 100,
  });
  await insertReportRows(db, rows, CHUNK / 4, false);
  const grants = grantsBySite(rows);
  const rnd = seeded(2);
  for (let first = 0; first < SESSIONS; first += 50 * CHUNK) {
    const count = Math.min(50 * CHUNK, SESSIONS - first);
    await insertReportRows(
      db,
      {
        invoices: [],
        payments: [],
        grants: [],
        voucher_batches: [],
        vouchers: [],
        radius_sessions: sessionRows(rnd, world, grants, first, count, 1),
      },
      CHUNK / 4,
      false,
    );
  }
  // The sales' first routers, as the accounting path would have recorded them (migration 0040).
  await backfillFirstRouters(db);
  // Fresh statistics, as a live database has; on PostgreSQL also the visibility map autovacuum
  // keeps on a live database (index-only scans read it).
  await sql`${sql.raw(store.kind === 'postgres' ? 'vacuum analyze' : 'analyze')}`.execute(db);
  const count = async (table: 'payments' | 'radius_sessions' | 'invoices') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  process.stdout.write(
    `  rows: ${String(await count('radius_sessions'))} sessions, ${String(await count('payments'))} payments, ${String(await count('invoices'))} invoices\n`,
  );
}

/** Whether the database holds a filled bench already (BENCH_DB_DIR). */
async function filledBefore(store: Store): Promise<boolean> {
  const row = await store.db
    .selectFrom('radius_sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n) > 0;
}

async function run(kind: string, databaseUrl: string | null): Promise<void> {
  const keep = process.env.BENCH_DB_DIR;
  if (keep) mkdirSync(keep, { recursive: true });
  const dataDir = keep ?? mkdtempSync(path.join(tmpdir(), 'hotspot-bench-reports-'));
  const store = await openStore({ dataDir, databaseUrl }, { now: () => new Date(NOW) });
  try {
    const migrated = await timed(() => migrateToLatest(store.db));
    process.stdout.write(`${kind}: migrated in ${(migrated.ms / 1000).toFixed(1)} s\n`);
    if (keep && (await filledBefore(store))) {
      process.stdout.write(`  reusing the filled database (BENCH_DB_DIR)\n`);
    } else {
      process.stdout.write(`  filling…\n`);
      const filled = await timed(() => fill(store));
      process.stdout.write(`  filled in ${(filled.ms / 1000).toFixed(1)} s\n`);
    }
    const deps = {
      db: store.db,
      clock: new ManualClock(new Date(NOW).toISOString()),
      config: { venueTimezone: 'Africa/Dar_es_Salaam' } as Config, // reports read only this setting
    };
    const request = { from: '2025-07-01', to: '2026-06-30', group: 'day' };
    const audience = { scope: null, maskPhones: false };
    // Once to start the reader and warm the caches; then measured.
    await runReport(deps, 'usage', request, audience);
    const baseline = await timed(() =>
      store.db
        .selectFrom('radius_sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .execute(),
    );
    process.stdout.write(
      `  baseline select count(*) of the sessions on the daemon's connection: ${baseline.ms.toFixed(0)} ms, event loop blocked up to ${baseline.blockMs.toFixed(0)} ms\n`,
    );
    process.stdout.write('  report          time (ms)  x baseline  event-loop block (ms)\n');
    for (const name of REPORT_NAMES) {
      const r = await timed(() => runReport(deps, name, request, audience));
      process.stdout.write(
        `  ${name.padEnd(14)}  ${r.ms.toFixed(0).padStart(9)}  ${(r.ms / baseline.ms).toFixed(1).padStart(10)}  ${r.blockMs.toFixed(0).padStart(21)}\n`,
      );
    }
  } finally {
    await store.close();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_SKIP_SQLITE !== '1') await run('SQLite', null);
if (process.env.HOTSPOT_BENCH_PG_URL) await run('PostgreSQL', process.env.HOTSPOT_BENCH_PG_URL);
