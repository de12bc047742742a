import type { CoreDeps } from '../deps.js';
import { readCookie } from '../http/cookies.js';
import type { RouteResult } from '../http/route.js';
import type { HttpRequest } from '../http/types.js';
import {
  ADMIN_COOKIE,
  authenticateAdmin,
  hasSeveralSites,
  listSites,
  mayAct,
  type StaffPrincipal,
} from '../wifi/index.js';
import type { Assets } from './assets.js';
import { html, type Html } from './html.js';
import { renderPage } from './layout.js';
import { seeOther } from './pages.js';
import { safeNext } from './security.js';
import { adminEn, type AdminKey } from './strings/admin.en.js';

/**
 * What the staff admin pages share: their string table, the staff session check, the shell
 * (section navigation, who is signed in, sign-out) and what the signed-in role may change.
 * The admin API stays the enforcer; pages only leave out controls a role could not use.
 */

export const a = (key: AdminKey): string => adminEn[key];

export const ADMIN_HOME = '/admin';

/** The staff member behind the `admin_session` cookie (role read afresh), or null. */
export function optionalStaff(deps: Pick<CoreDeps, 'db' | 'clock'>) {
  return async (req: HttpRequest): Promise<StaffPrincipal | null> => {
    const token = readCookie(req, ADMIN_COOKIE);
    return token ? authenticateAdmin(deps, token) : null;
  };
}

/** `next` for the admin sign-in: a path on our own origin (security.ts), else the overview. */
export const adminNext = (raw: unknown): string => safeNext(raw, ADMIN_HOME);

export const toAdminLogin = (next: string): RouteResult =>
  seeOther(`/admin/login?next=${encodeURIComponent(next)}`);

/**
 * The token a plain HTML form of the admin pages carries (the voucher print buttons post one,
 * opening the sheet in a new tab): the keyed digest of the staff member's session token, so a
 * page of another origin cannot forge it. The admin API's JSON calls do not need it: a form
 * cannot send JSON, and SameSite=Lax plus the Origin check (staff.http.ts) cover them; a form's
 * Origin may be `null` here, since the pages send no referrer.
 */
export const formToken = (deps: Pick<CoreDeps, 'vault'>, sessionToken: string): string =>
  deps.vault.digest(sessionToken, 'admin-form');

/** What the role may change (DESIGN.md §4.4); reading is open to every staff role. */
export const capabilities = (principal: StaffPrincipal) => ({
  plans: mayAct(principal.role, 'admin'),
  devices: mayAct(principal.role, 'admin'),
  disconnect: mayAct(principal.role, 'operator'),
  sms: mayAct(principal.role, 'operator'),
  // The counter tools (DESIGN.md §4.8): operators sell and change grants; admins mark paid by hand and read the audit trail.
  counter: mayAct(principal.role, 'operator'),
  markPaid: mayAct(principal.role, 'admin'),
  // Voucher batches: admins make, print and revoke them (the API's roles); everyone reads them.
  vouchers: mayAct(principal.role, 'admin'),
  audit: mayAct(principal.role, 'admin'),
  sites: mayAct(principal.role, 'admin'),
  // Only admins whose role covers every site add one (docs/decisions/0024-sites.md).
  addSite: mayAct(principal.role, 'admin') && principal.sites === null,
});

export type Section =
  | 'overview'
  | 'counter'
  | 'vouchers'
  | 'plans'
  | 'devices'
  | 'sessions'
  | 'guests'
  | 'invoices'
  | 'payments'
  | 'sms'
  | 'sites'
  | 'audit'
  | 'reports';

/** A site as the pages offer it in a filter or a form. */
export interface SiteChoice {
  id: string;
  name: string;
}

/**
 * What a page knows of sites (DESIGN.md §4.9): the sites the staff member sees, whether the box
 * has more than the default one (the word "site" shows only then), and the site the page's lists
 * are narrowed to (`?site=`, one of theirs; '' for all of them).
 */
export interface SiteContext {
  sites: SiteChoice[];
  several: boolean;
  site: string;
}

export async function siteContext(
  deps: Pick<CoreDeps, 'db'>,
  principal: StaffPrincipal,
  requested: string | undefined,
): Promise<SiteContext> {
  const sites = (await listSites(deps, principal.sites)).map((s) => ({ id: s.id, name: s.name }));
  const site = sites.some((s) => s.id === requested) ? (requested ?? '') : '';
  return { sites, several: await hasSeveralSites(deps), site };
}

/** The sections whose lists a site filter narrows. */
const FILTERED: ReadonlySet<Section> = new Set([
  'overview',
  'counter',
  'vouchers',
  'plans',
  'devices',
  'sessions',
  'guests',
  'invoices',
  'payments',
  'reports',
]);

