import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Voucher codes are stored only as keyed digests (issue 19 §1, docs/decisions/0027-vouchers.md):
 * `vouchers.code_enc`, the copy of each unused code sealed with the vault so that a batch could be
 * printed later, goes. Printing takes the codes handed back (the CSV saved at creation).
 *
 * The column is emptied, then dropped. SQLite (3.35+) drops a column that no index, constraint,
 * view or trigger names, as here, by rewriting the rows; `secure_delete` is on while it runs, so
 * the space the sealed copies leave is zeroed rather than left in free space (and set back after).
 * On PostgreSQL DROP COLUMN only hides the column; the UPDATE writes row versions without the
 * values, and (auto)vacuum reclaims the old ones. Nothing is kept to undo: `down` brings the
 * column back, empty.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
type AnyDb = Kysely<any>;

const isPostgres = (db: AnyDb): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: AnyDb): Promise<void> {
  const sqlite = !isPostgres(db);
  const { rows } = sqlite
    ? await sql<{ secure_delete: number }>`pragma secure_delete`.execute(db)
    : { rows: [] };
  if (sqlite) await sql`pragma secure_delete = 1`.execute(db);
  try {
    await db.updateTable('vouchers').set({ code_enc: null }).where('code_enc', 'is not', null).execute();
    await db.schema.alterTable('vouchers').dropColumn('code_enc').execute();
  } finally {
    if (sqlite) await sql.raw(`pragma secure_delete = ${String(rows[0]?.secure_delete ?? 0)}`).execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('vouchers').addColumn('code_enc', 'text').execute();
}
