#!/usr/bin/env node
// The last step of `npm run build` (docs/decisions/0044-bundle.md): the
// compiled CLI and daemon (dist/src, dist/migrations) joined into a few ES modules in
// dist/bundle/, which bin/hotspot-ctl loads when it is there. Node 20 spends most of a start
// resolving, reading and compiling modules one by one (about 650 of ours and kysely's); the
// bundle is one module for what every start needs and a chunk for each thing loaded on first
// use (a migration, the PostgreSQL store, …), so laziness is kept.
//
// The npm dependencies stay outside, loaded from node_modules as before, except kysely (pure ES
// modules, 262 files on every start): native addons must, and the CommonJS ones load fast as
// they are. Identifiers are not minified, so stack traces keep their names.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INSIDE = new Set(['kysely']);

const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const outdir = path.join(root, 'dist/bundle');
const SNAPSHOT_FILE = 'schema.sqlite.json';
const result = await build({
  absWorkingDir: root,
  entryPoints: { index: 'dist/src/cli/index.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: Object.keys(dependencies).filter((name) => !INSIDE.has(name)),
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  // The snapshot's path from the package root: only the bundle uses one (dist/src and the tests
  // run the migrations themselves, so an edited migration is never hidden by an old snapshot).
  define: { HOTSPOT_SCHEMA_SNAPSHOT: JSON.stringify(`dist/bundle/${SNAPSHOT_FILE}`) },
});

// Chunks are named by their content, so one this build did not write is stale: removed after the
// build, not before, so that a daemon or test already running from dist/bundle still finds every
// unchanged chunk it imports later (a migration, the PostgreSQL store).
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
written.add(path.join(outdir, SNAPSHOT_FILE));
for (const dir of [outdir, path.join(outdir, 'chunks')].filter((d) => existsSync(d)))
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile() && !written.has(path.join(dir, entry.name))) rmSync(path.join(dir, entry.name));

// The schema snapshot (docs/decisions/0049-schema-snapshot.md): what every migration makes of an
// empty SQLite database, so that a new box's first start creates its database in one transaction
// instead of importing and running each migration. Made here, from the migrations just compiled,
// so it cannot fall behind them; the bundle knows its file through HOTSPOT_SCHEMA_SNAPSHOT.
await writeSchemaSnapshot(path.join(outdir, SNAPSHOT_FILE));

/**
 * Migrates an empty database with the compiled migrations and writes what they made: the schema
 * (tables first, then indexes, in the order SQLite holds them), every row, and the migrations'
 * names. A timestamp written while the migrations ran (the default site's, kysely's) becomes
 * NOW_MARK, the time the snapshot is applied.
 */
async function writeSchemaSnapshot(file) {
  const { openDatabase } = await import(pathToFileURL(path.join(root, 'dist/src/db/connect.js')).href);
  const { migrateToLatest, MIGRATIONS } = await import(
    pathToFileURL(path.join(root, 'dist/src/db/migrate.js')).href
  );
  const { NOW_MARK } = await import(pathToFileURL(path.join(root, 'dist/src/db/snapshot.js')).href);
  const dir = mkdtempSync(path.join(tmpdir(), 'hotspot-snapshot-'));
  try {
    const { db, sqlite } = openDatabase(path.join(dir, 'snapshot.db'));
    const from = new Date().toISOString();
    await migrateToLatest(db);
    const to = new Date().toISOString();
    const objects = sqlite
      .prepare(
        `select type, name, sql from sqlite_master where sql is not null and name not like 'sqlite\\_%' escape '\\'
         order by case type when 'table' then 0 when 'index' then 1 when 'view' then 2 else 3 end, rowid`,
      )
      .all();
    const marked = (value) => {
      if (value !== null && typeof value === 'object')
        throw new Error('a migration wrote a blob: the snapshot holds JSON values only');
      return typeof value === 'string' &&
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) &&
        value >= from &&
        value <= to
        ? NOW_MARK
        : value;
    };
    const rows = [];
    for (const { name } of objects.filter((o) => o.type === 'table')) {
      const found = sqlite.prepare(`select * from "${name}" order by rowid`).raw(true).all();
      if (found.length === 0) continue;
      const columns = sqlite
        .prepare(`select * from "${name}"`)
        .columns()
        .map((c) => c.name);
      rows.push({ table: name, columns, values: found.map((row) => row.map(marked)) });
    }
    await db.destroy();
    const snapshot = { migrations: Object.keys(MIGRATIONS), schema: objects.map((o) => o.sql), rows };
    writeFileSync(file, JSON.stringify(snapshot));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
