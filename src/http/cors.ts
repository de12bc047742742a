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

export function corsMiddleware(config: Pick<Config, 'corsAllowedOrigins' | 'adminOrigin' | 'portalOrigin'>) {
  const identityOrigins = new Set(config.corsAllowedOrigins);
  const wifiOrigins = new Set(
    [config.adminOrigin, config.portalOrigin].filter((o): o is string => o !== null),
  );

  return (req: HttpRequest, res: ServerResponse, next: () => void): void => {
    const origin = req.headers.origin;
    const policy = req.family === 'wifi' ? WIFI : IDENTITY;
    const allowed =
      origin !== undefined && (req.family === 'wifi' ? wifiOrigins : identityOrigins).has(origin);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

    res.setHeader('Vary', 'Origin');
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
      next();
      return;
    }
    if (!allowed) {
      sendError(res, req.family, 403, 'origin not allowed');
      return;
    }
    res.statusCode = 204;
    res.end();
  };
}
