import { dataOf, ok } from './api.js';
import { archiveActions, archivedPill, archiveFilter, withStatus } from './admin-archive.js';
import { $, clearErrors, go, show } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import {
  adminApi,
  askConfirm,
  badge,
  can,
  chooseSite,
  element,
  failure,
  loadTable,
  numberOrText,
  siteChoice,
  siteColumn,
  stacked,
  status,
  time,
} from './admin-shell.js';

/**
 * /admin/devices: the routers (GET /api/v1/admin/devices) with whether each is online and when
 * it was last heard; admins register one (POST: the answer carries the generated RADIUS secret,
 * shown here once), change one (PATCH), give it a new secret (POST …/rotate-secret, shown once
 * too) or download its set-up file (GET …/router-config, which holds the secret). The secret
 * lives only in the page until the person says it is copied, or in the file; it is never stored.
 */

interface Device {
  id: string;
  name: string;
  model: string;
  mac_address: string;
  local_network: string;
  uam_server: string;
  radius_nas_id: string;
  radius_client_ip: string;
  coa_port: number;
  uam_auth: 'chap' | 'pap';
  has_uam_secret: boolean;
  require_message_authenticator: boolean;
  radius_secret_source: 'own' | 'global';
  last_seen_at: string | null;
  online: boolean;
  /** Issue 21: its open sessions, and since when it has been down with guests on it. */
  live_sessions: number;
  archived_at: string | null;
  down_since: string | null;
  gateway_ip: string | null;
  site_id: string;
}

/** Which field each of the API's device messages is about (src/wifi/errors.ts). */
const FIELDS = {
  'name must': 'device-name',
  'model must': 'device-model',
  mac_address: 'device-mac',
  // Before local_network: its message names local_network too.
  gateway_ip: 'device-gateway',
  local_network: 'device-network',
  uam_server: 'device-uam-server',
  radius_nas_id: 'device-nas-id',
  radius_client_ip: 'device-client-ip',
  coa_port: 'device-coa-port',
  'uam secret': 'device-uam-secret',
  uam_auth: 'device-uam-auth',
  require_message_authenticator: 'device-message-auth',
};

const TEXT_FIELDS = [
  ['device-name', 'name'],
  ['device-model', 'model'],
  ['device-mac', 'mac_address'],
  ['device-network', 'local_network'],
  ['device-uam-server', 'uam_server'],
  ['device-nas-id', 'radius_nas_id'],
  ['device-client-ip', 'radius_client_ip'],
] as const;

/** Which field each of the router-config messages is about. */
const SETUP_FIELDS = { format: 'setup-format', radius_address: 'setup-address' };

const input = (id: string): HTMLInputElement => $(id, HTMLInputElement);
let editing: Device | null = null;
const chosenStatus = archiveFilter('devices', () => load());

/**
 * A pill that says Online or Offline (not by colour alone), then when the router was last heard;
 * Down, and since when, for a router the router-down job reported (docs/decisions/0038).
 */
function health(d: Device): Node[] {
  const box = document.createElement('span');
  if (d.down_since !== null) {
    box.append(
      badge('down', t('devices.down')),
      element('span', t('devices.offlineSince', { time: time(d.down_since) }), 'heard'),
    );
    return [box];
  }
  box.append(
    badge(d.online ? 'online' : 'offline', t(d.online ? 'devices.online' : 'devices.offline')),
    element(
      'span',
      d.last_seen_at === null ? t('devices.never') : t('devices.lastHeard', { time: time(d.last_seen_at) }),
      'heard',
    ),
  );
  return [box];
}

/** The router's open sessions, linking to the sessions list of that router. */
function liveSessions(d: Device): Node[] {
  const link = element('a', String(d.live_sessions));
  link.href = `/admin/sessions?router=${encodeURIComponent(d.id)}`;
  link.setAttribute('aria-label', t('devices.liveSessionsAria', { name: d.name, n: d.live_sessions }));
  return [link];
}

