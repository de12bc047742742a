import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

t.test('plans add, list and update with --json; durations and data limits with units', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const added = await runCli(
    [
      'plans',
      'add',
      '--name',
      'Day pass',
      '--price',
      '3000',
      '--duration',
      '1d',
      '--data-limit',
      '2GB',
      '--json',
    ],
    env,
  );
  t.equal(added.code, 0, added.stderr);
  const plan = json(added.stdout);
  t.match(plan, {
    id: /^[0-9a-f-]{36}$/,
    name: 'Day pass',
    description: '',
    price_tzs: 3000,
    duration_seconds: 86_400,
    data_limit_bytes: 2_000_000_000,
    active: true,
    sort_order: 0,
  });
  const id = String(plan.id);
  await runCli(
    ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '3600', '--sort-order', '-1'],
    env,
  );

  const listed = await runCli(['--json', 'plans', 'list'], env);
  t.same(
    (JSON.parse(listed.stdout) as { name: string }[]).map((p) => p.name),
    ['Hour', 'Day pass'],
  );
  const human = await runCli(['plans', 'list'], env);
  t.match(human.stdout, /^ID\s+NAME\s+PRICE_TZS\s+DURATION/);
  t.match(human.stdout, /Day pass\s+3000\s+1d\s+2000000000\s+true\s+0/);

  const updated = await runCli(
    [
      'plans',
      'update',
      id,
      '--price',
      '2500',
      '--inactive',
      '--data-limit',
      'none',
      '--description',
      'All day',
      '--json',
    ],
    env,
  );
  t.equal(updated.code, 0, updated.stderr);
  t.match(json(updated.stdout), {
    id,
    name: 'Day pass',
    price_tzs: 2500,
    active: false,
    data_limit_bytes: null,
    description: 'All day',
  });
  t.match(json((await runCli(['plans', 'update', id, '--active', '--json'], env)).stdout), {
    active: true,
    price_tzs: 2500,
  });
});

t.test('plan errors: a bad value exits 1 with the domain message, a malformed flag exits 2', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const cheap = await runCli(['plans', 'add', '--name', 'x', '--price', '499', '--duration', '1h'], env);
  t.equal(cheap.code, 1);
  t.equal(cheap.stderr, 'error: price_tzs must be a whole number of at least 500\n');
  t.equal(cheap.stdout, '');
  const unknown = await runCli(
    ['plans', 'update', '00000000-0000-4000-8000-000000000000', '--price', '900'],
    env,
  );
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr, 'error: plan not found\n');
  for (const args of [
    ['plans', 'add', '--name', 'x', '--price', 'lots', '--duration', '1h'],
    ['plans', 'add', '--name', 'x', '--price', '900', '--duration', '1w'],
    ['plans', 'add', '--name', 'x', '--price', '900'],
    ['plans', 'update', 'id', '--active', '--inactive'],
  ]) {
    const res = await runCli(args, env);
    t.equal(res.code, 2, args.join(' '));
  }
  t.same(JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout), [], 'nothing was created');
});

const DEVICE = [
  '--name',
  'Lobby AP',
  '--model',
  'MikroTik hAP ax2',
  '--mac',
  'aa:bb:cc:dd:ee:01',
  '--network',
  '10.1.0.0/24',
  '--uam-server',
  'http://10.1.0.10:8080/portal',
  '--nas-id',
  'lobby-01',
  '--client-ip',
  '10.1.0.1',
];

