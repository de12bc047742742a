import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { storeEnv, workersEnv } from './store.js';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/hotspot-ctl');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for a CLI run on its own data directory, with RADIUS off and a free HTTP port. */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOTSPOT_DATA_DIR: dataDir,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    RADIUS_AUTH_PORT: '0',
    RADIUS_ACCT_PORT: '0',
    ...storeEnv(dataDir),
    ...workersEnv(),
    ...extra,
  };
}

/**
 * cliEnv for a box that exists, as after the daemon's first start: every command but serve,
 * setup, migrate and restore refuses a data directory that holds none (config/index.ts). Made with
 * `hotspot-ctl migrate`, as an operator could.
 */
export async function boxEnv(
  dataDir: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const env = cliEnv(dataDir, extra);
  const made = await runCli(['migrate'], env);
  if (made.code !== 0) throw new Error(`hotspot-ctl migrate in ${dataDir} failed: ${made.stderr}`);
  return env;
}

/** What a data directory holds, but the test store's marker (helpers/store.ts); [] when it is absent. */
export function dataDirFiles(dataDir: string): string[] {
  return existsSync(dataDir) ? readdirSync(dataDir).filter((name) => name !== '.test-store') : [];
}

/** Runs bin/hotspot-ctl to completion. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return runProgram(BIN, args, { env }, input);
}

/** Runs a program to completion (`env` unset: this process's environment). */
export function runProgram(
  file: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string },
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A program that exits without reading its input (getent, dpkg-query) closes the pipe
    // first: that EPIPE is no failure of the program, whose exit code is what the test judges.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(input ?? '');
  });
}

/** Starts a long-running CLI command (serve, outbox --follow) and lets the test talk to it. */
export function startCli(args: string[], env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn(BIN, args, { env });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const poke = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    poke();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    poke();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    /** Resolves with the first match of `pattern` in stdout+stderr, waiting for output as it comes. */
    async waitFor(pattern: RegExp): Promise<RegExpExecArray> {
      for (;;) {
        const m = pattern.exec(stdout) ?? pattern.exec(stderr);
        if (m) return m;
        if (child.exitCode !== null) throw new Error(`process exited before ${String(pattern)}:\n${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
