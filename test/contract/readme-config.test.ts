import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { settingList } from '../../src/config/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

t.test('the README configuration table is the settings table, row for row', async (t) => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- config-table:start -->');
  const end = readme.indexOf('<!-- config-table:end -->');
  t.ok(start > 0 && end > start, 'the README has the marked table');
  const rows = readme
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*(variable|-)/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  const expected = settingList().map((s) => [
    s.env,
    s.shownDefault ?? (s.default === '' ? 'empty' : `\`${s.default}\``),
    s.doc,
  ]);
  t.same(rows, expected);
});

t.test('the README opens with the two set-up commands', async (t) => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  t.match(firstBlock, /^npm install && npm start\b/m);
  t.match(firstBlock, /^npm test\b/m);
  t.ok(readme.indexOf('```sh') < readme.indexOf('## Configuration'), 'before the configuration table');
});
