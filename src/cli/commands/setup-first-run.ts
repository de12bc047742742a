import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { processEnv } from '../../config/index.js';
import { staffCandidateExists } from '../../identity/index.js';
import { parseDuration } from '../../lib/duration.js';
import { AppError } from '../../lib/errors.js';
import {
  addStaffForSites,
  cliActor,
  createPlan,
  listAllDevices,
  listAllPlans,
  listStaffWithSites,
  registerDevice,
  routerConfig,
} from '../../wifi/index.js';
import { numberToIpv4, parseIpv4Cidr } from '../../wifi/net.js';
import type { RouterConfigFormat } from '../../wifi/router-config.js';
import { withApp, type CliContext } from '../context.js';
import { prompts } from '../prompts.js';

/**
 * The end of the interactive `hotspot-ctl setup` (and `setup --first-run`): with the settings
 * written, it offers what a new box still lacks before a guest can buy, each only while the box has
 * none: the owner account, a first plan, and the first router with its ready-to-paste
 * configuration. Every answer goes through the same domain function as `staff add`, `plans add`
 * and `devices add`; a refused answer is shown and asked again, and nothing is half made.
 */

type App = Parameters<Parameters<typeof withApp>[1]>[0];

/** What a new box lacks, asked in this order. */
export async function offerFirstRun(ctx: CliContext): Promise<void> {
  await withApp(ctx, async (app) => {
    if (!(await listStaffWithSites(app.deps)).some((s) => s.role === 'owner')) await offerOwner(ctx, app);
    if ((await listAllPlans(app.deps)).length === 0) await offerPlan(ctx, app);
    if ((await listAllDevices(app.deps)).length === 0) await offerRouter(ctx, app);
  });
}

/**
 * Root runs `setup` (it writes /etc/hotspot-ctl), but the data directory of an installed box
 * belongs to the daemon's user, and root may not create files there (ensureDataDir). The offer
 * then runs as that user, on this terminal: the same command with `--first-run`.
 */
export function foreignOwner(dataDir: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0 || !existsSync(dataDir)) return null;
  const st = statSync(dataDir);
  return st.uid === 0 ? null : { uid: st.uid, gid: st.gid };
}

export function firstRunAs(owner: { uid: number; gid: number }, configFile: string): Promise<number> {
  return runAs(owner, configFile, ['setup', '--first-run'], 'inherit');
}

/**
 * This program with `--config configFile` and `args`, as `owner` (null: as this user), on this
 * terminal (`inherit`) or with only its errors shown (`quiet`); resolves with its exit code.
 */
export function runAs(
  owner: { uid: number; gid: number } | null,
  configFile: string,
  args: readonly string[],
  stdio: 'inherit' | 'quiet',
): Promise<number> {
  const script = process.argv[1] ?? '';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, script, '--config', configFile, ...args], {
      ...(owner ?? {}),
      stdio: stdio === 'inherit' ? 'inherit' : ['ignore', 'ignore', 'inherit'],
      cwd: owner === null ? process.cwd() : '/',
      env: { ...processEnv() },
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Runs `attempt` until the domain accepts it: a 4xx is shown and the questions asked again. */
async function untilAccepted<T>(ctx: CliContext, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ctx.out.note([err.message, ...(err.details ?? [])].join('\n  '));
    }
  }
}

const required = (v: string): true | string => (v.trim() === '' ? 'required' : true);

/** A free-text answer that may not be empty; `current` is shown and kept by Enter. */
const askText = async (message: string, current?: string): Promise<string> =>
  (await prompts()).input({ message, default: current === '' ? undefined : current, validate: required });

async function offerOwner(ctx: CliContext, app: App): Promise<void> {
  const { confirm, password } = await prompts();
  const wanted = await confirm({
    message: 'This box has no owner yet. Create the owner account now (it signs in to /admin)?',
    default: true,
  });
  if (!wanted) {
    ctx.out.note('later: hotspot-ctl staff add --email you@venue.example --role owner');
    return;
  }
  let email = '';
  const result = await untilAccepted(ctx, async () => {
    email = (await askText('Owner email:', email)).trim();
    if (await staffCandidateExists(app.deps, email)) {
      ctx.out.note(`${email} has an account already: it becomes the owner, with its own password`);
      return addStaffForSites(app.deps, { email, role: 'owner', sites: [] });
    }
    const first = await password({ message: 'Password:', mask: '*', validate: required });
    await password({
      message: 'The same password again:',
      mask: '*',
      validate: (v) => (v === first ? true : 'not the same password'),
    });
    return addStaffForSites(app.deps, { email, role: 'owner', password: first, sites: [] });
  });
  ctx.out.note(`${result.created ? 'created account and ' : ''}set ${email} as owner`);
}

