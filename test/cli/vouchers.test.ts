import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { boxEnv, runCli } from '../helpers/cli.js';

/** `hotspot-ctl vouchers …` and `plans … --remember-device` against the real binary. */

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the shape each call expects
const json = <T = Record<string, unknown>>(stdout: string) => JSON.parse(stdout) as T;

t.test(
  'vouchers create (with --csv), list, print from saved codes, export and revoke from the CLI',
  async (t) => {
    const dir = t.testdir();
    const env = await boxEnv(path.join(dir, 'data'));
    const plan = json(
      (
        await runCli(
          [
            'plans',
            'add',
            '--name',
            'Day',
            '--price',
            '2000',
            '--duration',
            '1d',
            '--remember-device',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    t.equal(plan.remember_device, true, '--remember-device');
    const off = await runCli(['plans', 'update', String(plan.id), '--no-remember-device', '--json'], env);
    t.equal(json(off.stdout).remember_device, false, '--no-remember-device');

    const created = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '3', '--prefix', 'BAR', '--json'],
      env,
    );
    t.equal(created.code, 0, created.stderr);
    const batch = json<{ id: string; codes: { id: string; code: string }[]; created_by: string }>(
      created.stdout,
    );
    t.equal(batch.codes.length, 3);
    t.match(batch.codes[0]?.code, /^BAR-[A-HJKMNP-Z2-9]{5}-[A-HJKMNP-Z2-9]{5}$/);
    t.match(batch.created_by, /^cli:/);

    const human = await runCli(['vouchers', 'create', '--plan', String(plan.id), '--count', '2'], env);
    t.equal(human.code, 0, human.stderr);
    t.match(human.stdout, /codes \(shown this once\):\n[A-Z2-9]{5}-[A-Z2-9]{5}\n[A-Z2-9]{5}-[A-Z2-9]{5}\n/);

    const listed = json<{ id: string; counts: Record<string, number> }[]>(
      (await runCli(['vouchers', 'list', '--json'], env)).stdout,
    );
    t.equal(listed.length, 2);
    t.match(
      listed.find((b) => b.id === batch.id),
      { plan_name: 'Day', counts: { unused: 3, redeemed: 0 } },
    );
    const codes = await runCli(['vouchers', 'list', batch.id], env);
    t.match(codes.stdout, /…[A-Z2-9]{3}\s+unused/);
    t.notOk(codes.stdout.includes(batch.codes[0]?.code.slice(4, 9) ?? 'x'), 'no plaintext in the list');

    // Printing again takes the codes back: the CSV saved at creation, or one code a line.
    const csvFile = path.join(dir, 'codes.csv');
    const saved = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '2', '--csv', csvFile, '--json'],
      env,
    );
    t.equal(saved.code, 0, saved.stderr);
    t.match(saved.stderr, `2 codes written to ${csvFile}`);
    t.equal(statSync(csvFile).mode & 0o777, 0o600, 'the CSV is readable by its owner only');
    const savedBatch = json<{ id: string; codes: { id: string; code: string }[] }>(saved.stdout);

    // The CSV is the codes' only copy: a file already there (another batch's?) or a path that
    // cannot be written is refused before any code exists.
    const batchesNow = async () =>
      json<unknown[]>((await runCli(['vouchers', 'list', '--json'], env)).stdout).length;
    const before = await batchesNow();
    const again = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '2', '--csv', csvFile],
      env,
    );
    t.same(
      [again.code, again.stderr],
      [1, `error: ${csvFile} exists: name a new file (it may hold another batch's codes)\n`],
    );
    const nowhere = path.join(dir, 'no-such-dir', 'codes.csv');
    const lost = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '2', '--csv', nowhere],
      env,
    );
    t.same([lost.code, lost.stderr], [1, `error: cannot create ${nowhere}: ENOENT\n`]);
    t.equal(await batchesNow(), before, 'no batch was made either time');
    t.equal(
      readFileSync(csvFile, 'utf8').split('\r\n')[1]?.split(',')[0],
      savedBatch.codes[0]?.code,
      'the first CSV is untouched',
    );
    const csvLines = readFileSync(csvFile, 'utf8').trim().split('\r\n');
    t.equal(csvLines[0], 'code,voucher_id,batch_id,plan,valid_until');
    t.same(
      csvLines.slice(1),
      savedBatch.codes.map((c) => `${c.code},${c.id},${savedBatch.id},Day,`),
    );

    const sheetFile = path.join(dir, 'sheet.html');
    const printed = await runCli(
      ['vouchers', 'print', savedBatch.id, '--codes-file', csvFile, '--format', 'a4', '--output', sheetFile],
      env,
    );
    t.equal(printed.code, 0, printed.stderr);
    t.match(printed.stderr, /print sheet \(a4, 2 codes\) written to/);
    t.equal(statSync(sheetFile).mode & 0o777, 0o600);
    const sheet = readFileSync(sheetFile, 'utf8');
    for (const c of savedBatch.codes) t.ok(sheet.replace(/<wbr>/g, '').includes(c.code));
    t.match(sheet, /@page \{ size: A4/);

    const listFile = path.join(dir, 'codes.txt');
    writeFileSync(listFile, `${batch.codes.map((c) => c.code.toLowerCase()).join('\n')}\n`);
    const fromList = await runCli(['vouchers', 'print', batch.id, '--codes-file', listFile], env);
    t.equal(fromList.code, 0, fromList.stderr);
    for (const c of batch.codes)
      t.ok(fromList.stdout.replace(/<wbr>/g, '').includes(c.code), 'one code a line, as typed');
    // --json: one JSON document, the sheet inside it (or where --output put it).
    const asJson = await runCli(['vouchers', 'print', batch.id, '--codes-file', listFile, '--json'], env);
    t.equal(asJson.code, 0, asJson.stderr);
    t.match(json(asJson.stdout), { batch_id: batch.id, format: 'a4', codes: 3, sheet: /^<!doctype html>/ });
    const jsonSheet = path.join(dir, 'sheet-json.html');
    const toFile = await runCli(
      ['vouchers', 'print', batch.id, '--codes-file', listFile, '--output', jsonSheet, '--json'],
      env,
    );
    t.same(json(toFile.stdout), { batch_id: batch.id, format: 'a4', codes: 3, output: jsonSheet });
    t.match(readFileSync(jsonSheet, 'utf8'), /^<!doctype html>/);
    const wrongBatch = await runCli(['vouchers', 'print', batch.id, '--codes-file', csvFile], env);
    t.equal(wrongBatch.code, 1);
    t.equal(
      wrongBatch.stderr,
      'error: 2 of the 2 codes are not unused codes of this batch (used, revoked, expired or unknown): nothing was printed\n',
    );
    t.equal((await runCli(['vouchers', 'print', batch.id], env)).code, 2, '--codes-file is required');
    const missing = path.join(dir, 'nowhere.csv');
    t.same(await runCli(['vouchers', 'print', batch.id, '--codes-file', missing], env), {
      code: 1,
      stdout: '',
      stderr: `error: ${missing}: no such file (the codes saved when the batch was made)\n`,
    });
    t.equal(
      (await runCli(['vouchers', 'print', batch.id, '--codes-file', listFile, '--format', 'letter'], env))
        .code,
      2,
    );
    const audit = json<{ data: { action: string }[] }>(
      (await runCli(['audit', 'list', '--json'], env)).stdout,
    ).data;
    t.equal(
      audit.filter((e) => e.action === 'voucher_batch.print').length,
      4,
      'printing from the CLI is audited (four sheets above)',
    );

    const atCreation = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '1', '--print', 'thermal58'],
      env,
    );
    t.match(atCreation.stdout, /^<!doctype html>/, '--print without --output: the sheet on stdout');
    t.match(atCreation.stdout, /size: 58mm \d+mm/);
    const createdJson = await runCli(
      ['vouchers', 'create', '--plan', String(plan.id), '--count', '1', '--print', 'a4', '--json'],
      env,
    );
    t.match(json(createdJson.stdout), { count: 1, codes: [{ code: String }], sheet: /^<!doctype html>/ });

    const revoked = await runCli(
      ['vouchers', 'revoke', batch.codes[0]?.id ?? '', '--reason', 'torn card', '--json'],
      env,
    );
    t.same(json(revoked.stdout), { batch_id: batch.id, voucher_id: batch.codes[0]?.id, revoked: 1 });
    const trail = json<{ data: { action: string; reason: string | null }[] }>(
      (await runCli(['audit', 'list', '--json'], env)).stdout,
    ).data;
    t.match(
      trail.filter((e) => e.action === 'voucher.revoke'),
      [{ reason: 'torn card' }],
      'the reason is in the audit trail',
    );
    const all = await runCli(['vouchers', 'revoke', batch.id], env);
    t.equal(all.stdout, '2 codes revoked\n');
    const exported = json<{ batch_id: string; vouchers: { status: string }[] }>(
      (await runCli(['vouchers', 'export', batch.id, '--json'], env)).stdout,
    );
    t.equal(exported.batch_id, batch.id);
    t.same(
      exported.vouchers.map((v) => v.status),
      ['revoked', 'revoked', 'revoked'],
      'export --json: the rows as JSON',
    );
    const csv = await runCli(['vouchers', 'export', batch.id], env);
    const lines = csv.stdout.trim().split('\r\n');
    t.equal(lines[0], 'voucher_id,batch_id,last3,status,valid_until,redeemed_at,revoked_at,invoice_id');
    t.equal(lines.filter((l) => l.includes(',revoked,')).length, 3);
    const afterRevoke = await runCli(['vouchers', 'print', batch.id, '--codes-file', listFile], env);
    t.equal(afterRevoke.code, 1, 'revoked codes are not printed');
    t.notOk(afterRevoke.stdout.includes(batch.codes[1]?.code ?? 'x'));

    const bad = await runCli(['vouchers', 'create', '--plan', String(plan.id), '--count', '0'], env);
    t.equal(bad.code, 1);
    t.equal(bad.stderr, 'error: count must be a whole number from 1 to 1000\n');
    const unknown = await runCli(['vouchers', 'revoke', '00000000-0000-4000-8000-000000000000'], env);
    t.equal(unknown.code, 1);
    t.equal(unknown.stderr, 'error: voucher batch not found\n');
  },
);
