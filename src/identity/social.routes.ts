import type { CoreDeps } from '../deps.js';
import { clearCookieHeader, readCookie, setCookieHeader } from '../http/cookies.js';
import { defineRoute, type Route } from '../http/route.js';
import { DEFAULT_NEXT } from '../lib/next.js';
import { sessionCookie } from './session.http.js';
import { beginSocialLogin, finishSocialLogin, SOCIAL_LOGIN_TTL_SECONDS } from './social.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

/** The browser's half of the OAuth state: the callback completes only where the login began. */
const STATE_COOKIE = 'svc_social';
const COOKIE_PATH = '/auth/social';

/**
 * A refusal goes back to the login page, which explains it; `next` rides along when it is known
 * (and not the page's default), so a second try still ends where the first was going.
 */
function loginAfterRefusal(reason: string, next: string | undefined): string {
  const back = next === undefined || next === DEFAULT_NEXT ? '' : `&next=${encodeURIComponent(next)}`;
  return `/login?error=social_${reason}${back}`;
}

/** identity-service.md §4.5: social login through any OpenID Connect provider the operator set up. */
export function socialRoutes(deps: Deps): Route[] {
  const secure = deps.config.publicBaseUrl.startsWith('https:');
  return [
    defineRoute({
      method: 'GET',
      path: '/auth/social/:provider/begin',
      api: 'identity',
      limiter: 'social-login',
      handler: async ({ params, query }) => {
        const { location, state } = await beginSocialLogin(deps, params.provider ?? '', query.next);
        return {
          redirect: location,
          headers: {
            'Set-Cookie': setCookieHeader(STATE_COOKIE, state, {
              maxAgeSeconds: SOCIAL_LOGIN_TTL_SECONDS,
              secure,
              path: COOKIE_PATH,
            }),
            'Cache-Control': 'no-store',
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/social/:provider/callback',
      api: 'identity',
      handler: async ({ req, params, ip }) => {
        const outcome = await finishSocialLogin(deps, {
          name: params.provider ?? '',
          // The registered redirect URI is on PUBLIC_BASE_URL, whatever Host the request carried.
          callbackUrl: new URL(`${req.path}${req.search}`, deps.config.publicBaseUrl),
          cookieState: readCookie(req, STATE_COOKIE),
          ip,
        });
        const clear = clearCookieHeader(STATE_COOKIE, { secure, path: COOKIE_PATH });
        if (outcome.kind === 'refused') {
          return {
            redirect: loginAfterRefusal(outcome.reason, outcome.next),
            headers: { 'Set-Cookie': clear, 'Cache-Control': 'no-store' },
          };
        }
        return {
          redirect: outcome.next,
          headers: {
            'Set-Cookie': [clear, sessionCookie(deps, outcome.session.token)],
            'Cache-Control': 'no-store',
          },
        };
      },
    }),
  ];
}
