import path from 'node:path';
import t from 'tap';
import { BIN, boxEnv, runCli, runProgram } from '../helpers/cli.js';

/**
 * README's exit status, one bad value per command family: 2 when the command line is wrong as
 * written (a value of the wrong form, not one of an option's choices, options that contradict),
 * refused before anything is read; 1 when a value is read and refused (out of range, unknown, not
 * valid for the record) or the work fails, with one line on stderr.
 */

const DEVICE = [
  '--name',
  'Lobby AP',
  '--model',
  'MikroTik hAP ax2',
  '--network',
  '10.1.0.0/24',
  '--uam-server',
  'http://10.1.0.10:8080/portal',
  '--nas-id',
  'lobby-01',
  '--client-ip',
  '10.1.0.1',
];
const NO_ID = '00000000-0000-4000-8000-000000000000';

// [family, args, exit status, the first line on stderr]
const CASES: readonly (readonly [string, readonly string[], 1 | 2, RegExp])[] = [
  [
    'plans',
    ['plans', 'add', '--name', 'x', '--price', 'lots', '--duration', '1h'],
    2,
    /--price.*must be a whole number/,
  ],
  [
    'plans',
    ['plans', 'add', '--name', 'x', '--price', '499', '--duration', '1h'],
    1,
    /price_tzs must be a whole number of at least 500/,
  ],
  ['plans', ['plans', 'update', NO_ID, '--price', '900'], 1, /plan not found/],
  [
    'devices',
    ['devices', 'add', ...DEVICE, '--mac', 'aa:bb:cc:dd:ee:01', '--coa-port', 'x'],
    2,
    /--coa-port.*must be a whole number/,
  ],
  [
    'devices',
    ['devices', 'add', ...DEVICE, '--mac', 'not-a-mac'],
    1,
    /mac_address must be six colon-separated hex pairs/,
  ],
  [
    'sites',
    ['sites', 'add', '--slug', 'x', '--name', 'X', '--logo', 'logo.txt'],
    2,
    /--logo.*must be a \.png/,
  ],
  [
    'sites',
    ['sites', 'add', '--slug', 'x', '--name', 'X', '--logo', 'missing.png'],
    1,
    /--logo: cannot read missing\.png: ENOENT/,
  ],
  [
    'staff',
    ['staff', 'add', '--email', 'a@venue.test', '--role', 'king'],
    2,
    /--role.*Allowed choices are owner/,
  ],
  ['staff', ['staff', 'remove', 'nobody@venue.test'], 1, /no staff member with that email/],
  ['grants', ['grants', 'extend', 'someone', '--by', 'a while'], 2, /--by.*must be seconds or a duration/],
  ['grants', ['grants', 'revoke', 'someone'], 1, /access grant not found/],
  [
    'grants list',
    ['grants', 'list', '--status', 'lost'],
    2,
    /--status.*Allowed choices are live, ended, revoked, refunded/,
  ],
  [
    'grants list',
    ['grants', 'list', '--from', 'yesterday'],
    2,
    /--from.*must be an ISO-8601 date or date-time/,
  ],
  [
    'grants list',
    ['grants', 'list', '--per-page', '500'],
    1,
    /per_page must be a whole number from 1 to 200/,
  ],
  ['sessions', ['sessions', 'list', '--status', 'open'], 2, /--status.*Allowed choices are active, ended/],
  [
    'sessions',
    ['sessions', 'list', '--from', '2026-02-31'],
    1,
    /from and to must be ISO-8601 dates or date-times/,
  ],
  ['invoices', ['invoices', 'refund', 'INV-1'], 2, /required option '--reason <text>' not specified/],
  ['invoices', ['invoices', 'refund', 'INV-1', '--reason', 'asked'], 1, /invoice not found/],
  ['audit', ['audit', 'list', '--limit', 'ten'], 2, /--limit.*must be a whole number/],
  ['audit', ['audit', 'list', '--limit', '0'], 1, /limit must be a whole number from 1 to 200/],
  ['audit', ['audit', 'list', '--to', 'tomorrow'], 2, /--to.*must be an ISO-8601 date or date-time/],
  [
    'vouchers',
    ['vouchers', 'create', '--plan', NO_ID, '--count', 'many'],
    2,
    /--count.*must be a whole number/,
  ],
  [
    'vouchers',
    ['vouchers', 'create', '--plan', NO_ID, '--count', '0'],
    1,
    /count must be a whole number from 1 to 1000/,
  ],
  ['vouchers', ['vouchers', 'revoke', NO_ID], 1, /voucher batch not found/],
  ['report', ['report', 'usage', '--group', 'year'], 2, /--group.*Allowed choices are day, week, month/],
  ['report', ['report', 'usage', '--from', '1 March'], 2, /--from.*must be a date, YYYY-MM-DD/],
  ['report', ['report', 'usage', '--from', '2026-02-31'], 1, /from and to must be dates \(YYYY-MM-DD\)/],
  ['report', ['report', 'profit'], 1, /no such report/],
  ['setup', ['setup', '--non-interactive', '--set', 'HTTP_PORT'], 2, /--set.*takes NAME=VALUE/],
  ['setup', ['setup', '--first-run', '--non-interactive'], 2, /--first-run writes no settings/],
  ['doctor', ['doctor', '--now', 'soon'], 2, /--now.*must be an ISO-8601 time or \+\/- seconds/],
];

t.test('a bad value exits 2 when the command line is wrong as written, 1 when it is refused', async (t) => {
  const dir = t.testdir({ 'logo.txt': 'not an image', 'hotspot.env': '' });
  const env = await boxEnv(path.join(dir, 'data'));
  for (const [family, args, code, message] of CASES) {
    // In the test's directory (a relative --logo is read there), and setup on a file of its own.
    const res = await runProgram(BIN, ['--config', path.join(dir, 'hotspot.env'), ...args], {
      env,
      cwd: dir,
    });
    const label = `${family}: ${args.join(' ')}`;
    t.equal(res.code, code, label);
    t.equal(res.stdout, '', `${label}: nothing on stdout`);
    const [first = '', ...more] = res.stderr.trimEnd().split('\n');
    t.match(first, /^error: /, `${label}: the error first`);
    t.match(first, message, label);
    // An error is one line; a usage error is followed by the command's help.
    if (code === 1) t.same(more, [], `${label}: one line`);
    else t.match(more.join('\n'), /Usage: hotspot-ctl /, `${label}: then the usage`);
  }
  t.same(JSON.parse((await runCli(['plans', 'list', '--json'], env)).stdout), [], 'no plan was made');
});
