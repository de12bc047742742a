import type { Request } from 'polka';

/** The two API families share one listener but keep their own envelopes and CORS lists. */
export type ApiFamily = 'identity' | 'wifi';

export interface HttpRequest extends Request {
  /** X-Request-Id: the caller's, or one we generated. */
  id: string;
  /** Client address, after TRUST_PROXY. */
  ip: string;
  family: ApiFamily;
  /** "POST /auth/login" once a route matched; used by the access log. */
  routeName?: string;
  /** Set when the request timeout answered first; later writes are dropped. */
  timedOut?: boolean;
}

/** The Wi-Fi API lives under /api/v1, /webhooks and /readyz; everything else is identity. */
export function familyOf(path: string): ApiFamily {
  return path.startsWith('/api/v1/') ||
    path === '/api/v1' ||
    path.startsWith('/webhooks/') ||
    path === '/readyz'
    ? 'wifi'
    : 'identity';
}
