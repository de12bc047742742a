import type { Selectable } from 'kysely';
import type { AuditLogsTable } from '../db/tables/console.js';
import type { ClientRow } from './clients.store.js';
import type { ProjectRow } from './projects.store.js';

const parseList = (json: string): string[] => JSON.parse(json) as string[];

/** Optional URLs appear only when set (as in the public metadata). */
const optionalUrls = (c: ClientRow) => ({
  ...(c.logo_url === null ? {} : { logo_url: c.logo_url }),
  ...(c.homepage_url === null ? {} : { homepage_url: c.homepage_url }),
  ...(c.privacy_policy_url === null ? {} : { privacy_policy_url: c.privacy_policy_url }),
});

export const presentProject = (p: ProjectRow) => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  created_at: p.created_at,
  archived: p.archived === 1,
});

/** Client (console view): never the secret or its hash. */
export const presentClient = (c: ClientRow) => ({
  id: c.id,
  name: c.name,
  type: c.type,
  status: c.status,
  redirect_uris: parseList(c.redirect_uris),
  allowed_scopes: parseList(c.allowed_scopes),
  has_secret: c.secret_hash !== null,
  created_at: c.created_at,
  ...optionalUrls(c),
});

/** Public client metadata: no redirect URIs, no secret. */
export const presentPublicClient = (c: ClientRow) => ({
  client_id: c.id,
  name: c.name,
  allowed_scopes: parseList(c.allowed_scopes),
  status: c.status,
  first_party: c.first_party === 1,
  ...optionalUrls(c),
});

export const presentAudit = (a: Selectable<AuditLogsTable>) => ({
  id: a.id,
  action: a.action,
  target_type: a.target_type,
  target_id: a.target_id,
  ...(a.metadata === null ? {} : { metadata: JSON.parse(a.metadata) as Record<string, unknown> }),
  ...(a.ip_address === null ? {} : { ip_address: a.ip_address }),
  created_at: a.created_at,
});
