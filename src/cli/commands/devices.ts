import { Option, type Command } from 'commander';
import path from 'node:path';
import { radsecDir } from '../../config/index.js';
import { ensureRadsecCa, issueClientCertificate, RadsecCertError } from '../../radius/radsec-certs.js';
import {
  getDevice,
  listAllDevices,
  pinRadsecCertificate,
  presentDevice,
  radiusSecretSource,
  registerDevice,
  rotateDeviceSecret,
  routerConfig,
  ROUTER_CONFIG_FORMATS,
  updateDevice,
  type DeviceRequest,
  type DeviceView,
  type DeviceWithSecret,
  cliActor,
  downSince,
} from '../../wifi/index.js';
import { contextOf, withApp } from '../context.js';
import { archivedColumn, archivedFilter, archivedOptions, registerDeviceArchive } from './archive.js';
import { siteColumn, siteIdOf, siteOption } from '../sites.js';
import { parseWholeNumber } from '../option-parsers.js';
import { formatRecord, formatTable, type Column } from '../output.js';

const COLUMNS: readonly Column<DeviceView>[] = [
  ['id', (d) => d.id],
  ['name', (d) => d.name],
  ['nas_id', (d) => d.radius_nas_id],
  ['mac', (d) => d.mac_address],
  ['network', (d) => d.local_network],
  ['client_ip', (d) => d.radius_client_ip],
  ['coa_port', (d) => d.coa_port],
  ['secret', (d) => radiusSecretSource(d)],
  ['uam', (d) => d.uam_auth],
  ['msg_auth', (d) => (d.require_message_authenticator === 1 ? 'required' : 'legacy')],
  // As the routers page and GET /metrics: a router with an outage reported reads down, not yes.
  ['online', (d) => (downSince(d) !== null ? 'down' : d.online ? 'yes' : 'no')],
  ['last_seen', (d) => d.last_seen_at ?? 'never'],
  // As the routers page: the open sessions, and Down since when the router-down job said so.
  ['live', (d) => d.live_sessions ?? 0],
  ['down_since', (d) => downSince(d)],
];

interface DeviceFlags {
  name?: string;
  model?: string;
  mac?: string;
  network?: string;
  uamServer?: string;
  nasId?: string;
  clientIp?: string;
  coaPort?: number;
  secret?: string;
  globalSecret?: boolean;
  /** false: --no-uam-secret (commander's default for the pair is true: "not given"). */
  uamSecret?: string | boolean;
  uamAuth?: string;
  /** false: --no-gateway-ip. */
  gatewayIp?: string | boolean;
  legacyNoMessageAuthenticator?: boolean;
  requireMessageAuthenticator?: boolean;
  tunnelAddress?: string;
  tunnelPublicKey?: string;
  /** false: --no-tunnel (the router is on the LAN again). */
  tunnel?: boolean;
  site?: string;
}

/** Flags → the Device request the admin API takes, so both surfaces share validation and messages. */
function deviceRequest(flags: DeviceFlags): DeviceRequest {
  return {
    name: flags.name,
    model: flags.model,
    mac_address: flags.mac,
    local_network: flags.network,
    uam_server: flags.uamServer,
    radius_nas_id: flags.nasId,
    radius_client_ip: flags.clientIp,
    coa_port: flags.coaPort,
    radius_secret: flags.globalSecret ? null : flags.secret,
    uam_secret:
      typeof flags.uamSecret === 'string' ? flags.uamSecret : flags.uamSecret === false ? null : undefined,
    uam_auth: flags.uamAuth,
    gateway_ip:
      typeof flags.gatewayIp === 'string' ? flags.gatewayIp : flags.gatewayIp === false ? null : undefined,
    require_message_authenticator: flags.legacyNoMessageAuthenticator
      ? false
      : flags.requireMessageAuthenticator,
    tunnel_address: flags.tunnel === false ? null : flags.tunnelAddress,
    tunnel_public_key: flags.tunnel === false ? null : flags.tunnelPublicKey,
  };
}

const showDevice = (device: DeviceView): string => formatRecord(Object.entries(presentDevice(device)));

/**
 * `add` and `rotate-secret` show the device's own RADIUS secret once, in both outputs; it is never
 * logged. A device on RADIUS_SECRET has none to show, and the global secret is not printed here.
 */
function printWithSecret(
  ctx: ReturnType<typeof contextOf>,
  { device, radiusSecret }: DeviceWithSecret,
): void {
  if (radiusSecret === null) {
    ctx.out.result(
      presentDevice(device),
      () =>
        `${showDevice(device)}\nRADIUS secret: RADIUS_SECRET (the global secret; enter it on the router)\n`,
    );
    return;
  }
  ctx.out.result(
    { ...presentDevice(device), radius_secret: radiusSecret },
    () => `${showDevice(device)}\nRADIUS secret (shown once, enter it on the router): ${radiusSecret}\n`,
  );
}

