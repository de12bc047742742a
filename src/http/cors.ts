import type { ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import { sendError } from './envelope.js';
import type { HttpRequest } from './types.js';

/** identity-service.md, Cross-cutting behaviour: exactly these methods, headers and max-age. */
const IDENTITY = {
  methods: 'GET, POST, PATCH, DELETE, OPTIONS',
  headers: 'Content-Type, Authorization, X-Request-Id',
  maxAge: '86400',
};
/** wifi-access-api.md §5: standard JSON methods, plus the headers the purchase flow sends. */
const WIFI = {
  methods: 'GET, POST, PATCH, DELETE, OPTIONS',
  headers: 'Content-Type, Idempotency-Key, X-Purchase-Key, X-Request-Id',
  maxAge: '86400',
};
const EXPOSE = 'X-Request-Id, X-Passkey-Token';

/**
 * The CORS step for one request: sets the headers, and answers a preflight itself. Returns true
 * when it answered (a preflight), false when the request goes on. A request without an Origin
 * header (every server-to-server call: token grants, userinfo) costs one header.
 */
export function corsStep(
  config: Pick<Config, 'corsAllowedOrigins' | 'adminOrigin' | 'portalOrigin'>,
): (req: HttpRequest, res: ServerResponse) => boolean {
  const identityOrigins = new Set(config.corsAllowedOrigins);
  const wifiOrigins = new Set(
    [config.adminOrigin, config.portalOrigin].filter((o): o is string => o !== null),
  );

  return (req, res) => {
    res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined) {
      // Not allowed, so no CORS headers; a preflight without an origin is still refused.
      if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined)
        return false;
      sendError(res, req.family, 403, 'origin not allowed');
      return true;
    }
    const policy = req.family === 'wifi' ? WIFI : IDENTITY;
    const allowed = (req.family === 'wifi' ? wifiOrigins : identityOrigins).has(origin);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

    // An allowed origin receives the whole set on every response (the identity spec lists them
    // without limiting them to preflights); browsers read the methods/headers/max-age on preflight.
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Allow-Methods', policy.methods);
      res.setHeader('Access-Control-Allow-Headers', policy.headers);
      res.setHeader('Access-Control-Max-Age', policy.maxAge);
    }
    if (!preflight) {
      if (allowed) res.setHeader('Access-Control-Expose-Headers', EXPOSE);
      return false;
    }
    if (!allowed) {
      sendError(res, req.family, 403, 'origin not allowed');
      return true;
    }
    res.statusCode = 204;
    res.end();
    return true;
  };
}
