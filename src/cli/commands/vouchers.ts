import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import {
  cliActor,
  codesCsv,
  codesFromText,
  createBatch,
  getBatch,
  listBatches,
  presentBatch,
  presentBatchSummary,
  presentCreated,
  presentVoucher,
  printVouchers,
  PRINT_FORMATS,
  revokeVouchers,
  sheetOf,
  vouchersCsv,
  type BatchSummary,
  type PrintFormat,
} from '../../wifi/index.js';
import { contextOf, withApp, type CliContext } from '../context.js';
import { formatRecord, formatTable, type Column } from '../output.js';
import { parseWholeNumber } from '../option-parsers.js';
import { siteIdOf, siteOption } from '../sites.js';

const BATCH_COLUMNS: readonly Column<BatchSummary>[] = [
  ['id', (s) => s.batch.id],
  ['plan', (s) => s.planName ?? s.batch.plan_id],
  // The batch's own price, kept from when it was made: what each code was sold at.
  ['price_tzs', (s) => s.batch.price_tzs],
  ['count', (s) => s.batch.count],
  ['unused', (s) => s.counts.unused],
  ['redeemed', (s) => s.counts.redeemed],
  ['revoked', (s) => s.counts.revoked],
  ['expired', (s) => s.counts.expired],
  ['valid_until', (s) => s.batch.valid_until],
  ['created_at', (s) => s.batch.created_at],
];

const formatOption = (flags: string, help: string): Option => new Option(flags, help).choices(PRINT_FORMATS);

/** The sheet to `--output FILE` (only its owner may read it: it holds codes), or back for stdout. */
function writeSheet(
  ctx: CliContext,
  sheet: string,
  about: { format: PrintFormat; codes: number },
  output: string | undefined,
): string | null {
  if (output === undefined) return sheet;
  writeFileSync(output, sheet, { mode: 0o600 });
  ctx.out.note(`print sheet (${about.format}, ${codesCount(about.codes)}) written to ${output}`);
  return null;
}

/** A file that is opened before its content exists: new only, readable by its owner only. */
interface NewFile {
  path: string;
  fd: number;
}

/**
 * Opens FILE for codes that exist nowhere else: a new file only (one already there may be another
 * batch's only copy), mode 0600.
 */
function openNewFile(file: string): NewFile {
  try {
    return { path: file, fd: openSync(file, 'wx', 0o600) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EEXIST'
        ? `${file} exists: name a new file (it may hold another batch's codes)`
        : `cannot create ${file}: ${code ?? String(err)}`,
    );
  }
}

/** Removes a file opened for a batch that was never made (it is still empty). */
function discardNewFile(file: NewFile): void {
  closeSync(file.fd);
  rmSync(file.path, { force: true });
}

