import { open, stat } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';
import type { Command } from 'commander';
import { outboxPath, parseOutbox, readOutbox, type OutboxEntry } from '../../notify/index.js';
import { contextOf } from '../context.js';
import { formatTable, type Column, type Output } from '../output.js';

const COLUMNS: readonly Column<OutboxEntry>[] = [
  ['created_at', (e) => e.created_at],
  ['channel', (e) => e.channel],
  ['to', (e) => e.to],
  ['subject', (e) => e.subject],
  ['text', (e) => e.text.replace(/\s+/g, ' ')],
];

export function registerOutbox(program: Command): void {
  program
    .command('outbox')
    .description('Show mail and SMS spooled to the outbox (sent when no gateway is configured)')
    .option('-f, --follow', 'keep printing new messages as they arrive')
    .action(async (opts: { follow?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const dataDir = ctx.config().dataDir;
      if (!opts.follow) {
        const entries = await readOutbox(dataDir);
        ctx.out.result(entries, () =>
          entries.length === 0 ? 'the outbox is empty\n' : formatTable(entries, COLUMNS),
        );
        return;
      }
      await follow(outboxPath(dataDir), ctx.out);
    });
}

/** Prints every message, then each new one as a line (JSON lines with --json) until interrupted. */
async function follow(file: string, out: Output): Promise<void> {
  let offset = 0;
  let pending = '';
  let busy = Promise.resolve();
  const readNew = async (): Promise<void> => {
    const size = await stat(file)
      .then((s) => s.size)
      .catch(() => 0);
    if (size < offset) offset = 0; // truncated or replaced
    if (size === offset) return;
    const handle = await open(file, 'r');
    try {
      const buf = Buffer.alloc(size - offset);
      await handle.read(buf, 0, buf.length, offset);
      offset = size;
      const text = pending + buf.toString('utf8');
      const cut = text.lastIndexOf('\n') + 1;
      pending = text.slice(cut);
      for (const entry of parseOutbox(text.slice(0, cut))) {
        out.line(entry, () => `${formatTable([entry], COLUMNS).split('\n')[1] ?? ''}\n`);
      }
    } finally {
      await handle.close();
    }
  };
  const catchUp = (): void => {
    busy = busy.then(readNew).catch(() => undefined);
  };
  // Watch first, then read: a line appended in between is caught by one or the other.
  watchFile(file, { interval: 250 }, catchUp);
  catchUp();
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      unwatchFile(file);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
