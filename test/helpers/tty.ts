import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * A command on a real terminal: a detached tmux session (Debian `tmux`, installed by .ci/run),
 * driven with send-keys and read with capture-pane, the way an operator's terminal would be.
 */
export class Terminal {
  readonly #name = `t${randomBytes(6).toString('hex')}`;

  constructor(command: string, env: Record<string, string>) {
    const exports = Object.entries(env)
      .map(([k, v]) => `${k}='${v.replaceAll("'", "'\\''")}'`)
      .join(' ');
    // The shell stays after the command so its last screen (and exit status) can be read.
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      this.#name,
      '-x',
      '200',
      '-y',
      '60',
      `env -i ${exports} ${command}; echo "EXIT=$?"; sleep 600`,
    ]);
  }

  screen(): string {
    return execFileSync('tmux', ['capture-pane', '-p', '-S', '-200', '-t', this.#name], { encoding: 'utf8' });
  }

  /** Types keys (tmux key names such as Enter, Down, C-u, or literal text). */
  keys(...keys: string[]): void {
    execFileSync('tmux', ['send-keys', '-t', this.#name, ...keys]);
  }

  /** Types text literally (no key-name lookup), then presses Enter. */
  type(text: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.#name, '-l', text]);
    this.keys('Enter');
  }

  /** Resolves once the screen shows `pattern` (a 10 s guard fails the wait). */
  async waitFor(pattern: RegExp): Promise<string> {
    for (let tries = 0; tries < 200; tries++) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the terminal never showed ${String(pattern)}:\n${this.screen()}`);
  }

  close(): void {
    try {
      execFileSync('tmux', ['kill-session', '-t', this.#name]);
    } catch {
      // already gone
    }
  }
}

/** Answers no to the first-run offer's three questions (src/cli/commands/setup-first-run.ts). */
export async function declineFirstRun(term: Terminal): Promise<void> {
  for (const question of [/owner account now/, /first plan now/, /first router now/]) {
    await term.waitFor(question);
    term.type('n');
  }
}
