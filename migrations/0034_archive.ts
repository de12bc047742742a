import type { Kysely } from 'kysely';

/**
 * Archiving plans and routers (issue 21 item 4, docs/decisions/0037-archive.md): a plan or a
 * router the operator no longer uses is put away without losing the records that name it.
 *
 * - `plans.archived_at`: when it was archived; null: not archived. An archived plan is also off
 *   sale (`active` = 0), so every query that sells only active plans already leaves it out.
 * - `devices.archived_at`: when it was archived; null: not archived. RADIUS treats an archived
 *   router as an unknown NAS.
 *
 * Nullable text columns and no index (both tables are small, and their lists read them whole):
 * the same statements on SQLite and PostgreSQL.
 */
const TABLES = ['plans', 'devices'] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations are schema-agnostic by design
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).addColumn('archived_at', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).dropColumn('archived_at').execute();
}
