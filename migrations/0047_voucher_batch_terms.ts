import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A voucher batch keeps the terms it was made with (docs/decisions/0027-vouchers.md, "2026-11-28:
 * a batch keeps its terms"). A batch is stock sold in advance: a reseller takes cash for a card
 * that prints a price, a duration, an allowance and a speed, so redeeming it gives those, and the
 * revenue and the stock report count that price, whatever the plan says later.
 *
 * `voucher_batches` gets the plan's terms as a grant and its invoice take them (the columns of
 * `plans` and `invoices`, numbers `bigint` as in 0022):
 * - `price_tzs`, `duration_seconds`, `max_devices`: not null;
 * - `data_limit_bytes`, `download_kbps`, `upload_kbps`: null means no limit, as on the plan.
 *
 * Batches made before this migration are given their plan's terms as they are when it runs: the
 * box never recorded what was printed, and the plan now is the best record of it there is (it is
 * what redemption gave until now). Every batch then has its terms; a batch whose plan is missing
 * (none can be: plan_id references plans) fails the migration rather than be given none.
 *
 * SQLite cannot add a NOT NULL column without a default, and a default (a price of 0) would be a
 * wrong term, so the table is rebuilt as 0015 rebuilt `devices`: foreign keys off (outside any
 * transaction; kysely's Migrator runs SQLite migrations without one), then in one transaction
 * create the new table, copy every row with its plan's terms, drop the old one, rename, re-create
 * its indexes, check the foreign keys (`vouchers` references it by name); then foreign keys back
 * as they were. PostgreSQL adds the columns, fills them and sets NOT NULL in place, inside the
 * transaction its migrations run in: the same meaning, without a rebuild.
 */

/** The columns of `voucher_batches` as 0022 created them, in order. */
const COLUMNS = [
  'id',
  'plan_id',
  'site_id',
  'count',
  'prefix',
  'code_length',
  'valid_until',
  'created_by',
  'created_at',
  'revoked_at',
] as const;

/** The terms, named as on `plans`; which of them may be null (no limit). */
const TERMS = [
  ['price_tzs', 'required'],
  ['duration_seconds', 'required'],
  ['data_limit_bytes', 'nullable'],
  ['max_devices', 'required'],
  ['download_kbps', 'nullable'],
  ['upload_kbps', 'nullable'],
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) await addTermsInPlace(db);
  else await rebuildBatches(db);
}

export async function down(db: AnyDb): Promise<void> {
  for (const [column] of TERMS) await db.schema.alterTable('voucher_batches').dropColumn(column).execute();
}

async function addTermsInPlace(db: AnyDb): Promise<void> {
  for (const [column] of TERMS)
    await db.schema.alterTable('voucher_batches').addColumn(column, 'bigint').execute();
  const set = sql.join(
    TERMS.map(
      ([c]) =>
        sql`${sql.ref(c)} = (select p.${sql.ref(c)} from plans p where p.id = voucher_batches.plan_id)`,
    ),
  );
  await sql`update voucher_batches set ${set}`.execute(db);
  for (const [column, kind] of TERMS)
    if (kind === 'required')
      await sql`alter table voucher_batches alter column ${sql.ref(column)} set not null`.execute(db);
}

async function rebuildBatches(db: AnyDb): Promise<void> {
  const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  const foreignKeysWereOn = fk[0]?.foreign_keys === 1;
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (tx) => {
      const { rows: columns } = await sql<{ name: string }>`
        select name from pragma_table_info('voucher_batches') order by cid`.execute(tx);
      const found = columns.map((c) => c.name).join(', ');
      // A column this migration does not know would be lost by the copy: refuse instead.
      if (found !== COLUMNS.join(', '))
        throw new Error(`voucher_batches has columns (${found}), expected (${COLUMNS.join(', ')})`);
      // Explicit indexes and triggers go with the old table; their SQL re-creates them.
      const { rows: extras } = await sql<{ sql: string }>`
        select sql from sqlite_master
        where tbl_name = 'voucher_batches' and type in ('index', 'trigger') and sql is not null
        order by type, name`.execute(tx);

      let table = tx.schema
        .createTable('voucher_batches_rebuilt')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('code_length', 'bigint', (c) => c.notNull())
        .addColumn('valid_until', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text');
      for (const [column, kind] of TERMS)
        table = table.addColumn(column, 'bigint', (c) => (kind === 'required' ? c.notNull() : c));
      await table.execute();

      const into = sql.join([...COLUMNS, ...TERMS.map(([c]) => c)].map((c) => sql.ref(c)));
      const from = sql.join([
        ...COLUMNS.map((c) => sql.ref(`b.${c}`)),
        ...TERMS.map(([c]) => sql.ref(`p.${c}`)),
      ]);
      // A left join: a batch without its plan would carry nulls, which NOT NULL refuses.
      await sql`insert into voucher_batches_rebuilt (${into})
        select ${from} from voucher_batches b left join plans p on p.id = b.plan_id`.execute(tx);
      await tx.schema.dropTable('voucher_batches').execute();
      await tx.schema.alterTable('voucher_batches_rebuilt').renameTo('voucher_batches').execute();
      for (const extra of extras) await sql.raw(extra.sql).execute(tx);

      const { rows: broken } = await sql`pragma foreign_key_check`.execute(tx);
      if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken)}`);
    });
  } finally {
    if (foreignKeysWereOn) await sql`pragma foreign_keys = on`.execute(db);
  }
}
