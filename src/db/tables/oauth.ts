/** Signing keys: the private half lives in `<data dir>/keys/<kid>.pem` (mode 0600). */
export interface SigningKeysTable {
  kid: string;
  /** Public JWK (JSON) as published in the JWKS. */
  public_jwk: string;
  /** Published from this moment. */
  created_at: string;
  /** Signs new tokens from this moment (pre-publication lets verifiers fetch it first). */
  signs_from: string;
  /** When a newer key took over signing. */
  retired_at: string | null;
  /** Dropped from the JWKS from this moment (15 min after it last signed, plus 1 min). */
  unpublish_at: string | null;
  /**
   * The private key (PKCS#8 PEM) sealed with the vault key, so every daemon sharing the vault key
   * can sign (migration 0018); null for keys made before, whose PEM file is in the data dir.
   */
  private_key_enc: string | null;
}

export interface OauthConsentsTable {
  user_id: string;
  client_id: string;
  /** Space-separated scopes the user granted. */
  scope: string;
  granted_at: string;
  updated_at: string;
}

export interface OauthCodesTable {
  /** SHA-256 of the 43-character code. */
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  code_challenge: string;
  nonce: string | null;
  /** When the user authenticated (the session's start): the ID token's auth_time. */
  auth_time: string;
  expires_at: string;
  used_at: string | null;
  /** The refresh family the code was exchanged for: revoked if the code is replayed. */
  family_id: string | null;
  created_at: string;
}

export interface OauthRefreshFamiliesTable {
  id: string;
  client_id: string;
  user_id: string;
  scope: string;
  auth_time: string;
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface OauthRefreshTokensTable {
  /** SHA-256 of the token. */
  token_hash: string;
  family_id: string;
  created_at: string;
  expires_at: string;
  /** Set when the token was exchanged for its successor; using it again is reuse. */
  rotated_at: string | null;
}

export interface OauthAccessTokensTable {
  /** The JWT's jti: the revocation check on userinfo is a primary-key lookup. */
  jti: string;
  client_id: string;
  user_id: string;
  family_id: string | null;
  scope: string;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

export interface OauthTables {
  signing_keys: SigningKeysTable;
  oauth_consents: OauthConsentsTable;
  oauth_codes: OauthCodesTable;
  oauth_refresh_families: OauthRefreshFamiliesTable;
  oauth_refresh_tokens: OauthRefreshTokensTable;
  oauth_access_tokens: OauthAccessTokensTable;
}
