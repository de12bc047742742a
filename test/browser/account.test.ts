import type { BrowserContext } from 'playwright-core';
import t, { type Test } from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, waitForValue } from '../helpers/browser.js';
import type { Client } from '../helpers/client.js';
import { PASSWORD, verifiedUser } from '../helpers/identity.js';
import { decodeQr, matrixFromSvgPath } from '../helpers/qr-decode.js';
import { totpForSecret } from '../helpers/totp.js';

/** The account page's own forms in headless Chromium: profile and two-step verification. */

/** A browser already signed in as `user` (its session cookie handed over). */
async function signedInBrowser(t: Test, app: TestApp, user: Client): Promise<BrowserContext> {
  const context = await launchBrowser(t);
  await context.addCookies([
    { name: 'svc_session', value: user.cookies.get('svc_session') ?? '', url: app.base },
  ]);
  return context;
}

t.test(
  'save the profile; a bad picture URL is refused next to its field',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const user = await verifiedUser(app, 'amina@example.com');
    const context = await signedInBrowser(t, app, user);
    const page = await firstPage(context);
    await page.goto(`${app.base}/account`);

    await page.getByLabel('Display name').fill('Amina Juma');
    await page.getByLabel('Picture URL').fill('not a url');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('#avatar-url-error', { hasText: 'avatar_url must be an http:// or https:// URL' })
      .waitFor();
    t.equal(await page.getByLabel('Picture URL').getAttribute('aria-invalid'), 'true', 'the field is marked');
    t.notOk(await page.getByText('Saved.').isVisible());
    t.match((await user.get('/profile')).body.data, { display_name: '', avatar_url: null }, 'nothing saved');

    await page.getByLabel('Picture URL').fill('https://img.example/amina.png');
    t.equal(
      await page.getByLabel('Picture URL').getAttribute('aria-invalid'),
      null,
      'editing clears the error',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    t.match((await user.get('/profile')).body.data, {
      display_name: 'Amina Juma',
      avatar_url: 'https://img.example/amina.png',
    });

    await page.reload();
    await waitForValue(page, '#display-name');
    t.equal(
      await page.getByLabel('Display name').inputValue(),
      'Amina Juma',
      'the page loads what was saved',
    );
    t.equal(await page.getByLabel('Picture URL').inputValue(), 'https://img.example/amina.png');
    await page.getByLabel('Picture URL').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    t.match((await user.get('/profile')).body.data, { avatar_url: null }, 'an empty picture URL clears it');
  },
);

t.test(
  'turn two-step verification on from a QR code that holds the otpauth URI, then off again',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'totp@example.com';
    const user = await verifiedUser(app, email);
    const context = await signedInBrowser(t, app, user);
    const foreign = foreignRequests(context, [app.base]);
    const page = await firstPage(context);
    await page.goto(`${app.base}/account`);

    const setup = page.waitForResponse((res) => new URL(res.url()).pathname === '/auth/mfa/setup');
    await page.getByRole('button', { name: 'Set up' }).click();
    const { uri } = ((await (await setup).json()) as { data: { uri: string } }).data;
    const qr = page.getByRole('img', { name: 'Scan this QR code with your authenticator app' });
    const viewBox = (await qr.getAttribute('viewBox')) ?? '';
    const path = (await qr.locator('path').getAttribute('d')) ?? '';
    const size = Number(/^0 0 (\d+) \1$/.exec(viewBox)?.[1]);
    t.equal(decodeQr(matrixFromSvgPath(path, size, 2)), uri, 'the QR code reads back as the otpauth URI');
    t.match(uri, /^otpauth:\/\/totp\/.+\?secret=[A-Z2-7]+&/);
    const secret = new URL(uri).searchParams.get('secret') ?? '';
    t.equal(
      (await page.locator('#mfa-secret').textContent())?.replace(/\s/g, ''),
      secret,
      'the key to type in',
    );

    await page.getByLabel('Code from the app', { exact: true }).fill(totpForSecret(secret, app.clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('On: signing in with a password also asks for a code').waitFor();
    const login = { identifier: email, password: PASSWORD };
    t.match((await user.post('/auth/login', login)).body.data, { mfa_required: true }, 'MFA is on');

    // Turn it off: a wrong code is refused next to the field and changes nothing.
    const disableField = page.getByLabel('Code from the app (or a recovery code) to turn it off');
    app.clock.advance('30s'); // a code is accepted once: the next one
    const code = totpForSecret(secret, app.clock.now());
    await disableField.fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.locator('#disable-code-error', { hasText: 'invalid mfa code' }).waitFor();
    t.match((await user.post('/auth/login', login)).body.data, { mfa_required: true }, 'still on');

    await disableField.fill(code);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Off: add a code from an authenticator app').waitFor();
    t.ok(await page.getByRole('button', { name: 'Set up' }).isVisible(), 'set-up is offered again');
    t.notOk(await disableField.isVisible(), 'the turn-off form is gone');
    await page.locator('#events li', { hasText: 'Two-step verification turned off' }).waitFor();
    const plain = await user.post('/auth/login', login);
    t.match(plain.body.data, { email }, 'a password alone signs in again');
    t.notMatch(plain.body.data, { mfa_required: true });
    t.same(foreign, [], 'the QR code is drawn in the page, nothing fetched elsewhere');
  },
);
