import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { startTestApp, waitFor, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, waitForImage } from '../helpers/browser.js';
import { Client } from '../helpers/client.js';
import { PASSWORD, registered, verifiedUser } from '../helpers/identity.js';
import {
  authorizeCode,
  authorizeQuery,
  consoleClient,
  pkcePair,
  REDIRECT,
  tokenRequest,
} from '../helpers/oauth.js';
import { startSmtpSink } from '../helpers/smtp.js';
import { totpForSecret } from '../helpers/totp.js';

/** The identity pages in headless Chromium against the real daemon, mail through a real SMTP server. */
const PARTNER = new URL(REDIRECT).origin;
/** A 1×1 PNG, the partner's logo as the test serves it. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

async function withSmtp(t: Test) {
  const sink = await startSmtpSink();
  t.teardown(() => sink.close());
  const app = await startTestApp(t, { selfIssuer: true, env: { SMTP_URL: sink.url } });
  return { app, sink };
}

/** Mail bodies come quoted-printable: soft line breaks and =XX escapes. */
const quotedPrintable = (raw: string): string =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The latest mail to `to` that matches `pattern`, once it has arrived. */
async function mailMatching(sink: Awaited<ReturnType<typeof startSmtpSink>>, to: string, pattern: RegExp) {
  let found: RegExpExecArray | null = null;
  await waitFor(
    () => {
      const mails = sink.received.filter((m) => m.to.includes(to));
      found = mails.length > 0 ? pattern.exec(quotedPrintable(mails.at(-1)!.raw)) : null;
      return found !== null;
    },
    `mail to ${to} matching ${String(pattern)}`,
  );
  return found!;
}

async function signIn(page: Page, identifier: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Email or phone').fill(identifier);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function browser(t: Test, app: TestApp) {
  const context = await launchBrowser(t);
  const foreign = foreignRequests(context, [app.base, PARTNER]);
  const landed: string[] = [];
  await context.route(`${PARTNER}/**`, (route) => {
    landed.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/plain', body: 'partner app' });
  });
  return { page: await firstPage(context), foreign, landed };
}

t.test(
  'register, verify by mail, turn on TOTP, sign in with it, consent, land at the client with a code',
  { skip: chromiumSkip },
  async (t) => {
    const { app, sink } = await withSmtp(t);
    const owner = await registered(app, 'owner@partner.example');
    const client = await consoleClient(owner);
    const { page, foreign, landed } = await browser(t, app);
    const email = 'new.user@example.com';

    await page.goto(`${app.base}/register`);
    await page.getByLabel('Email address or phone number').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    t.equal(
      await page.locator('#password-error').textContent(),
      'At least 8 characters.',
      'error next to the field',
    );
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/verify-email/);

    const [, code] = await mailMatching(sink, email, /\b(\d{6})\b/);
    await page.getByLabel('Code', { exact: true }).fill(code!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${app.base}/account`);

    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByLabel('Code from the app', { exact: true }).waitFor();
    const secret = (await page.locator('#mfa-secret').textContent())!.replace(/\s/g, '');
    t.ok(await page.locator('#mfa-qr svg path').getAttribute('d'), 'a QR code drawn in the page');
    await page.getByLabel('Code from the app', { exact: true }).fill(totpForSecret(secret, app.clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Recovery codes' }).waitFor();
    t.equal(await page.locator('#mfa-code-list li').count(), 10, 'ten recovery codes');
    t.equal(await page.locator('#mfa-secret').textContent(), '', 'the secret is gone from the page');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${app.base}/login`);

    app.clock.advance('1m');
    const { verifier, challenge } = pkcePair();
    await page.goto(`${app.base}/oauth/authorize?${authorizeQuery(client.clientId, challenge)}`);
    await page.waitForURL(/\/login\?next=/);
    await signIn(page, email);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByLabel('Code', { exact: true }).fill(totpForSecret(secret, app.clock.now()));
    await page.getByRole('button', { name: 'Verify' }).click();

    await page.waitForURL(/\/consent\?/);
    await page.getByRole('heading', { name: 'Partner App wants to use your account' }).waitFor();
    t.ok(
      await page.getByText('Your email address and whether it is verified').isVisible(),
      'scopes in words',
    );
    t.ok(await page.getByRole('link', { name: 'Learn about this app' }).isVisible());
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.origin === PARTNER);

    const back = new URL(landed[0]!);
    t.equal(`${back.origin}${back.pathname}`, REDIRECT);
    t.equal(back.searchParams.get('state'), 'st-123');
    const tokens = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      code_verifier: verifier,
      client_secret: client.secret!,
    });
    t.equal(tokens.status, 200, 'the code is good at the token endpoint');
    t.same(foreign, [], 'no request left our origin before the redirect');
  },
);

