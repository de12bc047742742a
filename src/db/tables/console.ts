import type { Generated } from 'kysely';

export interface ProjectsTable {
  id: string;
  owner_id: string;
  name: string;
  slug: string;
  archived: number;
  created_at: string;
  updated_at: string;
}

export type ClientType = 'public' | 'confidential';
export type ClientStatus = 'testing' | 'production' | 'disabled';

export interface OauthClientsTable {
  /** `<project-slug>-<6 chars>` */
  id: string;
  project_id: string;
  name: string;
  type: ClientType;
  status: ClientStatus;
  /** JSON array of strings. */
  redirect_uris: string;
  /** JSON array of scope names. */
  allowed_scopes: string;
  /** `sha256$<hex>` for confidential clients; the secret itself is never stored. */
  secret_hash: string | null;
  logo_url: string | null;
  homepage_url: string | null;
  privacy_policy_url: string | null;
  /** Set by the operator (CLI): skips the consent screen. */
  first_party: number;
  created_at: string;
  updated_at: string;
}

export interface AuditLogsTable {
  id: Generated<number>;
  project_id: string;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  /** JSON object, or null when not applicable. */
  metadata: string | null;
  ip_address: string | null;
  created_at: string;
}

export interface ConsoleTables {
  projects: ProjectsTable;
  oauth_clients: OauthClientsTable;
  audit_logs: AuditLogsTable;
}
