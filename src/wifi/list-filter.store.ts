import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { DB } from '../db/index.js';

/**
 * The filters of an admin list (list-query.ts parses them from the query string) and the SQL
 * pieces the list stores share. Search is a case-insensitive "contains" on both stores (lower()
 * on each side; LIKE's wildcards in the search are escaped).
 */
export interface ListFilter {
  q?: string | undefined;
  status?: string | undefined;
  kind?: string | undefined;
  router?: string | undefined;
  plan?: string | undefined;
  /** Who sold at the counter: `invoices.sold_by`, or the email of the staff member it names. */
  seller?: string | undefined;
  /** ISO-8601 instants: at or after `from`, before `to`. */
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  offset: number;
}

/** The filter of the spec's plain list: the newest 200. */
export const plainList = (limit: number): ListFilter => ({ limit, offset: 0 });

const escapeLike = (text: string): string => text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
const likePattern = (text: string): string => `%${escapeLike(text)}%`;

/**
 * A phone as typed (0712 345 678, +255 712…) as the digits stored (+255712345678): a local
 * number's leading 0 becomes 255. Null when the search is not a phone number.
 */
function phoneDigits(q: string): string | null {
  if (!/^\+?[\d\s-]{3,}$/.test(q)) return null;
  const digits = q.replace(/\D/g, '');
  return digits.startsWith('0') ? `255${digits.slice(1)}` : digits;
}

/** `column` begins with `prefix`, case-insensitive (lower() on each side, as searchAny). */
export const startsWith = (column: string, prefix: string): Expression<SqlBool> =>
  sql<SqlBool>`lower(${sql.ref(column)}) like ${`${escapeLike(prefix)}%`} escape '\\'`;

/** `q` found in any of `columns` (and in `phones` as a phone number too). */
export function searchAny(
  q: string,
  columns: readonly string[],
  phones: readonly string[] = [],
): Expression<SqlBool> {
  const pattern = likePattern(q);
  const digits = phoneDigits(q);
  const tests = [
    ...columns.map((c) => sql<SqlBool>`lower(${sql.ref(c)}) like ${pattern} escape '\\'`),
    ...(digits === null
      ? []
      : phones.map((c) => sql<SqlBool>`${sql.ref(c)} like ${likePattern(digits)} escape '\\'`)),
  ];
  return sql<SqlBool>`(${sql.join(tests, sql` or `)})`;
}

/** Which columns a list's window reads: its time (newest first), tie-break and search columns. */
export interface WindowColumns {
  time: string;
  tie: string;
  search: readonly string[];
  phones?: readonly string[];
}

/**
 * The tail every time-ordered list shares: the search, the `from`/`to` window on its time, newest
 * first (ties by `tie`), and the page (limit/offset).
 */
export function pagedWindow<TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  filter: ListFilter,
  columns: WindowColumns,
): SelectQueryBuilder<DB, TB, O> {
  const time = sql.ref(columns.time);
  return query
    .$if(filter.q !== undefined, (w) => w.where(searchAny(filter.q ?? '', columns.search, columns.phones)))
    .$if(filter.from !== undefined, (w) => w.where(sql<SqlBool>`${time} >= ${filter.from ?? ''}`))
    .$if(filter.to !== undefined, (w) => w.where(sql<SqlBool>`${time} < ${filter.to ?? ''}`))
    .orderBy(time, 'desc')
    .orderBy(sql.ref(columns.tie))
    .limit(filter.limit)
    .offset(filter.offset);
}
