import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../lib/clock.js';
import { isAppError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import { parseFormBody, parseJsonBody, readRawBody } from './body.js';
import { errorBody, identityOk, sendJson } from './envelope.js';
import type { LimiterName, RateLimiter } from './rate-limit.js';
import type { ApiFamily, HttpRequest } from './types.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
type Headers = Record<string, string | readonly string[]>;

/** What a handler returns; the adapter renders it in the route's family envelope. */
export type RouteResult =
  /** identity: `{success:true,data?,message?}`; Wi-Fi: `{data}` (or `{message}`). */
  | { status?: number; data?: unknown; message?: string; headers?: Headers }
  /** A JSON body sent as is (OAuth token, discovery, JWKS, passkey finish). */
  | { status?: number; raw: unknown; headers?: Headers }
  | { status?: number; html: string; headers?: Headers }
  /** Any other body with its own content type (the pages' static assets). */
  | { status?: number; body: string | Buffer; type: string; headers?: Headers }
  /**
   * A body written as it is made (a CSV export of any length), with backpressure: the next chunk
   * is asked for when the socket has taken the last, so the event loop serves others between.
   */
  | { status?: number; stream: AsyncIterable<string>; type: string; headers?: Headers }
  | { status?: 301 | 302 | 303 | 307; redirect: string; headers?: Headers }
  | { status: 204; empty: true; headers?: Headers };

/** How a route reads its body; the parse step is the route's strict schema. */
export type BodySpec<B> =
  /**
   * `optional`: a request with no body at all is read as `{}` (a POST whose path names all it
   * needs, its JSON fields optional); any body sent is JSON and parsed as usual.
   */
  | { kind: 'json'; parse: (raw: unknown) => B; optional?: boolean }
  | { kind: 'form'; parse: (form: URLSearchParams) => B }
  | { kind: 'raw'; parse: (raw: Buffer) => B };

export interface RouteContext<B, P> {
  req: HttpRequest;
  res: ServerResponse;
  body: B;
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string>>;
  /** What the route's `auth` step returned. */
  principal: P;
  ip: string;
}

export interface RouteSpec<B, P> {
  method: Method;
  path: string;
  api: ApiFamily;
  /** Fixed-window per-IP limiter, counted before anything else. */
  limiter?: LimiterName;
  /**
   * A fixed-window per-IP limiter of failed guesses: a 401 or 404 answer (a wrong login, an
   * unknown code) counts; past its budget every request is refused with 429 until the window ends.
   */
  failureLimiter?: LimiterName;
  /** Authenticates the request or throws an AppError (401/403). */
  auth?: (req: HttpRequest, res: ServerResponse) => P | Promise<P>;
  body?: BodySpec<B>;
  /** Renders thrown AppErrors itself (e.g. OAuth's raw `{error, error_description}`). */
  renderError?: (err: unknown) => { status: number; body: unknown; headers?: Headers } | undefined;
  handler: (ctx: RouteContext<B, P>) => RouteResult | Promise<RouteResult>;
}

/** What the adapter needs from the server at run time. */
export interface HttpRuntime {
  limiter: RateLimiter;
  log: Logger;
  clock: Clock;
}

/** A route with its types erased: what the server mounts. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly api: ApiFamily;
  readonly limiter: LimiterName | undefined;
  handle(req: HttpRequest, res: ServerResponse, rt: HttpRuntime): Promise<void>;
}

/**
 * The route adapter: limiter → auth → body → handler → render, with every throw rendered in the
 * route's own error shape. Handlers never touch `res` and never catch.
 */
export function defineRoute<B = undefined, P = undefined>(spec: RouteSpec<B, P>): Route {
  return {
    method: spec.method,
    path: spec.path,
    api: spec.api,
    limiter: spec.limiter,
    async handle(req, res, rt) {
      req.routeName = `${spec.method} ${spec.path}`;
      let attempt: { takeBack(): Promise<void> } | undefined;
      try {
        if (spec.limiter) await rt.limiter.hit(spec.limiter, req.ip);
        attempt = spec.failureLimiter ? await rt.limiter.attempt(spec.failureLimiter, req.ip) : undefined;
        const principal = (spec.auth ? await spec.auth(req, res) : undefined) as P;
        const body = (spec.body ? await readBody(req, spec.body) : undefined) as B;
        const result = await spec.handler({
          req,
          res,
          body,
          params: req.params,
          query: singleValues(req.query),
          principal,
          ip: req.ip,
        });
        const answered = attempt;
        attempt = undefined; // taken back once, whatever render does
        await answered?.takeBack();
        await render(res, spec.api, result);
      } catch (err) {
        // Anything not meant for the caller is logged here, whoever renders it.
        if (!isAppError(err)) {
          rt.log.error(
            { event: 'http.unhandled_error', request_id: req.id, route: req.routeName, err },
            'unhandled error',
          );
        }
        // Only a wrong guess keeps counting; anything else (a bad router parameter) is given back.
        if (attempt && !(isAppError(err) && (err.status === 401 || err.status === 404)))
          await attempt.takeBack();
        // A stream that failed part-way: the status is sent, so the client sees a cut connection.
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const custom = spec.renderError?.(err);
        if (custom) {
          sendJson(res, custom.status, custom.body, custom.headers);
          return;
        }
        renderError(res, spec.api, err);
      }
    },
  };
}

async function readBody<B>(req: HttpRequest, spec: BodySpec<B>): Promise<B> {
  const raw = await readRawBody(req);
  switch (spec.kind) {
    case 'json':
      return spec.parse(spec.optional && raw.length === 0 ? {} : parseJsonBody(req, raw));
    case 'form':
      return spec.parse(parseFormBody(req, raw));
    case 'raw':
      return spec.parse(raw);
  }
}

async function render(res: ServerResponse, family: ApiFamily, result: RouteResult): Promise<void> {
  if (res.headersSent || res.writableEnded) return;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if ('stream' in result) {
    res.statusCode = result.status ?? 200;
    res.setHeader('Content-Type', result.type);
    await pipeline(Readable.from(result.stream), res);
  } else if ('redirect' in result) {
    res.statusCode = result.status ?? 302;
    res.setHeader('Location', result.redirect);
    res.end();
  } else if ('empty' in result) {
    res.statusCode = 204;
    res.end();
  } else if ('html' in result) {
    res.statusCode = result.status ?? 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(result.html);
  } else if ('body' in result) {
    res.statusCode = result.status ?? 200;
    res.setHeader('Content-Type', result.type);
    res.end(result.body);
  } else if ('raw' in result) {
    sendJson(res, result.status ?? 200, result.raw);
  } else if (family === 'identity') {
    sendJson(res, result.status ?? 200, identityOk(result.data, result.message));
  } else {
    sendJson(
      res,
      result.status ?? 200,
      result.data === undefined ? { message: result.message } : { data: result.data },
    );
  }
}

/** AppErrors keep their status and message; anything else becomes a bare 500 (logged by the caller). */
export function renderError(res: ServerResponse, family: ApiFamily, err: unknown): void {
  if (isAppError(err)) {
    sendJson(res, err.status, errorBody(family, err.message, err.details), err.headers);
    return;
  }
  sendJson(res, 500, errorBody(family, 'internal server error'));
}

/**
 * polka parses a repeated query parameter into an array although its types say string: keep
 * the first value, so no handler meets an array (routes that must refuse repeats read req.search).
 */
function singleValues(query: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[key] = first;
  }
  return out;
}
