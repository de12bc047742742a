import { AppError, errorCatalogue } from '../lib/errors.js';

/** 400 envelopes of /oauth/authorize and /oauth/consent (never redirects), and other envelope errors. */
export const oauthErrors = errorCatalogue({
  clientIdRequired: [400, 'client_id is required'],
  unknownClient: [400, 'unknown client_id'],
  clientDisabled: [400, 'client is disabled'],
  redirectUriRequired: [400, 'redirect_uri is required'],
  redirectUriMismatch: [400, 'redirect_uri does not match a registered redirect URI'],
  responseTypeInvalid: [400, 'response_type must be code'],
  scopeRequired: [400, 'scope is required'],
  scopeNotAllowed: [400, "scope must be a subset of the client's allowed scopes"],
  pkceRequired: [400, 'code_challenge is required (PKCE with S256)'],
  pkceMethod: [400, 'code_challenge_method must be S256'],
  pkceChallengeInvalid: [
    400,
    'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
  ],
  responseModeInvalid: [400, 'response_mode must be query or fragment'],
  promptNoneAlone: [400, 'prompt none cannot be combined with other values'],
  maxAgeInvalid: [400, 'max_age must be a whole number of seconds'],
  invalidBody: [400, 'invalid request body'],
  unverified: [403, 'account must verify email or phone before connecting an app'],
  connectionNotFound: [404, 'connection not found'],
  bearerMissing: [401, 'not authenticated'],
  bearerInvalid: [401, 'invalid or expired access token'],
});

/** A token-endpoint error: raw `{error, error_description}` (identity-service.md §7). */
export class OAuthError extends AppError {
  readonly error: string;
  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(error, status, description, { headers });
    this.error = error;
  }
}

export const INVALID_GRANT = 'the provided authorization grant is invalid, expired, or already used';
export const REUSE_DETECTED =
  'refresh token reuse was detected and all sessions for this client were revoked';

export const tokenErrors = {
  invalidRequest: (description: string) => new OAuthError(400, 'invalid_request', description),
  unsupportedGrant: () =>
    new OAuthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token'),
  invalidGrant: (description = INVALID_GRANT) => new OAuthError(400, 'invalid_grant', description),
  invalidScope: () => new OAuthError(400, 'invalid_scope', 'the requested scope exceeds the granted scope'),
  invalidClient: (description = 'client authentication failed') =>
    new OAuthError(401, 'invalid_client', description, { 'WWW-Authenticate': 'Basic realm="svc-accounts"' }),
};
