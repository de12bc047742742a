import { dataOf, ok } from './api.js';
import { $, clearErrors, fieldError, show } from './dom.js';
import { apiError, onSubmit, requiredValue, t } from './forms.js';
import { adminApi, can, element, loadTable, status } from './admin-shell.js';

/**
 * /admin/sites: the sites (GET /api/v1/admin/sites), each a venue with its own routers, plans,
 * portal look and time zone. Admins change theirs (PATCH); admins whose role covers every site
 * add one (POST). The logo is read in the browser and sent as a data: URL; the API checks it.
 * The site's own payment accounts are write-only: filled fields are sent, nothing is read back.
 */

interface Site {
  id: string;
  slug: string;
  name: string;
  display_name: string | null;
  logo_url: string | null;
  brand_color: string | null;
  background_color: string | null;
  time_zone: string | null;
  /** The providers it has its own account with (never the credentials). */
  payment_accounts: string[];
}

/** Which field each of the API's site messages is about (src/wifi/errors.ts). */
const FIELDS = {
  'name must': 'site-name',
  slug: 'site-slug',
  display_name: 'site-display-name',
  time_zone: 'site-time-zone',
  brand_color: 'site-brand-color',
  background_color: 'site-background-color',
  logo: 'site-logo',
};

/** The optional text fields: empty means "the box's own" (null). */
const OPTIONAL = [
  ['site-display-name', 'display_name'],
  ['site-time-zone', 'time_zone'],
  ['site-brand-color', 'brand_color'],
  ['site-background-color', 'background_color'],
] as const;

const MAX_LOGO_BYTES = 100_000;

const input = (id: string): HTMLInputElement => $(id, HTMLInputElement);
let editing: Site | null = null;

/** The site's colours, each a small swatch with its code (not by colour alone), in one line. */
function colours(site: Site): Node[] {
  const line = element('span', '', 'site-colours');
  for (const colour of [site.brand_color, site.background_color]) {
    if (colour === null) continue;
    const swatch = element('span', '', 'swatch');
    swatch.style.backgroundColor = colour;
    line.append(swatch, `${colour} `);
  }
  return [line.childNodes.length === 0 ? document.createTextNode(t('site.none')) : line];
}

function logo(site: Site): Node[] {
  if (site.logo_url === null) return [document.createTextNode(t('site.none'))];
  const img = document.createElement('img');
  img.src = site.logo_url;
  img.alt = t('site.logo');
  img.className = 'site-logo';
  return [img];
}

const load = (): Promise<Site[] | null> =>
  loadTable<Site>(
    'sites',
    '/sites',
    [
      { head: 'site.name', cell: (s) => s.name },
      { head: 'site.slug', cell: (s) => s.slug, nowrap: true },
      { head: 'site.displayName', cell: (s) => s.display_name ?? t('site.none') },
      { head: 'site.timeZone', cell: (s) => s.time_zone ?? t('site.none'), nowrap: true },
      { head: 'site.colours', cell: colours },
      { head: 'site.logo', cell: logo },
      ...(accountSets().length > 0 ? [{ head: 'site.accounts', cell: (s: Site) => accountNames(s) }] : []),
    ],
    can.sites
      ? (s) => [
          {
            label: t('common.edit'),
            aria: `${t('common.edit')}: ${s.name}`,
            run: () => {
              edit(s);
              return Promise.resolve();
            },
          },
        ]
      : undefined,
  );

/** The own-account fieldsets of the form: one per provider that takes site accounts here. */
const accountSets = (): HTMLFieldSetElement[] => [
  ...document.querySelectorAll<HTMLFieldSetElement>('fieldset[data-provider]'),
];

const providerName = (provider: string): string =>
  ({ selcom: 'Selcom', azampay: 'AzamPay' })[provider] ?? provider;

function accountNames(site: Site): string {
  return site.payment_accounts.length === 0
    ? t('site.accountsBox')
    : site.payment_accounts.map(providerName).join(', ');
}

