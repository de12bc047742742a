import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../lib/clock.js';
import type { OutboxEntry } from './types.js';

export const OUTBOX_FILE = 'outbox.jsonl';

export const outboxPath = (dataDir: string): string => path.join(dataDir, OUTBOX_FILE);

/**
 * The spool a box without a mail or SMS gateway writes to: one JSON line per message, appended
 * and flushed to disk before the send counts as done.
 */
export class Outbox {
  readonly file: string;
  readonly #clock: Clock;

  constructor(dataDir: string, clock: Clock) {
    this.file = outboxPath(dataDir);
    this.#clock = clock;
  }

  async append(entry: Omit<OutboxEntry, 'created_at'>): Promise<OutboxEntry> {
    const line: OutboxEntry = { ...entry, created_at: this.#clock.now().toISOString() };
    const handle = await open(this.file, 'a', 0o600);
    try {
      await handle.appendFile(`${JSON.stringify(line)}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return line;
  }
}

/** Parses outbox.jsonl; a torn last line (crash mid-write) is skipped. */
export function parseOutbox(content: string): OutboxEntry[] {
  const entries: OutboxEntry[] = [];
  for (const line of content.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as OutboxEntry);
    } catch {
      // a partial line from an interrupted append: nothing to show
    }
  }
  return entries;
}

export async function readOutbox(dataDir: string): Promise<OutboxEntry[]> {
  try {
    return parseOutbox(await readFile(outboxPath(dataDir), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
