/**
 * The disk's commit floor: how long fdatasync of one 8 KiB page takes on the data directory's
 * file system, as PostgreSQL's WAL flush at each commit (and SQLite's at each checkpoint) does.
 * An accounting answer may not go out before its record is durable, so these latencies, and
 * above all their tail, bound the p99 of any durable store on the box (bench/README.md).
 *
 * `npm run bench:fsync` (FSYNC_SECONDS, default 20; FSYNC_DIR, default the system's temp dir).
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const seconds = Number(process.env.FSYNC_SECONDS ?? 20);
const dir = mkdtempSync(path.join(process.env.FSYNC_DIR ?? tmpdir(), 'hotspot-fsync-'));
const file = path.join(dir, 'probe');
const page = Buffer.alloc(8192, 0x5a);
const latencies: number[] = [];
const fd = openSync(file, 'w', 0o600);
try {
  const end = performance.now() + seconds * 1000;
  // WAL is written in a circle of segments; 1,000 pages keeps the file small and the writes real.
  for (let i = 0; performance.now() < end; i++) {
    writeSync(fd, page, 0, page.length, (i % 1000) * page.length);
    const start = performance.now();
    fdatasyncSync(fd);
    latencies.push(performance.now() - start);
  }
} finally {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
const over = (ms: number) => latencies.filter((l) => l > ms).length;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
process.stdout.write(
  [
    `fdatasync of an 8 KiB page, ${String(latencies.length)} times in ${String(seconds)} s (${path.dirname(dir)})`,
    `mean ${ms(mean)}   p50 ${ms(at(0.5))}   p99 ${ms(at(0.99))}   p99.9 ${ms(at(0.999))}   max ${ms(at(1))}`,
    `slower than 50 ms: ${String(over(50))}   slower than 100 ms: ${String(over(100))}`,
    '',
  ].join('\n'),
);
