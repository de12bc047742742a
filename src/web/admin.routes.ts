import type { CoreDeps } from '../deps.js';
import { freeWifiWarning } from '../payments/index.js';
import { defineRoute, type Route, type RouteContext, type RouteResult } from '../http/route.js';
import { readCookie } from '../http/cookies.js';
import type { HttpRequest } from '../http/types.js';
import { ADMIN_COOKIE, ONLINE_WITHIN_INTERVALS, type StaffPrincipal } from '../wifi/index.js';
import { checkbox, choice, numberField, textArea, unitField } from './admin-fields.js';
import {
  a,
  adminNext,
  adminPage,
  capabilities,
  confirmDialog,
  formToken,
  optionalStaff,
  sectionHead,
  siteContext,
  statusBox,
  statusLine,
  tableSlot,
  toAdminLogin,
  type AdminPage,
  type SiteContext,
} from './admin-page.js';
import { auditMain, counterMain } from './admin-counter.js';
import { voucherPrintRoute, vouchersMain } from './admin-vouchers.js';
import { siteField, sitesMain } from './admin-sites.js';
import { reportsMain } from './admin-reports.js';
import type { Assets } from './assets.js';
import { field, submitRow } from './forms.js';
import { html, type Html } from './html.js';
import { renderPage } from './layout.js';
import { here, seeOther } from './pages.js';
import { adminEn, type AdminKey } from './strings/admin.en.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'vault'>;

/**
 * The staff admin UI (docs/decisions/0030-web-pages.md): /admin/login, the overview at /admin
 * and one page per section. Every page but the sign-in needs a staff session and otherwise
 * answers 303 to /admin/login?next=<itself>. The pages call the staff admin API
 * (/api/v1/admin/...) from their scripts; the server renders only what the role may use.
 */
export function adminPageRoutes(deps: Deps, assets: Assets): Route[] {
  const staff = optionalStaff(deps);
  const get = (
    path: string,
    handler: (ctx: RouteContext<undefined, StaffPrincipal | null>) => RouteResult | Promise<RouteResult>,
  ): Route => defineRoute({ method: 'GET', path, api: 'identity', auth: staff, handler });
  /** A page that needs a staff session; it knows the staff member's sites and the one chosen. */
  const section = (
    path: string,
    render: (
      can: ReturnType<typeof capabilities>,
      sites: SiteContext,
      req: HttpRequest,
    ) => Omit<AdminPage, 'principal' | 'sites'>,
  ): Route =>
    get(path, async ({ principal, req, query }) => {
      if (!principal) return toAdminLogin(here(req));
      const sites = await siteContext(deps, principal, query.site);
      return adminPage(deps, assets, { ...render(capabilities(principal), sites, req), principal, sites });
    });

  return [
    get('/admin/login', ({ principal, query }) => {
      const next = adminNext(query.next);
      if (principal) return seeOther(next);
      return renderPage(assets, {
        lang: 'en',
        title: `${a('login.title')} · ${a('brand.admin')}`,
        serviceName: deps.config.serviceName,
        script: 'admin-login.js',
        data: { strings: adminEn, next },
        main: loginMain(),
      });
    }),
    section('/admin', () => ({
      section: 'overview',
      title: 'overview.title',
      script: 'admin-overview.js',
      main: overviewMain(freeWifiWarning(deps.config) !== undefined),
    })),
    section('/admin/counter', (can) => ({
      section: 'counter',
      title: 'counter.title',
      script: 'admin-counter.js',
      main: counterMain(can),
    })),
    section('/admin/vouchers', (can, _sites, req) => ({
      section: 'vouchers',
      title: 'vouchers.title',
      script: 'admin-vouchers.js',
      // A signed-in page has the session cookie: its print forms carry the token made from it.
      main: vouchersMain(can, formToken(deps, readCookie(req, ADMIN_COOKIE) ?? '')),
    })),
    voucherPrintRoute(deps),
    section('/admin/audit', () => ({
      section: 'audit',
      title: 'audit.title',
      script: 'admin-audit.js',
      main: auditMain(),
    })),
    section('/admin/plans', (can, sites) => ({
      section: 'plans',
      title: 'plans.title',
      script: 'admin-plans.js',
      main: html`${sectionHead('plans.title', 'plans.intro', !can.plans)} ${statusBox('plans-status')}
      ${tableSlot('plans', 'plans.title')} ${can.plans ? html`${planForm(sites)} ${confirmDialog()}` : ''}`,
    })),
    section('/admin/devices', (can, sites) => ({
      section: 'devices',
      title: 'devices.title',
      script: 'admin-devices.js',
      main: html`${sectionHead('devices.title', 'devices.intro', !can.devices)}
      ${statusLine('devices-status')} ${can.devices ? secretBox() : ''}
      ${tableSlot('devices', 'devices.title')} ${devicesNotes(deps, can.devices)}
      ${can.devices ? html`${deviceForm(sites)} ${confirmDialog()} ${setupDialog()}` : ''}`,
    })),
    section('/admin/sessions', (can) => ({
      section: 'sessions',
      title: 'sessions.title',
      script: 'admin-sessions.js',
      main: html`${sectionHead('sessions.title', 'sessions.intro', !can.disconnect)}
        <section
          id="disconnect-result"
          class="notice"
          role="status"
          aria-live="polite"
          tabindex="-1"
          hidden
        ></section>
        ${tableSlot('sessions', 'sessions.title')} ${can.disconnect ? confirmDialog() : ''}`,
    })),
    ...(['guests', 'invoices', 'payments'] as const).map((name) =>
      section(`/admin/${name}`, () => ({
        section: name,
        title: `${name}.title`,
        script: 'admin-records.js',
        data: { records: name },
        main: html`${sectionHead(`${name}.title`, `${name}.intro`)} ${tableSlot(name, `${name}.title`)}`,
      })),
    ),
    section('/admin/sms', (can) => ({
      section: 'sms',
      title: 'sms.title',
      script: 'admin-sms.js',
      main: html`${sectionHead('sms.title', 'sms.intro', !can.sms)} ${can.sms ? smsForm() : ''}
      ${tableSlot('messages', 'sms.title')}`,
    })),
    section('/admin/reports', () => ({
      section: 'reports',
      title: 'reports.title',
      script: 'admin-reports.js',
      main: reportsMain(),
    })),
    section('/admin/sites', (can) => ({
      section: 'sites',
      title: 'sites.title',
      script: 'admin-sites.js',
      main: sitesMain(deps, can),
    })),
  ];
}

