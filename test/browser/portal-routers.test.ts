import { randomBytes, randomInt } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { BrowserContext, Page, Route } from 'playwright-core';
import t, { type Test } from 'tap';
import { cliActor, createBatch } from '../../src/wifi/index.js';
import { mikrotikLoginHtml } from '../../src/wifi/router-config.js';
import { waitFor, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { radclient, SECRET, startRadiusApp, type RadclientReply } from '../helpers/radius.js';
import {
  aDevice,
  aPaidPurchase,
  aPlan,
  credentialsOf,
  postSandboxEvent,
  succeeded,
  wifiRows,
} from '../helpers/wifi.js';

/**
 * The captive portal on the routers venues use, in headless Chromium (issue 17):
 * - MikroTik end to end: a fake RouterOS serves our generated login.html with its variables
 *   filled in, the page goes to the portal, the guest pays, and the portal hands the browser to
 *   the router's /login, where the fake router checks the HTTP-CHAP response the way RouterOS
 *   does: it sends CHAP-Password = chap-id ‖ response with the challenge to our RADIUS server
 *   (through FreeRADIUS's radclient) and logs the guest in only on an Access-Accept;
 * - CoovaChilli sending the guest back after a login (`res=success`, no challenge);
 * - a login the guest types, and a router the box does not know.
 */

const ROUTER = 'http://10.5.50.1';
const UAM = 'http://10.1.0.1:3990';
const octal = (bytes: Buffer): string =>
  [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
const md5 = (...parts: (Buffer | string)[]) =>
  parts.reduce((h, p) => h.update(p), createHash('md5')).digest();

interface RouterLogin {
  username: string;
  password: string;
  dst: string | null;
  reply: RadclientReply | undefined;
  /** What radclient printed, for a failure's message. */
  output: string;
}

/**
 * A MikroTik hotspot as far as the guest's browser sees it: login.html with RouterOS's servlet
 * variables substituted, and /login, which asks RADIUS as RouterOS would.
 */
async function fakeRouterOs(context: BrowserContext, app: TestApp & { auth: number }, portalUrl: string) {
  // A control character (1-31): radclient takes a CHAP-Password whose 17 octets happen to read as
  // printable text for a cleartext password and re-encodes it (a wrong response: the login is
  // refused), e.g. 0xfcc7248afc212e9c6bc89f7d56548f369d. A leading control octet never reads so.
  const chapId = Buffer.from([randomInt(1, 32)]);
  const challenge = randomBytes(16);
  const logins: RouterLogin[] = [];
  let error = '';
  const variables = (): Record<string, string> => ({
    identity: 'bar-01',
    mac: '11:22:33:44:55:66',
    ip: '10.5.50.7',
    'link-login-only': `${ROUTER}/login`,
    'chap-id': octal(chapId),
    'chap-challenge': octal(challenge),
    'link-orig': 'http://example.com/news',
    error,
  });
  const page = (): string =>
    mikrotikLoginHtml(portalUrl)
      .replace(/\$\(if error\)(.*?)\$\(else\)(.*?)\$\(endif\)/g, (_all, yes: string, no: string) =>
        error ? yes : no,
      )
      .replace(/\$\(([a-z-]+)\)/g, (_all, name: string) => variables()[name] ?? '');
  await context.route(`${ROUTER}/**`, async (route: Route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/login.html') {
      await route.fulfill({ status: 200, contentType: 'text/html', body: page() });
      return;
    }
    const username = url.searchParams.get('username') ?? '';
    const password = url.searchParams.get('password') ?? '';
    // RouterOS with login-by=http-chap: the password field is the CHAP response in hex.
    const run = await radclient(
      app.auth,
      'auth',
      [
        `User-Name = "${username}"`,
        `CHAP-Password = 0x${chapId.toString('hex')}${password}`,
        `CHAP-Challenge = 0x${challenge.toString('hex')}`,
        'NAS-Identifier = "bar-01"',
        'Calling-Station-Id = "11:22:33:44:55:66"',
        'Framed-IP-Address = 10.5.50.7',
        'Message-Authenticator = 0x00',
      ].join('\n') + '\n',
      { secret: SECRET },
    );
    const reply = run.replies[0];
    logins.push({ username, password, dst: url.searchParams.get('dst'), reply, output: run.output });
    await route.fulfill({
      status: 200,
      contentType: 'text/plain',
      body: reply?.code === 'Access-Accept' ? 'You are logged in' : 'invalid username or password',
    });
  });
  return {
    logins,
    chapId,
    challenge,
    /** RouterOS shows login.html again with $(error) set after a refused login. */
    setError: (text: string) => {
      error = text;
    },
  };
}

async function setUp(t: Test) {
  const app = await startRadiusApp(t, { device: { uam_secret: 'uamsecret' } }); // CoovaChilli lobby-01, 10.1.0.0/24
  await aDevice(app.app, {
    name: 'Bar',
    model: 'MikroTik hAP ax2',
    radius_nas_id: 'bar-01',
    mac_address: '02:00:00:00:00:0b',
    local_network: '10.5.50.0/24',
    uam_server: `${app.base}/portal`,
    radius_secret: SECRET,
  });
  const plan = await aPlan(app.app, {
    name: 'Fast hour',
    price_tzs: 1500,
    duration_seconds: 3600,
    download_kbps: 4000,
    upload_kbps: 1000,
  });
  const context = await launchBrowser(t);
  const page = await firstPage(context);
  return { app, plan, context, page };
}

const STORED = "localStorage.getItem('hotspot.purchase')";
const stored = async (page: Page): Promise<{ key: string; invoiceId: string; invoiceNumber: string }> =>
  JSON.parse(String(await page.evaluate<string | null>(STORED)));

t.test(
  'MikroTik: login.html → portal → payment → the router logs the guest in with HTTP-CHAP over RADIUS',
  { skip: chromiumSkip },
  async (t) => {
    const { app, plan, context, page } = await setUp(t);
    const router = await fakeRouterOs(context, app, `${app.base}/portal`);
    const foreign = foreignRequests(context, [app.base, ROUTER]);
    await page.goto(`${ROUTER}/login.html`);
    await page.waitForURL((url) => url.origin === app.base && url.pathname === '/portal');
    const query = new URL(page.url()).searchParams;
    t.equal(query.get('nasid'), 'bar-01');
    t.equal(
      query.get('chap_id'),
      octal(router.chapId),
      'the octal escapes reach the portal as RouterOS wrote them',
    );
    t.equal(query.get('res'), 'notyet');
    await page.getByText('4 Mbit/s download · 1 Mbit/s upload').waitFor();
    t.ok(await page.locator('#not-hotspot').isHidden(), 'on the hotspot');
    t.ok(await page.locator('#unknown-router').isHidden(), 'the router is known');

    await page.getByRole('radio', { name: /Fast hour/ }).check();
    await page.getByLabel('Mobile money number').fill('0712 345 678');
    await page.getByRole('button', { name: 'Pay TZS 1,500' }).click();
    await page.getByRole('heading', { name: 'Confirm the payment on your phone' }).waitFor();
    const purchase = await stored(page);
    const paid = await postSandboxEvent(app, succeeded(purchase.invoiceNumber, plan.price_tzs));
    t.equal(paid.status, 200, paid.text);
    await page.waitForURL((url) => url.origin === ROUTER && url.pathname === '/login');
    await waitFor(() => router.logins.length > 0, 'the login at the router', 40_000);
    const [login] = router.logins;
    t.equal(
      login?.reply?.code,
      'Access-Accept',
      `our RADIUS server accepted the CHAP login\n${login?.output ?? ''}`,
    );
    await page.getByText('You are logged in').waitFor();
    t.equal(router.logins.length, 1, 'one login at the router');
    const creds = await credentialsOf(app, purchase.invoiceId, purchase.key);
    t.equal(login?.username, creds.username);
    t.equal(
      login?.password,
      md5(router.chapId, creds.password, router.challenge).toString('hex'),
      'MD5(chap-id ‖ password ‖ challenge), never the password itself',
    );
    t.equal(login?.dst, 'http://example.com/news', 'the page the guest wanted');
    t.equal(login?.reply?.attributes['Mikrotik-Rate-Limit'], '"1000k/4000k"', "the plan's speed, rx/tx");
    t.same(foreign, [], 'no request left the portal and the router');

    // A refused login brings RouterOS's page back with $(error): no loop, a button instead.
    router.setError('invalid username or password');
    await page.goto(`${ROUTER}/login.html`);
    await page.waitForURL((url) => url.origin === app.base);
    await page.getByRole('button', { name: 'Connect this device' }).waitFor();
    t.ok(await page.getByText('The hotspot did not accept the login. Try connecting again.').isVisible());
    t.equal(router.logins.length, 1, 'no automatic login after the router refused');
    await page.getByRole('button', { name: 'Connect this device' }).click();
    await page.waitForURL((url) => url.origin === ROUTER && url.pathname === '/login');
    t.equal(router.logins.length, 2);
  },
);

t.test(
  'CoovaChilli sends the guest back with res=success and no challenge: the portal says online',
  { skip: chromiumSkip },
  async (t) => {
    const { app, page } = await setUp(t);
    const query = new URLSearchParams({
      res: 'success',
      uamip: '10.1.0.1',
      uamport: '3990',
      called: 'AA-BB-CC-DD-EE-FF',
      mac: '11-22-33-44-55-66',
      ip: '10.1.0.5',
      nasid: 'lobby-01',
      uid: 'someone',
      timeleft: '3600',
      userurl: 'http://example.com/news',
    });
    await page.goto(`${app.base}/portal?${query.toString()}`);
    await page.getByText('You are online. Enjoy!').waitFor();
    const link = page.getByRole('link', { name: 'Continue to example.com' });
    t.equal(await link.getAttribute('href'), 'http://example.com/news');
    t.ok(await page.locator('#not-hotspot').isHidden(), 'not "You are not on the hotspot"');
    t.ok(await page.locator('#buy').isHidden(), 'nothing to buy while online');
    await page.getByRole('button', { name: 'Buy more time' }).click();
    await page.getByRole('radio', { name: /Fast hour/ }).waitFor();
    t.ok(await page.getByRole('button', { name: /^Pay/ }).isVisible(), 'more time can be bought');

    await page.goto(
      `${app.base}/portal?${new URLSearchParams({ res: 'already', uamip: '10.1.0.1', uamport: '3990' }).toString()}`,
    );
    await page.getByText('This device is already online.').waitFor();
    t.ok(await page.locator('#not-hotspot').isHidden());
  },
);

t.test(
  'a guest types the login they already have and ends at the router /logon',
  { skip: chromiumSkip },
  async (t) => {
    const { app, plan, context, page } = await setUp(t);
    const purchase = await aPaidPurchase(app, plan);
    const creds = await credentialsOf(app, purchase.invoiceId, purchase.key);
    const logons: string[] = [];
    await context.route(`${UAM}/**`, (route) => {
      logons.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'router says hello' });
    });
    const challenge = randomBytes(16).toString('hex');
    await page.goto(
      `${app.base}/portal?${new URLSearchParams({ res: 'notyet', uamip: '10.1.0.1', uamport: '3990', challenge, nasid: 'lobby-01', userurl: 'http://example.com/' }).toString()}`,
    );
    await page.getByText('I already have a code or login').click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.equal(await page.locator('#login-user-error').textContent(), 'Enter the username.');
    t.equal(await page.locator('#login-pass-error').textContent(), 'Enter the password.');
    await page.getByLabel('Username').fill(creds.username);
    await page.getByLabel('Password', { exact: true }).fill('wrongpass1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Wrong username or password. Check them and try again.').waitFor();
    t.equal(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true');

    // As a phone types it: a capital first letter.
    await page
      .getByLabel('Password', { exact: true })
      .fill(`${creds.password[0]!.toUpperCase()}${creds.password.slice(1)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.origin === UAM);
    const logon = new URL(logons[0]!);
    const response = md5(
      Buffer.of(0),
      creds.password,
      md5(Buffer.from(challenge, 'hex'), 'uamsecret'),
    ).toString('hex');
    t.same(Object.fromEntries(logon.searchParams), {
      username: creds.username,
      response,
      userurl: 'http://example.com/',
    });
  },
);

t.test(
  'a guest types a voucher code as people do (lower case, spaces, dashes) and ends at the router /logon',
  { skip: chromiumSkip },
  async (t) => {
    const { app, plan, context, page } = await setUp(t);
    const { codes } = await createBatch(
      app.app.deps,
      { plan_id: plan.id, count: 1, prefix: 'BAR' },
      cliActor(),
    );
    const code = codes[0]?.code ?? '';
    const logons: string[] = [];
    await context.route(`${UAM}/**`, (route) => {
      logons.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'router says hello' });
    });
    const challenge = randomBytes(16).toString('hex');
    await page.goto(
      `${app.base}/portal?${new URLSearchParams({ res: 'notyet', uamip: '10.1.0.1', uamport: '3990', challenge, nasid: 'lobby-01' }).toString()}`,
    );
    // In Swahili: the guest's reminders will be too.
    await page.getByRole('button', { name: 'Kiswahili' }).click();
    await page.locator('#have-login summary').click();
    // "BARK7QX4M9TPE" typed as " bar k7qx4–m9tpe ": lower case, a space, an en dash.
    const typed = ` ${code.slice(0, 3)} ${code.slice(3, 8)}\u2013${code.slice(8)} `.toLowerCase();
    await page.locator('#voucher-code').fill(typed);
    await page.locator('#voucher-submit').click();
    await page.waitForURL((url) => url.origin === UAM);
    const rows = await wifiRows(app.app.deps.db);
    const grant = rows.grants?.[0] as { username: string };
    const logon = new URL(logons[0] ?? '');
    t.equal(logon.pathname, '/logon');
    t.equal(logon.searchParams.get('username'), grant.username, "the voucher's login handed to the router");
    t.match(rows.invoices, [{ channel: 'voucher', language: 'sw', status: 'paid' }]);
    t.match(await app.app.deps.db.selectFrom('vouchers').selectAll().execute(), [{ status: 'redeemed' }]);
  },
);

t.test(
  'on a router the box does not know, nothing is sold and nothing is signed in',
  { skip: chromiumSkip },
  async (t) => {
    const { app, page } = await setUp(t);
    const before = await wifiRows(app.app.deps.db);
    // The box's answer is held until the guest has tapped Pay (a slow phone, a slow network).
    let answer = (): void => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/api/v1/public/router?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(
      `${app.base}/portal?${new URLSearchParams({ res: 'notyet', nasid: 'stranger', link_login_only: `${ROUTER}/login`, chap_id: '\\001', chap_challenge: octal(randomBytes(16)) }).toString()}`,
    );
    await page.getByRole('radio', { name: /Fast hour/ }).check();
    await page.getByLabel('Mobile money number').fill('0712 345 678');
    await page.getByRole('button', { name: 'Pay TZS 1,500' }).click();
    answer();
    await page
      .getByText(
        'This Wi-Fi point is not set up on the hotspot server yet, so nothing can be bought or signed in here.',
        { exact: false },
      )
      .waitFor();
    t.ok(await page.locator('#buy').isHidden(), 'no plans, no Pay button');
    t.ok(await page.locator('#have-login').isHidden(), 'no login field');
    t.ok(await page.locator('#not-hotspot').isHidden(), 'it is a hotspot, just not ours');
    t.same(await wifiRows(app.app.deps.db), before, 'nothing was bought, although Pay was tapped first');
  },
);