const globalSecretOption = (what: string) => new Option('--global-secret', what).conflicts('secret');

/** The settings `add` and `update` share, all optional here. */
function settingOptions(cmd: Command): Command {
  return cmd
    .option('--coa-port <port>', 'UDP port for CoA/Disconnect (default 3799)', parseWholeNumber)
    .option('--uam-secret <secret>', 'CoovaChilli uamsecret of this router (else UAM_SECRET)')
    .option('--uam-auth <mode>', 'uam-login password encoding: chap (default) or pap')
    .option(
      '--gateway-ip <ip>',
      "the router's own address on the guest network, where logins are handed (default: its first address)",
    )
    .option('--legacy-no-message-authenticator', 'accept Access-Requests without Message-Authenticator')
    .option(
      '--tunnel-address <ip>',
      'remote over WireGuard: its address in the tunnel (router-config then prints the tunnel)',
    )
    .option('--tunnel-public-key <key>', 'the WireGuard public key the router generated')
    .option('--site <site>', 'the site it serves (slug or id); default: the default site');
}

export function registerDevices(program: Command): void {
  const devices = program.command('devices').description('Routers / access points that use this box');

  siteOption(
    archivedOptions(
      devices.command('list').description('List registered devices, not archived (never their secrets)'),
    ),
    'only the devices of this site (slug or id)',
  ).action(async (flags: { site?: string; archived?: boolean; all?: boolean }, cmd: Command) => {
    const ctx = contextOf(cmd);
    const { rows, site } = await withApp(ctx, async (app) => ({
      rows: await listAllDevices(app.deps, await siteIdOf(app, flags.site), archivedFilter(flags)),
      site: await siteColumn<DeviceView>(app),
    }));
    ctx.out.result(rows.map(presentDevice), () =>
      rows.length === 0
        ? 'no devices yet\n'
        : formatTable(rows, [...COLUMNS, ...archivedColumn<DeviceView>(flags), ...site]),
    );
  });

  settingOptions(
    devices
      .command('add')
      .description('Register a device and print its RADIUS secret once')
      .requiredOption('--name <name>', 'a name for staff')
      .requiredOption('--model <model>', 'make and model, e.g. "MikroTik hAP ax2"')
      .requiredOption('--mac <mac>', 'MAC address, AA:BB:CC:DD:EE:FF')
      .requiredOption('--network <cidr>', 'the guest network behind it, e.g. 10.1.0.0/24')
      .requiredOption('--uam-server <url>', 'captive portal URL configured on the router')
      .requiredOption('--nas-id <id>', 'NAS-Identifier the router sends in RADIUS requests')
      .requiredOption('--client-ip <ip>', 'address CoA/Disconnect requests are sent to')
      .option('--secret <secret>', 'RADIUS shared secret to use (default: generate one)')
      .addOption(globalSecretOption('no secret of its own: the router uses RADIUS_SECRET')),
  ).action(async (flags: DeviceFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    printWithSecret(
      ctx,
      await withApp(ctx, async (app) =>
        registerDevice(
          app.deps,
          { ...deviceRequest(flags), site_id: await siteIdOf(app, flags.site) },
          null,
          cliActor(),
        ),
      ),
    );
  });

  settingOptions(
    devices
      .command('update')
      .description('Change the given settings of a device; the others stay')
      .argument('<id>', 'device id')
      .option('--name <name>', 'a name for staff')
      .option('--model <model>', 'make and model')
      .option('--mac <mac>', 'MAC address')
      .option('--network <cidr>', 'the guest network behind it')
      .option('--uam-server <url>', 'captive portal URL configured on the router')
      .option('--nas-id <id>', 'NAS-Identifier the router sends')
      .option('--client-ip <ip>', 'address CoA/Disconnect requests are sent to')
      .option('--no-uam-secret', 'remove the device uam secret (UAM_SECRET applies)')
      .option('--no-gateway-ip', "back to the network's first address as the router's own")
      .addOption(
        new Option('--no-tunnel', 'not remote over WireGuard any more').conflicts([
          'tunnelAddress',
          'tunnelPublicKey',
        ]),
      )
      .addOption(
        globalSecretOption(
          'drop its own RADIUS secret: RADIUS_SECRET applies (rotate-secret gives it one again)',
        ),
      )
      .addOption(
        new Option('--require-message-authenticator', 'require Message-Authenticator again').conflicts(
          'legacyNoMessageAuthenticator',
        ),
      ),
  ).action(async (id: string, flags: DeviceFlags, cmd: Command) => {
    const ctx = contextOf(cmd);
    const device = await withApp(ctx, async (app) =>
      updateDevice(
        app.deps,
        id,
        { ...deviceRequest(flags), site_id: await siteIdOf(app, flags.site) },
        null,
        cliActor(),
      ),
    );
    ctx.out.result(presentDevice(device), () => showDevice(device));
  });

  devices
    .command('rotate-secret')
    .description('Give a device a new RADIUS secret of its own and print it once')
    .argument('<id>', 'device id')
    .option('--secret <secret>', 'the new secret (default: generate one)')
    .action(async (id: string, flags: { secret?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      printWithSecret(
        ctx,
        await withApp(ctx, (app) => rotateDeviceSecret(app.deps, id, flags.secret, null, cliActor())),
      );
    });

  devices
    .command('radsec-cert')
    .description("Issue a router's RadSec client certificate (and the box's CA on first use)")
    .argument('<id>', 'device id')
    .requiredOption(
      '--out <dir>',
      'where to write the certificate, its key (mode 0600) and the CA certificate',
    )
    .option(
      '--server-name <name...>',
      "first use only: the addresses or DNS names routers reach this box by (its certificate's names)",
    )
    .action(async (id: string, flags: { out: string; serverName?: string[] }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const result = await withApp(ctx, (app) => issueRadsecCert(app, id, flags));
      ctx.out.result(result, () =>
        [
          `RadSec certificate for ${result.nas_id} (valid until ${result.not_after}):`,
          `  certificate: ${result.cert_file}`,
          `  private key: ${result.key_file}  (copy it to the router, then delete it here)`,
          `  CA:          ${result.ca_file}`,
          `A certificate issued to this router before no longer connects (pinned: ${result.fingerprint}).`,
          '',
        ].join('\n'),
      );
    });

  devices
    .command('router-config')
    .description('Print a ready-to-paste configuration for a router (its own secret included)')
    .argument('<id>', 'device id')
    .addOption(
      new Option('--format <format>', 'the router software')
        .choices(ROUTER_CONFIG_FORMATS)
        .default('routeros'),
    )
    .option(
      '--radius-address <ip>',
      "this box's IPv4 address as the router reaches it (default: RADIUS_HOST, else the portal's host)",
    )
    .action(async (id: string, flags: { format: string; radiusAddress?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { text, fileName } = await withApp(ctx, (app) =>
        routerConfig(app.deps, id, { format: flags.format, radiusAddress: flags.radiusAddress }),
      );
      ctx.out.result({ format: flags.format, file_name: fileName, config: text }, () => text);
    });

  registerDeviceArchive(devices);
}

/**
 * `devices radsec-cert` (docs/decisions/0025): the box's own CA under <data dir>/radsec (created
 * on first use, with this box's server certificate), a client certificate with the router's NAS
 * id as CN, and the device pinned to it. A box set up with its own CA (RADSEC_CA_FILE) issues
 * router certificates with that CA instead.
 */
async function issueRadsecCert(
  app: Parameters<Parameters<typeof withApp>[1]>[0],
  id: string,
  flags: { out: string; serverName?: string[] },
) {
  const { config } = app.deps;
  const dir = radsecDir(config.dataDir);
  if (path.resolve(config.radsecCaFile) !== path.resolve(dir, 'ca.pem'))
    throw new RadsecCertError(
      'RADSEC_CA_FILE names your own CA: issue router certificates with it (subject CN = the NAS id)',
    );
  const device = await getDevice(app.deps, id);
  const files = await ensureRadsecCa(dir, flags.serverName ?? serverNamesOf(config));
  const issued = await issueClientCertificate(files, device.radius_nas_id, flags.out);
  await pinRadsecCertificate(app.deps, device.id, issued.fingerprint);
  return {
    device_id: device.id,
    nas_id: device.radius_nas_id,
    cert_file: issued.certFile,
    key_file: issued.keyFile,
    ca_file: issued.caFile,
    fingerprint: issued.fingerprint,
    not_after: issued.notAfter,
  };
}

/** The names routers may reach this box by, as far as the settings tell. */
function serverNamesOf(config: ReturnType<ReturnType<typeof contextOf>['config']>): string[] {
  const names = [
    config.radiusHost === '0.0.0.0' || config.radiusHost === '::' ? null : config.radiusHost,
    new URL(config.publicBaseUrl).hostname,
    config.wireguardAddress?.split('/')[0] ?? null,
  ];
  return [...new Set(names.filter((n): n is string => n !== null && n !== ''))];
}
