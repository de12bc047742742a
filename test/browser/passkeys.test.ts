import type { CDPSession, Page } from 'playwright-core';
import t from 'tap';
import { freePort, startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, launchBrowser } from '../helpers/browser.js';
import { PASSWORD, verifiedUser } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';

/**
 * The product's own passkey UI end to end in real headless Chromium (Debian's package, never a
 * downloaded browser) with a CDP virtual authenticator, against the real daemon: "Add a passkey"
 * on /account, "Sign in with a passkey" on /login, "Remove" on /account.
 */
const EMAIL = 'browser@example.com';

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of any route, pinned by t.same/t.match
  body: any;
}

/** A same-origin API call from the page, with its cookies (for state the test checks or sets). */
const api = (page: Page, method: string, route: string, body?: unknown): Promise<Answer> =>
  page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(p, {
        method: m,
        ...(b === undefined
          ? {}
          : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    },
    [method, route, body] as const,
  );

async function virtualAuthenticator(cdp: CDPSession): Promise<string> {
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/** On /login: the identifier, then the passkey button (no password). */
async function passkeySignIn(page: Page): Promise<void> {
  await page.getByLabel('Email or phone').fill(EMAIL);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}

async function signOut(page: Page, origin: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(`${origin}/login`);
}

t.test(
  'add a passkey on /account, sign in with it on /login past TOTP, remove it',
  { skip: chromiumSkip },
  async (t) => {
    const port = await freePort();
    const origin = `http://localhost:${String(port)}`; // localhost: a secure context over http
    const app = await startTestApp(t, { env: { PUBLIC_BASE_URL: origin, HTTP_PORT: String(port) } });
    await verifiedUser(app, EMAIL);
    const context = await launchBrowser(t);
    const page = await firstPage(context);
    const cdp = await context.newCDPSession(page);
    const authenticatorId = await virtualAuthenticator(cdp);

    await page.goto(`${origin}/login?next=%2Faccount`);
    await page.getByLabel('Email or phone').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/account`);
    const { secret } = (await api(page, 'POST', '/auth/mfa/setup')).body.data as { secret: string };
    const mfa = await api(page, 'POST', '/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
    t.equal(mfa.status, 200, 'TOTP is on, so a password sign-in would ask for it');

    // Add a passkey.
    await page.getByLabel('Name for the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('button', { name: 'Remove: Laptop' }).waitFor();
    const listed = (await api(page, 'GET', '/auth/passkeys')).body.data as { id: string }[];
    t.match(listed, [{ name: 'Laptop', created_at: app.clock.now().toISOString() }]);
    const id = listed[0]?.id ?? '';
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    t.equal(credentials.length, 1, 'the authenticator made one credential');
    t.equal(Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'), id, 'the one listed');
    t.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential (residentKey preferred)');
    t.equal(await page.getByLabel('Name for the new passkey').inputValue(), '', 'the name field is cleared');
    await page.locator('#events li', { hasText: 'Passkey added: Laptop' }).waitFor();

    // Sign out, then in with the passkey: no password, no TOTP step, straight to next.
    await signOut(page, origin);
    app.clock.advance('1m');
    const next = '/account?from=passkey';
    await page.goto(`${origin}/login?next=${encodeURIComponent(next)}`);
    await passkeySignIn(page);
    await page.waitForURL(`${origin}${next}`);
    await page.getByText(`Signed in as ${EMAIL}`).waitFor();
    t.match((await api(page, 'GET', '/auth/security-events')).body.data[0], {
      action: 'login',
      detail: 'passkey',
    });
    t.match((await api(page, 'GET', '/auth/passkeys')).body.data, [
      { id, last_used_at: app.clock.now().toISOString() },
    ]);
    const [used] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    t.ok(used!.signCount > 0, 'Chromium counts');
    const stored = await app.app.deps.db.selectFrom('passkeys').select('counter').executeTakeFirst();
    t.equal(stored?.counter, used!.signCount, 'the counter is kept');

    // The same key with its counter wound back, as a clone would present it: refused, and said so.
    await signOut(page, origin);
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...used!, signCount: 0 } });
    await passkeySignIn(page);
    await page.locator('#login-error', { hasText: 'passkey verification failed' }).waitFor();
    t.equal(page.url(), `${origin}/login`, 'still on /login');
    t.equal((await api(page, 'GET', '/auth/me')).status, 401, 'not signed in');

    // The real key again (the otp-send limiter allows 3 begins an hour per address).
    app.clock.advance('1h');
    await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: used! });
    await page.goto(`${origin}/login`);
    await passkeySignIn(page);
    await page.waitForURL(`${origin}/account`);

    // Remove it on /account: gone from the list and the API, and it no longer signs in.
    await page.getByRole('button', { name: 'Remove: Laptop' }).click();
    await page.locator('#passkeys li', { hasText: 'None yet.' }).waitFor();
    t.same((await api(page, 'GET', '/auth/passkeys')).body.data, [], 'removed');
    await page.locator('#events li', { hasText: 'Passkey removed: Laptop' }).waitFor();
    await signOut(page, origin);
    await passkeySignIn(page);
    await page.locator('#login-error', { hasText: 'no passkey login available for this account' }).waitFor();
    t.equal((await api(page, 'GET', '/auth/me')).status, 401, 'not signed in');
  },
);
