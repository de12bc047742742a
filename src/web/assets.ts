import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../lib/paths.js';

/**
 * The pages' static files, read once at start from the package: the browser modules compiled by
 * `npm run build` (`dist/src/web/client/*.js`), the stylesheet (`src/web/static/`) and the QR
 * encoder from node_modules. They are served under `/assets/<version>/<name>`, where the version
 * is a hash of all of them: URLs change whenever any file does, so the files can be cached for
 * a year while relative imports between modules keep working (docs/decisions/0030-web-pages.md).
 */

export const ASSET_PREFIX = '/assets';

export interface Asset {
  body: Buffer;
  type: string;
  /** Modules this one imports (for modulepreload), by asset name. */
  imports: string[];
}

export interface Assets {
  readonly version: string;
  /** Expected files that were not found (the client is not built). */
  readonly missing: string[];
  get(name: string): Asset | undefined;
  url(name: string): string;
  /** `name` and every module it imports, directly or not (module files only). */
  closure(name: string): string[];
}

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+'\.\/([\w-]+\.js)';?$/gm;

function readDir(dir: string, into: Map<string, Buffer>): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (path.extname(name) in TYPES) into.set(name, readFileSync(path.join(dir, name)));
  }
}

export function loadAssets(root = packageRoot()): Assets {
  const files = new Map<string, Buffer>();
  readDir(path.join(root, 'dist', 'src', 'web', 'client'), files);
  readDir(path.join(root, 'src', 'web', 'static'), files);
  files.set('uqr.js', readFileSync(fileURLToPath(import.meta.resolve('uqr'))));

  const hash = createHash('sha256');
  const table = new Map<string, Asset>();
  for (const name of [...files.keys()].sort()) {
    const body = files.get(name) ?? Buffer.alloc(0);
    hash.update(name).update('\0').update(body).update('\0');
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    const imports = name.endsWith('.js')
      ? [...body.toString('utf8').matchAll(IMPORT)].map((m) => m[1] ?? '')
      : [];
    table.set(name, { body, type, imports });
  }
  const version = hash.digest('base64url').slice(0, 12);
  const missing = ['app.css', 'portal.js', 'login.js', 'account.js'].filter((n) => !table.has(n));

  return {
    version,
    missing,
    get: (name) => table.get(name),
    url: (name) => `${ASSET_PREFIX}/${version}/${name}`,
    closure(name) {
      const seen = new Set<string>();
      const visit = (n: string): void => {
        if (seen.has(n)) return;
        seen.add(n);
        for (const dep of table.get(n)?.imports ?? []) visit(dep);
      };
      visit(name);
      return [...seen];
    },
  };
}
