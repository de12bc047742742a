import type { Page, Request } from 'playwright-core';
import t from 'tap';
import { addSocialProvider } from '../../src/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { rawRequest } from '../helpers/http.js';
import { verifiedUser } from '../helpers/identity.js';
import { authorizeQuery, consoleClient, pkcePair } from '../helpers/oauth.js';
import { staffClient } from '../helpers/staff.js';
import { aPlan } from '../helpers/wifi.js';

/**
 * Each page as Chromium loads it on a 320 px wide screen: nothing requested from another origin,
 * HTML + CSS + JS together under 50 KB as transferred (gzip), measured from what the browser
 * actually fetched, and nothing wider than the screen (no sideways scrolling).
 */
const BUDGET = 50 * 1024;
const NARROW = { width: 320, height: 640 };

/** No horizontal overflow: the document is no wider than the viewport. */
const scrollWidth = (page: Page): Promise<number> =>
  page.evaluate<number>('document.documentElement.scrollWidth');

t.test(
  'every page stays on our origin, under 50 KB gzip and within 320 px',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await aPlan(app.app);
    const user = await verifiedUser(app, 'budget@example.com');
    const client = await consoleClient(user);
    const adminSession = (await staffClient(app, 'owner')).cookies.get('admin_session') ?? '';
    // The longest provider name the login page may show, with the longest notice.
    await addSocialProvider(app.app.deps, {
      name: 'staff',
      displayName: 'Venue Headquarters Staff Directory 2026',
      issuer: 'https://idp.example',
      clientId: 'venue',
      clientSecret: 'secret',
    });
    const context = await launchBrowser(t, { viewport: NARROW });
    const foreign = foreignRequests(context, [app.base]);
    const session = user.cookies.get('svc_session') ?? '';
    const page = await firstPage(context);

    // Anonymous pages first; then the browser gets the session cookie for the others.
    const pages = [
      '/portal?res=notyet&uamip=10.1.0.1&uamport=3990&challenge=8b10938e9770a389af6667748c2c828f',
      '/login?error=social_email_unverified',
      '/register',
      '/forgot-password',
      '/reset-password?token=abc',
      '/admin/login',
      '/verify-email',
      `/consent?${authorizeQuery(client.clientId, pkcePair().challenge)}`,
      '/admin',
      '/admin/plans',
      '/admin/devices',
      '/admin/sessions',
      '/admin/guests',
      '/admin/invoices',
      '/admin/payments',
      '/admin/sms',
      '/admin/counter',
      '/admin/vouchers',
      '/admin/audit',
      '/admin/reports',
      '/account', // last: its MFA set-up is opened below
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
      t.ok((await scrollWidth(page)) <= NARROW.width, `${path}: no wider than 320 px`);
    }
    // The account page's two-step set-up adds a QR code and a long key.
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.locator('#mfa-qr svg').waitFor();
    t.ok(
      (await scrollWidth(page)) <= NARROW.width,
      '/account with the MFA set-up open: no wider than 320 px',
    );
    t.same(foreign, [], 'no request to another origin');
  },
);