t.test('reset the password from the mailed link', { skip: chromiumSkip }, async (t) => {
  const { app, sink } = await withSmtp(t);
  const email = 'forgetful@example.com';
  await registered(app, email);
  const { page } = await browser(t, app);
  await page.goto(`${app.base}/forgot-password`);
  await page.getByLabel('Email or phone').fill(email);
  await page.getByRole('button', { name: 'Send reset instructions' }).click();
  await page.getByText('if an account exists, a reset link has been sent').waitFor();

  const [link] = await mailMatching(sink, email, /http:\/\/[^\s"<>]+\/reset-password\?token=[0-9a-f]{64}/);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  t.notMatch(page.url(), /token=/, 'the token is taken out of the address bar');
  await page.getByLabel('New password', { exact: true }).fill('a brand new password');
  await page.getByLabel('Repeat the new password').fill('a different one');
  await page.getByRole('button', { name: 'Change password' }).click();
  t.equal(await page.locator('#confirm-password-error').textContent(), 'The two passwords are not the same.');
  await page.getByLabel('Repeat the new password').fill('a brand new password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Your password is changed.').waitFor();

  await page.getByRole('link', { name: 'Sign in' }).click();
  await signIn(page, email);
  await page.locator('#password-error', { hasText: 'email/phone or password incorrect' }).waitFor();
  t.pass('the old password is refused, next to the field');
  await signIn(page, email, 'a brand new password');
  await page.waitForURL(`${app.base}/account`);
});

t.test(
  'remove an app and sign out another device from the account page',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'user@example.com';
    const other = await verifiedUser(app, email);
    const client = await consoleClient(other);
    await authorizeCode(other, client.clientId, pkcePair().challenge);
    t.equal((await other.get('/connections')).body.data.length, 1);

    const { page } = await browser(t, app);
    await page.goto(`${app.base}/account`);
    await page.waitForURL(/\/login\?next=%2Faccount/);
    await signIn(page, email);
    await page.waitForURL(`${app.base}/account`);
    await page.getByRole('button', { name: 'Remove access: Partner App' }).click();
    await page.locator('#apps li', { hasText: 'None yet.' }).waitFor();
    t.same((await other.get('/connections')).body.data, [], 'the connection is gone');
    await page.locator('#events li', { hasText: 'App access removed' }).waitFor();

    await page.getByRole('button', { name: `Sign out: ${other.ip}` }).click();
    await page.locator('#sessions li').first().waitFor();
    t.equal((await other.get('/auth/me')).status, 401, 'the other device is signed out');
    t.ok(await page.getByText('(this device)').isVisible(), 'this device is still signed in');
  },
);

t.test(
  'decline on the consent page: back at the client with access_denied, the logo shown',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'decliner@example.com';
    const user = await verifiedUser(app, email);
    const logoOrigin = 'https://cdn.partner.example';
    const client = await consoleClient(user, { logoUrl: `${logoOrigin}/logo.png` });
    const context = await launchBrowser(t);
    const foreign = foreignRequests(context, [app.base, PARTNER, logoOrigin]);
    const logoRequests: string[] = [];
    await context.route(`${logoOrigin}/**`, (route) => {
      logoRequests.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from(PNG_1X1, 'base64') });
    });
    const landed: string[] = [];
    await context.route(`${PARTNER}/**`, (route) => {
      landed.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'partner app' });
    });
    const page = await firstPage(context);
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });

    await page.goto(`${app.base}/oauth/authorize?${authorizeQuery(client.clientId, pkcePair().challenge)}`);
    await page.waitForURL(/\/login\?next=/);
    await signIn(page, email);
    await page.getByRole('heading', { name: 'Partner App wants to use your account' }).waitFor();
    // Loaded and decoded: an image the CSP refused would never get a width.
    await waitForImage(page, 'img.client-logo', 1);
    t.pass('the logo is shown');
    t.same(logoRequests, [`${logoOrigin}/logo.png`], 'fetched from its own origin, once');
    t.same(blocked, [], 'the page CSP allowed it');

    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.origin === PARTNER);
    const back = new URL(landed[0] ?? '');
    t.equal(`${back.origin}${back.pathname}`, REDIRECT);
    t.same(
      Object.fromEntries(back.searchParams),
      { error: 'access_denied', state: 'st-123', iss: app.base },
      'access_denied with the state and issuer, and no code',
    );
    t.same((await user.get('/connections')).body.data, [], 'no app connected');
    t.same(foreign, [], 'no other origin');
  },
);

