import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import {
  ConfigError,
  DEFAULT_CONFIG_FILE,
  checkValues,
  didYouMean,
  holdsBox,
  RADIUS_SECRET_MIN_LENGTH,
  processEnv,
  readEnvFile,
  settingList,
  PAYMENT_PROVIDERS,
  SMS_PROVIDERS,
} from '../../config/index.js';
import { renderEnvFile, unwritable } from '../../config/env-file.js';
import { SettingError } from '../../config/parsers.js';
import { dataDirHeld } from '../../db/index.js';
import { randomToken } from '../../lib/crypto.js';
import { writeSecretFile } from '../../lib/secret-file.js';
import { contextOf, type GlobalOptions } from '../context.js';
import { prompts } from '../prompts.js';
import { formatRecord } from '../output.js';
import { NO_PORTS, startProblems, type DaemonPorts } from '../start-checks.js';
import { firstRunAs, foreignOwner, offerFirstRun, runAs } from './setup-first-run.js';

/**
 * `hotspot-ctl setup`: writes the env file (--config FILE, default /etc/hotspot-ctl/hotspot.env)
 * from the settings table. Interactive by default (inquirer); `--non-interactive --set NAME=VALUE`
 * for scripts. Values already in the file are kept unless changed; everything is checked by the
 * same loader the daemon uses before anything is written.
 */

type Values = Record<string, string>;

/** Asked in this order; the provider answers add the settings of the chosen provider. */
const BASICS = ['PUBLIC_BASE_URL', 'SERVICE_NAME', 'HOTSPOT_DATA_DIR', 'INVOICE_PREFIX', 'VENUE_TIMEZONE'];
const PAYMENT_SETTINGS: Readonly<Record<string, string>> = { selcom: 'SELCOM_', azampay: 'AZAMPAY_' };
const SMS_SETTINGS: Readonly<Record<string, string>> = {
  http: 'SMS_HTTP_',
  beem: 'BEEM_',
  africastalking: 'AFRICASTALKING_',
};
const MAIL = ['SMTP_URL', 'MAIL_FROM'];

const settingOf = (env: string) => settingList().find((s) => s.env === env);

/** undefined when the value parses, else the parser's message (for inquirer's validate). */
function problemWith(env: string, value: string, before: string | undefined): string | undefined {
  try {
    settingOf(env)?.parse(value);
  } catch (err) {
    if (err instanceof SettingError) return `${env}: ${err.message}`;
    throw err;
  }
  return setupProblem(env, value, before);
}

/**
 * What setup refuses to write although the daemon reads it: HTTP_PORT 0 (a port picked anew at
 * each start, for tests: routers, payment callbacks and PUBLIC_BASE_URL need a fixed one), and a
 * new RADIUS_SECRET shorter than RFC 2865 §3's 16 octets. A short secret already in the file
 * stays (refusing it would stop every other change; doctor warns about it).
 */
function setupProblem(env: string, value: string, before: string | undefined): string | undefined {
  if (env === 'HTTP_PORT' && /^\s*0+\s*$/.test(value))
    return 'HTTP_PORT: must not be 0 in the settings file: 0 picks a new port at each start, and routers, payment callbacks and PUBLIC_BASE_URL need a fixed one (the default is 8080)';
  if (env === 'RADIUS_SECRET' && value !== before && value !== '' && value.length < RADIUS_SECRET_MIN_LENGTH)
    return `RADIUS_SECRET: must be at least ${String(RADIUS_SECRET_MIN_LENGTH)} characters (RFC 2865 §3), got ${String(value.length)}; leave it unset and the box uses the random 24-character one it generated`;
  return undefined;
}

/** setupProblem for every value, against the file as it was. */
function setupProblems(values: Values, existing: Values): string[] {
  return Object.entries(values).flatMap(([env, value]) => setupProblem(env, value, existing[env]) ?? []);
}

/** Asks for one setting, validated by its own parser. */
async function ask(env: string, values: Values): Promise<void> {
  const s = settingOf(env);
  if (!s) return;
  const current = values[env] ?? s.default;
  const message = `${env}: ${s.doc}`;
  const before = values[env];
  const validate = (v: string): true | string => {
    return problemWith(env, v === '' ? current : v, before) ?? true;
  };
  const { input, password } = await prompts();
  const answer = s.secret
    ? await password({
        message: current === '' ? message : `${message} (empty keeps the current one)`,
        mask: true,
        validate,
      })
    : await input({ message, default: current, validate });
  values[env] = answer === '' ? current : answer;
}

