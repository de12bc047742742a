import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

/** Writes a file with mode 0600 through a temporary file, fsync and rename. */
export function writeSecretFile(file: string, content: string | Buffer): void {
  const tmp = `${file}.tmp-${String(process.pid)}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