/** The drop boxes show only for the accounts the site being edited has. */
function showDrops(site: Site | null): void {
  for (const set of accountSets()) {
    const provider = set.dataset.provider ?? '';
    show($(`site-${provider}-drop-row`), site?.payment_accounts.includes(provider) ?? false);
  }
}

/**
 * `payment_accounts` of the request: each provider whose fields are all filled, null for a
 * checked drop box; undefined when there is nothing to change, null when a provider is half
 * filled (said at its first empty field).
 */
function accountChanges(): Record<string, unknown> | null | undefined {
  const out: Record<string, unknown> = {};
  for (const set of accountSets()) {
    const provider = set.dataset.provider ?? '';
    const inputs = [...set.querySelectorAll<HTMLInputElement>('input[data-field]')];
    const empty = inputs.filter((i) => i.value.trim() === '');
    if (empty.length === inputs.length) {
      if (input(`site-${provider}-drop`).checked) out[provider] = null;
      continue;
    }
    const [first] = empty;
    if (first) {
      fieldError(first, t('site.accountIncomplete'));
      first.focus();
      return null;
    }
    out[provider] = Object.fromEntries(inputs.map((i) => [i.dataset.field ?? '', i.value.trim()]));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function edit(site: Site): void {
  editing = site;
  const form = $('site-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  show(form);
  $('site-form-heading').textContent = t('sites.editing', { name: site.name });
  $('site-form-submit').textContent = t('sites.save');
  show($('site-cancel'));
  input('site-name').value = site.name;
  input('site-slug').value = site.slug;
  for (const [id, key] of OPTIONAL) input(id).value = site[key] ?? '';
  show($('site-logo-remove-row'), site.logo_url !== null);
  showDrops(site);
  input('site-name').focus();
}

function createMode(): void {
  editing = null;
  const form = $('site-form', HTMLFormElement);
  form.reset();
  clearErrors(form);
  show(form, can.addSite);
  $('site-form-heading').textContent = t('sites.new');
  $('site-form-submit').textContent = t('sites.create');
  show($('site-logo-remove-row'), false);
  showDrops(null);
  show($('site-cancel'), false);
}

/** The chosen logo file as a data: URL; null when too big (said next to the field). */
function readLogo(file: File): Promise<string | null> {
  if (file.size > MAX_LOGO_BYTES) {
    fieldError(input('site-logo'), t('site.logoTooBig'));
    input('site-logo').focus();
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => {
      resolve(typeof reader.result === 'string' ? reader.result : null);
    };
    reader.onerror = () => {
      resolve(null);
    };
    reader.readAsDataURL(file);
  });
}

if (can.sites) {
  onSubmit('site-form', async (form) => {
    const name = requiredValue('site-name');
    const slug = name === null ? null : requiredValue('site-slug');
    if (name === null || slug === null) return;
    const body: Record<string, unknown> = { name, slug };
    for (const [id, key] of OPTIONAL) {
      const text = input(id).value.trim();
      body[key] = text === '' ? null : text;
    }
    const file = input('site-logo').files?.[0];
    if (file) {
      const logo = await readLogo(file);
      if (logo === null) return;
      body.logo = logo;
    } else if (editing && input('site-logo-remove').checked) body.logo = null;
    const accounts = accountChanges();
    if (accounts === null) return;
    if (accounts !== undefined) body.payment_accounts = accounts;

    const site = editing;
    const result = site
      ? await adminApi('PATCH', `/sites/${encodeURIComponent(site.id)}`, body)
      : await adminApi('POST', '/sites', body);
    if (!ok(result)) {
      apiError(form, result, FIELDS);
      return;
    }
    const saved = dataOf(result) as Site;
    createMode();
    await load();
    status('sites-status', t(site ? 'sites.updated' : 'sites.created', { name: saved.name }));
  });
  $('site-cancel').addEventListener('click', createMode);
}

void load();
