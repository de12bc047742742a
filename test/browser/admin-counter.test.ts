import path from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { readOutbox } from '../../src/notify/index.js';
import { addStaffForSites } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, PHONE } from '../helpers/browser.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import {
  aPaidPurchase,
  aPlan,
  aPurchaseKey,
  credentialsOf,
  postPurchase,
  wifiRows,
} from '../helpers/wifi.js';

/**
 * The counter page and the audit trail in headless Chromium (DESIGN.md §4.8): an operator sells
 * access for cash and sees the login once, extends and revokes it; an admin marks an unpaid
 * invoice paid by hand, refunds a paid sale by hand, and reads the audit trail. With
 * COUNTER_SCREENSHOTS=<dir> the pages are saved there (360 and 1280 px; the refund's 390 and 1440).
 */

const SHOTS = process.env.COUNTER_SCREENSHOTS;
const DESKTOP = { width: 1280, height: 800 };

async function signedIn(t: Test, app: TestApp, role: 'operator' | 'admin') {
  const email = `${role}@venue.test`;
  await addStaffForSites(app.app.deps, { email, role, password: STAFF_PASSWORD, sites: [] });
  const context = await launchBrowser(t, { viewport: PHONE });
  const foreign = foreignRequests(context, [app.base]);
  const page = await firstPage(context);
  await page.goto(`${app.base}/admin/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.base}/admin`);
  return { page, foreign };
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await page.screenshot({ path: path.join(SHOTS, `counter-${name}-360.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `counter-${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
}

/** The page at 390 and 1440 px wide (a dialog open: the viewport only), then a phone again. */
async function shootWide(page: Page, name: string, fullPage: boolean): Promise<void> {
  if (!SHOTS) return;
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${String(width)}.png`), fullPage });
  }
  await page.setViewportSize(PHONE);
}

t.test('an operator sells access for cash, extends it and revokes it', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  await aPlan(app.app, { name: 'Hour', price_tzs: 1000 });
  const { page, foreign } = await signedIn(t, app, 'operator');
  await page.getByRole('link', { name: 'Counter' }).click();
  await page.waitForURL(`${app.base}/admin/counter`);
  t.equal(await page.getByRole('link', { name: 'Audit trail' }).count(), 0, 'the audit trail is for admins');
  t.equal(await page.locator('#mark-paid').count(), 0, 'an operator cannot mark paid');

  await page.locator('#issue-plan option').first().waitFor({ state: 'attached' });
  t.equal(await page.locator('#issue-amount').inputValue(), '1000', 'the plan’s price to start with');
  await page.getByLabel('Guest phone (optional)').fill('0712 345 678');
  await page.getByLabel('Cash taken (TZS)').fill('800');
  await page.getByRole('button', { name: 'Issue access' }).click();
  const box = page.locator('#counter-credentials');
  await box.waitFor();
  const username = await page.locator('#credentials-username').innerText();
  const password = await page.locator('#credentials-password').innerText();
  t.match(username, /^[a-z2-9]+$/);
  t.match(await box.innerText(), 'Also sent by SMS to');
  t.match(await readOutbox(app.dataDir), [{ to: '+255712345678', text: new RegExp(password) }]);
  await page.locator('#grants tbody tr').first().waitFor();
  t.match(await page.locator('#grants tbody tr').first().innerText(), /TZS 800/);
  await shoot(page, 'issued');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  t.equal(await page.locator('#credentials-password').innerText(), '', 'the password is gone from the page');

  await page.getByRole('button', { name: `Give ${username} more time` }).click();
  await page.locator('#extend-by').selectOption('1800');
  await page.getByLabel('Reason (optional)').fill('slow network');
  await page.locator('#extend-form-submit').click();
  await page.locator('#counter-status').getByText(`${username} now has access until`).waitFor();
  const grant = (await wifiRows(app.app.deps.db)).grants![0] as { expires_at: string };
  t.equal(grant.expires_at, '2026-01-15T10:30:00.000Z');

  await page.getByRole('button', { name: `Take access away from ${username}` }).click();
  await page.locator('#confirm-yes').click();
  await page.locator('#counter-status').getByText(`${username} no longer has access.`).waitFor();
  await page.locator('#grants tbody tr', { hasText: 'Revoked' }).waitFor();
  t.same(foreign, [], 'nothing loaded from elsewhere');
});

t.test(
  'an admin marks an unpaid invoice paid by hand and reads the audit trail',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const plan = await aPlan(app.app, { name: 'Hour', price_tzs: 1000 });
    const started = await postPurchase(app.base, { plan_id: plan.id, phone: '0712000004' }, aPurchaseKey());
    const number = String(started.body.data?.invoice_number);
    const { page } = await signedIn(t, app, 'admin');
    await page.goto(`${app.base}/admin/counter`);
    await page.locator('#unpaid tbody tr').first().waitFor();
    await shoot(page, 'page');

    await page.getByRole('button', { name: `Mark invoice ${number} paid by hand` }).click();
    await page.locator('#mark-paid-form-submit').click();
    t.equal(await page.locator('#mark-paid').getAttribute('open'), '', 'an empty reason is not sent');
    await page.getByLabel('Reason', { exact: true }).fill('Receipt shown at the bar');
    await page.locator('#mark-paid-form-submit').click();
    await page.locator('#counter-credentials').waitFor();
    t.match(await page.locator('#counter-status').innerText(), `Invoice ${number} is paid`);
    t.match((await wifiRows(app.app.deps.db)).payments, [{ provider: 'by_hand', amount_tzs: 1000 }]);

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.waitForURL(`${app.base}/admin/audit`);
    await page.locator('#audit tbody tr').first().waitFor();
    const row = await page.locator('#audit tbody tr').first().innerText();
    t.match(row, 'invoice.mark_paid');
    t.match(row, 'Receipt shown at the bar');
    t.match(row, /status: pending → paid/, 'the changed fields in short');
    await shoot(page, 'audit');
  },
);

t.test(
  'an admin refunds a paid sale by hand, with a reason, and finds it in the audit trail',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const paid = await aPaidPurchase(app, await aPlan(app.app, { name: 'Hour', price_tzs: 1000 }));
    const { username } = await credentialsOf(app, paid.invoiceId, paid.key);
    const { page, foreign } = await signedIn(t, app, 'admin');
    await page.goto(`${app.base}/admin/counter`);
    const refund = page.getByRole('button', {
      name: `Refund the sale of ${username} (invoice ${paid.invoiceNumber})`,
    });
    await refund.click();
    t.equal(
      await page.locator('#refund-heading').innerText(),
      `Refund invoice ${paid.invoiceNumber}: TZS 1,000`,
    );
    await page.locator('#refund-form-submit').click();
    t.equal(await page.locator('#refund').getAttribute('open'), '', 'an empty reason is not sent');
    await page.getByLabel('Reason for the refund').fill('Router down all evening');
    await shootWide(page, 'counter-refund', false);
    t.same(
      (await wifiRows(app.app.deps.db)).payments?.length,
      1,
      'nothing is refunded before the dialog is submitted',
    );
    await page.locator('#refund-form-submit').click();
    await page
      .locator('#counter-status')
      .getByText(`Invoice ${paid.invoiceNumber} is refunded (TZS 1,000); ${username} no longer has access.`)
      .waitFor();
    await page.locator('#grants tbody tr', { hasText: 'Refunded' }).waitFor();
    t.equal(await refund.count(), 0, 'a refunded sale offers no second refund');
    t.match((await wifiRows(app.app.deps.db)).payments, [
      { kind: 'sale', amount_tzs: 1000 },
      { kind: 'refund', amount_tzs: -1000, provider: 'by_hand' },
    ]);

    await page.goto(`${app.base}/admin`);
    await page.locator('#stats-channels').getByText('Mobile money').waitFor();
    t.equal(await page.locator('#stat-revenue_tzs').innerText(), 'TZS 0', 'revenue net of the refund');
    t.match(
      await page.locator('#stats-channels').innerText(),
      'Mobile money: 1 (TZS 0 after TZS 1,000 refunded) · Voucher: 0 (TZS 0)',
    );

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.waitForURL(`${app.base}/admin/audit`);
    await page.locator('#audit tbody tr').first().waitFor();
    const row = await page.locator('#audit tbody tr').first().innerText();
    t.match(row, 'invoice.refund');
    t.match(row, 'Router down all evening');
    t.match(row, /refunded_at: – → 15 Jan 2026, \d\d:00/, 'a time as the lists show it');
    t.match(row, /grant\.revoke_reason: – → refunded/);
    t.match(row, /refund: [0-9a-f]{8}…\n/, 'a record by its id, shortened');
    await page.locator('#audit tbody tr').first().getByText('Full record (JSON)').click();
    t.match(
      await page.locator('#audit tbody tr').first().locator('pre').innerText(),
      /"refund": \{[^}]*"amount_tzs": -1000/,
      'the whole record behind the toggle',
    );
    await shootWide(page, 'audit-refund', true);
    t.same(foreign, [], 'nothing loaded from elsewhere');
  },
);
