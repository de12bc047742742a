import { gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { strictObject } from '../../src/http/body.js';
import type { RateLimitStore } from '../../src/http/rate-limit.js';
import { defineRoute, type Route } from '../../src/http/route.js';
import { AppError } from '../../src/lib/errors.js';
import { startTestApp, waitFor } from '../helpers/app.js';
import { rawRequest } from '../helpers/http.js';

/** Routes that exercise the shared middleware; the product's routes use the same adapter. */
function probeRoutes(gate: { entered: boolean; release?: () => void }): Route[] {
  const echo = (api: 'identity' | 'wifi', path: string): Route =>
    defineRoute({
      method: 'POST',
      path,
      api,
      body: { kind: 'json', parse: (raw) => strictObject(raw, ['name']) },
      handler: ({ body }) => ({ data: { echoed: body.name } }),
    });
  return [
    echo('identity', '/probe/echo'),
    echo('wifi', '/api/v1/probe/echo'),
    defineRoute({
      method: 'GET',
      path: '/probe/big',
      api: 'identity',
      handler: () => ({ data: { items: Array.from({ length: 400 }, (_, i) => ({ i, text: 'hotspot' })) } }),
    }),
    ...(['identity', 'wifi'] as const).map((api) =>
      defineRoute({
        method: 'GET',
        path: api === 'wifi' ? '/api/v1/probe/hang' : '/probe/hang',
        api,
        handler: () =>
          new Promise((resolve) => {
            gate.entered = true;
            gate.release = () => resolve({ data: 'late' });
          }),
      }),
    ),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe/boom',
      api: 'wifi',
      handler: () => {
        throw new Error('database exploded at /secret/path');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/probe/boom',
      api: 'identity',
      handler: () => {
        throw new Error('database exploded at /secret/path');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/probe/teapot',
      api: 'identity',
      handler: () => {
        throw new AppError('teapot', 418, 'short and stout', { details: ['handle', 'spout'] });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/probe/limited',
      api: 'identity',
      limiter: 'login',
      handler: () => ({ message: 'ok' }),
    }),
  ];
}

t.test('X-Request-Id is echoed when sent and generated otherwise', async (t) => {
  const { base } = await startTestApp(t);
  const echoed = await rawRequest(`${base}/healthz`, { headers: { 'X-Request-Id': 'req-abc.123' } });
  t.equal(echoed.headers['x-request-id'], 'req-abc.123');
  const generated = await rawRequest(`${base}/healthz`);
  t.match(generated.headers['x-request-id'], /^[0-9a-f-]{36}$/);
  const notFound = await rawRequest(`${base}/no/such/route`);
  t.match(notFound.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'on errors too');
  const spaced = await rawRequest(`${base}/healthz`, {
    headers: { 'X-Request-Id': 'has spaces and {braces}' },
  });
  t.equal(spaced.headers['x-request-id'], 'has spaces and {braces}', 'any printable id is echoed');
  const long = await rawRequest(`${base}/healthz`, { headers: { 'X-Request-Id': 'x'.repeat(201) } });
  t.match(long.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'an overlong id is replaced');
  const latin = await rawRequest(`${base}/healthz`, { headers: { 'X-Request-Id': 'caf\u00e9' } });
  t.match(latin.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'a non-ASCII id is replaced');
});

t.test('identity CORS: preflight and requests from allowed and refused origins', async (t) => {
  const { base } = await startTestApp(t, { env: { CORS_ALLOWED_ORIGINS: 'https://app.example.com' } });
  const pre = await rawRequest(`${base}/auth/login`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' },
  });
  t.equal(pre.status, 204);
  t.equal(pre.headers['access-control-allow-origin'], 'https://app.example.com');
  t.equal(pre.headers['access-control-allow-credentials'], 'true');
  t.equal(pre.headers['access-control-allow-methods'], 'GET, POST, PATCH, DELETE, OPTIONS');
  t.notMatch(pre.headers['access-control-allow-methods'], /PUT/);
  t.equal(pre.headers['access-control-allow-headers'], 'Content-Type, Authorization, X-Request-Id');
  t.equal(pre.headers['access-control-max-age'], '86400');

  const refused = await rawRequest(`${base}/auth/login`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
  });
  t.equal(refused.status, 403);
  t.equal(refused.headers['access-control-allow-origin'], undefined);

  const actual = await rawRequest(`${base}/healthz`, { headers: { Origin: 'https://app.example.com' } });
  t.equal(actual.headers['access-control-allow-origin'], 'https://app.example.com');
  t.equal(actual.headers['access-control-allow-credentials'], 'true');
  t.equal(actual.headers['access-control-allow-methods'], 'GET, POST, PATCH, DELETE, OPTIONS');
  t.equal(actual.headers['access-control-allow-headers'], 'Content-Type, Authorization, X-Request-Id');
  t.equal(actual.headers['access-control-max-age'], '86400');
  const other = await rawRequest(`${base}/healthz`, { headers: { Origin: 'https://evil.example' } });
  t.equal(other.status, 200, 'the server answers; the browser withholds it');
  t.equal(other.headers['access-control-allow-origin'], undefined);
});

