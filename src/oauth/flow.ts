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
] as const;

/**
 * GET /oauth/authorize: the five outcomes of identity-service.md §4.6, in order — a 400 for an
 * invalid request, then the login, verification and consent pages, then the code.
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
  const back = encodeURIComponent(`/oauth/authorize?${query.toString()}`);
  if (!session) return `/login?next=${back}`;
  if (!isVerified(session.user)) return `/verify-email?next=${back}`;
  if (
    req.client.first_party !== 1 &&
    !(await consentCovers(deps.db, session.user.id, req.client.id, req.scopes))
  ) {
    return `/consent?${query.toString()}`;
  }
  const code = await approve(deps, req, { id: session.user.id, authTime: session.authTime }, ip);
  return redirectWith(req.redirectUri, { code, state: req.state }, deps.config.publicBaseUrl);
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
    );
  }
  const code = await approve(deps, req, { id: principal.user.id, authTime: principal.authTime }, ip);
  return redirectWith(req.redirectUri, { code, state: req.state }, deps.config.publicBaseUrl);
}
