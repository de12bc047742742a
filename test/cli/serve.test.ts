import path from 'node:path';
import t from 'tap';
import { Outbox } from '../../src/notify/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { BIN, boxEnv, cliEnv, runCli, startCli } from '../helpers/cli.js';

/**
 * The long-running commands (serve, outbox --follow), apart from test/cli/cli.test.ts so neither
 * file nears tap's per-file limit on a busy box.
 */

t.test('outbox lists spooled messages and --follow prints new ones as they arrive', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  t.same(JSON.parse((await runCli(['outbox', '--json'], env)).stdout), []);
  t.equal((await runCli(['outbox'], env)).stdout, 'the outbox is empty\n');

  const outbox = new Outbox(dataDir, new ManualClock('2026-02-02T10:00:00Z'));
  await outbox.append({
    channel: 'email',
    to: 'a@example.com',
    subject: 'Code',
    text: 'Your code is 123456',
  });
  const listed = JSON.parse((await runCli(['outbox', '--json'], env)).stdout) as unknown[];
  t.same(listed, [
    {
      channel: 'email',
      to: 'a@example.com',
      subject: 'Code',
      text: 'Your code is 123456',
      created_at: '2026-02-02T10:00:00.000Z',
    },
  ]);
  t.match((await runCli(['outbox'], env)).stdout, /email\s+a@example.com\s+Code\s+Your code is 123456/);

  const follower = startCli(['outbox', '--follow', '--json'], env);
  t.teardown(() => follower.child.kill('SIGKILL'));
  await follower.waitFor(/123456/);
  await outbox.append({ channel: 'sms', to: '+255712345678', text: 'Code 654321' });
  await follower.waitFor(/654321/);
  const lines = follower.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { channel: string });
  t.same(
    lines.map((l) => l.channel),
    ['email', 'sms'],
  );
  follower.child.kill('SIGINT');
  t.equal(await follower.exited, 0);
});

t.test('serve prints where things are, answers /healthz, and exits 0 on SIGTERM', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const daemon = startCli(['serve'], cliEnv(dataDir, { PUBLIC_BASE_URL: 'http://hotspot.lan:8080' }));
  t.teardown(() => daemon.child.kill('SIGKILL'));
  const [, port] = await daemon.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);
  t.match(daemon.stderr, 'http://hotspot.lan:8080/portal');
  t.match(daemon.stderr, 'http://hotspot.lan:8080/admin');
  t.match(daemon.stderr, 'http://hotspot.lan:8080/account');
  t.match(
    daemon.stderr,
    `no owner account yet: node ${path.relative(process.cwd(), BIN)} setup --first-run (or node ${path.relative(process.cwd(), BIN)} staff add --email you@example.com --role owner)`,
    'a box without an owner says how to make one, with the command as this box runs it',
  );
  t.match(
    daemon.stderr.split('\n')[0],
    `NEW DATA DIRECTORY: ${dataDir} held no hotspot-ctl data, so new secrets`,
    'a first start says loudly that it made a new box (a mistyped HOTSPOT_DATA_DIR looks just like it)',
  );
  const res = await fetch(`http://127.0.0.1:${port ?? ''}/healthz`);
  t.same(await res.json(), { success: true, data: { status: 'ok', service: 'hotspot-ctl' } });
  daemon.child.kill('SIGTERM');
  t.equal(await daemon.exited, 0);
  t.match(daemon.stdout, /"event":"daemon.stopped"/);

  const owner = await runCli(
    [
      'staff',
      'add',
      '--email',
      'owner@venue.example',
      '--role',
      'owner',
      '--password',
      'lobby-owner-passphrase-7',
    ],
    cliEnv(dataDir),
  );
  t.equal(owner.code, 0, owner.stderr);
  const again = startCli(['serve'], cliEnv(dataDir));
  t.teardown(() => again.child.kill('SIGKILL'));
  await again.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);
  t.notMatch(again.stderr, 'NEW DATA DIRECTORY', 'the same directory again: nothing to warn of');
  t.notMatch(again.stderr, 'no owner account yet', 'a box with an owner needs no hint');
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0);
});

t.test('serve stops the same way on SIGINT (Ctrl-C in a terminal)', async (t) => {
  const daemon = startCli(['serve'], cliEnv(path.join(t.testdir(), 'data')));
  t.teardown(() => daemon.child.kill('SIGKILL'));
  await daemon.waitFor(/HTTP on 127\.0\.0\.1:(\d+)/);
  daemon.child.kill('SIGINT');
  t.equal(await daemon.exited, 0);
  t.match(daemon.stdout, /"event":"daemon.stopped"/);
});