function loginMain(): Html {
  return html`<h1>${a('login.title')}</h1>
    <p class="lead">${a('login.intro')}</p>
    <form id="admin-login" class="card" novalidate>
      ${field({ id: 'email', label: a('login.email'), type: 'email', autocomplete: 'username' })}
      ${field({ id: 'password', label: a('login.password'), type: 'password', autocomplete: 'current-password' })}
      <div id="code-box" hidden>
        ${field({ id: 'code', label: a('login.code'), hint: a('login.codeHint'), autocomplete: 'one-time-code', maxlength: 20 })}
      </div>
      ${submitRow('admin-login', a('login.submit'))}
    </form>
    <p><a href="/forgot-password">${a('login.forgot')}</a></p>`;
}

const STATS: readonly [string, AdminKey, string][] = [
  ['devices', 'overview.devices', '/admin/devices'],
  ['active_sessions', 'overview.activeSessions', '/admin/sessions'],
  ['pending_invoices', 'overview.pendingInvoices', '/admin/invoices'],
  ['live_grants', 'overview.liveGrants', '/admin/sessions'],
  ['sales', 'overview.todaySales', '/admin/payments'],
  ['revenue_tzs', 'overview.todayRevenue', '/admin/payments'],
];

function overviewMain(freeWifi: boolean): Html {
  return html`<h1>${a('overview.title')}</h1>
    ${freeWifi ? html`<p class="notice warn" id="free-wifi" role="alert">${a('overview.freeWifi')}</p>` : ''}
    <dl class="stats" id="stats" aria-busy="true">
      ${STATS.map(
        ([key, label, path]) =>
          html`<div>
            <dt><a href="${path}">${a(label)}</a></dt>
            <dd id="stat-${key}">…</dd>
          </div>`,
      )}
    </dl>
    <p class="hint" id="stats-channels"></p>
    <p class="hint" id="stats-since"></p>
    <p class="error" id="stats-error" role="alert" hidden></p>
    <section class="overview-part" aria-labelledby="routers-heading">
      <h2 id="routers-heading"><a href="/admin/devices">${a('overview.routers')}</a></h2>
      <p id="routers-counts" class="router-counts" aria-busy="true"></p>
      <ul id="router-strip" class="router-strip"></ul>
      <p class="error" id="routers-error" role="alert" hidden></p>
    </section>
    <section class="overview-part" aria-labelledby="week-heading">
      <h2 id="week-heading"><a href="/admin/reports">${a('overview.week')}</a></h2>
      <div id="week-chart" aria-busy="true"></div>
      <h3>${a('overview.busiest')}</h3>
      <div id="busiest" class="table-wrap"></div>
      <p class="error" id="week-error" role="alert" hidden></p>
    </section>`;
}

