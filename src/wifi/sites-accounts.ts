import type { Updateable } from 'kysely';
import { SITE_ACCOUNT_SETTINGS, settingList } from '../config/index.js';
import type { SitesTable } from '../db/tables/sites.js';
import type { Vault } from '../lib/vault.js';
import type { WifiDeps } from './deps.js';
import { findSite, type SiteRow } from './sites.store.js';

/**
 * A site's own payment provider accounts (docs/decisions/0032): a site may take payments into its
 * own Selcom or AzamPay account instead of the box's. The credentials are the settings listed in
 * SITE_ACCOUNT_SETTINGS, all of a provider's together, sealed with the vault (bound to the site
 * and the provider) like a router's RADIUS secret; they are written, never read back by staff.
 */

export type AccountProvider = keyof typeof SITE_ACCOUNT_SETTINGS;
export const ACCOUNT_PROVIDERS = Object.keys(SITE_ACCOUNT_SETTINGS) as AccountProvider[];

/** One provider's credentials: setting name (SELCOM_API_KEY…) → value. */
export type AccountSettings = Readonly<Record<string, string>>;

/** `payment_accounts` of a Site request: a provider's credentials, or null for the box's again. */
export type AccountChanges = Partial<Record<AccountProvider, AccountSettings | null>>;

const COLUMN = {
  selcom: 'selcom_account_enc',
  azampay: 'azampay_account_enc',
} as const satisfies Record<AccountProvider, keyof SitesTable>;

const MAX_VALUE = 500;

/** The name of a credential inside `payment_accounts`: SELCOM_API_KEY → api_key. */
export const accountField = (provider: AccountProvider, env: string): string =>
  env.slice(provider.length + 1).toLowerCase();

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isProvider = (name: string): name is AccountProvider => Object.hasOwn(SITE_ACCOUNT_SETTINGS, name);

/** A credential checked by its setting's own parser; null when it does not pass. */
function credential(env: string, value: unknown): string | null {
  if (typeof value !== 'string' || value.length > MAX_VALUE) return null;
  try {
    const parsed = settingList()
      .find((s) => s.env === env)
      ?.parse(value);
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * `payment_accounts`: `{"azampay": {"app_name": …, "client_id": …, …}, "selcom": null}`. Each
 * named provider gets every one of its credentials (no other field) or null; null otherwise.
 */
export function parseAccounts(value: unknown): AccountChanges | null {
  if (!isObject(value)) return null;
  const out: AccountChanges = {};
  for (const [provider, account] of Object.entries(value)) {
    if (!isProvider(provider)) return null;
    if (account === null) {
      out[provider] = null;
      continue;
    }
    if (!isObject(account)) return null;
    const envs: readonly string[] = SITE_ACCOUNT_SETTINGS[provider];
    const fields = envs.map((env) => accountField(provider, env));
    if (Object.keys(account).some((k) => !fields.includes(k))) return null;
    const settings: Record<string, string> = {};
    for (const env of envs) {
      const parsed = credential(env, account[accountField(provider, env)]);
      if (parsed === null) return null;
      settings[env] = parsed;
    }
    out[provider] = settings;
  }
  return out;
}

const sealContext = (siteId: string, provider: AccountProvider) => `site-account:${siteId}:${provider}`;

/** The columns that store these changes: each account sealed for this site, null to drop it. */
export function accountColumns(
  vault: Vault,
  siteId: string,
  changes: AccountChanges,
): Updateable<SitesTable> {
  const columns: Updateable<SitesTable> = {};
  for (const provider of ACCOUNT_PROVIDERS) {
    const account = changes[provider];
    if (account === undefined) continue;
    columns[COLUMN[provider]] =
      account === null ? null : vault.seal(JSON.stringify(account), sealContext(siteId, provider));
  }
  return columns;
}

/** The providers a site has its own account with (what staff see: never the credentials). */
export const ownAccounts = (site: SiteRow): AccountProvider[] =>
  ACCOUNT_PROVIDERS.filter((provider) => typeof site[COLUMN[provider]] === 'string');

/**
 * A site's own account with a provider, or null when it has none (or the provider takes no site
 * accounts): the credentials and the sealed text, which changes whenever they are written (so
 * whoever keeps a client per account can tell when to make a new one).
 */
export async function siteAccount(
  deps: Pick<WifiDeps, 'db' | 'vault'>,
  siteId: string,
  provider: string,
): Promise<{ sealed: string; settings: AccountSettings } | null> {
  if (!isProvider(provider)) return null;
  const sealed = (await findSite(deps.db, siteId))?.[COLUMN[provider]] ?? null;
  if (sealed === null) return null;
  const settings = JSON.parse(deps.vault.open(sealed, sealContext(siteId, provider))) as AccountSettings;
  return { sealed, settings };
}
