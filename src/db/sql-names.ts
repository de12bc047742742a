/** The lower-cased words of a statement: every table it can name is among them (over-counting is harmless). */
export const namesIn = (sql: string): readonly string[] => [
  ...new Set((sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((w) => w.toLowerCase())),
];