async function offerPlan(ctx: CliContext, app: App): Promise<void> {
  const { confirm, input } = await prompts();
  if (!(await confirm({ message: 'No plan is on sale yet. Create a first plan now?', default: true }))) {
    ctx.out.note('later: hotspot-ctl plans add --name "1 hour" --price 1000 --duration 1h');
    return;
  }
  const answers = { name: '1 hour', price: '1000', duration: '1h' };
  const plan = await untilAccepted(ctx, async () => {
    answers.name = await askText('Plan name shown to guests:', answers.name);
    answers.price = await input({
      message: 'Price in TZS:',
      default: answers.price,
      validate: (v) => (/^\d{1,9}$/.test(v.trim()) ? true : 'a whole number of shillings'),
    });
    answers.duration = await input({
      message: 'Access time from payment (30m, 1h, 1d, 7d):',
      default: answers.duration,
      validate: (v) => (durationOf(v) === null ? 'seconds, or a duration like 30m, 1h, 1d, 7d' : true),
    });
    return createPlan(
      app.deps,
      {
        name: answers.name,
        price_tzs: Number(answers.price.trim()),
        duration_seconds: durationOf(answers.duration),
      },
      null,
      cliActor(),
    );
  });
  ctx.out.note(`plan ${plan.id}: ${plan.name}, ${String(plan.price_tzs)} TZS, on sale`);
}

function durationOf(text: string): number | null {
  try {
    return parseDuration(text.trim());
  } catch {
    return null;
  }
}

/** The router kinds the configuration printer knows, with a model name that picks its vendor. */
const ROUTER_KINDS: readonly { name: string; model: string; format: RouterConfigFormat }[] = [
  { name: 'MikroTik (RouterOS hotspot)', model: 'MikroTik hAP ax2', format: 'routeros' },
  { name: 'OpenWrt with CoovaChilli', model: 'CoovaChilli on OpenWrt', format: 'openwrt' },
  { name: 'CoovaChilli on another system', model: 'CoovaChilli', format: 'coovachilli' },
];

/** The network's first host address: the usual address of the router on its guest network. */
function firstHostOf(network: string): string | undefined {
  const parsed = parseIpv4Cidr(network);
  return parsed && parsed.prefix < 31 ? numberToIpv4(parsed.base + 1) : undefined;
}

const nasIdOf = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32) || 'router-1';

async function offerRouter(ctx: CliContext, app: App): Promise<void> {
  const { confirm, select } = await prompts();
  if (
    !(await confirm({
      message: 'No router is registered yet. Register the first router now?',
      default: true,
    }))
  ) {
    ctx.out.note('later: hotspot-ctl devices add … (README: "Register a router")');
    return;
  }
  const portal = `${app.deps.config.publicBaseUrl.replace(/\/+$/, '')}/portal`;
  const a = {
    kind: 0,
    name: 'Main router',
    model: '',
    mac: '',
    network: '10.1.0.0/24',
    clientIp: '',
    nasId: '',
    uam: portal,
  };
  const { device, radiusSecret } = await untilAccepted(ctx, async () => {
    a.kind = await select({
      message: 'What kind of router?',
      choices: ROUTER_KINDS.map((k, i) => ({ value: i, name: k.name })),
      default: a.kind,
    });
    const kind = ROUTER_KINDS[a.kind] ?? ROUTER_KINDS[0];
    a.name = await askText('A name for staff:', a.name);
    a.model = await askText('Make and model:', a.model || kind?.model);
    a.mac = await askText('Its MAC address (AA:BB:CC:DD:EE:FF):', a.mac);
    a.network = await askText('The guest network behind it:', a.network);
    a.clientIp = await askText(
      'Its address as this box reaches it (for disconnects):',
      a.clientIp || firstHostOf(a.network),
    );
    a.nasId = await askText('The NAS-Identifier it sends in RADIUS requests:', a.nasId || nasIdOf(a.name));
    a.uam = await askText('The captive portal URL it sends guests to:', a.uam);
    return registerDevice(
      app.deps,
      {
        name: a.name,
        model: a.model,
        mac_address: a.mac,
        local_network: a.network,
        uam_server: a.uam,
        radius_nas_id: a.nasId,
        radius_client_ip: a.clientIp,
      },
      null,
      cliActor(),
    );
  });
  ctx.out.note(`router ${device.id}: ${device.name}`);
  if (radiusSecret !== null)
    ctx.out.note(`RADIUS secret (shown once, enter it on the router): ${radiusSecret}`);
  const format = ROUTER_KINDS[a.kind]?.format ?? 'routeros';
  try {
    const { text } = await routerConfig(app.deps, device.id, { format });
    ctx.out.note(
      `\nIts configuration (again later: hotspot-ctl devices router-config ${device.id} --format ${format}):\n`,
    );
    ctx.out.note(text);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.out.note(`no configuration to print: ${err.message}`);
  }
}
