import { dataOf, ok } from './api.js';
import { $, clearErrors, show } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import { adminApi, askConfirm, can, failure, loadTable, numberOrText, status } from './admin-shell.js';

/**
 * /admin/devices: the routers (GET /api/v1/admin/devices); admins register one (POST: the answer
 * carries the generated RADIUS secret, shown here once), change one (PATCH) or give it a new
 * secret (POST …/rotate-secret, shown once too). The secret lives only in the page until the
 * person says it is copied; it is never stored.
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
}

/** Which field each of the API's device messages is about (src/wifi/errors.ts). */
const FIELDS = {
  'name must': 'device-name',
  'model must': 'device-model',
  mac_address: 'device-mac',
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

const input = (id: string): HTMLInputElement => $(id, HTMLInputElement);
let editing: Device | null = null;

const load = (): Promise<Device[] | null> =>
  loadTable<Device>(
    'devices',
    '/devices',
    [
      { head: 'device.name', cell: (d) => d.name },
      { head: 'device.model', cell: (d) => d.model },
      { head: 'device.mac', cell: (d) => d.mac_address },
      { head: 'device.network', cell: (d) => d.local_network },
      { head: 'device.nasId', cell: (d) => d.radius_nas_id },
      { head: 'device.clientIp', cell: (d) => `${d.radius_client_ip}:${String(d.coa_port)}` },
      {
        head: 'device.uamAuth',
        cell: (d) =>
          [d.uam_auth.toUpperCase(), d.has_uam_secret ? t('device.hasUamSecret') : '']
            .filter(Boolean)
            .join(', '),
      },
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
  $('device-uam-auth', HTMLSelectElement).value = device.uam_auth;
  input('device-message-auth').checked = device.require_message_authenticator;
  $('device-uam-secret-hint').textContent = device.has_uam_secret
    ? t('device.uamSecretKeep')
    : t('device.uamSecretHint');
  show($('device-uam-clear-row'), device.has_uam_secret);
  input('device-name').focus();
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
    body.uam_auth = $('device-uam-auth', HTMLSelectElement).value;
    body.require_message_authenticator = input('device-message-auth').checked;
    const uamSecret = input('device-uam-secret').value;
    if (uamSecret !== '') body.uam_secret = uamSecret;
    else if (editing && input('device-uam-clear').checked) body.uam_secret = null;

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