function planForm(sites: SiteContext): Html {
  return html`<form id="plan-form" class="card" novalidate aria-labelledby="plan-form-heading">
    <h2 id="plan-form-heading">${a('plans.new')}</h2>
    ${siteField('plan-site', sites)} ${field({ id: 'plan-name', label: a('plan.name'), maxlength: 100 })}
    ${textArea({ id: 'plan-description', label: a('plan.description'), hint: a('plan.descriptionHint') })}
    ${numberField({ id: 'plan-price', label: a('plan.price'), hint: a('plan.priceHint') })}
    ${unitField({
      id: 'plan-duration',
      label: a('plan.duration'),
      unitLabel: a('plan.durationUnit'),
      units: [
        ['60', a('unit.minutes')],
        ['3600', a('unit.hours')],
        ['86400', a('unit.days')],
      ],
      unit: '3600',
    })}
    ${unitField({
      id: 'plan-data',
      label: a('plan.dataLimit'),
      unitLabel: a('plan.dataUnit'),
      units: [
        ['1000000', a('unit.MB')],
        ['1000000000', a('unit.GB')],
      ],
      unit: '1000000000',
      hint: a('plan.dataLimitHint'),
      required: false,
    })}
    ${speedField('plan-download', 'plan.download', 'plan.downloadUnit')}
    ${speedField('plan-upload', 'plan.upload', 'plan.uploadUnit')}
    ${numberField({ id: 'plan-max-devices', label: a('plan.maxDevices'), hint: a('plan.maxDevicesHint'), value: '1' })}
    ${numberField({ id: 'plan-sort', label: a('plan.sortOrder'), hint: a('plan.sortOrderHint'), value: '0', signed: true })}
    ${checkbox({ id: 'plan-active', label: a('plan.active'), checked: true })}
    ${checkbox({ id: 'plan-remember-device', label: a('plan.rememberDevice'), hint: a('plan.rememberDeviceHint') })}
    ${checkbox({ id: 'plan-apply-live', label: a('plan.applyLive'), hint: a('plan.applyLiveHint'), hidden: true })}
    ${submitRow('plan-form', a('plans.create'))}
    <button type="button" id="plan-cancel" hidden>${a('common.cancel')}</button>
  </form>`;
}

/** A speed limit per guest in kbit/s or Mbit/s (the API takes kbit/s); empty: no limit. */
const speedField = (id: string, label: AdminKey, unitLabel: AdminKey): Html =>
  unitField({
    id,
    label: a(label),
    unitLabel: a(unitLabel),
    units: [
      ['1', a('unit.kbps')],
      ['1000', a('unit.Mbps')],
    ],
    unit: '1000',
    hint: a('plan.speedHint'),
    required: false,
  });

/** Under the routers: what Online means (its window follows RADIUS_INTERIM_INTERVAL), and for admins what a set-up file holds. */
function devicesNotes(deps: Deps, mayChange: boolean): Html {
  const minutes = (deps.config.radiusInterimInterval * ONLINE_WITHIN_INTERVALS) / 60;
  return html`<p class="hint" id="devices-online-note">
      ${a('devices.onlineNote').replace('{minutes}', String(Math.round(minutes * 10) / 10))}
    </p>
    ${mayChange ? html`<p class="hint" id="devices-setup-note">${a('devices.setupNote')}</p>` : ''}`;
}

