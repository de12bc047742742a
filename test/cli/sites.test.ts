import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

/** `hotspot-ctl sites …`, and `--site` on plans, devices and staff (docs/decisions/0024-sites.md). */

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the JSON's shape here
const parse = <T>(stdout: string) => JSON.parse(stdout) as T;

t.test('a box starts with the default site, and lists say nothing of sites until a second one', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const listed = await runCli(['sites', 'list', '--json'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.match(parse(listed.stdout), [{ id: 'default', slug: 'default', name: 'Default', time_zone: null }]);
  await runCli(['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h'], env);
  const plans = await runCli(['plans', 'list'], env);
  t.notMatch(plans.stdout, /SITE/, 'no site column for a single venue');
  t.match(parse<{ site_id: string }[]>((await runCli(['plans', 'list', '--json'], env)).stdout), [
    { site_id: 'default' },
  ]);
});

t.test('sites add, update and list; plans, devices and staff take --site', async (t) => {
  const dir = t.testdir({ 'logo.png': Buffer.from(PNG, 'base64') });
  const env = await boxEnv(path.join(dir, 'data'));
  const added = await runCli(
    [
      'sites',
      'add',
      '--slug',
      'harbour',
      '--name',
      'Harbour café',
      '--display-name',
      'Harbour Wi-Fi',
      '--logo',
      path.join(dir, 'logo.png'),
      '--brand-color',
      '#1d4ed8',
      '--time-zone',
      'Africa/Nairobi',
      '--json',
    ],
    env,
  );
  t.equal(added.code, 0, added.stderr);
  const site = parse<Record<string, unknown>>(added.stdout);
  t.match(site, {
    slug: 'harbour',
    name: 'Harbour café',
    display_name: 'Harbour Wi-Fi',
    logo_url: /^\/portal\/sites\/.+\/logo\?v=/,
    brand_color: '#1d4ed8',
    time_zone: 'Africa/Nairobi',
  });

  const updated = await runCli(
    ['sites', 'update', 'harbour', '--no-logo', '--no-display-name', '--name', 'Harbour', '--json'],
    env,
  );
  t.equal(updated.code, 0, updated.stderr);
  t.match(parse(updated.stdout), {
    name: 'Harbour',
    display_name: null,
    logo_url: null,
    brand_color: '#1d4ed8',
    time_zone: 'Africa/Nairobi',
  });
  const human = await runCli(['sites', 'list'], env);
  t.match(human.stdout, /^ID\s+SLUG\s+NAME/);
  t.match(human.stdout, /default\s+default\s+Default/);

  const plan = await runCli(
    [
      'plans',
      'add',
      '--name',
      'Harbour hour',
      '--price',
      '1500',
      '--duration',
      '1h',
      '--site',
      'harbour',
      '--json',
    ],
    env,
  );
  t.equal(parse<{ site_id: string }>(plan.stdout).site_id, site.id);
  await runCli(['plans', 'add', '--name', 'Lobby hour', '--price', '1000', '--duration', '1h'], env);
  const harbourPlans = parse<{ name: string }[]>(
    (await runCli(['plans', 'list', '--site', 'harbour', '--json'], env)).stdout,
  );
  t.same(
    harbourPlans.map((p) => p.name),
    ['Harbour hour'],
  );
  const table = await runCli(['plans', 'list'], env);
  t.match(table.stdout, /SITE/, 'with two sites the table says which');
  t.match(table.stdout, /Harbour hour .*harbour/);
  const moved = await runCli(
    ['plans', 'update', parse<{ id: string }>(plan.stdout).id, '--site', 'default', '--json'],
    env,
  );
  t.equal(parse<{ site_id: string }>(moved.stdout).site_id, 'default');

  const device = await runCli(
    [
      'devices',
      'add',
      '--name',
      'Harbour AP',
      '--model',
      'MikroTik hAP ax2',
      '--mac',
      'AA:BB:CC:DD:EE:02',
      '--network',
      '10.2.0.0/24',
      '--uam-server',
      'http://10.2.0.10:8080/portal',
      '--nas-id',
      'harbour-01',
      '--client-ip',
      '10.2.0.1',
      '--site',
      String(site.id),
      '--json',
    ],
    env,
  );
  t.equal(device.code, 0, device.stderr);
  t.equal(parse<{ site_id: string }>(device.stdout).site_id, site.id, 'an id works as well as a slug');
  t.same(parse((await runCli(['devices', 'list', '--site', 'default', '--json'], env)).stdout), []);

  const staff = await runCli(
    [
      'staff',
      'add',
      '--email',
      'ann@harbour.test',
      '--role',
      'admin',
      '--site',
      'harbour',
      '--password',
      'harbour pass 1',
      '--json',
    ],
    env,
  );
  t.equal(staff.code, 0, staff.stderr);
  t.match(parse(staff.stdout), { staff: { role: 'admin', site_ids: [site.id] } });
  const staffList = await runCli(['staff', 'list'], env);
  t.match(staffList.stdout, /ann@harbour\.test\s+admin\s+.*harbour/);
});

t.test('refused --site values change nothing and say why', async (t) => {
  const env = await boxEnv(path.join(t.testdir(), 'data'));
  const unknown = await runCli(
    ['plans', 'add', '--name', 'Hour', '--price', '1000', '--duration', '1h', '--site', 'nowhere'],
    env,
  );
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr.trim(), 'error: no site has this id or slug');
  t.same(parse((await runCli(['plans', 'list', '--json'], env)).stdout), []);

  await runCli(['sites', 'add', '--slug', 'harbour', '--name', 'Harbour'], env);
  const owner = await runCli(
    [
      'staff',
      'add',
      '--email',
      'o@venue.test',
      '--role',
      'owner',
      '--site',
      'harbour',
      '--password',
      'owner pass 12',
    ],
    env,
  );
  t.equal(owner.code, 1);
  t.equal(owner.stderr.trim(), 'error: an owner covers every site: an owner cannot be limited to sites');
  const staff = await runCli(
    [
      'staff',
      'add',
      '--email',
      'v@venue.test',
      '--role',
      'viewer',
      '--site',
      'nowhere',
      '--password',
      'viewer pass 12',
    ],
    env,
  );
  t.equal(staff.code, 1);
  t.same(parse((await runCli(['staff', 'list', '--json'], env)).stdout), [], 'no account was made');

  const badColour = await runCli(
    ['sites', 'add', '--slug', 'x', '--name', 'X', '--brand-color', '#ffff00'],
    env,
  );
  t.equal(badColour.code, 1);
  t.match(badColour.stderr, /brand_color must be a #rrggbb colour/);
  writeFileSync(path.join(t.testdirName, 'logo.txt'), 'hi');
  const badLogo = await runCli(
    ['sites', 'add', '--slug', 'x', '--name', 'X', '--logo', path.join(t.testdirName, 'logo.txt')],
    env,
  );
  t.equal(badLogo.code, 2, 'not an image file: a usage error');
  t.equal(parse<unknown[]>((await runCli(['sites', 'list', '--json'], env)).stdout).length, 2);
});
