import { isIP } from 'node:net';
import { readCookie } from '../http/cookies.js';
import { defineRoute, type Route } from '../http/route.js';
import type { HttpRequest } from '../http/types.js';
import { AppError } from '../lib/errors.js';
import { bearerToken } from '../oauth/bearer.http.js';
import { ADMIN_COOKIE, authenticateAdmin } from '../wifi/index.js';
import { isMetricsToken } from './metrics-token.js';
import { collectMetrics, CONTENT_TYPE, type MetricsSources } from './metrics.js';

type Deps = MetricsSources;

const notFound = (): AppError => new AppError('not_found', 404, 'not found');
const forbidden = (): AppError =>
  new AppError(
    'forbidden',
    403,
    'metrics are for loopback clients, signed-in staff and the metrics token (hotspot-ctl metrics token)',
  );

/** The client (after TRUST_PROXY) is this box itself. */
const loopback = (ip: string): boolean => ip === '::1' || (isIP(ip) === 4 && ip.startsWith('127.'));

/**
 * GET /metrics (DESIGN.md §4.10): off unless METRICS=on (404, as if there were no such route);
 * then answered to loopback clients (a Prometheus or node exporter on the box, or a reverse proxy
 * that forwards the client's address, TRUST_PROXY), to any signed-in staff member, and to a
 * scraper elsewhere that presents the metrics token as `Authorization: Bearer …`
 * (metrics-token.ts); 403 to anyone else, a wrong token included.
 */
export function metricsRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/metrics',
      api: 'wifi',
      auth: async (req: HttpRequest) => {
        if (deps.config.metrics !== 'on') throw notFound();
        if (loopback(req.ip)) return;
        const bearer = bearerToken(req);
        if (bearer && (await isMetricsToken(deps.db, bearer))) return;
        const token = readCookie(req, ADMIN_COOKIE);
        if (token && (await authenticateAdmin(deps, token))) return;
        throw forbidden();
      },
      handler: async () => ({ body: await collectMetrics(deps), type: CONTENT_TYPE }),
    }),
  ];
}
