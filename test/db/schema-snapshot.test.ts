import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { MIGRATIONS, migrateToLatest, openDatabase } from '../../src/db/index.js';
import { runCli } from '../helpers/cli.js';

/**
 * The bundle's schema snapshot (src/db/snapshot.ts, made by scripts/bundle.mjs at build time)
 * must make exactly the database the migrations make: the same tables, columns, constraints,
 * indexes and rows. A new box's first start uses it (the CLI runs the bundle); these tests run
 * the migrations from src, one by one, and compare.
 */

const root = path.resolve(import.meta.dirname, '../..');

interface SnapshotFile {
  migrations: string[];
}

t.test('the built snapshot holds exactly the migrations this code has, in order', async (t) => {
  const file = path.join(root, 'dist/bundle/schema.sqlite.json');
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as SnapshotFile;
  t.same(snapshot.migrations, Object.keys(MIGRATIONS), 'npm run build makes it from the current migrations');
});

/** Every schema object (autoindexes too) and every row, in an order that does not depend on how they were made. */
function contents(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const objects = db
      .prepare(`select type, name, tbl_name, sql from sqlite_master order by type, name`)
      .all() as { type: string; name: string; sql: string | null }[];
    const rows: Record<string, unknown[]> = {};
    for (const { name } of objects.filter((o) => o.type === 'table'))
      rows[name] = db.prepare(`select * from "${name}" order by 1`).all();
    const checks = {
      integrity: db.pragma('integrity_check', { simple: true }),
      foreignKeys: db.pragma('foreign_key_check'),
      userVersion: db.pragma('user_version', { simple: true }),
    };
    return { objects, rows, checks };
  } finally {
    db.close();
  }
}

t.test('a new database from the snapshot equals one the migrations made, row for row', async (t) => {
  const dir = t.testdir({ snap: {}, steps: {} });
  const before = new Date().toISOString();
  const made = await runCli(['migrate', '--json'], {
    PATH: process.env.PATH ?? '',
    HOTSPOT_DATA_DIR: path.join(dir, 'snap'),
  });
  const after = new Date().toISOString();
  t.equal(made.code, 0, made.stderr);
  const answer = JSON.parse(made.stdout) as { applied: string[]; snapshot: boolean };
  t.equal(answer.snapshot, true, 'the CLI (the bundle) made the new database from the snapshot');
  t.same(answer.applied, Object.keys(MIGRATIONS), 'and counts every migration as applied');
  const again = await runCli(['migrate'], {
    PATH: process.env.PATH ?? '',
    HOTSPOT_DATA_DIR: path.join(dir, 'snap'),
  });
  t.equal(again.stdout, 'database is up to date\n', 'nothing is pending afterwards');

  const stepsFile = path.join(dir, 'steps', 'hotspot.db');
  const { db } = openDatabase(stepsFile);
  const results = await migrateToLatest(db);
  await db.destroy();
  t.notOk(
    results.some((r) => r.fromSnapshot),
    'from src the migrations run one by one (no snapshot outside the bundle)',
  );

  const fromSnapshot = contents(path.join(dir, 'snap', 'hotspot.db'));
  const fromSteps = contents(stepsFile);
  t.same(fromSnapshot.objects, fromSteps.objects, 'the same tables, indexes and their SQL');
  t.same(fromSnapshot.checks, fromSteps.checks);
  t.same(fromSnapshot.checks.integrity, 'ok');

  // Rows: the same, but for the times the migrations wrote, which are the time each was made.
  const stamped = (rows: unknown[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row as Record<string, unknown>).map(([k, v]) => [
          k,
          typeof v === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v) ? 'TIME' : v,
        ]),
      ),
    );
  t.same(Object.keys(fromSnapshot.rows).sort(), Object.keys(fromSteps.rows).sort());
  for (const table of Object.keys(fromSteps.rows))
    t.same(stamped(fromSnapshot.rows[table] ?? []), stamped(fromSteps.rows[table] ?? []), `rows of ${table}`);
  const site = fromSnapshot.rows.sites?.[0] as { created_at: string; updated_at: string } | undefined;
  t.ok(
    site && site.created_at >= before && site.created_at <= after,
    'the default site is as old as the database',
  );
  t.equal(site?.updated_at, site?.created_at);
  const names = (fromSnapshot.rows.kysely_migration as { name: string; timestamp: string }[]).map(
    (r) => r.name,
  );
  t.same(names.sort(), Object.keys(MIGRATIONS).sort(), 'kysely sees every migration applied');
});