const NAV: readonly [Section, string, AdminKey][] = [
  ['overview', '/admin', 'nav.overview'],
  ['counter', '/admin/counter', 'nav.counter'],
  ['vouchers', '/admin/vouchers', 'nav.vouchers'],
  ['plans', '/admin/plans', 'nav.plans'],
  ['devices', '/admin/devices', 'nav.devices'],
  ['sessions', '/admin/sessions', 'nav.sessions'],
  ['guests', '/admin/guests', 'nav.guests'],
  ['invoices', '/admin/invoices', 'nav.invoices'],
  ['payments', '/admin/payments', 'nav.payments'],
  ['sms', '/admin/sms', 'nav.sms'],
  ['reports', '/admin/reports', 'nav.reports'],
  ['sites', '/admin/sites', 'nav.sites'],
  ['audit', '/admin/audit', 'nav.audit'],
];

export const SECTION_PATHS = NAV.map(([, path]) => path);

export interface AdminPage {
  section: Section;
  title: AdminKey;
  script: string;
  principal: StaffPrincipal;
  sites: SiteContext;
  main: Html;
  data?: Record<string, unknown>;
}

/** A signed-in admin page: navigation, the signed-in line with sign-out, then the section. */
export function adminPage(deps: Pick<CoreDeps, 'config'>, assets: Assets, page: AdminPage): RouteResult {
  const { principal } = page;
  const who = a('who.signedIn')
    .replace('{email}', principal.email ?? principal.displayName)
    .replace('{role}', a(`role.${principal.role}`));
  const { sites } = page;
  // A single venue never sees the word: the Sites page is listed once there is a second site.
  // The audit trail is for admins (the API refuses others).
  const mayAudit = capabilities(principal).audit;
  const shown = NAV.filter(
    ([section]) =>
      (section !== 'sites' || sites.several || page.section === 'sites') && (section !== 'audit' || mayAudit),
  );
  const nav = shown.map(([section, path, label]) =>
    section === page.section
      ? html`<a href="${path}" aria-current="page">${a(label)}</a>`
      : html`<a href="${path}">${a(label)}</a>`,
  );
  return renderPage(assets, {
    lang: 'en',
    title: `${a(page.title)} · ${a('brand.admin')}`,
    serviceName: deps.config.serviceName,
    script: page.script,
    main: html`<div class="admin">
      <nav class="admin-nav" aria-label="${a('nav.label')}">${nav}</nav>
      <div class="who">
        <span id="who">${who}</span>
        <button type="button" id="sign-out">${a('who.signOut')}</button>
      </div>
      ${FILTERED.has(page.section) && sites.sites.length > 1 ? siteFilter(sites) : ''} ${page.main}
    </div>`,
    data: {
      strings: adminEn,
      role: principal.role,
      can: capabilities(principal),
      sites: sites.sites.length > 1 ? sites.sites : [],
      site: sites.site,
      ...page.data,
    },
  });
}

/** Which site's lists the page shows: a plain GET form (`?site=`), sent as soon as the choice changes. */
function siteFilter(sites: SiteContext): Html {
  const options = [
    html`<option value="" ${sites.site === '' ? html` selected` : ''}>${a('site.all')}</option>`,
    ...sites.sites.map(
      (s) => html`<option value="${s.id}" ${s.id === sites.site ? html` selected` : ''}>${s.name}</option>`,
    ),
  ];
  return html`<form class="site-filter" id="site-filter-form" method="get">
    <label for="site-filter">${a('site.filter')}</label>
    <select id="site-filter" name="site">
      ${options}
    </select>
    <button type="submit" id="site-filter-show">${a('site.show')}</button>
  </form>`;
}

/** The heading, intro and (for a role that may not change anything here) a read-only note. */
export const sectionHead = (title: AdminKey, intro: AdminKey | null, readOnly = false): Html =>
  html`<h1>${a(title)}</h1>
    ${intro ? html`<p class="lead">${a(intro)}</p>` : ''}
    ${readOnly ? html`<p class="notice" id="read-only">${a('common.readOnly')}</p>` : ''}`;

/** A list the page script draws from the API, with its error line. */
export const tableSlot = (id: string, label: AdminKey): Html =>
  html`<section class="table-wrap" id="${id}" aria-label="${a(label)}" aria-busy="true" tabindex="-1">
      <p>${a('common.loading')}</p>
    </section>
    <p class="error" id="${id}-error" role="alert" hidden></p>`;

/** The one confirmation dialog of a page (rotating a secret, disconnecting a guest). */
export const confirmDialog = (): Html =>
  html`<dialog id="confirm" aria-labelledby="confirm-text">
    <p id="confirm-text"></p>
    <button type="button" class="primary" id="confirm-yes"></button>
    <button type="button" id="confirm-no">${a('common.cancel')}</button>
  </dialog>`;

/** Status area for an outcome with more than one line (a heading, a list of router answers). */
export const statusBox = (id: string): Html =>
  html`<section id="${id}" class="notice" role="status" tabindex="-1" hidden></section>`;

/** Status line for what a form or an action just did. */
export const statusLine = (id: string): Html =>
  html`<p id="${id}" class="notice" role="status" tabindex="-1" hidden></p>`;
