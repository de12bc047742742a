import path from 'node:path';
import Database from 'better-sqlite3';
import type { CDPSession, Page } from 'playwright-core';
import t from 'tap';
import { freePort, startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, launchBrowser } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';
import { PASSKEY_PAGE_PATH, passkeyPage, type PageResult } from './passkey-page.js';

/**
 * Both passkey ceremonies end to end in real headless Chromium (Debian's package, never a
 * downloaded browser) with a CDP virtual authenticator, against the real daemon.
 */
const EMAIL = 'browser@example.com';

/** Calls one of the page's functions (api, registerPasskey, passkeyLogin) in the browser. */
const inPage = (page: Page, fn: string, ...args: unknown[]): Promise<PageResult> =>
  page.evaluate(
    ([name, list]) =>
      (globalThis as unknown as Record<string, (...a: unknown[]) => Promise<PageResult>>)[name]!(...list),
    [fn, args] as const,
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

t.test('register a passkey and sign in with it in Chromium, past TOTP', { skip: chromiumSkip }, async (t) => {
  const port = await freePort();
  const origin = `http://localhost:${String(port)}`; // localhost: a secure context over http
  const app = await startTestApp(t, {
    env: { PUBLIC_BASE_URL: origin, HTTP_PORT: String(port) },
    extraRoutes: () => [passkeyPage()],
  });
  const context = await launchBrowser(t);
  const page = await firstPage(context);
  const cdp = await context.newCDPSession(page);
  const authenticatorId = await virtualAuthenticator(cdp);
  await page.goto(`${origin}${PASSKEY_PAGE_PATH}`);
  const api = (method: string, route: string, body?: unknown) => inPage(page, 'api', method, route, body);

  t.equal((await api('POST', '/auth/register', { email: EMAIL, password: PASSWORD })).status, 201);
  const registration = await inPage(page, 'registerPasskey', 'Chromium');
  t.equal(registration.status, 201, 'finish-registration');
  const { id } = registration.body as { id: string };
  t.same(registration.body, { id, created_at: app.clock.now().toISOString() });
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  t.equal(credentials.length, 1);
  t.equal(Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'), id);
  t.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential (residentKey preferred)');
  t.match((await api('GET', '/auth/passkeys')).body.data, [{ id, name: 'Chromium' }]);

  const { secret } = (await api('POST', '/auth/mfa/setup')).body.data as { secret: string };
  t.equal(
    (await api('POST', '/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) })).status,
    200,
  );
  t.equal((await api('POST', '/auth/logout')).status, 200);
  t.equal((await api('GET', '/auth/me')).status, 401);

  app.clock.advance('1m');
  const login = await inPage(page, 'passkeyLogin', EMAIL);
  t.equal(login.status, 200, 'login/finish');
  t.match(login.body, { success: true, data: { email: EMAIL } }, 'signed in, no MFA challenge');
  t.match((await api('GET', '/auth/me')).body.data, { email: EMAIL }, 'the cookie works');
  t.match((await api('GET', '/auth/security-events')).body.data[0], { action: 'login', detail: 'passkey' });
  t.match((await api('GET', '/auth/passkeys')).body.data, [
    { id, last_used_at: app.clock.now().toISOString() },
  ]);
  const db = new Database(path.join(app.dataDir, 'hotspot.db'), { readonly: true });
  t.teardown(() => db.close());
  const [used] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  t.ok(used!.signCount > 0, 'Chromium counts');
  t.equal(db.prepare('select counter from passkeys').pluck().get(), used!.signCount, 'the counter is kept');

  // The same key with its counter wound back, as a clone would present it.
  await api('POST', '/auth/logout');
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...used!, signCount: 0 } });
  const clone = await inPage(page, 'passkeyLogin', EMAIL);
  t.same(
    [clone.status, clone.body],
    [401, { success: false, message: 'passkey verification failed' }],
    'a counter that went backwards is refused',
  );
  t.equal((await api('GET', '/auth/me')).status, 401);
});