t.test('Wi-Fi CORS: only ADMIN_ORIGIN and PORTAL_ORIGIN, with credentials', async (t) => {
  const { base } = await startTestApp(t, {
    env: {
      ADMIN_ORIGIN: 'https://admin.venue.test',
      PORTAL_ORIGIN: 'http://portal.venue.test:8000',
      CORS_ALLOWED_ORIGINS: 'https://app.example.com',
    },
  });
  for (const origin of ['https://admin.venue.test', 'http://portal.venue.test:8000']) {
    const pre = await rawRequest(`${base}/api/v1/public/purchases`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'idempotency-key',
      },
    });
    t.equal(pre.status, 204, origin);
    t.equal(pre.headers['access-control-allow-origin'], origin);
    t.equal(pre.headers['access-control-allow-credentials'], 'true');
    t.match(pre.headers['access-control-allow-headers'], /Idempotency-Key/);
  }
  const identityOrigin = await rawRequest(`${base}/api/v1/health`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' },
  });
  t.equal(identityOrigin.status, 403, 'the identity allow-list does not open the Wi-Fi API');
  t.same(identityOrigin.json(), { message: 'origin not allowed' });
  const actual = await rawRequest(`${base}/api/v1/health`, {
    headers: { Origin: 'https://admin.venue.test' },
  });
  t.equal(actual.headers['access-control-allow-origin'], 'https://admin.venue.test');
  const wrong = await rawRequest(`${base}/api/v1/health`, { headers: { Origin: 'https://app.example.com' } });
  t.equal(wrong.headers['access-control-allow-origin'], undefined);
});

t.test('responses are gzip-compressed when the client accepts it', async (t) => {
  const gate = { entered: false };
  const { base } = await startTestApp(t, { extraRoutes: () => probeRoutes(gate) });
  const zipped = await rawRequest(`${base}/probe/big`, { headers: { 'Accept-Encoding': 'gzip' } });
  t.equal(zipped.headers['content-encoding'], 'gzip');
  const body = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as { data: { items: unknown[] } };
  t.equal(body.data.items.length, 400);
  t.ok(zipped.body.length < 2000, `compressed to ${String(zipped.body.length)} bytes`);
  const plain = await rawRequest(`${base}/probe/big`);
  t.equal(plain.headers['content-encoding'], undefined);
  t.equal((plain.json() as { data: { items: unknown[] } }).data.items.length, 400);
});

