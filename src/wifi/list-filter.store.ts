import { sql, type Expression, type SqlBool } from 'kysely';

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
