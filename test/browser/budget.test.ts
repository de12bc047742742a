import type { Request } from 'playwright-core';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { rawRequest } from '../helpers/http.js';
import { verifiedUser } from '../helpers/identity.js';
import { authorizeQuery, consoleClient, pkcePair } from '../helpers/oauth.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan } from '../helpers/wifi.js';

/**
 * Each page as Chromium loads it: nothing requested from another origin, and HTML + CSS + JS
 * together under 50 KB as transferred (gzip), measured from what the browser actually fetched.
 */
const BUDGET = 50 * 1024;

t.test('every page stays on our origin and under 50 KB gzip', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  await aPlan(app.app);
  const user = await verifiedUser(app, 'budget@example.com');
  const client = await consoleClient(user);
  const context = await launchBrowser(t);
  const foreign = foreignRequests(context, [app.base]);
  const session = user.cookies.get('svc_session') ?? '';
  const adminSession = (await staffClient(app, 'owner')).cookies.get('admin_session') ?? '';
  const page = await firstPage(context);

  // Anonymous pages first; then the browser gets the session cookie for the others.
  const pages = [
    '/portal?res=notyet&uamip=10.1.0.1&uamport=3990&challenge=8b10938e9770a389af6667748c2c828f',
    '/login',
    '/register',
    '/forgot-password',
    '/reset-password?token=abc',
    '/admin/login',
    '/verify-email',
    `/consent?${authorizeQuery(client.clientId, pkcePair().challenge)}`,
    '/account',
    '/admin',
    '/admin/plans',
    '/admin/devices',
    '/admin/sessions',
    '/admin/guests',
    '/admin/invoices',
    '/admin/payments',
    '/admin/sms',
  ];
  const firstSignedIn = pages.indexOf('/verify-email');
  // Routing turns Chromium's HTTP cache off, so every page fetches all it needs.
  await context.route('**/*', (route) => route.continue());
  for (const [index, path] of pages.entries()) {
    const signedIn = index >= firstSignedIn;
    if (index === firstSignedIn)
      await context.addCookies([
        { name: 'svc_session', value: session, url: app.base },
        { name: 'admin_session', value: adminSession, url: app.base },
      ]);
    const urls: string[] = [];
    const listener = (request: Request): void => {
      if (['document', 'stylesheet', 'script'].includes(request.resourceType())) urls.push(request.url());
    };
    page.on('request', listener);
    await page.goto(`${app.base}${path}`, { waitUntil: 'networkidle' });
    page.off('request', listener);
    // Transfer size = the gzip body as the server sends it (Chromium asks for gzip too).
    let total = 0;
    for (const url of urls) {
      const res = await rawRequest(url, {
        headers: {
          'Accept-Encoding': 'gzip',
          ...(signedIn ? { Cookie: `svc_session=${session}; admin_session=${adminSession}` } : {}),
        },
      });
      t.equal(res.status, 200, url);
      total += res.body.length;
    }
    t.ok(
      urls.some((u) => u.endsWith('.css')) && urls.some((u) => u.endsWith('.js')),
      `${path}: CSS and JS counted`,
    );
    t.ok(total < BUDGET, `${path}: ${String(total)} bytes of HTML+CSS+JS`);
    t.comment(`${path.split('?')[0] ?? path}: ${String(total)} bytes gzip in ${String(urls.length)} files`);
  }
  t.same(foreign, [], 'no request to another origin');
});