t.test(
  'prompt=login in a signed-in browser: the login page again, then the client with a new auth_time',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'again@example.com';
    const owner = await verifiedUser(app, email);
    const client = await consoleClient(owner);
    const { page, foreign, landed } = await browser(t, app);
    await page.goto(`${app.base}/login?next=%2Faccount`);
    await signIn(page, email);
    await page.waitForURL(`${app.base}/account`);

    app.clock.advance('5m');
    const { verifier, challenge } = pkcePair();
    await page.goto(
      `${app.base}/oauth/authorize?${authorizeQuery(client.clientId, challenge, { prompt: 'login' })}`,
    );
    await page.waitForURL(/\/login\?next=[^&]+&prompt=login$/);
    await page.locator('#login-again', { hasText: `You are signed in as ${email}` }).waitFor();
    t.pass('the login page, saying who is signed in');
    await signIn(page, email);
    // Signed in again: on to the consent page (not the login page again), then the client.
    await page.getByRole('heading', { name: 'Partner App wants to use your account' }).waitFor();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.origin === PARTNER);
    t.equal(landed.length, 1, 'at the client once');
    const back = new URL(landed[0] ?? '');
    const tokens = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      code_verifier: verifier,
      client_secret: client.secret!,
    });
    t.equal(
      decodeJwt(tokens.body.id_token as string).auth_time,
      Math.floor(app.clock.now().getTime() / 1000),
      'auth_time is the sign-in just made',
    );
    t.same(foreign, [], 'no other origin');
  },
);

/**
 * The focused element's id and whether it shows the pages' own focus ring (app.css: a 3 px solid
 * outline on :focus-visible), not just whatever the browser draws by default.
 */
const focused = (page: Page): Promise<{ id: string; ring: boolean }> =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    const ring = el.matches(':focus-visible') && style.outlineStyle === 'solid' && style.outlineWidth === '3px';
    return { id: el.id, ring };
  })()`);

t.test(
  'sign in on /login with the keyboard alone, the focus always visible',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'keys@example.com';
    await verifiedUser(app, email);
    const { page } = await browser(t, app);
    await page.goto(`${app.base}/login?next=%2Faccount%3Fvia%3Dkeyboard`);

    await page.keyboard.press('Tab');
    t.same(await focused(page), { id: 'identifier', ring: true }, 'Tab reaches the first field, ringed');
    await page.keyboard.press('Enter');
    await page.locator('#identifier-error', { hasText: 'This field is required.' }).waitFor();
    t.same(
      await focused(page),
      { id: 'identifier', ring: true },
      'Enter on an empty form: focus on the error',
    );

    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    t.same(await focused(page), { id: 'password', ring: true });
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    t.same(await focused(page), { id: 'login-submit', ring: true }, 'then the button, ringed too');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.base}/account?via=keyboard`);
  },
);

t.test('next never leaves our origin', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const email = 'careful@example.com';
  const api = new Client(app.base);
  t.equal((await api.post('/auth/register', { email, password: PASSWORD })).status, 201);
  const { page, foreign } = await browser(t, app);
  for (const evil of [
    '//evil.example/x',
    'https://evil.example',
    '/\\evil.example',
    'javascript:alert(1)',
    '/\t/evil.example',
    '/.//evil.example',
  ]) {
    await page.goto(`${app.base}/login?next=${encodeURIComponent(evil)}`);
    await signIn(page, email);
    await page.waitForURL(`${app.base}/account`);
    t.pass(`next=${JSON.stringify(evil)} ends at /account`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${app.base}/login`);
    app.clock.advance('1m'); // the login limiter's window
  }
  t.same(foreign, []);
});
