import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import { findClient, KNOWN_SCOPES, type ClientRow } from '../console/index.js';
import { recordEvent, type UserRow } from '../identity/index.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256Hex } from '../lib/crypto.js';
import { isoIn, isoNow } from '../lib/time.js';
import { oauthErrors } from './errors.js';
import { findConsent, insertCode, insertConsent, updateConsentScope } from './grants.store.js';
import { isSubset, joinScope, parseScope, S256_CHALLENGE } from './scope.js';

export const CODE_TTL_SECONDS = 60;

/** An authorization request that passed validation (identity-service.md §4.6, outcome 1). */
export interface AuthorizeRequest {
  client: ClientRow;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string;
  nonce: string | null;
  /** Where the response parameters go (OIDC Core §3.1.2.1, OAuth 2.0 Multiple Response Types). */
  responseMode: ResponseMode;
  /** OIDC `prompt` values, deduplicated; `none` only alone. */
  prompt: ReadonlySet<Prompt>;
  /** OIDC `max_age` in seconds, or null when absent. */
  maxAge: number | null;
}

export type ResponseMode = 'query' | 'fragment';
export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
const PROMPTS: ReadonlySet<string> = new Set<Prompt>(['none', 'login', 'consent', 'select_account']);
/** Up to about 31 years: any larger number is no bound at all, and too long a string is not a number we need. */
const MAX_AGE = /^\d{1,9}$/;

/** The parameters as they arrive (query string of /oauth/authorize or the consent body). */
export interface AuthorizeParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  response_type?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  nonce?: string | undefined;
  response_mode?: string | undefined;
  prompt?: string | undefined;
  max_age?: string | undefined;
}

/** Every check of the authorize endpoint; a failure is a 400 envelope, never a redirect. */
export async function validateAuthorize(
  deps: Pick<CoreDeps, 'db'>,
  p: AuthorizeParams,
): Promise<AuthorizeRequest> {
  if (!p.client_id) throw oauthErrors.clientIdRequired();
  const client = await findClient(deps, p.client_id);
  if (!client) throw oauthErrors.unknownClient();
  if (client.status === 'disabled') throw oauthErrors.clientDisabled();
  if (!p.redirect_uri) throw oauthErrors.redirectUriRequired();
  if (!(JSON.parse(client.redirect_uris) as string[]).includes(p.redirect_uri))
    throw oauthErrors.redirectUriMismatch();
  if (p.response_type !== 'code') throw oauthErrors.responseTypeInvalid();
  const scopes = parseScope(p.scope ?? '');
  if (scopes.length === 0) throw oauthErrors.scopeRequired();
  if (!isSubset(scopes, JSON.parse(client.allowed_scopes) as string[])) throw oauthErrors.scopeNotAllowed();
  if (!p.code_challenge) throw oauthErrors.pkceRequired();
  if (p.code_challenge_method !== 'S256') throw oauthErrors.pkceMethod();
  if (!S256_CHALLENGE.test(p.code_challenge)) throw oauthErrors.pkceChallengeInvalid();
  // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
  const responseMode = p.response_mode === undefined || p.response_mode === '' ? 'query' : p.response_mode;
  if (responseMode !== 'query' && responseMode !== 'fragment') throw oauthErrors.responseModeInvalid();
  const prompt = parsePrompt(p.prompt);
  const maxAge = p.max_age === '' ? undefined : p.max_age;
  if (maxAge !== undefined && !MAX_AGE.test(maxAge)) throw oauthErrors.maxAgeInvalid();
  return {
    client,
    redirectUri: p.redirect_uri,
    scopes: parseScope(joinScope(scopes, KNOWN_SCOPES)),
    state: p.state ?? null,
    codeChallenge: p.code_challenge,
    nonce: p.nonce ?? null,
    responseMode,
    prompt,
    maxAge: maxAge === undefined ? null : Number(maxAge),
  };
}

/**
 * `prompt`: the space-separated values of OIDC Core §3.1.2.1; `none` with any other is invalid.
 * Values of other specifications (`create`) are ignored, as they were before `prompt` was read,
 * so a client that sends one still gets its code.
 */
function parsePrompt(raw: string | undefined): ReadonlySet<Prompt> {
  const values = new Set((raw ?? '').split(' ').filter((v): v is Prompt => PROMPTS.has(v)));
  if (values.has('none') && values.size > 1) throw oauthErrors.promptNoneAlone();
  return values;
}

export const isVerified = (user: Pick<UserRow, 'email_verified' | 'phone_verified'>): boolean =>
  user.email_verified === 1 || user.phone_verified === 1;

/**
 * redirect_uri with the response parameters and RFC 9207's `iss` added: to its query (its own
 * query kept), or as its fragment for `response_mode=fragment` (registered URIs have none).
 */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | null>,
  issuer: string,
  mode: ResponseMode = 'query',
): string {
  const url = new URL(redirectUri);
  const target = mode === 'query' ? url.searchParams : new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null) target.set(k, v);
  target.set('iss', issuer);
  if (mode === 'fragment') url.hash = target.toString();
  return url.toString();
}

/** Whether the stored consent already covers the scopes. */
export async function consentCovers(
  db: Db,
  userId: string,
  clientId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const consent = await findConsent(db, userId, clientId);
  return consent !== undefined && isSubset(scopes, parseScope(consent.scope));
}

/** Stores (or widens) the consent; returns true when it is new or wider than before. */
export async function grantConsent(
  db: Db,
  clock: Clock,
  userId: string,
  clientId: string,
  scopes: readonly string[],
): Promise<boolean> {
  const existing = await findConsent(db, userId, clientId);
  const now = isoNow(clock);
  if (!existing) {
    await insertConsent(db, {
      user_id: userId,
      client_id: clientId,
      scope: joinScope(scopes, KNOWN_SCOPES),
      granted_at: now,
      updated_at: now,
    });
    return true;
  }
  const had = parseScope(existing.scope);
  if (isSubset(scopes, had)) return false;
  await updateConsentScope(db, userId, clientId, joinScope([...had, ...scopes], KNOWN_SCOPES), now);
  return true;
}

/** A 43-character, single-use code valid for 60 seconds, bound to everything the token call must repeat. */
export async function issueCode(
  db: Db,
  clock: Clock,
  req: AuthorizeRequest,
  user: { id: string; authTime: string },
): Promise<string> {
  const code = randomToken(32);
  await insertCode(db, {
    code_hash: sha256Hex(code),
    client_id: req.client.id,
    user_id: user.id,
    redirect_uri: req.redirectUri,
    scope: req.scopes.join(' '),
    code_challenge: req.codeChallenge,
    nonce: req.nonce,
    auth_time: user.authTime,
    expires_at: isoIn(clock, CODE_TTL_SECONDS),
    used_at: null,
    family_id: null,
    created_at: isoNow(clock),
  });
  return code;
}

/** Consent given (or implied for first-party clients): store it, record the event, issue the code. */
export async function approve(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  req: AuthorizeRequest,
  user: { id: string; authTime: string },
  ip: string,
): Promise<string> {
  return deps.db.transaction().execute(async (tx) => {
    if (await grantConsent(tx, deps.clock, user.id, req.client.id, req.scopes)) {
      await recordEvent(tx, deps.clock, {
        userId: user.id,
        action: 'app_connected',
        ip,
        detail: req.client.id,
      });
    }
    return issueCode(tx, deps.clock, req, user);
  });
}