const load = (): Promise<Device[] | null> =>
  loadTable<Device>(
    'devices',
    withStatus('/devices', chosenStatus()),
    [
      // The model under the name, the disconnect address under the network: the table fits 1440 px.
      {
        head: 'device.name',
        cell: (d) => stacked([document.createTextNode(d.name), ...archivedPill(d)], d.model),
        words: true,
      },
      { head: 'devices.status', cell: health, nowrap: true },
      { head: 'devices.liveSessions', cell: liveSessions },
      { head: 'device.mac', cell: (d) => d.mac_address, nowrap: true },
      { head: 'device.nasId', cell: (d) => d.radius_nas_id },
      {
        head: 'device.network',
        cell: (d) =>
          stacked(
            d.local_network,
            t('devices.disconnectsTo', { address: `${d.radius_client_ip}:${String(d.coa_port)}` }),
          ),
        nowrap: true,
      },
      {
        head: 'device.uamAuth',
        cell: (d) =>
          [d.uam_auth.toUpperCase(), d.has_uam_secret ? t('device.hasUamSecret') : '']
            .filter(Boolean)
            .join(', '),
      },
      ...siteColumn<Device>(),
    ],
    can.devices
      ? (d) => [
          {
            label: t('common.edit'),
            aria: `${t('common.edit')}: ${d.name}`,
            run: () => {
              edit(d);
              return Promise.resolve();
            },
          },
          {
            label: t('devices.rotate'),
            aria: t('devices.rotateAria', { name: d.name }),
            danger: true,
            run: () => rotate(d),
          },
          {
            label: t('setup.action'),
            aria: t('setup.aria', { name: d.name }),
            run: () => {
              openSetup(d);
              return Promise.resolve();
            },
          },
          ...archiveActions(
            {
              kind: 'devices',
              statusId: 'devices-status',
              reload: load,
              liveSessions: (r) => r.live_sessions,
            },
            d,
          ),
        ]
      : undefined,
  );

/** The one showing of a secret; "I have copied it" wipes it from the page. */
function showSecret(name: string, secret: string): void {
  $('secret-intro').textContent = t('secret.body', { name });
  $('secret-value').textContent = secret;
  show($('secret-copied'), false);
  const box = $('secret-box');
  show(box);
  box.focus();
}

function hideSecret(): void {
  $('secret-value').textContent = '';
  show($('secret-box'), false);
}

async function rotate(device: Device): Promise<void> {
  if (!(await askConfirm(t('devices.rotateQuestion', { name: device.name }), t('devices.rotateConfirm'))))
    return;
  status('devices-status', null);
  const result = await adminApi('POST', `/devices/${encodeURIComponent(device.id)}/rotate-secret`);
  if (!ok(result)) {
    status('devices-status', failure(result));
    return;
  }
  const answer = dataOf(result) as Device & { radius_secret: string };
  showSecret(answer.name, answer.radius_secret);
}

function edit(device: Device): void {
  editing = device;
  const form = $('device-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  $('device-form-heading').textContent = t('devices.editing', { name: device.name });
  $('device-form-submit').textContent = t('devices.save');
  show($('device-cancel'));
  for (const [id, key] of TEXT_FIELDS) input(id).value = device[key];
  input('device-coa-port').value = String(device.coa_port);
  input('device-gateway').value = device.gateway_ip ?? '';
  $('device-uam-auth', HTMLSelectElement).value = device.uam_auth;
  input('device-message-auth').checked = device.require_message_authenticator;
  chooseSite('device-site', device.site_id);
  $('device-uam-secret-hint').textContent = device.has_uam_secret
    ? t('device.uamSecretKeep')
    : t('device.uamSecretHint');
  show($('device-uam-clear-row'), device.has_uam_secret);
  input('device-name').focus();
}

let setupFor: Device | null = null;

function openSetup(device: Device): void {
  setupFor = device;
  const form = $('setup-form', HTMLFormElement);
  clearErrors(form);
  $('setup-heading').textContent = t('setup.heading', { name: device.name });
  $('setup', HTMLDialogElement).showModal();
  $('setup-format').focus();
}

/** The file as the browser saves a download: from memory (a blob URL), under the server's name. */
function save(blob: Blob, file: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 10_000);
}

/**
 * GET …/router-config as a download. Fetched rather than linked so that a refusal (RADIUS off,
 * a bad address) is shown here in the API's words instead of being saved as the file.
 */
