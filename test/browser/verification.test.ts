import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, launchBrowser } from '../helpers/browser.js';
import { Client } from '../helpers/client.js';
import { lastCode, outboxFor, PASSWORD, registered, waitForOutbox } from '../helpers/identity.js';

/** Codes by mail and SMS in headless Chromium: resend, phone verification, reset by SMS code. */

async function signedInPage(t: Test, app: TestApp, user: Client): Promise<Page> {
  const context = await launchBrowser(t);
  await context.addCookies([
    { name: 'svc_session', value: user.cookies.get('svc_session') ?? '', url: app.base },
  ]);
  return firstPage(context);
}

/** A code that is not `code` (same length, all digits). */
const other = (code: string): string => (code === '000000' ? '111111' : '000000');

t.test(
  '"Send a new code" on /verify-email: the new code works, the old one no longer, the limit is shown',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'resend@example.com';
    const user = await registered(app, email);
    const first = await lastCode(app.dataDir, email);
    const page = await signedInPage(t, app, user);
    const next = '/account?verified=1';
    await page.goto(`${app.base}/verify-email?next=${encodeURIComponent(next)}`);
    t.ok(
      await page
        .locator('#email-code')
        .getByText('You can ask for up to 3 codes an hour; each code works for 5 minutes.')
        .isVisible(),
      'the limits are stated',
    );

    /** Clicks "Send a new code" and waits for the API's answer, so what follows sees its effect. */
    const resend = async (): Promise<number> => {
      const answer = page.waitForResponse((res) => new URL(res.url()).pathname === '/auth/verify-email/send');
      await page.getByRole('button', { name: 'Send a new code' }).click();
      return (await answer).status();
    };
    t.equal(await resend(), 200);
    await page.getByText('A new code is on its way.').waitFor();
    await waitForOutbox(app, email, 2);
    const second = await lastCode(app.dataDir, email);
    await page.getByLabel('Code', { exact: true }).fill(first === second ? other(second) : first);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('#email-otp-error', { hasText: 'incorrect code' }).waitFor();
    t.pass('the first code is replaced by the new one; the error is next to the field');

    t.equal(await resend(), 200, 'the third code this hour (registration sent the first)');
    await waitForOutbox(app, email, 3);
    const third = await lastCode(app.dataDir, email);
    t.equal(await resend(), 429);
    await page
      .locator('#email-code-error', { hasText: 'too many codes requested, try again later' })
      .waitFor();
    t.notOk(await page.getByText('A new code is on its way.').isVisible(), 'no "on its way" for a refusal');
    t.equal((await outboxFor(app.dataDir, email)).length, 3, 'no fourth mail');

    await page.getByLabel('Code', { exact: true }).fill(third);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${app.base}${next}`);
    t.match((await user.get('/auth/me')).body.data, { email_verified: true });
  },
);

t.test('verify a phone number on /verify-email with the SMS code', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const user = await registered(app, 'phone.owner@example.com');
  const page = await signedInPage(t, app, user);
  await page.goto(`${app.base}/verify-email?next=%2Faccount`);
  await page.getByRole('heading', { name: 'Verify a phone number' }).waitFor();

  const phone = page.getByLabel('Phone number');
  await phone.fill('call me');
  await page.getByRole('button', { name: 'Send code' }).click();
  await page
    .locator('#phone-error', { hasText: 'please enter a valid phone number (e.g. +255712345678)' })
    .waitFor();
  t.equal(await phone.getAttribute('aria-invalid'), 'true', 'the error is on the phone field');
  t.same(await outboxFor(app.dataDir, '+255712345678'), [], 'no SMS');

  await phone.fill('+255 712 345-678');
  await page.getByRole('button', { name: 'Send code' }).click();
  const codeField = page.getByLabel('Code from the SMS');
  await codeField.waitFor();
  t.ok(await codeField.evaluate((el) => el === el.ownerDocument.activeElement), 'the code field has focus');
  const code = await lastCode(app.dataDir, '+255712345678');
  t.match((await user.get('/auth/me')).body.data, { phone: '+255712345678', phone_verified: false });

  await codeField.fill(other(code));
  await page.getByRole('button', { name: 'Verify' }).last().click();
  await page.locator('#phone-otp-error', { hasText: 'incorrect code' }).waitFor();
  await codeField.fill(code);
  await page.getByRole('button', { name: 'Verify' }).last().click();
  await page.waitForURL(`${app.base}/account`);
  t.match((await user.get('/auth/me')).body.data, { phone: '+255712345678', phone_verified: true });
});

t.test('reset the password with the SMS code on /reset-password', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const number = '+255754000111';
  const owner = new Client(app.base);
  t.equal((await owner.post('/auth/register', { phone: number, password: PASSWORD })).status, 201);
  t.equal((await owner.post('/auth/verify-phone/send', { phone: number })).status, 200);
  const verification = await lastCode(app.dataDir, number);
  t.equal((await owner.post('/auth/verify-phone/check', { code: verification })).status, 200);

  const context = await launchBrowser(t);
  const page = await firstPage(context);
  await page.goto(`${app.base}/forgot-password`);
  await page.getByLabel('Email or phone').fill(number);
  await page.getByRole('button', { name: 'Send reset instructions' }).click();
  await page.getByText('if an account exists, a reset link has been sent').waitFor();
  await waitForOutbox(app, number, 2);
  const code = await lastCode(app.dataDir, number);
  t.not(code, verification, 'a new SMS with the reset code');

  await page.getByRole('link', { name: 'Got a code by SMS? Enter it here' }).click();
  await page.waitForURL(`${app.base}/reset-password`);
  const codeField = page.getByLabel('Code from the SMS');
  await codeField.fill(other(code));
  await page.getByLabel('New password', { exact: true }).fill('a brand new password');
  await page.getByLabel('Repeat the new password').fill('a brand new password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.locator('#token-error', { hasText: 'reset link expired or already used' }).waitFor();
  t.equal(await codeField.getAttribute('aria-invalid'), 'true', 'a wrong code is refused next to its field');

  await codeField.fill(code);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Your password is changed.').waitFor();
  t.equal((await owner.get('/auth/me')).status, 401, 'every session is signed out');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('Email or phone').fill(number);
  await page.getByLabel('Password').fill('a brand new password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${app.base}/account`);
});
