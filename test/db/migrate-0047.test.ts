import { Migrator, PostgresAdapter, sql } from 'kysely';
import t from 'tap';
import { MIGRATIONS, migrateToLatest, openStore, type Db } from '../../src/db/index.js';
import { storeEnv } from '../helpers/store.js';

/**
 * Migration 0047 (docs/decisions/0027-vouchers.md, "a batch keeps its terms") on the store the
 * suite runs on: every batch made before it gets its plan's terms as they are when it runs; the
 * required terms are NOT NULL; the table's index and the codes' reference to it are as they
 * were; and the migration undoes cleanly.
 */

const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** A migrator over the migrations before `first` (the database as an older release left it), or all. */
async function migrator(db: Db, first = '9999'): Promise<Migrator> {
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  return new Migrator({
    db,
    provider: {
      getMigrations: () =>
        Promise.resolve(Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < first))),
    },
    ...(schema !== undefined && { migrationTableSchema: schema }),
  });
}

const AT = '2026-01-15T09:00:00.000Z';

/** Two plans' terms: a data allowance past 32 bits with speeds, and no limit at all. */
const HOUR_TERMS = {
  price_tzs: 1000,
  duration_seconds: 3600,
  data_limit_bytes: 5_000_000_000,
  max_devices: 2,
  download_kbps: 2000,
  upload_kbps: 1000,
};
const DAY_TERMS = {
  price_tzs: 5000,
  duration_seconds: 86_400,
  data_limit_bytes: null,
  max_devices: 1,
  download_kbps: null,
  upload_kbps: null,
};

const TERMS = [
  'price_tzs',
  'duration_seconds',
  'data_limit_bytes',
  'max_devices',
  'download_kbps',
  'upload_kbps',
] as const;

async function columns(db: Db): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`
        select column_name as name from information_schema.columns
        where table_schema = current_schema() and table_name = 'voucher_batches'
        order by ordinal_position`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info('voucher_batches') order by cid`.execute(
        db,
      );
  return rows.map((r) => r.name);
}

const plan = (id: string, terms: Record<(typeof TERMS)[number], number | null>) => ({
  id,
  name: id,
  description: '',
  active: 1,
  sort_order: 0,
  site_id: 'default',
  created_at: AT,
  updated_at: AT,
  remember_device: 0,
  archived_at: null,
  ...terms,
  price_tzs: terms.price_tzs ?? 0,
  duration_seconds: terms.duration_seconds ?? 0,
  max_devices: terms.max_devices ?? 1,
});

t.test("0047 gives every batch its plan's terms as they are when it runs, and undoes", async (t) => {
  const dir = t.testdir();
  const store = await openStore(
    { dataDir: dir, databaseUrl: storeEnv(dir).DATABASE_URL ?? null },
    { now: () => new Date(AT) },
  );
  t.teardown(() => store.close());
  const db = store.db;
  t.error((await (await migrator(db, '0047')).migrateToLatest()).error);

  // Sold with a data allowance and speeds (5 GB: past 32 bits), and without any limit.
  await db
    .insertInto('plans')
    .values([plan('hour', HOUR_TERMS), plan('day', DAY_TERMS)])
    .execute();
  // Written as the previous release wrote them: no terms (its table has no such columns).
  for (const [id, planId] of [
    ['b-hour-1', 'hour'],
    ['b-hour-2', 'hour'],
    ['b-day', 'day'],
  ] as const)
    await sql`insert into voucher_batches (id, plan_id, site_id, count, prefix, code_length, created_by, created_at)
      values (${id}, ${planId}, 'default', 2, '', 10, 'cli:root', ${AT})`.execute(db);
  await sql`insert into vouchers (id, batch_id, code_hash, last3, status)
    values ('v1', 'b-hour-1', 'h1', 'ABC', 'unused')`.execute(db);
  const before = await columns(db);

  const applied = await migrateToLatest(db);
  // Later migrations run too: this one first.
  t.same(applied.map((r) => [r.migrationName, r.status])[0], ['0047_voucher_batch_terms', 'Success']);
  t.same(await columns(db), [...before, ...TERMS], 'the terms, after the columns there were');
  t.same(
    await db
      .selectFrom('voucher_batches')
      .select(['id', 'plan_id', 'count', 'created_at', ...TERMS])
      .orderBy('id')
      .execute(),
    [
      {
        id: 'b-day',
        plan_id: 'day',
        count: 2,
        created_at: AT,
        ...DAY_TERMS,
      },
      ...['b-hour-1', 'b-hour-2'].map((id) => ({
        id,
        plan_id: 'hour',
        count: 2,
        created_at: AT,
        ...HOUR_TERMS,
      })),
    ],
    "each batch: its plan's terms, numbers as numbers",
  );
  t.same(
    await db.selectFrom('vouchers').select(['id', 'batch_id']).execute(),
    [{ id: 'v1', batch_id: 'b-hour-1' }],
    'the codes, as they were',
  );

  // The required terms are required; the limits may be null (no limit), as on a plan.
  for (const column of ['price_tzs', 'duration_seconds', 'max_devices'] as const)
    await t.rejects(
      db
        .updateTable('voucher_batches')
        .set({ [column]: null } as unknown as Record<typeof column, number>)
        .where('id', '=', 'b-day')
        .execute(),
      { message: /not[ -]null/i },
      `${column} is NOT NULL`,
    );
  if (!isPostgres(db)) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master
      where type = 'index' and name = 'voucher_batches_created'`.execute(db);
    t.equal(rows[0]?.n, 1, 'the batches index, made again after the rebuild');
    t.same((await sql`pragma foreign_key_check`.execute(db)).rows, [], 'every reference holds');
    const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    t.equal(fk[0]?.foreign_keys, 1, 'foreign keys on again');
    await t.rejects(
      sql`insert into vouchers (id, batch_id, code_hash, last3, status)
        values ('v2', 'no-batch', 'h2', 'XYZ', 'unused')`.execute(db),
      /FOREIGN KEY/,
      'the codes still reference the rebuilt table',
    );
  }

  t.error((await (await migrator(db)).migrateTo('0046_session_final_octets')).error, 'undone');
  t.same(await columns(db), before);
  t.same(
    (await sql<{ id: string }>`select id from voucher_batches order by id`.execute(db)).rows,
    [{ id: 'b-day' }, { id: 'b-hour-1' }, { id: 'b-hour-2' }],
    'the batches, as they were',
  );
});