async function downloadSetup(form: HTMLFormElement, device: Device): Promise<void> {
  const query = new URLSearchParams({ format: $('setup-format', HTMLSelectElement).value });
  const address = input('setup-address').value.trim();
  if (address !== '') query.set('radius_address', address);
  const path = `/api/v1/admin/devices/${encodeURIComponent(device.id)}/router-config?${query.toString()}`;
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin' });
  } catch {
    apiError(form, { status: 0, body: null, headers: new Headers() });
    return;
  }
  if (res.status === 401) {
    go(`/admin/login?next=${encodeURIComponent(location.pathname)}`);
    return;
  }
  if (!res.ok) {
    const body: unknown = await res.json().catch(() => null);
    apiError(form, { status: res.status, body, headers: res.headers }, SETUP_FIELDS);
    return;
  }
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const file = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'hotspot-ctl-setup.txt';
  const text = await res.text();
  save(new Blob([text], { type: 'text/plain' }), file);
  $('setup', HTMLDialogElement).close();
  setupFor = null;
  const said = t(device.radius_secret_source === 'own' ? 'setup.downloaded' : 'setup.downloadedGlobal', {
    name: device.name,
    file,
  });
  // A value the box does not know (its address, a shared secret) is a placeholder in the file.
  status('devices-status', text.includes('REPLACE_WITH_') ? `${said} ${t('setup.placeholders')}` : said);
}

function registerMode(): void {
  editing = null;
  const form = $('device-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  $('device-form-heading').textContent = t('devices.new');
  $('device-form-submit').textContent = t('devices.register');
  $('device-uam-secret-hint').textContent = t('device.uamSecretHint');
  show($('device-uam-clear-row'), false);
  show($('device-cancel'), false);
}

if (can.devices) {
  onSubmit('device-form', async (form) => {
    const body: Record<string, unknown> = {};
    for (const [id, key] of TEXT_FIELDS) {
      const text = requiredValue(id);
      if (text === null) return;
      body[key] = text;
    }
    body.coa_port = numberOrText(input('device-coa-port').value);
    const gateway = input('device-gateway').value.trim();
    body.gateway_ip = gateway === '' ? null : gateway;
    body.uam_auth = $('device-uam-auth', HTMLSelectElement).value;
    body.require_message_authenticator = input('device-message-auth').checked;
    const uamSecret = input('device-uam-secret').value;
    if (uamSecret !== '') body.uam_secret = uamSecret;
    else if (editing && input('device-uam-clear').checked) body.uam_secret = null;
    const site = siteChoice('device-site');
    if (site !== undefined) body.site_id = site;

    const device = editing;
    const result = device
      ? await adminApi('PATCH', `/devices/${encodeURIComponent(device.id)}`, body)
      : await adminApi('POST', '/devices', body);
    if (!ok(result)) {
      apiError(form, result, FIELDS);
      return;
    }
    const saved = dataOf(result) as Device & { radius_secret?: string };
    registerMode();
    status('devices-status', null);
    await load();
    if (saved.radius_secret !== undefined) showSecret(saved.name, saved.radius_secret);
    else status('devices-status', t('devices.updated', { name: saved.name }));
  });
  $('device-cancel').addEventListener('click', () => {
    registerMode();
    input('device-name').focus();
  });
  onSubmit('setup-form', async (form) => {
    if (setupFor) await downloadSetup(form, setupFor);
  });
  $('setup-cancel').addEventListener('click', () => {
    $('setup', HTMLDialogElement).close();
  });
  $('secret-done').addEventListener('click', () => {
    hideSecret();
    $('devices').focus();
  });
  // The clipboard API exists only in secure contexts (https or localhost); the code stays selectable.
  const clipboard = typeof navigator.clipboard === 'undefined' ? null : navigator.clipboard;
  if (clipboard) {
    const copy = $('secret-copy');
    show(copy);
    copy.addEventListener('click', () => {
      void clipboard.writeText($('secret-value').textContent).then(
        () => show($('secret-copied')),
        () => undefined,
      );
    });
  }
}

void load();
