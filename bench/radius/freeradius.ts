import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';

/**
 * FreeRADIUS 3 (Debian's `freeradius`) on loopback as the benchmark's baseline: a private copy
 * of /etc/freeradius/3.0 with only the modules a PAP/CHAP + accounting hotspot needs, a users
 * file with the same guests and reply attributes, started in the foreground (threaded) and
 * stopped by its PID. Not part of the test suite.
 */

export interface Guest {
  username: string;
  password: string;
}

export interface FreeRadius {
  auth: number;
  acct: number;
  pid: number;
  stop(): void;
}

const MODULES = ['always', 'attr_filter', 'chap', 'expr', 'files', 'pap', 'preprocess'];

/**
 * `sqlAccounting`: accounting is stored as a FreeRADIUS + daloRADIUS-style setup stores it, by
 * rlm_sql with its SQLite driver and the stock radacct schema and queries (Debian's
 * mods-config/sql/main/sqlite), each record committed (and synced) before the
 * Accounting-Response, the database in WAL mode. Otherwise `accounting { ok }`: nothing is stored.
 */
export function configure(
  dir: string,
  guests: readonly Guest[],
  secret: string,
  ports: { auth: number; acct: number },
  options: { sqlAccounting?: boolean } = {},
) {
  const raddb = path.join(dir, 'raddb');
  mkdirSync(dir, { recursive: true });
  execFileSync('cp', ['-r', '/etc/freeradius/3.0', raddb]);
  execFileSync('bash', [
    '-c',
    `set -e; cd '${raddb}'; rm -f mods-enabled/* sites-enabled/*;
     for m in ${MODULES.join(' ')}; do ln -s ../mods-available/$m mods-enabled/$m; done
     sed -i -e 's|^\\s*user = freerad|#&|' -e 's|^\\s*group = freerad|#&|' \
       -e 's|^logdir = .*|logdir = ${dir}/log|' -e 's|^run_dir = .*|run_dir = ${dir}/run|' \
       -e 's|^max_requests = .*|max_requests = 262144|' -e 's|^proxy_requests  = yes|proxy_requests = no|' radiusd.conf`,
  ]);
  if (options.sqlAccounting) {
    // The stock schema, in WAL mode as a careful operator would set it (it persists in the file);
    // rlm_sql_sqlite sets no pragmas, so each commit is synced (synchronous=FULL, SQLite's default).
    const radacct = new Database(path.join(dir, 'radacct.db'));
    radacct.pragma('journal_mode = WAL');
    radacct.exec(readFileSync(path.join(raddb, 'mods-config/sql/main/sqlite/schema.sql'), 'utf8'));
    radacct.close();
    execFileSync('bash', [
      '-c',
      `set -e; cd '${raddb}'; ln -s ../mods-available/sql mods-enabled/sql
       sed -i -e 's|^\\s*driver = .*|\\tdriver = "rlm_sql_sqlite"|' -e 's|^\\s*dialect = .*|\\tdialect = "sqlite"|' \
         -e 's|^\\s*filename = .*|\\t\\tfilename = "${dir}/radacct.db"|' mods-available/sql`,
    ]);
  }
  mkdirSync(path.join(dir, 'log'), { recursive: true });
  mkdirSync(path.join(dir, 'run'), { recursive: true });
  writeFileSync(
    path.join(raddb, 'clients.conf'),
    `client bench {\n\tipaddr = 127.0.0.1\n\tsecret = ${secret}\n\tshortname = venue-01\n\trequire_message_authenticator = yes\n}\n`,
  );
  writeFileSync(
    path.join(raddb, 'sites-enabled', 'hotspot'),
    `server hotspot {
listen {
\ttype = auth
\tipaddr = 127.0.0.1
\tport = ${String(ports.auth)}
}
listen {
\ttype = acct
\tipaddr = 127.0.0.1
\tport = ${String(ports.acct)}
}
authorize {
\tpreprocess
\tchap
\tfiles
\tpap
}
authenticate {
\tAuth-Type PAP {
\t\tpap
\t}
\tAuth-Type CHAP {
\t\tchap
\t}
}
preacct {
\tpreprocess
${options.sqlAccounting ? '\tacct_unique\n' : ''}}
accounting {
\t${options.sqlAccounting ? 'sql' : 'ok'}
}
post-auth {
\tPost-Auth-Type REJECT {
\t\tattr_filter.access_reject
\t}
}
}
`,
  );
  // The same reply our server sends a CoovaChilli router for a 1-hour, 1 GB plan.
  const users = guests
    .map(
      (g) =>
        `${g.username}\tCleartext-Password := "${g.password}"\n\tSession-Timeout = 3600, Acct-Interim-Interval = 300, Idle-Timeout = 600, ChilliSpot-Max-Total-Octets = 1000000000\n`,
    )
    .join('');
  writeFileSync(path.join(raddb, 'mods-config', 'files', 'authorize'), users);
  return raddb;
}

export function start(raddb: string, ports: { auth: number; acct: number }): FreeRadius {
  const child: ChildProcess = spawn('freeradius', ['-f', '-d', raddb], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.on('exit', (code) => {
    if (code) process.stderr.write(`freeradius exited ${String(code)}: ${stderr}\n`);
  });
  return {
    ...ports,
    pid: child.pid ?? 0,
    stop: () => child.kill('SIGTERM'),
  };
}

/** User + system CPU seconds a process has used so far (/proc/PID/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  const stat = execFileSync('cat', [`/proc/${String(pid)}/stat`], { encoding: 'utf8' });
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
}

/** Where `configure(dir, …)`'s FreeRADIUS writes its log. */
export const logFile = (dir: string): string => path.join(dir, 'log', 'radius.log');

/** How far the log has grown: give it to `loggedErrors` to read only what came after. */
export const logSize = (file: string): number => (existsSync(file) ? statSync(file).size : 0);

/**
 * The error lines FreeRADIUS wrote past `from`, and the commonest of them with its numbers
 * blanked (request numbers, ids, times): its own account of the requests it did not answer.
 */
export function loggedErrors(file: string, from: number): { count: number; commonest: string | null } {
  if (!existsSync(file)) return { count: 0, commonest: null };
  const lines = readFileSync(file).subarray(from).toString('utf8').split('\n');
  const seen = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if (!/\bError\b|\bERROR\b/.test(line)) continue;
    count++;
    // "Tue Nov 28 10:50:01 2026 : Error: (1234) sql: ERROR: …": the message, without the numbers.
    const message = line
      .replace(/^\w{3} \w{3} +\d+ [\d:]+ \d{4} : /, '')
      .replace(/\d+/g, 'N')
      .trim();
    seen.set(message, (seen.get(message) ?? 0) + 1);
  }
  const [commonest] = [...seen].sort((a, b) => b[1] - a[1]);
  return { count, commonest: commonest ? `${commonest[0]} (${String(commonest[1])}×)` : null };
}
