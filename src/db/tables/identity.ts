import type { Generated } from 'kysely';

export type StaffRole = 'owner' | 'admin' | 'operator' | 'viewer';

export interface UsersTable {
  id: string;
  email: string | null;
  phone: string | null;
  email_verified: number;
  phone_verified: number;
  password_hash: string;
  display_name: string;
  avatar_url: string | null;
  staff_role: StaffRole | null;
  /** Base32 TOTP secret once set up; active only when totp_enabled = 1. */
  totp_secret: string | null;
  totp_enabled: number;
  /** Last accepted RFC 6238 time step: a code is never accepted twice. */
  totp_last_step: number | null;
  /** The client address at sign-up (migration 0011); null when unknown or made by the CLI. */
  registration_ip: string | null;
  /** When the password was last reset (migration 0013); older staff admin sessions end. */
  password_changed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the cookie value; the value itself is never stored. */
  token_hash: string;
  ip_address: string;
  device_label: string | null;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

export interface VerificationCodesTable {
  id: string;
  user_id: string;
  channel: 'email' | 'phone';
  /** The address the code was sent to; the check verifies that address only. */
  target: string;
  code_hash: string;
  attempts: number;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  kind: 'link' | 'sms';
  token_hash: string;
  attempts: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** One wrong SMS reset code from a client address block (migration 0012; kept an hour). */
export interface ResetCodeMissesTable {
  id: Generated<number>;
  /** The IPv4 address or IPv6 /64 it came from (lib/ip.ts addressBlock). */
  source: string;
  created_at: string;
}

export interface MfaChallengesTable {
  id: string;
  user_id: string;
  token_hash: string;
  attempts: number;
  ip_address: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface MfaRecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface SecurityEventsTable {
  id: Generated<number>;
  user_id: string;
  action: string;
  ip_address: string | null;
  detail: string;
  created_at: string;
}

/** A registered WebAuthn credential (identity-service.md §2.2 Passkey; decisions/0011). */
export interface PasskeysTable {
  /** The credential id, base64url, as the authenticator gave it. */
  id: string;
  user_id: string;
  name: string;
  /** COSE public key, base64url. */
  public_key: string;
  /** Signature counter last seen; 0 for authenticators that do not count. */
  counter: number;
  /** JSON array of transport hints (`["internal","hybrid"]`). */
  transports: string;
  created_at: string;
  /** Equal to created_at until the first sign-in with it. */
  last_used_at: string;
}

export type PasskeyCeremonyKind = 'registration' | 'login';

/** One begin…finish ceremony: the challenge, tied to the X-Passkey-Token by its SHA-256. */
export interface PasskeyChallengesTable {
  id: string;
  /** Registration: the signed-in user; login: the account the identifier named. */
  user_id: string;
  kind: PasskeyCeremonyKind;
  token_hash: string;
  /** The base64url challenge the authenticator must sign. */
  challenge: string;
  /** Registration only: the name the new passkey gets. */
  name: string | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface IdentityTables {
  users: UsersTable;
  sessions: SessionsTable;
  verification_codes: VerificationCodesTable;
  password_resets: PasswordResetsTable;
  reset_code_misses: ResetCodeMissesTable;
  mfa_challenges: MfaChallengesTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  security_events: SecurityEventsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
}

/** An upstream OpenID provider the operator configured for social login (`hotspot-ctl social add`). */
export interface SocialProvidersTable {
  /** URL-safe name: /auth/social/{name}/begin; also the session's device_label. */
  name: string;
  /** What the login page calls it: "Sign in with <display_name>". */
  display_name: string;
  issuer: string;
  client_id: string;
  /** Sealed in the vault. */
  client_secret: string;
  created_at: string;
  updated_at: string;
}

/** A social login between begin and callback (10 minutes, single use). */
export interface SocialLoginsTable {
  /** SHA-256 of the OAuth state (also kept in the browser's svc_social cookie). */
  state_hash: string;
  provider: string;
  /** PKCE verifier, sealed in the vault. */
  code_verifier: string;
  nonce: string;
  /** Where to go after signing in (a path on this site). */
  next: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** Which upstream account (provider + subject) is which local account. */
export interface SocialIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  created_at: string;
}

export interface SocialTables {
  social_providers: SocialProvidersTable;
  social_logins: SocialLoginsTable;
  social_identities: SocialIdentitiesTable;
}
