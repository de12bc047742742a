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
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INSIDE = new Set(['kysely']);

const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const outdir = path.join(root, 'dist/bundle');
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
});

// Chunks are named by their content, so one this build did not write is stale: removed after the
// build, not before, so that a daemon or test already running from dist/bundle still finds every
// unchanged chunk it imports later (a migration, the PostgreSQL store).
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
for (const dir of [outdir, path.join(outdir, 'chunks')].filter((d) => existsSync(d)))
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile() && !written.has(path.join(dir, entry.name))) rmSync(path.join(dir, entry.name));
