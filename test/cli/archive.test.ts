import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

/** `plans|devices archive|unarchive|delete` (docs/decisions/0037-archive.md) through bin/hotspot-ctl. */

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
const ids = (stdout: string) => (JSON.parse(stdout) as { id: string }[]).map((r) => r.id);

t.test('plans archive, list --archived, unarchive (still off sale), delete', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const cli = (...args: string[]) => runCli([...args, '--json'], env);
  const added = await cli('plans', 'add', '--name', 'Day', '--price', '3000', '--duration', '1d');
  const id = String(json(added.stdout).id);

  const archived = await cli('plans', 'archive', id);
  t.equal(archived.code, 0, archived.stderr);
  t.match(json(archived.stdout), { id, active: false, archived_at: /^\d{4}-/ });
  t.same(ids((await cli('plans', 'list')).stdout), [], 'hidden from the list');
  t.same(ids((await cli('plans', 'list', '--archived')).stdout), [id]);
  t.same(ids((await cli('plans', 'list', '--all')).stdout), [id]);

  const again = await cli('plans', 'archive', id);
  t.equal(again.code, 1);
  t.match(again.stderr, 'the plan is already archived');
  const edit = await cli('plans', 'update', id, '--price', '2000');
  t.equal(edit.code, 1);
  t.match(edit.stderr, 'the plan is archived: unarchive it first');

  const back = await cli('plans', 'unarchive', id);
  t.equal(back.code, 0, back.stderr);
  t.match(json(back.stdout), { id, active: false, archived_at: null });
  const gone = await cli('plans', 'delete', id);
  t.equal(gone.code, 0, gone.stderr);
  t.same(ids((await cli('plans', 'list', '--all')).stdout), [], 'deleted: never sold');
});

t.test('devices archive, unarchive and delete', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const cli = (...args: string[]) => runCli([...args, '--json'], env);
  const added = await cli(
    'devices',
    'add',
    '--name',
    'Lobby',
    '--model',
    'MikroTik hAP ax2',
    '--mac',
    'AA:BB:CC:DD:EE:01',
    '--network',
    '10.1.0.0/24',
    '--uam-server',
    'http://10.1.0.10/portal',
    '--nas-id',
    'lobby-01',
    '--client-ip',
    '10.1.0.1',
  );
  t.equal(added.code, 0, added.stderr);
  const id = String(json(added.stdout).id);
  const archived = await cli('devices', 'archive', id);
  t.equal(archived.code, 0, archived.stderr);
  t.match(json(archived.stdout), { id, archived_at: /^\d{4}-/, disconnect: { status: 'no_sessions' } });
  t.same(ids((await cli('devices', 'list')).stdout), []);
  t.same(ids((await cli('devices', 'list', '--archived')).stdout), [id]);
  const human = await runCli(['devices', 'unarchive', id], env);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^unarchived\n/);
  t.same(ids((await cli('devices', 'list')).stdout), [id]);
  const gone = await cli('devices', 'delete', id);
  t.equal(gone.code, 0, gone.stderr);
  const missing = await cli('devices', 'delete', id);
  t.equal(missing.code, 1);
  t.match(missing.stderr, 'device not found');
});
