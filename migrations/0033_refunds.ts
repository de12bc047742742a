import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Refunds by hand (issue 19, docs/decisions/0035-refunds.md): a staff member records that a paid
 * sale's money went back to the guest. The refund is a second payments row of the invoice, with
 * the negative amount, so that every sum over `payments` is the money kept.
 *
 * - `payments.kind`: `sale` (every row before this migration) or `refund`. Text, NOT NULL,
 *   DEFAULT 'sale'.
 * - `payments.invoice_id` was UNIQUE (one payment per invoice); it becomes unique per kind
 *   (`payments_invoice_kind` on (invoice_id, kind)): still one sale per invoice, and at most one
 *   refund, which is what makes a repeated or concurrent refund fail rather than count twice.
 * - `invoices.refunded_at`: when it was refunded; null: not refunded. The invoice's status stays
 *   `paid` (the public purchase status keeps its values; the revoked grant takes the credentials
 *   away).
 *
 * SQLite cannot drop a column's UNIQUE, so `payments` is rebuilt as
 * https://www.sqlite.org/lang_altertable.html#otheralter describes, from its own CREATE statement
 * with only that word taken out (so the columns other migrations added stay as they are): foreign
 * keys off outside any transaction, then in one transaction create, copy, drop, rename, re-create
 * the table's own indexes, check the foreign keys. PostgreSQL drops the constraint in place.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  if (isPostgres(db)) await dropInvoiceUniqueOnPostgres(db);
  else await rebuildPaymentsWithoutInvoiceUnique(db);
  await db.schema
    .alterTable('payments')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('sale'))
    .execute();
  await db.schema
    .createIndex('payments_invoice_kind')
    .on('payments')
    .columns(['invoice_id', 'kind'])
    .unique()
    .execute();
  await db.schema.alterTable('invoices').addColumn('refunded_at', 'text').execute();
}

export async function down(db: AnyDb): Promise<void> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from payments where kind <> 'sale'`.execute(db);
  if (Number(rows[0]?.n ?? 0) > 0)
    throw new Error('cannot undo 0033: refunds are recorded, and an invoice may have one payment only');
  await db.schema.alterTable('invoices').dropColumn('refunded_at').execute();
  await db.schema.dropIndex('payments_invoice_kind').execute();
  await db.schema.alterTable('payments').dropColumn('kind').execute();
  // The same meaning as the column's UNIQUE of 0003, as a named index on both stores.
  await db.schema.createIndex('payments_invoice_id').on('payments').column('invoice_id').unique().execute();
}

/** The single-column UNIQUE constraint 0003 put on payments.invoice_id, found by what it covers. */
async function dropInvoiceUniqueOnPostgres(db: AnyDb): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select c.conname as name
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_namespace n on n.oid = t.relnamespace
    join pg_attribute a on a.attrelid = t.oid and a.attnum = c.conkey[1]
    where n.nspname = current_schema() and t.relname = 'payments' and c.contype = 'u'
      and cardinality(c.conkey) = 1 and a.attname = 'invoice_id'`.execute(db);
  if (rows.length !== 1)
    throw new Error(`expected one UNIQUE on payments.invoice_id, found ${String(rows.length)}`);
  await sql`alter table payments drop constraint ${sql.id(rows[0]?.name ?? '')}`.execute(db);
}

const INVOICE_COLUMN = '"invoice_id" text not null unique references';

async function rebuildPaymentsWithoutInvoiceUnique(db: AnyDb): Promise<void> {
  const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  const foreignKeysWereOn = fk[0]?.foreign_keys === 1;
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (tx) => {
      const { rows: tables } = await sql<{ sql: string }>`
        select sql from sqlite_master where type = 'table' and name = 'payments'`.execute(tx);
      const create = tables[0]?.sql ?? '';
      // Anything but the statement 0003 (and columns added since) wrote: refuse rather than guess.
      if (create.split(INVOICE_COLUMN).length !== 2 || !create.startsWith('CREATE TABLE "payments" ('))
        throw new Error(`payments is not as expected: ${create}`);
      const rebuilt = create
        .replace('CREATE TABLE "payments" (', 'CREATE TABLE "payments_rebuilt" (')
        .replace(INVOICE_COLUMN, '"invoice_id" text not null references');
      const { rows: extras } = await sql<{ sql: string }>`
        select sql from sqlite_master
        where tbl_name = 'payments' and type in ('index', 'trigger') and sql is not null
        order by type, name`.execute(tx);

      await sql.raw(rebuilt).execute(tx);
      // Same statement, same columns in the same order.
      await sql`insert into payments_rebuilt select * from payments`.execute(tx);
      await tx.schema.dropTable('payments').execute();
      await tx.schema.alterTable('payments_rebuilt').renameTo('payments').execute();
      for (const extra of extras) await sql.raw(extra.sql).execute(tx);

      const { rows: broken } = await sql`pragma foreign_key_check`.execute(tx);
      if (broken.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken)}`);
    });
  } finally {
    if (foreignKeysWereOn) await sql`pragma foreign_keys = on`.execute(db);
  }
}
