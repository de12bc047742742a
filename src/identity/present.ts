import type { PasskeysTable, SecurityEventsTable, SessionsTable, UsersTable } from '../db/tables/identity.js';
import type { Selectable } from 'kysely';

type User = Selectable<UsersTable>;

/** User object (identity-service.md §2.2). */
export const presentUser = (u: User) => ({
  id: u.id,
  email: u.email,
  phone: u.phone,
  email_verified: u.email_verified === 1,
  phone_verified: u.phone_verified === 1,
});

export const presentProfile = (u: User) => ({
  user_id: u.id,
  display_name: u.display_name,
  avatar_url: u.avatar_url,
});

export const presentSession = (s: Selectable<SessionsTable>, currentId: string | null) => ({
  id: s.id,
  device_label: s.device_label,
  ip_address: s.ip_address,
  created_at: s.created_at,
  last_used_at: s.last_used_at,
  is_current: s.id === currentId,
});

export const presentSecurityEvent = (e: Selectable<SecurityEventsTable>) => ({
  action: e.action,
  ip_address: e.ip_address,
  detail: e.detail,
  created_at: e.created_at,
});

/** Passkey (identity-service.md §2.2): never the public key, counter or transports. */
export const presentPasskey = (p: Selectable<PasskeysTable>) => ({
  id: p.id,
  name: p.name,
  created_at: p.created_at,
  last_used_at: p.last_used_at,
});