/** The router set-up download (GET …/router-config): which software, and this box's address if the settings do not say. */
function setupDialog(): Html {
  return html`<dialog id="setup" aria-labelledby="setup-heading">
    <form id="setup-form" novalidate>
      <h2 id="setup-heading">${a('setup.action')}</h2>
      ${choice({
        id: 'setup-format',
        label: a('setup.format'),
        choices: [
          ['routeros', a('setup.routeros')],
          ['coovachilli', a('setup.coovachilli')],
          ['openwrt', a('setup.openwrt')],
        ],
        selected: 'routeros',
      })}
      ${field({
        id: 'setup-address',
        label: a('setup.address'),
        hint: a('setup.addressHint'),
        inputmode: 'text',
        autocomplete: 'off',
        required: false,
      })}
      <p class="hint">${a('devices.setupNote')}</p>
      ${submitRow('setup-form', a('setup.download'))}
      <button type="button" id="setup-cancel">${a('common.cancel')}</button>
    </form>
  </dialog>`;
}

function deviceForm(sites: SiteContext): Html {
  return html`<form id="device-form" class="card" novalidate aria-labelledby="device-form-heading">
    <h2 id="device-form-heading">${a('devices.new')}</h2>
    ${siteField('device-site', sites)}
    ${field({ id: 'device-name', label: a('device.name'), maxlength: 100 })}
    ${field({ id: 'device-model', label: a('device.model'), maxlength: 100 })}
    ${field({ id: 'device-mac', label: a('device.mac'), hint: a('device.macHint'), autocomplete: 'off' })}
    ${field({ id: 'device-network', label: a('device.network'), hint: a('device.networkHint'), autocomplete: 'off' })}
    ${field({ id: 'device-gateway', label: a('device.gateway'), hint: a('device.gatewayHint'), autocomplete: 'off', required: false })}
    ${field({ id: 'device-uam-server', label: a('device.uamServer'), type: 'url', hint: a('device.uamServerHint'), autocomplete: 'off' })}
    ${field({ id: 'device-nas-id', label: a('device.nasId'), hint: a('device.nasIdHint'), autocomplete: 'off' })}
    ${field({ id: 'device-client-ip', label: a('device.clientIp'), hint: a('device.clientIpHint'), autocomplete: 'off' })}
    ${numberField({ id: 'device-coa-port', label: a('device.coaPort'), hint: a('device.coaPortHint'), value: '3799' })}
    ${field({ id: 'device-uam-secret', label: a('device.uamSecret'), hint: a('device.uamSecretHint'), autocomplete: 'off', required: false })}
    ${checkbox({ id: 'device-uam-clear', label: a('device.uamSecretClear'), hidden: true })}
    ${choice({
      id: 'device-uam-auth',
      label: a('device.uamAuth'),
      choices: [
        ['chap', 'CHAP'],
        ['pap', 'PAP'],
      ],
      selected: 'chap',
    })}
    ${checkbox({ id: 'device-message-auth', label: a('device.messageAuth'), checked: true })}
    ${submitRow('device-form', a('devices.register'))}
    <button type="button" id="device-cancel" hidden>${a('common.cancel')}</button>
  </form>`;
}

/** Where a new or rotated RADIUS secret is shown, once, until the person says it is copied. */
function secretBox(): Html {
  return html`<section
    id="secret-box"
    class="notice warn secret"
    role="alert"
    tabindex="-1"
    aria-labelledby="secret-heading"
    hidden
  >
    <h2 id="secret-heading">${a('secret.heading')}</h2>
    <p id="secret-intro"></p>
    <p><code id="secret-value"></code></p>
    <button type="button" id="secret-copy" hidden>${a('secret.copy')}</button>
    <button type="button" class="primary" id="secret-done">${a('secret.done')}</button>
    <p id="secret-copied" class="hint" role="status" hidden>${a('secret.copied')}</p>
  </section>`;
}

function smsForm(): Html {
  return html`<form id="sms-form" class="card" novalidate aria-labelledby="sms-form-heading">
    <h2 id="sms-form-heading">${a('sms.send')}</h2>
    ${field({ id: 'sms-recipient', label: a('sms.recipient'), type: 'tel', inputmode: 'tel', hint: a('sms.recipientHint'), autocomplete: 'off' })}
    ${textArea({ id: 'sms-message', label: a('sms.message'), rows: 4, required: true, hint: a('sms.bytes').replace('{n}', '0') })}
    ${field({ id: 'sms-sender', label: a('sms.sender'), hint: a('sms.senderHint'), maxlength: 11, required: false, autocomplete: 'off' })}
    ${submitRow('sms-form', a('sms.submit'))} ${statusLine('sms-status')}
  </form>`;
}
