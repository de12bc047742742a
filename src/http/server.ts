import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import polka, { type NextHandler } from 'polka';
import type { Config } from '../config/index.js';
import type { Clock, Timer } from '../lib/clock.js';
import { lazy } from '../lib/lazy.js';
import { uuid } from '../lib/crypto.js';
import { isAppError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import { clientIp } from './client-ip.js';
import { corsStep } from './cors.js';
import { errorBody, sendError, sendJson } from './envelope.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestCounts } from './request-counts.js';
import { renderError, type HttpRuntime, type Route } from './route.js';
import { familyOf, type HttpRequest } from './types.js';

export const REQUEST_TIMEOUT_MS = 30_000;
/** An incoming id is echoed as the spec says, unless it is empty, longer than 200 or not printable ASCII. */
const REQUEST_ID = /^[\x20-\x7e]{1,200}$/;

export interface HttpServerOptions {
  config: Pick<Config, 'trustProxy' | 'corsAllowedOrigins' | 'adminOrigin' | 'portalOrigin'>;
  clock: Clock;
  log: Logger;
  limiter: RateLimiter;
  routes: readonly Route[];
  /** Tests shorten this; everyone else gets the 30 s of both specs. */
  requestTimeoutMs?: number;
  /** Where each answered request is counted (GET /metrics), if anywhere. */
  requestCounts?: RequestCounts;
}

export interface HttpServer {
  readonly server: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void>;
  readonly inFlight: number;
}

export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { config, clock, log, limiter } = options;
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const runtime: HttpRuntime = { limiter, log, clock };
  /** Requests not yet closed, in arrival order, with their timeout deadline (clock ms). */
  const open = new Map<ServerResponse, { req: HttpRequest; started: number; deadline: number }>();
  let closing = false;
  let closed = false;

  const app = polka<HttpRequest>({
    onNoMatch: (req, res) => {
      sendError(res, req.family, 404, 'not found');
    },
    onError: (err, req, res) => {
      if (!isAppError(err)) {
        log.error(
          { event: 'http.unhandled_error', request_id: req.id, route: req.routeName, err },
          'unhandled error',
        );
      }
      renderError(res, req.family, err);
    },
  });

  // The access line's fields are fixed and carry nothing from bodies, headers or query strings,
  // so it skips pino's redaction (the safety net of every other line), which costs this hot line
  // more than the rest of the log call: about 45 µs a request in bench:oauth.
  const accessLog = log.child({}, { redact: { paths: [], censor: '[redacted]' } });

  // compression (and the MIME database it reads) is loaded by the first request that can take a
  // compressed answer, not at start: bench/footprint.ts.
  const gzip = lazy('compression', async () => (await import('compression')).default());
  const cors = corsStep(config);

  /**
   * The request timeout: one timer for all requests instead of one each (docs/decisions/0042).
   * It is set for the earliest deadline of the requests still waiting and, when it fires, answers
   * every request due and is set again for the next deadline. A request that finished in time
   * costs its map entry only; under steady load the timer fires about once per timeout.
   */
  let sweep: Timer | null = null;
  const armSweep = (): void => {
    if (sweep !== null || closed) return;
    let earliest = Infinity;
    for (const [res, entry] of open)
      if (!entry.req.timedOut && !res.headersSent && entry.deadline < earliest) earliest = entry.deadline;
    if (earliest === Infinity) return;
    sweep = clock.setTimer(Math.max(0, earliest - clock.now().getTime()), runSweep);
  };
  const runSweep = (): void => {
    sweep = null;
    const now = clock.now().getTime();
    for (const [res, { req, deadline }] of open) {
      if (deadline > now || res.headersSent || req.timedOut) continue;
      req.timedOut = true;
      log.warn(
        { event: 'http.timeout', route: req.routeName ?? 'unmatched', request_id: req.id },
        'request timed out',
      );
      sendJson(res, 503, errorBody(req.family, 'request timed out'), { Connection: 'close' });
    }
    armSweep();
  };

  /** Once per answered request: metrics, the access line, and the shutdown's idle sweep. */
  function finished(this: ServerResponse): void {
    const entry = open.get(this);
    if (!entry) return;
    open.delete(this);
    if (open.size === 0 && sweep !== null) {
      // Nothing left to time out: no timer outlives the last request (an idle daemon has none).
      sweep.cancel();
      sweep = null;
    }
    const { req } = entry;
    // routeName is "<METHOD> <path template>" (route.ts); the template alone is the label.
    const route = req.routeName?.slice(req.routeName.indexOf(' ') + 1) ?? 'unmatched';
    options.requestCounts?.add(req.method, route, this.statusCode);
    accessLog.info(
      {
        event: 'http.request',
        method: req.method,
        route: req.routeName ?? 'unmatched',
        status: this.statusCode,
        duration_ms: Math.round((performance.now() - entry.started) * 10) / 10,
        request_id: req.id,
      },
      'request',
    );
    if (closing) server.closeIdleConnections();
  }

  // The one middleware every request passes (a short path: one function, one close listener):
  // request id, client address, family, access log; the request timeout; CORS per family; gzip
  // only for a client that accepts it.
  app.use((req: HttpRequest, res: ServerResponse, next: NextHandler) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && REQUEST_ID.test(given) ? given : uuid();
    req.ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustProxy);
    req.family = familyOf(req.path);
    res.setHeader('X-Request-Id', req.id);
    open.set(res, { req, started, deadline: clock.now().getTime() + timeoutMs });
    if (sweep === null) armSweep();
    if (closing) res.setHeader('Connection', 'close');
    res.on('close', finished);
    if (cors(req, res)) return;
    // Only wrap the response when the client can take a compressed one.
    const accepts = req.headers['accept-encoding'];
    if (accepts === undefined || !/\b(gzip|deflate|br)\b/.test(accepts)) {
      void next();
      return;
    }
    gzip().then(
      (middleware) => middleware(req, res, (err) => void next(err instanceof Error ? err : undefined)),
      (err: unknown) => void next(err instanceof Error ? err : new Error(String(err))),
    );
  });

  for (const route of options.routes) {
    app.add(route.method, route.path, (req: HttpRequest, res: ServerResponse) =>
      route.handle(req, res, runtime),
    );
  }

  // polka matches a path against every route's pattern, in order, on every request (about 110
  // patterns). The match depends only on the method and the path, and the routes are fixed from
  // here on, so the answer for a route's own static path is kept: a bounded map, one entry per
  // static route at most (anything else, parameters or unknown paths, is matched as before).
  const staticPaths = new Set(
    options.routes.filter((r) => !/[:*]/.test(r.path)).map((r) => `${r.method} ${r.path}`),
  );
  const matched = new Map<string, ReturnType<typeof app.find>>();
  const find = app.find.bind(app);
  app.find = (method, path) => {
    const key = `${method} ${path}`;
    let found = matched.get(key);
    if (found === undefined) {
      found = find(method, path);
      if (!staticPaths.has(key)) return found;
      matched.set(key, found);
    }
    // polka keeps the params object as req.params, and decodes into it: each request its own.
    return { params: { ...found.params }, handlers: found.handlers };
  };

  const server = createServer((req, res) => {
    void app.handler(req as HttpRequest, res, undefined as unknown as NextHandler);
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = timeoutMs + 10_000;

  return {
    server,
    get inFlight() {
      return open.size;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close(graceMs) {
      closing = true;
      return new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        for (const res of open.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
        const cutoff = clock.setTimer(graceMs, () => {
          if (open.size > 0)
            log.warn({ event: 'http.shutdown_cut', in_flight: open.size }, 'cutting requests');
          server.closeAllConnections();
        });
        server.close(() => {
          cutoff.cancel();
          closed = true;
          sweep?.cancel();
          sweep = null;
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