async function choose(env: string, options: readonly string[], values: Values): Promise<string> {
  const s = settingOf(env);
  const current = values[env] ?? s?.default ?? options[0] ?? '';
  const { select } = await prompts();
  const answer = await select({
    message: `${env}: ${s?.doc ?? ''}`,
    choices: options.map((o) => ({ value: o, name: o })),
    default: current,
  });
  values[env] = answer;
  return answer;
}

const withPrefix = (prefix: string): string[] =>
  settingList()
    .filter((s) => s.env.startsWith(prefix))
    .map((s) => s.env);

/** The providers in fallback order, as the values name them (PAYMENT_PROVIDERS, else PAYMENT_PROVIDER). */
const providersOf = (values: Values): string[] => {
  const order = (values.PAYMENT_PROVIDERS ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return order.length > 0 ? order : [values.PAYMENT_PROVIDER ?? 'sandbox'];
};

/**
 * The payment provider, then (for a real one) the providers to try when it refuses a prompt or
 * cannot be reached, one at a time: PAYMENT_PROVIDER is the first, PAYMENT_PROVIDERS the order
 * when there is more than one.
 */
async function choosePayments(values: Values): Promise<string[]> {
  const before = providersOf(values);
  values.PAYMENT_PROVIDER = before[0] ?? 'sandbox';
  const order: string[] = [await choose('PAYMENT_PROVIDER', PAYMENT_PROVIDERS, values)];
  for (;;) {
    const last = order[order.length - 1] ?? '';
    const rest = PAYMENT_PROVIDERS.filter((p) => p !== 'sandbox' && !order.includes(p));
    if (last === 'sandbox' || rest.length === 0) break;
    const next = await (
      await prompts()
    ).select<string>({
      message: `PAYMENT_PROVIDERS: when ${last} refuses a payment prompt or cannot be reached, try`,
      choices: [{ value: '', name: 'no other provider' }, ...rest.map((p) => ({ value: p, name: p }))],
      default: before[order.length] ?? '',
    });
    if (next === '') break;
    order.push(next);
  }
  values.PAYMENT_PROVIDERS = order.length > 1 ? order.join(',') : '';
  return order;
}

/**
 * Secret callback URLs need their tokens: AzamPay's payment callbacks when AzamPay is used, and
 * a real SMS gateway's delivery reports (docs/decisions/0047); one is made for each that has none.
 */
function ensureCallbackToken(values: Values): void {
  if (providersOf(values).includes('azampay') && !values.AZAMPAY_CALLBACK_TOKEN)
    values.AZAMPAY_CALLBACK_TOKEN = randomToken(32);
  if (smsGatewayOf(values) !== null && !values.SMS_DELIVERY_TOKEN)
    values.SMS_DELIVERY_TOKEN = randomToken(32);
}

/** The SMS gateway that sends delivery reports, or null for the outbox. */
const smsGatewayOf = (values: Values): string | null => {
  const provider = values.SMS_PROVIDER ?? '';
  return provider === '' || provider === 'outbox' ? null : provider;
};

async function interview(values: Values, note: (text: string) => void): Promise<void> {
  for (const env of BASICS) await ask(env, values);
  for (const payment of await choosePayments(values)) {
    ensureCallbackToken(values);
    for (const env of withPrefix(PAYMENT_SETTINGS[payment] ?? '\0')) await ask(env, values);
  }
  const sms = await choose('SMS_PROVIDER', SMS_PROVIDERS, values);
  for (const env of withPrefix(SMS_SETTINGS[sms] ?? '\0')) await ask(env, values);
  for (const env of MAIL) await ask(env, values);
  // What only the whole set can tell (a provider without its credentials): ask those again.
  for (;;) {
    try {
      checkValues(values, {});
      return;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const names = err.problems.map((p) => p.slice(0, p.indexOf(':')));
      if (!names.every((n) => settingOf(n))) throw err; // an unknown name in the file: not ours to ask
      for (const problem of err.problems) note(problem);
      for (const name of names) await ask(name, values);
    }
  }
}

/** The --set values; a name the settings table does not have is refused, as from --set. */
function parseAssignments(list: readonly string[]): Values {
  const out: Values = {};
  const unknown: string[] = [];
  for (const item of list) {
    const eq = item.indexOf('='); // at least 1: the option's parser refused any other
    const name = item.slice(0, eq);
    if (settingOf(name) === undefined) unknown.push(`--set ${name}: unknown setting${didYouMean(name)}`);
    out[name] = item.slice(eq + 1);
  }
  if (unknown.length > 0) throw new ConfigError(unknown);
  return out;
}

/**
 * The ports a daemon of this box holds now, under the settings it started with (the file as it
 * was, under this environment): setup may write them again, though they are taken. None when no
 * daemon holds the data directory; all of them when that cannot be told (the lock unreadable).
 */
function daemonPorts(existing: Values): DaemonPorts {
  let before;
  try {
    before = checkValues(existing, processEnv(), [], 'data');
  } catch {
    return NO_PORTS; // a file the daemon could not have started with
  }
  let running: boolean;
  try {
    running = dataDirHeld(before.dataDir);
  } catch {
    running = true;
  }
  return running
    ? { tcp: [before.httpPort, before.radsecPort], udp: [before.radiusAuthPort, before.radiusAcctPort] }
    : NO_PORTS;
}

/** Writes the file atomically; an existing file keeps its mode and owner (the daemon's group may read it). */
function writeEnvFile(file: string, text: string): void {
  const before = existsSync(file) ? statSync(file) : undefined;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o750 });
  writeSecretFile(file, text);
  if (before) {
    chmodSync(file, before.mode & 0o777);
    if (process.getuid?.() === 0) chownSync(file, before.uid, before.gid);
  }
}

