import type { Configuration } from 'openid-client';
import { lazy } from '../lib/lazy.js';

/**
 * The relying-party side of social login, through openid-client (discovery, PKCE, state, nonce,
 * ID-token validation). Discovered configurations are kept for an hour. The library is loaded by
 * the first social login (bench/footprint.ts).
 */
export const openidClient = lazy('openid-client', () => import('openid-client'));

export interface UpstreamProvider {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const CACHE_MS = 3600_000;
const cache = new Map<string, { config: Configuration; at: number }>();

export async function upstreamConfig(provider: UpstreamProvider, nowMs: number): Promise<Configuration> {
  const key = `${provider.name}|${provider.issuer}|${provider.clientId}|${provider.clientSecret}`;
  const hit = cache.get(key);
  if (hit && nowMs - hit.at < CACHE_MS) return hit.config;
  const oidc = await openidClient();
  const config = await oidc.discovery(
    new URL(provider.issuer),
    provider.clientId,
    provider.clientSecret,
    oidc.ClientSecretPost(provider.clientSecret),
    // An operator may point at an identity provider on the LAN over plain http.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- deliberate, for http issuers only
    provider.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : {},
  );
  cache.set(key, { config, at: nowMs });
  return config;
}

export interface StartedLogin {
  url: URL;
  state: string;
  nonce: string;
  verifier: string;
}

export async function startLogin(config: Configuration, redirectUri: string): Promise<StartedLogin> {
  const oidc = await openidClient();
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, state, nonce, verifier };
}

export interface UpstreamAccount {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  picture: string | null;
}

/** Exchanges the code (checking state, nonce, PKCE, iss and the ID token) and reads the account. */
export async function finishLogin(
  config: Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; verifier: string },
): Promise<UpstreamAccount> {
  const oidc = await openidClient();
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.verifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('the provider returned no ID token');
  let info: Record<string, unknown> = claims;
  if (config.serverMetadata().userinfo_endpoint) {
    info = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
  }
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  return {
    subject: claims.sub,
    email: text(info.email),
    emailVerified: info.email_verified === true,
    name: text(info.name),
    picture: text(info.picture),
  };
}
