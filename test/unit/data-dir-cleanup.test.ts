import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { dataDirBefore, removeAddedSince } from '../../src/config/secrets.js';

/**
 * What a failed `serve` or `migrate` takes back from a directory that held no box (decision
 * 0051): only the names a start makes, and only those that were not there before.
 */

const OURS = [
  'secrets.env',
  'vault.key',
  'hotspot.db',
  'hotspot.db-wal',
  'daemon.lock',
  'daemon.pid',
  'keys',
];

t.test('only what a start makes, and only what it added, is removed', async (t) => {
  const dir = path.join(t.testdir(), 'data');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'notes.txt'), 'before');
  writeFileSync(path.join(dir, 'vault.key'), 'before');
  const before = dataDirBefore(dir, true);
  for (const name of OURS.filter((n) => n !== 'vault.key')) writeFileSync(path.join(dir, name), 'ours');
  // Another program's files, written while the start ran: not ours to take.
  writeFileSync(path.join(dir, 'report.pdf'), 'theirs');
  mkdirSync(path.join(dir, 'photos'));
  removeAddedSince(before, { postgres: false, reached: true });
  t.same(readdirSync(dir).sort(), ['notes.txt', 'photos', 'report.pdf', 'vault.key']);
});

t.test('a directory the start made goes when nothing else is left in it', async (t) => {
  const root = t.testdir();
  const made = path.join(root, 'made');
  mkdirSync(made);
  const before = dataDirBefore(made, false);
  for (const name of OURS) writeFileSync(path.join(made, name), 'ours');
  removeAddedSince(before, { postgres: false, reached: true });
  t.notOk(existsSync(made));

  const shared = path.join(root, 'shared');
  mkdirSync(shared);
  const also = dataDirBefore(shared, false);
  writeFileSync(path.join(shared, 'secrets.env'), 'ours');
  writeFileSync(path.join(shared, 'theirs.txt'), 'theirs');
  removeAddedSince(also, { postgres: false, reached: true });
  t.same(readdirSync(shared), ['theirs.txt'], 'kept, with what another program put there');
});

t.test('on PostgreSQL, nothing is removed once the database was reached', async (t) => {
  const dir = path.join(t.testdir(), 'data');
  mkdirSync(dir);
  const before = dataDirBefore(dir, true);
  writeFileSync(path.join(dir, 'secrets.env'), 'ours');
  removeAddedSince(before, { postgres: true, reached: true });
  t.same(readdirSync(dir), ['secrets.env']);
  removeAddedSince(before, { postgres: true, reached: false });
  t.same(readdirSync(dir), []);
});