export function registerSetup(program: Command): void {
  program
    .command('setup')
    .description(
      'Write the env file: ask for the main settings, or take them from --set with --non-interactive',
    )
    .option('--non-interactive', 'ask nothing: apply the --set values to the file')
    .option('--no-restart', 'with --non-interactive: leave a running hotspot-ctl service as it is')
    .option(
      '--first-run',
      'write nothing: only offer what the box lacks (owner account, first plan, first router)',
    )
    .option(
      '--set <NAME=VALUE>',
      'a setting to write (repeatable)',
      (v: string, acc: string[]) => {
        // A malformed flag is a usage error (exit 2); what NAME and VALUE say is checked later.
        if (v.indexOf('=') <= 0) throw new InvalidArgumentError('takes NAME=VALUE');
        return [...acc, v];
      },
      [] as string[],
    )
    .action(
      async (
        flags: { nonInteractive?: boolean; firstRun?: boolean; restart: boolean; set: string[] },
        cmd: Command,
      ) => {
        // Options that contradict: a usage error (exit 2), before anything is read.
        if (flags.firstRun === true && (flags.nonInteractive === true || flags.set.length > 0))
          cmd.error('error: --first-run writes no settings: it takes neither --set nor --non-interactive', {
            exitCode: 2,
          });
        const ctx = contextOf(cmd, { createsBox: true });
        const file = cmd.optsWithGlobals<GlobalOptions>().config ?? DEFAULT_CONFIG_FILE;
        const problems: string[] = [];
        const existing: Values = existsSync(file) ? readEnvFile({ env: {}, configFile: file }, problems) : {};
        if (problems.length > 0) throw new Error(problems.join('; '));
        const values: Values = { ...existing };
        Object.assign(values, parseAssignments(flags.set));
        const interactive = flags.nonInteractive !== true;
        if (interactive && !process.stdin.isTTY)
          throw new Error(
            'setup asks questions on a terminal; for scripts use --non-interactive --set NAME=VALUE',
          );
        if (flags.firstRun === true) {
          await offerFirstRunOn(ctx, file, values);
          return;
        }
        if (interactive) {
          ctx.out.note(`writing ${file}; press Enter to keep the value shown`);
          await interview(values, (text) => ctx.out.note(text));
        }
        const tokenBefore = existing.AZAMPAY_CALLBACK_TOKEN;
        const smsTokenBefore = existing.SMS_DELIVERY_TOKEN;
        ensureCallbackToken(values);
        const bad = unwritable(values);
        if (bad.length > 0)
          throw new Error(
            `${bad.join(', ')}: cannot be written to an env file (newline or both quote kinds)`,
          );
        // Every problem at once, exactly as the daemon would report it, with setup's own refusals.
        const own = setupProblems(values, existing);
        let checked;
        try {
          checked = checkValues(values, {});
        } catch (err) {
          if (err instanceof ConfigError) throw new ConfigError([...err.problems, ...own]);
          throw err;
        }
        if (own.length > 0) throw new ConfigError(own);
        // Then what the daemon checks as it starts, on what it will read: these values under this
        // environment (where a daemon started from this shell, and every command, take it from).
        const refused = await startProblems(checkValues(values, processEnv()), daemonPorts(existing));
        if (refused.length > 0) throw new ConfigError(refused);
        const text = renderEnvFile(values, 'hotspot-ctl settings, written by hotspot-ctl setup');
        const changed = !existsSync(file) || readFileSync(file, 'utf8') !== text;
        writeEnvFile(file, text);
        const base = checked.publicBaseUrl.replace(/\/+$/, ''); // as the daemon will have it (unset: on HTTP_PORT)
        const token = values.AZAMPAY_CALLBACK_TOKEN;
        if (token && token !== tokenBefore && providersOf(values).includes('azampay'))
          ctx.out.note(`register this callback URL with AzamPay: ${base}/webhooks/azampay/${token}`);
        const smsToken = values.SMS_DELIVERY_TOKEN;
        const gateway = smsGatewayOf(values);
        if (smsToken && smsToken !== smsTokenBefore && gateway !== null)
          ctx.out.note(`give ${gateway} this delivery-report URL: ${base}/sms/delivery/${smsToken}`);
        const shown = Object.fromEntries(
          settingList()
            .filter((st) => values[st.env] !== undefined && values[st.env] !== st.default)
            .map((st) => [st.env, st.secret === true ? '(secret, not shown)' : values[st.env]]),
        );
        ctx.out.result({ file, settings: shown }, () =>
          formatRecord([['written', file], ...Object.entries(shown)]),
        );
        await makeBox(ctx, file, values);
        if (interactive) await offerFirstRunOn(ctx, file, values);
        await offerRestart(ctx, { interactive, wanted: flags.restart, changed });
      },
    );
}