t.test(
  'devices add prints the RADIUS secret once; list never shows it; rotate-secret replaces it',
  async (t) => {
    const env = await boxEnv(path.join(t.testdir(), 'data'));
    const added = await runCli(['devices', 'add', ...DEVICE, '--uam-secret', 'chilli', '--json'], env);
    t.equal(added.code, 0, added.stderr);
    const device = json(added.stdout);
    t.match(device, {
      id: /^[0-9a-f-]{36}$/,
      mac_address: 'AA:BB:CC:DD:EE:01',
      coa_port: 3799,
      uam_auth: 'chap',
      has_uam_secret: true,
      require_message_authenticator: true,
      radius_secret: /^[A-Za-z2-9]{24}$/,
    });
    const secret = String(device.radius_secret);
    const id = String(device.id);

    const listed = await runCli(['devices', 'list', '--json'], env);
    t.notMatch(listed.stdout, secret);
    t.notMatch(listed.stdout, 'chilli');
    t.same(
      (JSON.parse(listed.stdout) as { id: string }[]).map((d) => d.id),
      [id],
    );
    t.match(
      (await runCli(['devices', 'list'], env)).stdout,
      /lobby-01\s+AA:BB:CC:DD:EE:01\s+10\.1\.0\.0\/24/,
    );

    const rotated = await runCli(['devices', 'rotate-secret', id, '--json'], env);
    t.equal(rotated.code, 0, rotated.stderr);
    t.not(json(rotated.stdout).radius_secret, secret);
    const human = await runCli(['devices', 'rotate-secret', id, '--secret', 'my-own-secret-0001'], env);
    t.match(human.stdout, /RADIUS secret \(shown once, enter it on the router\): my-own-secret-0001\n$/);

    const updated = await runCli(
      [
        'devices',
        'update',
        id,
        '--no-uam-secret',
        '--uam-auth',
        'pap',
        '--legacy-no-message-authenticator',
        '--coa-port',
        '1700',
        '--json',
      ],
      env,
    );
    t.equal(updated.code, 0, updated.stderr);
    t.match(json(updated.stdout), {
      has_uam_secret: false,
      uam_auth: 'pap',
      require_message_authenticator: false,
      coa_port: 1700,
    });
    t.notOk('radius_secret' in json(updated.stdout), 'update does not print the secret');
    t.match(
      json(
        (await runCli(['devices', 'update', id, '--require-message-authenticator', '--json'], env)).stdout,
      ),
      {
        require_message_authenticator: true,
      },
    );
  },
);

t.test(
  'devices add/update --global-secret: the router uses RADIUS_SECRET, which is never printed',
  async (t) => {
    const dataDir = path.join(t.testdir(), 'data');
    const env = await boxEnv(dataDir);
    const human = await runCli(['devices', 'add', ...DEVICE, '--global-secret'], env);
    t.equal(human.code, 0, human.stderr);
    t.match(human.stdout, /\nRADIUS secret: RADIUS_SECRET \(the global secret; enter it on the router\)\n$/);
    const global =
      /^RADIUS_SECRET=(\S+)$/m.exec(readFileSync(path.join(dataDir, 'secrets.env'), 'utf8'))?.[1] ?? '';
    t.match(global, /^[A-Za-z0-9]{24}$/, 'generated at the first run');
    const listed = await runCli(['devices', 'list', '--json'], env);
    const [row] = JSON.parse(listed.stdout) as { id: string }[];
    t.match(row, { radius_secret_source: 'global' });
    const id = String(row?.id);
    t.match((await runCli(['devices', 'list'], env)).stdout, /\s+SECRET\s[\s\S]*\s+global\s/);

    const rotated = await runCli(['devices', 'rotate-secret', id, '--json'], env);
    t.match(json(rotated.stdout), { radius_secret_source: 'own', radius_secret: /^[A-Za-z2-9]{24}$/ });
    const updated = await runCli(['devices', 'update', id, '--global-secret', '--json'], env);
    t.equal(updated.code, 0, updated.stderr);
    t.match(json(updated.stdout), { radius_secret_source: 'global' });
    t.notOk('radius_secret' in json(updated.stdout));

    const both = await runCli(
      ['devices', 'add', ...DEVICE, '--global-secret', '--secret', 'typed-secret-01'],
      env,
    );
    t.equal(both.code, 2, 'either a secret of its own or the global one');
    t.match(both.stderr, /cannot be used with option '--secret/);
    for (const out of [human, listed, rotated, updated, both]) t.notMatch(out.stdout + out.stderr, global);
  },
);

t.test('device errors: bad values exit 1, clashes exit 1, malformed flags exit 2', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const badMac = await runCli(
    ['devices', 'add', ...DEVICE.map((a) => (a === 'aa:bb:cc:dd:ee:01' ? 'not-a-mac' : a))],
    env,
  );
  t.equal(badMac.code, 1);
  t.equal(badMac.stderr, 'error: mac_address must be six colon-separated hex pairs\n');
  t.equal((await runCli(['devices', 'add', ...DEVICE], env)).code, 0);
  const clash = await runCli(['devices', 'add', ...DEVICE], env);
  t.equal(clash.code, 1);
  t.equal(clash.stderr, 'error: a device with this radius_nas_id is already registered\n');
  t.equal((await runCli(['devices', 'add', ...DEVICE, '--coa-port', 'x'], env)).code, 2);
  t.equal((await runCli(['devices', 'add', '--name', 'only'], env)).code, 2, 'required flags missing');
  const missing = await runCli(['devices', 'rotate-secret', '00000000-0000-4000-8000-000000000000'], env);
  t.equal(missing.code, 1);
  t.equal(missing.stderr, 'error: device not found\n');
});
