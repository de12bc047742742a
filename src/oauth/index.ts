/** The OAuth/OIDC provider's public surface. */
export { oauthRoutes } from './oauth.routes.js';
export { Keyring, makeKeyPair } from './keys.js';
export { grantStats } from './connections.js';
export { verifyBearer } from './bearer.js';
export type { BearerGrant } from './bearer.js';
export { bearerToken } from './bearer.http.js';
export { deleteExpired as pruneOAuthGrants } from './jobs.js';
