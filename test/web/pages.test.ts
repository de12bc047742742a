import t from 'tap';
import { safeNext } from '../../src/web/index.js';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { rawRequest } from '../helpers/http.js';
import { verifiedUser } from '../helpers/identity.js';
import { authorizeQuery, consoleClient, pkcePair } from '../helpers/oauth.js';

/** The pages over plain HTTP: security headers, redirects, assets and the `next` check. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

t.test('safeNext keeps next on our own origin', async (t) => {
  const refused = [
    '//evil.example',
    '//evil.example/path',
    'https://evil.example',
    'http:evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    // Dot segments that the URL parser folds into a path starting with `//` (a host to browsers).
    '/.//evil.example',
    '/..//evil.example',
    '/a/..//evil.example',
    '/%2e//evil.example',
    '/%2E%2E//evil.example/x',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,hi',
    ' /account',
    'evil.example',
    '',
    ['/account', '/x'],
    undefined,
  ];
  for (const raw of refused) t.equal(safeNext(raw), '/account', JSON.stringify(raw));
  t.equal(
    safeNext('/oauth/authorize?client_id=a&scope=openid%20email'),
    '/oauth/authorize?client_id=a&scope=openid%20email',
  );
  t.equal(safeNext('/consent#x'), '/consent#x');
  t.equal(safeNext('/a/../b'), '/b', 'normalised as the browser will');
  t.equal(safeNext('/%2F%2Fevil.example'), '/%2F%2Fevil.example', 'an encoded slash stays a path');
});

t.test('every page sends CSP, refuses framing and is not cached', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const user = await verifiedUser(app, 'pages@example.com');
  const client = await consoleClient(user);
  const consent = `/consent?${authorizeQuery(client.clientId, pkcePair().challenge)}`;
  const anonymous = ['/portal', '/login', '/register', '/forgot-password', '/reset-password?token=abc'];
  const signedIn = ['/account', '/verify-email', consent];
  for (const path of [...anonymous, ...signedIn]) {
    const cookie = signedIn.includes(path) ? { Cookie: user.cookieHeader() } : {};
    const res = await rawRequest(`${app.base}${path}`, { headers: cookie });
    t.equal(res.status, 200, path);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8', path);
    t.equal(res.headers['content-security-policy'], CSP, `${path}: CSP`);
    t.equal(res.headers['x-frame-options'], 'DENY', `${path}: X-Frame-Options`);
    t.equal(res.headers['cache-control'], 'no-store', `${path}: no-store`);
    t.equal(res.headers['referrer-policy'], 'no-referrer', path);
    t.notMatch(res.text, /<script(?![^>]*\b(src=|type="application\/json"))/, `${path}: no inline script`);
    t.notMatch(res.text, /\sstyle=|<style/, `${path}: no inline style`);
    t.notMatch(
      res.text,
      /(src="|<link[^>]*href=")(https?:)?\/\//,
      `${path}: nothing loaded from another origin`,
    );
  }
  for (const path of signedIn) {
    const res = await rawRequest(`${app.base}${path}`);
    t.equal(res.status, 303, `${path} without a session`);
    t.equal(
      res.headers.location,
      `/login?next=${encodeURIComponent(path === consent ? consent.replace('/consent', '/oauth/authorize') : path)}`,
    );
  }
});

t.test('the consent page lets images come from the https logo origin, and from no other', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const user = await verifiedUser(app, 'logo@example.com');
  const logo = 'https://cdn.partner.example/brand/logo.png?v=2';
  const withLogo = await consoleClient(user, { logoUrl: logo });
  const page = await rawRequest(
    `${app.base}/consent?${authorizeQuery(withLogo.clientId, pkcePair().challenge)}`,
    { headers: { Cookie: user.cookieHeader() } },
  );
  t.equal(page.status, 200);
  t.equal(
    page.headers['content-security-policy'],
    CSP.replace("img-src 'self'", "img-src 'self' https://cdn.partner.example"),
    'img-src adds exactly the logo origin (no path, no other host)',
  );
  t.match(page.text, `<img class="client-logo" src="${logo}" alt=""`);

  const plain = await consoleClient(user, {
    logoUrl: 'http://cdn.partner.example/logo.png',
    name: 'Plain App',
  });
  const refused = await rawRequest(
    `${app.base}/consent?${authorizeQuery(plain.clientId, pkcePair().challenge)}`,
    { headers: { Cookie: user.cookieHeader() } },
  );
  t.equal(refused.headers['content-security-policy'], CSP, 'an http: logo adds nothing');
  t.notMatch(refused.text, '<img', 'and is not shown');
});

t.test('names go into page strings as they are, $ patterns and all', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const user = await verifiedUser(app, 'dollar$&@example.com');
  const client = await consoleClient(user, { name: "Pay$'Now $& Co" });
  const page = await rawRequest(
    `${app.base}/consent?${authorizeQuery(client.clientId, pkcePair().challenge)}`,
    {
      headers: { Cookie: user.cookieHeader() },
    },
  );
  t.match(page.text, '<h1>Pay$&#39;Now $&amp; Co wants to use your account</h1>');
  t.match(page.text, '<p>If you allow it, Pay$&#39;Now $&amp; Co gets:</p>');
  t.match(page.text, 'Signed in as dollar$&amp;@example.com</p>');
});

t.test('assets are immutable under their version and nowhere else', async (t) => {
  const app = await startTestApp(t);
  const html = (await rawRequest(`${app.base}/login`)).text;
  const script = /<script type="module" src="([^"]+)"/.exec(html)?.[1] ?? '';
  t.match(script, /^\/assets\/[\w-]{12}\/login\.js$/);
  const res = await rawRequest(`${app.base}${script}`, { headers: { 'Accept-Encoding': 'gzip' } });
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
  t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(res.headers['content-encoding'], 'gzip');
  t.match(html, /<link rel="modulepreload" href="\/assets\/[\w-]{12}\/api\.js"/, 'imports are preloaded');
  const stale = await rawRequest(
    `${app.base}${script.replace(/\/assets\/[\w-]{12}\//, '/assets/oldversion00/')}`,
  );
  t.equal(stale.status, 404);
  t.equal((await rawRequest(`${app.base}${script.replace('login.js', '..%2Fpackage.json')}`)).status, 404);
});

t.test('a signed-in visit to /login goes straight to next, only on our origin', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const user = await verifiedUser(app, 'next@example.com');
  const cases: [string, string][] = [
    ['//evil.example', '/account'],
    ['https://evil.example/', '/account'],
    ['/\\evil.example', '/account'],
    ['javascript:alert(1)', '/account'],
    ['/.//evil.example', '/account'],
    ['/a/..//evil.example/x', '/account'],
    ['/oauth/authorize?client_id=x', '/oauth/authorize?client_id=x'],
  ];
  for (const [next, location] of cases) {
    const res = await user.get(`/login?next=${encodeURIComponent(next)}`);
    t.equal(res.status, 303, next);
    t.equal(res.headers.get('location'), location, next);
  }
  const anonymous = new Client(app.base);
  const page = await rawRequest(`${anonymous.base}/login?next=${encodeURIComponent('//evil.example')}`);
  t.match(page.text, /"next":"\/account"/, 'the page is handed the checked value');
  t.notMatch(page.text, /evil\.example/, 'the foreign target appears nowhere in the page');
});