/** Writes and closes; false (with a note) when the write failed. */
function writeNewFile(ctx: CliContext, file: NewFile, text: string, what: string): boolean {
  try {
    writeFileSync(file.fd, text);
    ctx.out.note(`${what} written to ${file.path}`);
    return true;
  } catch (err) {
    ctx.out.note(`could not write ${file.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    return false;
  } finally {
    closeSync(file.fd);
  }
}

/** A batch with its codes' rows, and the time their statuses are read at. */
const batchCodes = (ctx: CliContext, batchId: string) =>
  withApp(ctx, async (app) => ({ ...(await getBatch(app.deps, batchId)), now: app.deps.clock.now() }));

/** "1 code", "5 codes". */
const codesCount = (n: number): string => `${String(n)} code${n === 1 ? '' : 's'}`;

/** `--codes-file FILE` (`-`: stdin): one code a line, or the CSV saved at creation. */
function readCodes(file: string): string[] {
  try {
    return codesFromText(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    throw new Error(
      code === 'ENOENT'
        ? `${file}: no such file (the codes saved when the batch was made)`
        : `cannot read ${file}: ${code}`,
    );
  }
}

export function registerVouchers(program: Command): void {
  const vouchers = program
    .command('vouchers')
    .description('Printed codes that sell a plan without mobile money (cash at the bar, resellers)');

  vouchers
    .command('create')
    .description(
      'Make a batch of codes for a plan; they are shown this once and never stored (save or print them now)',
    )
    .requiredOption('--plan <id>', 'the plan each code gives')
    .requiredOption('--count <n>', 'how many codes (1-1000)', parseWholeNumber)
    .option('--prefix <text>', 'letters or digits in front of every code (no 0, 1, I, L, O)')
    .option('--length <n>', 'random characters per code (8-20)', parseWholeNumber, 10)
    .option('--valid-until <date>', "last day a code may be used (YYYY-MM-DD, the venue's time zone)")
    .addOption(formatOption('--print <format>', 'also write the print sheet (a4 or thermal58)'))
    .option('--output <file>', 'where --print writes the sheet (default: stdout, instead of the codes)')
    .option('--csv <file>', 'also write the codes as CSV here (readable by you only): keep it to print again')
    .action(
      async (
        flags: {
          plan: string;
          count: number;
          prefix?: string;
          length: number;
          validUntil?: string;
          print?: PrintFormat;
          output?: string;
          csv?: string;
        },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        // The codes exist nowhere else: their files are new ones, opened before the batch is made,
        // so a wrong path or a file already there fails before any code exists.
        const csvFile = flags.csv === undefined ? undefined : openNewFile(flags.csv);
        const sheetFile =
          flags.print !== undefined && flags.output !== undefined ? openNewFile(flags.output) : undefined;
        const opened = [csvFile, sheetFile].filter((f) => f !== undefined);
        let made: Awaited<ReturnType<typeof createBatch>>;
        let sheet: string | null;
        try {
          ({ made, sheet } = await withApp(ctx, async (app) => {
            const batch = await createBatch(
              app.deps,
              {
                plan_id: flags.plan,
                count: flags.count,
                prefix: flags.prefix,
                length: flags.length,
                valid_until: flags.validUntil,
              },
              cliActor(),
            );
            const printed =
              flags.print === undefined
                ? null
                : await sheetOf(app.deps, {
                    format: flags.print,
                    batch: batch.batch,
                    plan: batch.plan,
                    codes: batch.codes.map((c) => c.code),
                  });
            return { made: batch, sheet: printed };
          }));
        } catch (err) {
          for (const f of opened) discardNewFile(f);
          throw err;
        }
        const created = made;
        // Written now; a failed write still leaves the codes on the screen below.
        let kept = true;
        if (csvFile)
          kept = writeNewFile(ctx, csvFile, codesCsv(created), codesCount(created.codes.length)) && kept;
        if (flags.print !== undefined && sheet !== null) {
          if (sheetFile)
            kept =
              writeNewFile(
                ctx,
                sheetFile,
                sheet,
                `print sheet (${flags.print}, ${codesCount(created.codes.length)})`,
              ) && kept;
          else if (!ctx.out.json) {
            process.stdout.write(sheet);
            return;
          }
        }
        if (!kept) ctx.out.note('the codes follow here: copy them now, the box keeps none');
        // --json with --print and no --output: the sheet goes inside the one document.
        const onScreen = ctx.out.json && flags.print !== undefined && !sheetFile && sheet !== null;
        const doc = { ...presentCreated(created), ...(onScreen && { sheet }) };
        ctx.out.result(doc, () =>
          [
            formatRecord(Object.entries(presentBatch(created.batch, created.plan))),
            'codes (shown this once):',
            ...doc.codes.map((c) => c.code),
            '',
          ].join('\n'),
        );
      },
    );

  siteOption(
    vouchers
      .command('list')
      .description(
        "List batches with how many codes are unused, redeemed, revoked, expired; or one batch's codes",
      )
      .argument('[batch]', 'a batch id: list its codes (never their plaintext)'),
    'only the batches of this site (slug or id)',
  ).action(async (batchId: string | undefined, flags: { site?: string }, cmd: Command) => {
    const ctx = contextOf(cmd);
    if (batchId !== undefined) {
      const { batch, vouchers: rows, now } = await batchCodes(ctx, batchId);
      const shown = rows.map((v) => presentVoucher(v, now));
      ctx.out.result({ ...presentBatch(batch), vouchers: shown }, () =>
        formatTable(shown, [
          ['id', (v) => v.id],
          ['code', (v) => `…${v.last3}`],
          ['status', (v) => v.status],
          ['redeemed_at', (v) => v.redeemed_at],
        ]),
      );
      return;
    }
    const rows = await withApp(ctx, async (app) =>
      listBatches(app.deps, { scope: null, siteId: await siteIdOf(app, flags.site) }, { all: true }),
    );
    ctx.out.result(rows.map(presentBatchSummary), () =>
      rows.length === 0 ? 'no voucher batches yet\n' : formatTable(rows, BATCH_COLUMNS),
    );
  });

  vouchers
    .command('revoke')
    .description(
      'Revoke a batch (every unused code in it) or one code, by id; redeemed codes keep their access',
    )
    .argument('<id>', 'batch id or voucher id')
    .option('--reason <text>', 'why, for the audit trail')
    .action(async (id: string, flags: { reason?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const r = await withApp(ctx, (app) =>
        revokeVouchers(app.deps, id, { reason: flags.reason }, cliActor()),
      );
      const doc = { batch_id: r.batchId, voucher_id: r.voucherId, revoked: r.revoked };
      ctx.out.result(doc, () => `${codesCount(r.revoked)} revoked\n`);
    });

  vouchers
    .command('export')
    .description('The codes of a batch as CSV (status, dates; never the codes themselves)')
    .argument('<batch>', 'batch id')
    .option('--output <file>', 'write the CSV here (default: stdout)')
    .action(async (batchId: string, flags: { output?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { batch, vouchers: rows, now } = await batchCodes(ctx, batchId);
      // --json: the same rows as one JSON document (as every command's --json), not CSV.
      const text = ctx.out.json
        ? `${JSON.stringify({ batch_id: batch.id, vouchers: rows.map((v) => presentVoucher(v, now)) }, null, 2)}\n`
        : vouchersCsv(rows, now);
      if (flags.output === undefined) process.stdout.write(text);
      else writeFileSync(flags.output, text);
    });

  vouchers
    .command('print')
    .description(
      'The print sheet (HTML with print CSS) of codes of a batch you saved at creation; each must still be unused',
    )
    .argument('<batch>', 'batch id')
    .requiredOption(
      '--codes-file <file>',
      'the codes: one a line, or the CSV of vouchers create --csv or the admin UI (- for stdin)',
    )
    .addOption(
      formatOption('--format <format>', 'paper: A4 sheets to cut, or a 58 mm receipt roll').default('a4'),
    )
    .option('--output <file>', 'write the sheet here (default: stdout)')
    .action(
      async (
        batchId: string,
        flags: { codesFile: string; format: PrintFormat; output?: string },
        cmd: Command,
      ) => {
        const ctx = contextOf(cmd);
        const codes = readCodes(flags.codesFile);
        const printed = await withApp(ctx, (app) =>
          printVouchers(app.deps, batchId, { format: flags.format, codes }, cliActor()),
        );
        const about = { format: printed.format, codes: printed.codes.length };
        const sheet = writeSheet(ctx, printed.sheet, about, flags.output);
        // --json: what was printed, the sheet inside the document when it was not written to a file.
        const doc = {
          batch_id: printed.batch.id,
          ...about,
          ...(sheet === null ? { output: flags.output } : { sheet }),
        };
        ctx.out.result(doc, () => sheet ?? '');
      },
    );
}
