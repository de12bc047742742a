import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

/**
 * The reviewer's reproduction from the CLI (docs/decisions/0027-vouchers.md, "a batch keeps its
 * terms"): a batch made at 1000 TZS for 1 h, then `plans update --price 1500 --duration 2h` (and
 * the allowance, devices and speed). The sheet printed again, the batch's views and the stock
 * report show the terms the batch was made with; the plan's name is the plan's.
 */

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the shape each call expects
const json = <T = Record<string, unknown>>(stdout: string) => JSON.parse(stdout) as T;

const TERMS = {
  price_tzs: 1000,
  duration_seconds: 3600,
  data_limit_bytes: 500_000_000,
  max_devices: 1,
  download_kbps: 2000,
  upload_kbps: 1000,
};

t.test('vouchers print, list and report voucher-stock keep the terms a batch was made with', async (t) => {
  const dir = t.testdir();
  const env = await boxEnv(path.join(dir, 'data'));
  const cli = async (args: string[]) => {
    const r = await runCli(args, env);
    t.equal(r.code, 0, `${args.slice(0, 2).join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const plan = json<{ id: string }>(
    await cli([
      'plans',
      'add',
      '--name',
      'Hour',
      '--price',
      '1000',
      '--duration',
      '1h',
      '--data-limit',
      '500MB',
      '--download',
      '2M',
      '--upload',
      '1M',
      '--json',
    ]),
  );
  const csv = path.join(dir, 'c.csv');
  const batch = json<{ id: string }>(
    await cli(['vouchers', 'create', '--plan', plan.id, '--count', '2', '--csv', csv, '--json']),
  );
  t.match(batch, TERMS, 'the creation answer: the terms it sells');
  const terms = (sheet: string) => /<div class="terms">([\s\S]*?)<\/div>/.exec(sheet)?.[1] ?? '';
  const printed = terms(await cli(['vouchers', 'print', batch.id, '--codes-file', csv]));
  t.match(printed, /TZS\u00a01,000 · 1\u00a0hour · 500\u00a0MB/, 'the card as sold, how long in words');

  await cli([
    'plans',
    'update',
    plan.id,
    '--name',
    'Hour+',
    '--price',
    '1500',
    '--duration',
    '2h',
    '--data-limit',
    '2GB',
    '--max-devices',
    '3',
    '--download',
    '8M',
    '--upload',
    '4M',
  ]);

  const again = await cli(['vouchers', 'print', batch.id, '--codes-file', csv]);
  t.equal(terms(again), printed, 'printed again: the same terms');
  t.match(terms(again), /↓ 2 Mbit\/s {2}↑ 1 Mbit\/s/);
  t.match(again, /<p class="plan">Hour\+<\/p>/, "the plan's name as it is");

  t.match(json(await cli(['vouchers', 'list', batch.id, '--json'])), TERMS, 'the batch view');
  t.match(
    json<unknown[]>(await cli(['vouchers', 'list', '--json'])),
    [{ id: batch.id, plan_name: 'Hour+', ...TERMS }],
    'the list',
  );
  t.match(await cli(['vouchers', 'list']), /\bPRICE_TZS\b[\s\S]*\bHour\+\s+1000\s+2\b/, 'its table');

  const stock = json<{ rows: Record<string, unknown>[] }>(await cli(['report', 'voucher-stock', '--json']));
  t.match(stock.rows, [
    { batch_id: batch.id, plan: 'Hour+', price_tzs: 1000, face_value_tzs: 2000, unused_value_tzs: 2000 },
  ]);
  t.ok(readFileSync(csv, 'utf8').startsWith('code,'), 'the saved codes, untouched');
});
