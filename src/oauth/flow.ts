import type { CoreDeps } from '../deps.js';
import type { SessionPrincipal } from '../identity/index.js';
import { AppError } from '../lib/errors.js';
import {
  approve,
  consentCovers,
  isVerified,
  redirectWith,
  validateAuthorize,
  type AuthorizeParams,
  type AuthorizeRequest,
} from './authorize.js';
import { oauthErrors } from './errors.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config'>;

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'response_mode',
  'prompt',
  'max_age',
] as const;

/**
 * GET /oauth/authorize: the five outcomes of identity-service.md §4.6, in order — a 400 for an
 * invalid request, then the login, verification and consent pages, then the code. OIDC's
 * `prompt` and `max_age` (docs/decisions/0005-oauth-provider.md, 2026-12-07): `login`,
 * `select_account` or a session older than `max_age` send a signed-in user to the login page
 * again; `consent` shows the consent page even when consent is on file; `none` answers
 * login_required, interaction_required or consent_required to the client instead of a page.
 */
export async function authorizeRedirect(
  deps: Deps,
  query: URLSearchParams,
  session: SessionPrincipal | null,
  ip: string,
): Promise<string> {
  for (const name of PARAMS) {
    if (query.getAll(name).length > 1)
      throw new AppError('duplicate_parameter', 400, `duplicate parameter: ${name}`);
  }
  const params = Object.fromEntries(PARAMS.map((n) => [n, query.get(n) ?? undefined])) as AuthorizeParams;
  const req = await validateAuthorize(deps, params);
  const silent = req.prompt.has('none');
  const refuse = (error: string) =>
    redirectWith(req.redirectUri, { error, state: req.state }, deps.config.publicBaseUrl, req.responseMode);
  if (!session || mustSignInAgain(req, session.authTime, deps.clock.now())) {
    if (silent) return refuse('login_required');
    // After signing in, the request goes on without what asked for it, or it would ask again.
    const next = encodeURIComponent(`/oauth/authorize?${afterSignIn(query)}`);
    return session ? `/login?next=${next}&prompt=login` : `/login?next=${next}`;
  }
  if (!isVerified(session.user)) {
    if (silent) return refuse('interaction_required');
    return `/verify-email?next=${encodeURIComponent(`/oauth/authorize?${query.toString()}`)}`;
  }
  if (
    req.prompt.has('consent') ||
    (req.client.first_party !== 1 &&
      !(await consentCovers(deps.db, session.user.id, req.client.id, req.scopes)))
  ) {
    if (silent) return refuse('consent_required');
    return `/consent?${query.toString()}`;
  }
  const code = await approve(deps, req, { id: session.user.id, authTime: session.authTime }, ip);
  return redirectWith(
    req.redirectUri,
    { code, state: req.state },
    deps.config.publicBaseUrl,
    req.responseMode,
  );
}

/** prompt=login or select_account, or a sign-in longer ago than max_age (OIDC Core §3.1.2.1). */
function mustSignInAgain(req: AuthorizeRequest, authTime: string, now: Date): boolean {
  if (req.prompt.has('login') || req.prompt.has('select_account')) return true;
  return req.maxAge !== null && now.getTime() - Date.parse(authTime) > req.maxAge * 1000;
}

/**
 * The authorize query to come back to once signed in: without max_age and prompt's login and
 * select_account, which the new sign-in has just satisfied (a max_age of 0, or shorter than the
 * sign-in took, would otherwise send the person back to the login page for ever). Nothing is
 * weakened: the query is the browser's to edit anyway, and the ID token's auth_time is what the
 * client checks.
 */
function afterSignIn(query: URLSearchParams): string {
  const out = new URLSearchParams(query);
  out.delete('max_age');
  const prompt = out.get('prompt');
  if (prompt !== null) {
    const kept = prompt.split(' ').filter((v) => v !== '' && v !== 'login' && v !== 'select_account');
    if (kept.length === 0) out.delete('prompt');
    else out.set('prompt', kept.join(' '));
  }
  return out.toString();
}

export interface ConsentInput extends AuthorizeParams {
  approve: boolean;
}

/** POST /oauth/consent: everything re-validated; approve issues a code, decline says access_denied. */
export async function submitConsent(
  deps: Deps,
  principal: SessionPrincipal,
  input: ConsentInput,
  ip: string,
): Promise<string> {
  const req = await validateAuthorize(deps, { ...input, response_type: 'code' });
  if (!isVerified(principal.user)) throw oauthErrors.unverified();
  if (!input.approve) {
    return redirectWith(
      req.redirectUri,
      { error: 'access_denied', state: req.state },
      deps.config.publicBaseUrl,
      req.responseMode,
    );
  }
  const code = await approve(deps, req, { id: principal.user.id, authTime: principal.authTime }, ip);
  return redirectWith(
    req.redirectUri,
    { code, state: req.state },
    deps.config.publicBaseUrl,
    req.responseMode,
  );
}
