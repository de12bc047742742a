import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { DATABASE_FILE, lockForDaemon } from '../../src/db/index.js';
import { freePort } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { onPostgres } from '../helpers/store.js';

/**
 * `hotspot-ctl doctor` at the edges (docs/decisions/0033-doctor.md): a database that does not open
 * is one failed line, not the end of the report; a daemon too busy to answer /healthz is told from
 * another program on its port. Apart from test/cli/doctor.test.ts, whose daemons already fill the
 * per-file time.
 */

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

async function doctor(env: Record<string, string>) {
  const res = await runCli(['doctor', '--json'], env);
  const checks = (JSON.parse(res.stdout) as { checks: Check[] }).checks;
  return { ...res, check: (name: string) => checks.find((c) => c.name === name) };
}

t.test(
  'the database: unreachable, silent or damaged fails on its own line; every other line is still said',
  async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    const env = cliEnv(dataDir, { HTTP_PORT: String(await freePort()) });
    const migrated = await runCli(['migrate'], env);
    t.equal(migrated.code, 0, migrated.stderr);
    const closed = await freePort();
    const refused = await doctor({
      ...env,
      DATABASE_URL: `postgres://venue:s3cret-pw@127.0.0.1:${String(closed)}/hotspot`,
    });
    t.equal(refused.code, 1);
    t.match(refused.check('database'), {
      status: 'fail',
      detail: new RegExp(`^PostgreSQL 127\\.0\\.0\\.1:${String(closed)}/hotspot: .*ECONNREFUSED`),
      fix: /DATABASE_URL/,
    });
    t.match(refused.check('routers'), { status: 'warn', detail: 'not read: the database did not open' });
    t.ok(refused.check('disk') && refused.check('backup') && refused.check('clock'), 'the other checks ran');
    t.notMatch(refused.stdout + refused.stderr, /s3cret-pw/, 'never the password');

    // A server that takes the connection and never answers: doctor gives up after 10 s.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.teardown(() => silent.close());
    const silentPort = (silent.address() as { port: number }).port;
    const hung = await doctor({
      ...env,
      DATABASE_URL: `postgres://venue@127.0.0.1:${String(silentPort)}/hotspot`,
    });
    t.equal(hung.code, 1);
    t.match(hung.check('database'), { status: 'fail', detail: /: no answer in 10 s$/ });

    if (!onPostgres) {
      writeFileSync(
        path.join(dataDir, DATABASE_FILE),
        'this is not a database, it was overwritten'.repeat(100),
      );
      const damaged = await doctor(env);
      t.equal(damaged.code, 1);
      t.match(damaged.check('database'), {
        status: 'fail',
        detail: /hotspot\.db: .*not a database/,
        fix: /restore/,
      });
    }
  },
);

t.test(
  'a daemon that holds the data directory but does not answer /healthz is busy or stuck, not another program',
  async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    const port = await freePort();
    const env = cliEnv(dataDir, { HTTP_PORT: String(port) });
    t.equal((await runCli(['migrate'], env)).code, 0);

    // Another program on the port, no daemon: as before.
    const held = new Set<Socket>();
    const stranger = createServer((socket) => held.add(socket)); // takes connections, never answers
    await new Promise<void>((resolve) => stranger.listen(port, '127.0.0.1', resolve));
    const other = await doctor(env);
    t.match(other.check('http port'), { status: 'fail', detail: /taken by another program/ });

    // The same silent listener, and the data directory's lock held as a daemon holds it.
    const lock = lockForDaemon(dataDir);
    t.teardown(() => lock.release());
    const busy = await doctor(env);
    t.match(busy.check('http port'), {
      status: 'fail',
      detail: /the daemon runs on this data directory but did not answer \/healthz within 2 s/,
      fix: /journalctl -u hotspot-ctl/,
    });
    await new Promise<void>((resolve) => {
      stranger.close(() => resolve());
      for (const socket of held) socket.destroy();
    });

    const elsewhere = await doctor(env);
    t.match(elsewhere.check('http port'), {
      status: 'warn',
      detail: /free, yet a daemon holds this data directory/,
    });
    lock.release();
    t.match((await doctor(env)).check('http port'), {
      status: 'warn',
      detail: /free: the daemon is not running/,
    });
  },
);
