import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { cliEnv, startCli } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store.js';

/**
 * What only some routes or commands need is loaded on first use, not by starting the daemon
 * (bench/footprint.ts). The daemon runs as operators run it, with one addition: a module loaded
 * by `--import` (written here, never part of the product) records the URL of every module the
 * daemon imports through the ESM loader.
 */

/** Passkeys, social login, SMTP, the wizard's prompts, TOTP, passwords, gzip; pg unless on PostgreSQL. */
const LAZY = [
  '@simplewebauthn/server',
  'openid-client',
  'nodemailer',
  '@inquirer/prompts',
  'otplib',
  'argon2',
  'compression',
  ...(onPostgres ? [] : ['pg']),
];

const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}
`;
const REGISTER = `
import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { file: process.env.LOADED_MODULES_FILE } });
`;

/** The daemon on `dir`/data with the recorder in `dir`: its port, what it loaded, and a way to stop it. */
async function recordedServe(t: Test, dir: string, list: string) {
  writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(path.join(dir, 'register.mjs'), REGISTER);
  writeFileSync(list, '');
  const daemon = startCli(
    ['serve'],
    cliEnv(path.join(dir, 'data'), {
      NODE_OPTIONS: `--import=${pathToFileURL(path.join(dir, 'register.mjs')).href}`,
      LOADED_MODULES_FILE: list,
    }),
  );
  t.teardown(() => daemon.child.kill('SIGKILL'));
  const [, port = ''] = await daemon.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);
  return {
    port,
    loaded: () => readFileSync(list, 'utf8').split('\n').filter(Boolean),
    stop: async () => {
      daemon.child.kill('SIGTERM');
      t.equal(await daemon.exited, 0, 'the daemon stops cleanly');
    },
  };
}

/** A migration's module: migrations/NNNN_*.js from dist/, chunks/NNNN_*-HASH.js from the bundle. */
const isMigration = (url: string): boolean => /\/(migrations|chunks)\/\d{4}_/.test(url);

/** The npm packages among module URLs: node_modules/<name> or node_modules/@scope/<name>. */
const packagesIn = (urls: string[]): Set<string> =>
  new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? '').filter(Boolean));

t.test(
  'serve loads no passkey, social login, mail, prompt, TOTP, password or gzip library until one is used',
  async (t) => {
    const dir = t.testdir(); // once: each call empties the directory
    const first = await recordedServe(t, dir, path.join(dir, 'first.txt'));
    const atFirstStart = packagesIn(first.loaded());
    t.ok(
      first.loaded().some((u) => u.includes('/dist/bundle/')),
      'the daemon runs from the bundle that `npm run build` makes and the package ships',
    );
    t.ok(atFirstStart.has('better-sqlite3'), 'the recorder sees the packages the daemon does load');
    for (const name of [...LAZY, 'jose'])
      t.notOk(atFirstStart.has(name), `${name} is not loaded by a first start`);
    // SQLite: the new database comes from the schema snapshot (src/db/snapshot.ts); PostgreSQL
    // runs the migrations themselves.
    t.equal(
      first.loaded().some(isMigration),
      onPostgres,
      'a first start on SQLite loads no migration module',
    );
    await first.stop();

    const again = await recordedServe(t, dir, path.join(dir, 'again.txt'));
    const atRestart = packagesIn(again.loaded());
    for (const name of [...LAZY, 'jose']) t.notOk(atRestart.has(name), `${name} is not loaded by a restart`);
    t.same(again.loaded().filter(isMigration), [], 'a restart on an up-to-date database loads no migration');

    // First use: a client that takes gzip loads the library.
    const res = await fetch(`http://127.0.0.1:${again.port}/healthz`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    t.equal(res.status, 200);
    t.same(await res.json(), { success: true, data: { status: 'ok', service: 'hotspot-ctl' } });
    t.ok(packagesIn(again.loaded()).has('compression'), 'compression is loaded by the first gzip client');
    await again.stop();
  },
);
