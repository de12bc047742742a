import { contrastRatio, MIN_TEXT_CONTRAST, parseHexColor } from './colors.js';
import { wifiErrors } from './errors.js';
import { parseAccounts, type AccountChanges } from './sites-accounts.js';
import { must, parseChanges, type Checks } from './values.js';

/**
 * The Site request (admin API body, CLI flags; docs/decisions/0024-sites.md): the slug and name
 * staff use, the portal's branding and the time zone. `logo` is an uploaded image as a base64
 * `data:` URL: the portal serves it from this box, since a guest's phone cannot reach other hosts
 * before it has paid (and the pages load nothing from elsewhere). `payment_accounts` gives the
 * site its own provider credentials (write-only; docs/decisions/0032).
 */
export const SITE_FIELDS = [
  'slug',
  'name',
  'display_name',
  'logo',
  'brand_color',
  'background_color',
  'time_zone',
  'payment_accounts',
] as const;
export type SiteField = (typeof SITE_FIELDS)[number];
export type SiteRequest = Partial<Record<SiteField, unknown>>;

export interface SiteLogo {
  /** image/png | image/jpeg | image/gif | image/webp */
  type: string;
  /** base64 of the image bytes */
  data: string;
}

export interface SiteValues {
  slug: string;
  name: string;
  /** null: SERVICE_NAME. */
  displayName: string | null;
  logo: SiteLogo | null;
  brandColor: string | null;
  backgroundColor: string | null;
  /** null: VENUE_TIMEZONE. */
  timeZone: string | null;
  /** The site's own provider accounts to set (or, null, to drop); absent providers stay. */
  paymentAccounts: AccountChanges;
}

export const MAX_LOGO_BYTES = 100_000;

/** The grey of hints and secondary text (app.css `--muted`): it must stay readable on the background. */
const MUTED_TEXT = '#57606a';
const WHITE = '#ffffff';

/** Each type's first bytes, so a file is what its data: URL says it is. */
const MAGIC: Readonly<Record<string, (b: Buffer) => boolean>> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

function parseLogo(value: unknown): SiteLogo | null {
  if (typeof value !== 'string') return null;
  const match = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/.exec(value.trim());
  if (!match) return null;
  const [, type = '', data = ''] = match;
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_LOGO_BYTES || !MAGIC[type]?.(bytes)) return null;
  return { type, data: bytes.toString('base64') };
}

/**
 * An IANA name the runtime knows, in the runtime's spelling when it is the same name (utc → UTC);
 * null otherwise. A current name the runtime keeps as an alias of an older one stays as given:
 * Node 20's ICU resolves Asia/Kolkata to Asia/Calcutta and Europe/Kyiv to Europe/Kiev.
 */
export function parseTimeZone(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value.trim()))
    return null;
  const given = value.trim();
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: given }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === given.toLowerCase() ? resolved : given;
  } catch {
    return null;
  }
}

const text = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.trim() !== '' && v.trim().length <= max ? v.trim() : null;

/** `null` clears the value; anything else must pass `check`. */
const orNull =
  <T>(check: (v: unknown) => T): ((v: unknown) => T | null) =>
  (v) =>
    v === null ? null : check(v);

const color = (against: string, error: () => Error) =>
  orNull(
    must((v) => {
      const c = parseHexColor(v);
      return c !== null && contrastRatio(c, against) >= MIN_TEXT_CONTRAST ? c : null;
    }, error),
  );

const checks: Checks<SiteValues> = {
  slug: must(
    (v) => (typeof v === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(v.trim()) ? v.trim() : null),
    wifiErrors.siteSlugInvalid,
  ),
  name: must((v) => text(v, 100), wifiErrors.siteNameInvalid),
  displayName: orNull(must((v) => text(v, 100), wifiErrors.siteDisplayNameInvalid)),
  logo: orNull(must(parseLogo, wifiErrors.siteLogoInvalid)),
  // Buttons and the header bar are white on it; links are it on white cards.
  brandColor: color(WHITE, wifiErrors.siteBrandColorInvalid),
  backgroundColor: color(MUTED_TEXT, wifiErrors.siteBackgroundColorInvalid),
  timeZone: orNull(must(parseTimeZone, wifiErrors.siteTimeZoneInvalid)),
  paymentAccounts: must(parseAccounts, wifiErrors.sitePaymentAccountsInvalid),
};

const WIRE: { readonly [K in keyof SiteValues]: SiteField } = {
  slug: 'slug',
  name: 'name',
  displayName: 'display_name',
  logo: 'logo',
  brandColor: 'brand_color',
  backgroundColor: 'background_color',
  timeZone: 'time_zone',
  paymentAccounts: 'payment_accounts',
};

/** A new site: slug and name required; the branding and time zone default to the box's own. */
export function parseSiteCreate(request: SiteRequest): SiteValues {
  return {
    slug: checks.slug(request.slug),
    name: checks.name(request.name),
    displayName: checks.displayName(request.display_name ?? null),
    logo: checks.logo(request.logo ?? null),
    brandColor: checks.brandColor(request.brand_color ?? null),
    backgroundColor: checks.backgroundColor(request.background_color ?? null),
    timeZone: checks.timeZone(request.time_zone ?? null),
    paymentAccounts: checks.paymentAccounts(request.payment_accounts ?? {}),
  };
}

/** The values a change supplies; absent (undefined) fields stay as they are. */
export const parseSiteChanges = (request: SiteRequest): Partial<SiteValues> =>
  parseChanges(checks, WIRE, request);