t.test('bodies over 1 MiB get 413 in the family shape, by header or by counting', async (t) => {
  const gate = { entered: false };
  const { base } = await startTestApp(t, { extraRoutes: () => probeRoutes(gate) });
  const big = Buffer.alloc(1024 * 1024 + 10, 'a');
  const declared = await rawRequest(`${base}/probe/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) },
    body: big,
  });
  t.equal(declared.status, 413);
  t.same(declared.json(), { success: false, message: 'request body too large' });
  const chunked = await rawRequest(`${base}/api/v1/probe/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    body: [big.subarray(0, 600_000), big.subarray(600_000)],
  });
  t.equal(chunked.status, 413);
  t.same(chunked.json(), { message: 'request body too large' });
  const justUnder = `{"name":"${'x'.repeat(1024 * 1024 - 20)}"}`;
  const ok = await rawRequest(`${base}/probe/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: justUnder,
  });
  t.equal(ok.status, 200, 'a body just under the limit is accepted');
});

t.test('malformed JSON, unknown fields and a wrong content type are 4xx in the family shape', async (t) => {
  const gate = { entered: false };
  const { base } = await startTestApp(t, { extraRoutes: () => probeRoutes(gate) });
  const post = (path: string, body: string, type = 'application/json') =>
    rawRequest(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': type }, body });
  const idBad = await post('/probe/echo', '{"name":');
  t.equal(idBad.status, 400);
  t.same(idBad.json(), { success: false, message: 'invalid request body' });
  const wifiBad = await post('/api/v1/probe/echo', '{oops');
  t.equal(wifiBad.status, 400);
  t.same(wifiBad.json(), { message: 'invalid request body' });
  const unknown = await post('/api/v1/probe/echo', '{"name":"a","extra":1}');
  t.equal(unknown.status, 400);
  const type = await post('/probe/echo', '{"name":"a"}', 'text/plain');
  t.equal(type.status, 415);
  t.same(type.json(), { success: false, message: 'content type must be application/json' });
  const good = await post('/api/v1/probe/echo', '{"name":"a"}', 'application/json; charset=utf-8');
  t.equal(good.status, 200);
  t.same(good.json(), { data: { echoed: 'a' } });
});

/** An app whose request timeout is 5 s, with the probe routes (`gate` sees the hanging handlers). */
async function hangingApp(t: Test) {
  const gate: { entered: boolean; release?: () => void } = { entered: false };
  return {
    gate,
    ...(await startTestApp(t, { extraRoutes: () => probeRoutes(gate), requestTimeoutMs: 5000 })),
  };
}

t.test('a handler slower than the timeout gets the timeout answer; its late result is dropped', async (t) => {
  const { gate, base, clock, logs } = await hangingApp(t);
  const pending = rawRequest(`${base}/probe/hang`);
  await waitFor(() => gate.entered, 'the handler to start');
  clock.advance('4s');
  t.notOk(logs.events('http.timeout').length, 'not before its time');
  clock.advance('2s');
  const res = await pending;
  t.equal(res.status, 503);
  t.same(res.json(), { success: false, message: 'request timed out' });
  gate.release?.();
  const after = await rawRequest(`${base}/healthz`);
  t.equal(after.status, 200, 'the server carries on');
  t.equal(logs.events('http.timeout').length, 1);

  gate.entered = false;
  const wifi = rawRequest(`${base}/api/v1/probe/hang`);
  await waitFor(() => gate.entered, 'the Wi-Fi handler to start');
  clock.advance('6s');
  const wifiRes = await wifi;
  t.equal(wifiRes.status, 503);
  t.same(wifiRes.json(), { message: 'request timed out' }, 'the Wi-Fi API keeps its {message} envelope');
  gate.release?.();
});

t.test('one timer serves every request: each times out at its own deadline, never before', async (t) => {
  const { gate, base, clock, logs } = await hangingApp(t);
  const first = rawRequest(`${base}/probe/hang`);
  await waitFor(() => gate.entered, 'the first handler to start');
  const releaseFirst = gate.release;
  clock.advance('3s');
  gate.entered = false;
  const second = rawRequest(`${base}/api/v1/probe/hang`);
  await waitFor(() => gate.entered, 'the second handler to start');
  const releaseSecond = gate.release;
  // A request answered in time between them leaves nothing behind to fire.
  t.equal((await rawRequest(`${base}/healthz`)).status, 200);

  clock.advance(2500); // 5.5 s after the first, 2.5 s after the second
  const firstRes = await first;
  t.equal(firstRes.status, 503, 'the first request timed out at its deadline');
  t.same(firstRes.json(), { success: false, message: 'request timed out' });
  t.equal(logs.events('http.timeout').length, 1, 'the second is not answered with it');

  clock.advance('2s'); // 4.5 s after the second
  t.equal(logs.events('http.timeout').length, 1, 'nor before its own deadline');
  clock.advance('1s');
  const secondRes = await second;
  t.equal(secondRes.status, 503, 'the second request timed out at its own deadline');
  t.same(secondRes.json(), { message: 'request timed out' });
  t.equal(logs.events('http.timeout').length, 2);
  releaseFirst?.();
  releaseSecond?.();

  // Afterwards: a fast request is never answered late, however far the clock moves.
  t.equal((await rawRequest(`${base}/healthz`)).status, 200);
  clock.advance('1h');
  t.equal(logs.events('http.timeout').length, 2, 'no timeout for requests that were answered');
});

t.test(
  'unexpected errors are a bare 500, logged with the request id; AppErrors keep status and details',
  async (t) => {
    const gate = { entered: false };
    const { base, logs } = await startTestApp(t, { extraRoutes: () => probeRoutes(gate) });
    const boom = await rawRequest(`${base}/api/v1/probe/boom`, { headers: { 'X-Request-Id': 'trace-500' } });
    t.equal(boom.status, 500);
    t.same(boom.json(), { message: 'internal server error' });
    t.notMatch(boom.text, /exploded|secret|at /);
    const logged = logs.events('http.unhandled_error');
    t.equal(logged.length, 1);
    t.equal(logged[0]?.request_id, 'trace-500');
    t.match(JSON.stringify(logged[0]?.err), /database exploded/);
    const identityBoom = await rawRequest(`${base}/probe/boom`);
    t.equal(identityBoom.status, 500);
    t.same(identityBoom.json(), { success: false, message: 'internal server error' }, 'identity envelope');
    t.notMatch(identityBoom.text, /exploded|secret|at /);
    const teapot = await rawRequest(`${base}/probe/teapot`);
    t.equal(teapot.status, 418);
    t.same(teapot.json(), { success: false, message: 'short and stout', errors: ['handle', 'spout'] });
  },
);

t.test('unknown routes are 404 in the family shape', async (t) => {
  const { base } = await startTestApp(t);
  const id = await rawRequest(`${base}/nowhere`);
  t.equal(id.status, 404);
  t.same(id.json(), { success: false, message: 'not found' });
  const wifi = await rawRequest(`${base}/api/v1/nowhere`);
  t.equal(wifi.status, 404);
  t.same(wifi.json(), { message: 'not found' });
});

t.test('rate limits: per client IP, X-Forwarded-For believed only from a trusted peer', async (t) => {
  const hit = (base: string, xff?: string) =>
    rawRequest(`${base}/probe/limited`, { method: 'POST', headers: xff ? { 'X-Forwarded-For': xff } : {} });

  t.test('trusted loopback proxy: each forwarded client has its own budget', async (t) => {
    const gate = { entered: false };
    const { base, clock } = await startTestApp(t, {
      extraRoutes: () => probeRoutes(gate),
      env: { TRUST_PROXY: 'loopback' },
    });
    for (let i = 0; i < 10; i++) t.equal((await hit(base, '203.0.113.7, 10.0.0.1')).status, 200);
    const limited = await hit(base, '203.0.113.7');
    t.equal(limited.status, 429);
    t.same(limited.json(), { success: false, message: 'too many requests, try again later' });
    t.ok(Number(limited.headers['retry-after']) > 0);
    t.equal((await hit(base, '198.51.100.9')).status, 200, 'another client is not affected');
    clock.advance('1m');
    t.equal((await hit(base, '203.0.113.7')).status, 200, 'a new window starts');
  });

  t.test('untrusted peer: X-Forwarded-For is ignored, so it cannot dodge the limit', async (t) => {
    const gate = { entered: false };
    const { base } = await startTestApp(t, {
      extraRoutes: () => probeRoutes(gate),
      env: { TRUST_PROXY: 'none' },
    });
    for (let i = 0; i < 10; i++) t.equal((await hit(base, `198.51.100.${String(i)}`)).status, 200);
    t.equal((await hit(base, '198.51.100.200')).status, 429);
  });

  t.test('a failing counter store fails open', async (t) => {
    const gate = { entered: false };
    const broken: RateLimitStore = {
      increment: () => {
        throw new Error('store down');
      },
      prune: () => undefined,
    };
    const { base, logs } = await startTestApp(t, {
      extraRoutes: () => probeRoutes(gate),
      rateLimitStore: broken,
    });
    for (let i = 0; i < 15; i++) t.equal((await hit(base)).status, 200);
    t.equal(logs.events('rate_limit.store_failed').length, 15);
  });
});

t.test(
  'the access log has one line per request with method, route, status, duration and id, and no secrets',
  async (t) => {
    const gate = { entered: false };
    const { base, logs } = await startTestApp(t, { extraRoutes: () => probeRoutes(gate) });
    await rawRequest(`${base}/probe/echo?token=query-secret-123`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Cookie: 'svc_session=cookie-secret-456',
        Authorization: 'Bearer bearer-secret-789',
        'X-Request-Id': 'log-check',
      },
      body: '{"name":"body-secret-000"}',
    });
    await waitFor(
      () => logs.events('http.request').some((l) => l.request_id === 'log-check'),
      'the access log line',
    );
    const line = logs.events('http.request').find((l) => l.request_id === 'log-check');
    t.match(line, { method: 'POST', route: 'POST /probe/echo', status: 200, request_id: 'log-check' });
    t.type(line?.duration_ms, 'number');
    const all = logs.raw.join('\n');
    for (const secret of ['query-secret-123', 'cookie-secret-456', 'bearer-secret-789', 'body-secret-000']) {
      t.notMatch(all, secret, `${secret} is not logged`);
    }
  },
);