/**
 * The box of the data directory every command will use (the file's, unless the environment's),
 * made when it has none (docs/decisions/0051): `hotspot-ctl migrate`, as the directory's owner
 * when root runs setup on an installed box, as for the first-run offer.
 */
async function makeBox(ctx: ReturnType<typeof contextOf>, file: string, values: Values): Promise<void> {
  const { dataDir, databaseUrl } = checkValues(values, processEnv(), [], 'data');
  let present: boolean;
  try {
    present = holdsBox(dataDir, { postgres: databaseUrl !== null });
  } catch {
    present = false; // unreadable: migrate says why, naming HOTSPOT_DATA_DIR
  }
  if (present) return;
  const code = await runAs(foreignOwner(dataDir), file, ['migrate'], 'quiet');
  if (code !== 0)
    throw new Error(
      `the settings are written to ${file}, but the new box in ${dataDir} was not made (hotspot-ctl migrate: exit ${String(code)})`,
    );
  ctx.out.note(`made a new box in ${path.resolve(dataDir)}: its secrets and its database`);
}

/** The unit the package installs (systemd/hotspot-ctl.service). */
const SERVICE = 'hotspot-ctl';
const RESTART_BY_HAND = `sudo systemctl restart ${SERVICE}`;

/** systemctl's exit code (its errors shown unless `quiet`); null when there is no systemctl to run. */
function systemctl(args: readonly string[], quiet = false): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn('systemctl', args, { stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'inherit'] });
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code));
  });
}

/**
 * A daemon reads its settings when it starts. When setup changed them, runs as root, and the
 * packaged service is running under systemd, it offers to restart it (a question on a terminal;
 * with --non-interactive it restarts unless --no-restart) and says what it did; otherwise it says
 * how to.
 */
async function offerRestart(
  ctx: ReturnType<typeof contextOf>,
  { interactive, wanted, changed }: { interactive: boolean; wanted: boolean; changed: boolean },
): Promise<void> {
  if (!changed) {
    ctx.out.note('the settings are unchanged: a running daemon need not restart');
    return;
  }
  if (process.getuid?.() !== 0 || (await systemctl(['is-active', '--quiet', SERVICE], true)) !== 0) {
    ctx.out.note(`a running daemon reads these settings when it starts: restart it (${RESTART_BY_HAND})`);
    return;
  }
  const restart = interactive
    ? await (
        await prompts()
      ).confirm({
        message: `${SERVICE} is running with the settings it started with. Restart it now to use these?`,
        default: true,
      })
    : wanted;
  if (!restart) {
    ctx.out.note(
      `not restarted${interactive ? '' : ' (--no-restart)'}: ${SERVICE} runs with its old settings until ${RESTART_BY_HAND}`,
    );
    return;
  }
  const code = await systemctl(['restart', SERVICE]);
  if (code !== 0)
    throw new Error(
      `the settings are written, but systemctl restart ${SERVICE} failed (exit ${String(code)}): journalctl -u ${SERVICE} -n 50 says why`,
    );
  ctx.out.note(`restarted ${SERVICE} (systemctl restart ${SERVICE}): it runs with these settings now`);
}

/**
 * The first-run offer, run as the data directory's owner when root is not (setup-first-run.ts).
 * The directory is the one every command would use: the file's value unless the environment's.
 */
async function offerFirstRunOn(
  ctx: ReturnType<typeof contextOf>,
  file: string,
  values: Values,
): Promise<void> {
  const owner = foreignOwner(checkValues(values, processEnv(), [], 'data').dataDir);
  if (owner === null) {
    await offerFirstRun(ctx);
    return;
  }
  const code = await firstRunAs(owner, file);
  if (code !== 0)
    throw new Error(
      `the first-run questions, run as uid ${String(owner.uid)}, ended with exit ${String(code)}`,
    );
}
