import path from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { listSites } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, waitForImage } from '../helpers/browser.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { addStaffForSites } from '../../src/wifi/index.js';
import { AZAMPAY_SITE_APP, startAzamPayFake } from '../helpers/azampay-fake.js';
import { SELCOM_KEY, SELCOM_SECRET, startSelcomFake } from '../helpers/selcom-fake.js';
import { aDevice, aPaidPurchase, aPlan, aSite, postPurchase, wifiRows } from '../helpers/wifi.js';

/**
 * Sites in the staff admin UI, in headless Chromium (DESIGN.md §4.9): a single venue sees no
 * trace of them; with two, the Sites page, a site filter over the overview and the lists, a
 * site column and a site choice in the plan form; staff limited to a site see only it.
 * With SITES_SCREENSHOTS=<dir> the pages are also saved there (phone and desktop).
 */

const SHOTS = process.env.SITES_SCREENSHOTS;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** A 1×1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

async function signedIn(t: Test, app: TestApp, role: 'owner' | 'admin', sites: string[] = []) {
  const email = `${role}-${String(sites.length)}@venue.test`;
  await addStaffForSites(app.app.deps, { email, role, password: STAFF_PASSWORD, sites });
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
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(SHOTS, `sites-${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `sites-${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
}

const rowTexts = (page: Page, slot: string) => page.locator(`#${slot} tbody tr`).allInnerTexts();

t.test('a single venue sees no sites anywhere in the admin UI', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  await aPlan(app.app, { name: 'Hour' });
  const { page, foreign } = await signedIn(t, app, 'owner');
  t.equal(await page.getByRole('link', { name: 'Sites' }).count(), 0, 'no Sites in the navigation');
  t.equal(await page.locator('#site-filter').count(), 0, 'no filter on the overview');
  await page.goto(`${app.base}/admin/plans`);
  await page.locator('#plans table').waitFor();
  t.notMatch(await page.locator('#plans thead').innerText(), /Site/, 'no site column');
  t.equal(await page.locator('#plan-site').count(), 0, 'no site choice in the form');
  t.notMatch(await page.locator('body').innerText(), /\bsites?\b/i, 'the word is nowhere on the page');
  t.same(foreign, []);
});

t.test(
  'with two sites: the Sites page, a filter over the overview and lists, a site per plan',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const harbour = await aSite(app.app, { display_name: 'Harbour Wi-Fi', brand_color: '#0f766e' });
    const lobbyPlan = await aPlan(app.app, { name: 'Lobby hour', price_tzs: 1000 });
    const harbourPlan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id });
    await aDevice(app.app);
    await aPaidPurchase(app, lobbyPlan);
    await aPaidPurchase(app, harbourPlan);
    const { page, foreign } = await signedIn(t, app, 'owner');

    t.equal(await page.getByRole('link', { name: 'Sites' }).count(), 1);
    await page.locator('#stat-sales').filter({ hasText: '2' }).waitFor();
    await page.getByLabel('Site', { exact: true }).selectOption({ label: 'Harbour café' });
    await page.waitForURL(`${app.base}/admin?site=${harbour.id}`);
    await page.locator('#stat-sales').filter({ hasText: '1' }).waitFor();
    t.equal(await page.locator('#stat-revenue_tzs').innerText(), 'TZS 1,500', 'the harbour’s takings only');
    t.equal(await page.locator('#stat-devices').innerText(), '0');
    await shoot(page, 'overview');

    await page.goto(`${app.base}/admin/plans?site=${harbour.id}`);
    await page.locator('#plans table').waitFor();
    t.same(
      (await rowTexts(page, 'plans')).map((r) => r.split(/\t|\n/)[0]),
      ['Harbour hour'],
    );
    t.notMatch(await page.locator('#plans thead').innerText(), /Site/, 'one site chosen: no column for it');
    t.equal(await page.locator('#plan-site').inputValue(), harbour.id, 'new plans go to the chosen site');
    await page.getByLabel('Name', { exact: true }).fill('Harbour day');
    await page.getByLabel('Price (TZS)').fill('5000');
    await page.getByLabel('Duration', { exact: true }).fill('1');
    await page.locator('#plan-duration-unit').selectOption('86400');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.getByText('Plan Harbour day created.').waitFor();
    t.same((await rowTexts(page, 'plans')).map((r) => r.split(/\t|\n/)[0]).sort(), [
      'Harbour day',
      'Harbour hour',
    ]);
    await shoot(page, 'plans');

    await page.goto(`${app.base}/admin/invoices`);
    await page.locator('#invoices table').waitFor();
    t.match(await page.locator('#invoices thead').innerText(), /Site/, 'all sites: a column says whose');
    t.equal((await rowTexts(page, 'invoices')).length, 2, 'all sites without a filter');

    // The Sites page: a refused value is shown at its field and changes nothing; then a new site.
    await page.getByRole('link', { name: 'Sites' }).click();
    await page.locator('#sites table').waitFor();
    const before = await wifiRows(app.app.deps.db);
    await page.getByLabel('Name', { exact: true }).fill('Annex');
    await page.getByLabel('Short name').fill('annex');
    await page.getByLabel('Header and button colour').fill('#ffff00');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.locator('#site-brand-color-error').waitFor();
    t.match(
      await page.locator('#site-brand-color-error').innerText(),
      /contrast of at least 4\.5:1 against white/,
    );
    t.same(await wifiRows(app.app.deps.db), before, 'nothing was saved');
    await page.getByLabel('Header and button colour').fill('#7c2d12');
    await page.getByLabel('Time zone').fill('Africa/Nairobi');
    await page.getByLabel('Logo', { exact: true }).setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from(PNG, 'base64'),
    });
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByText('Site Annex added.').waitFor();
    const annex = (await listSites(app.app.deps)).find((s) => s.slug === 'annex');
    t.match(annex, {
      name: 'Annex',
      brand_color: '#7c2d12',
      time_zone: 'Africa/Nairobi',
      logo_type: 'image/png',
    });
    t.equal((await rowTexts(page, 'sites')).length, 3);
    await t.resolves(waitForImage(page, '#sites img.site-logo'), 'the uploaded logo shows in the list');
    await shoot(page, 'sites');

    await page.getByRole('button', { name: 'Edit: Annex' }).click();
    await page.getByLabel('Name guests see').fill('Annex Wi-Fi');
    await page.getByLabel('Remove the logo').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Site Annex saved.').waitFor();
    t.match(
      (await listSites(app.app.deps)).find((s) => s.slug === 'annex'),
      {
        display_name: 'Annex Wi-Fi',
        logo_data: null,
      },
    );
    t.same(foreign, []);
  },
);

t.test(
  'an admin limited to one site sees only it, and may not add sites',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const harbour = await aSite(app.app);
    await aPlan(app.app, { name: 'Lobby hour' });
    await aPlan(app.app, { name: 'Harbour hour', site_id: harbour.id });
    const { page } = await signedIn(t, app, 'admin', [harbour.slug]);
    t.equal(await page.locator('#site-filter').count(), 0, 'one site of their own: nothing to filter');
    await page.goto(`${app.base}/admin/plans`);
    await page.locator('#plans table').waitFor();
    t.same(
      (await rowTexts(page, 'plans')).map((r) => r.split(/\t|\n/)[0]),
      ['Harbour hour'],
    );
    await page.goto(`${app.base}/admin/sites`);
    await page.locator('#sites table').waitFor();
    t.equal((await rowTexts(page, 'sites')).length, 1);
    t.ok(await page.locator('#site-form').isHidden(), 'no form to add a site');
    t.ok(await page.locator('#sites-scoped').isVisible(), 'and a note that says why');
    await page.getByRole('button', { name: 'Edit: Harbour café' }).click();
    t.ok(await page.locator('#site-form').isVisible(), 'but their own site they may change');
    await shoot(page, 'sites-scoped');
  },
);

t.test(
  "a site's own payment accounts: written from the form, never shown back, dropped again",
  { skip: chromiumSkip },
  async (t) => {
    const azampay = await startAzamPayFake();
    t.teardown(azampay.close);
    const selcom = await startSelcomFake();
    t.teardown(selcom.close);
    const app = await startTestApp(t, {
      selfIssuer: true,
      env: {
        PAYMENT_PROVIDERS: 'selcom,azampay',
        SELCOM_BASE_URL: selcom.baseUrl,
        SELCOM_API_KEY: SELCOM_KEY,
        SELCOM_API_SECRET: SELCOM_SECRET,
        SELCOM_VENDOR: 'TILL61000',
        ...azampay.env(),
      },
    });
    const harbour = await aSite(app.app);
    const harbourPlan = await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id });
    const { page, foreign } = await signedIn(t, app, 'owner');
    await page.goto(`${app.base}/admin/sites`);
    await page.locator('#sites table').waitFor();
    t.match(await page.locator('#sites thead').innerText(), /Payment accounts/);
    t.same(
      (await rowTexts(page, 'sites')).map((r) => r.includes('This box’s')),
      [true, true],
      'every site uses the box’s accounts',
    );
    const accountsOf = async () =>
      (await listSites(app.app.deps))
        .filter((s) => s.slug === 'harbour')
        .map((s) => [s.selcom_account_enc !== null, s.azampay_account_enc !== null]);

    // Half an account is refused at its first empty field, before anything is sent.
    await page.getByRole('button', { name: 'Edit: Harbour café' }).click();
    t.ok(await page.locator('#site-azampay-drop-row').isHidden(), 'no own account to drop yet');
    await page.getByLabel('AzamPay app name').fill(AZAMPAY_SITE_APP.appName);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#site-azampay-client-id-error').waitFor();
    t.equal(
      await page.locator('#site-azampay-client-id-error').innerText(),
      'Give every field of this account, or none.',
    );
    t.same(await accountsOf(), [[false, false]], 'nothing was saved');

    await page.getByLabel('AzamPay client id').fill(AZAMPAY_SITE_APP.clientId);
    await page.getByLabel('AzamPay client secret').fill(AZAMPAY_SITE_APP.clientSecret);
    await page.getByLabel('AzamPay API key').fill(AZAMPAY_SITE_APP.apiKey);
    t.equal(await page.getByLabel('AzamPay client secret').getAttribute('type'), 'password');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Site Harbour café saved.').waitFor();
    t.same(await accountsOf(), [[false, true]], 'the AzamPay account only, sealed');
    t.match(await page.locator('#sites tbody').innerText(), /AzamPay/);
    t.notMatch(await page.content(), AZAMPAY_SITE_APP.clientSecret, 'never shown back');

    // The harbour's guests now pay into its own AzamPay app (Selcom refuses: the fallback).
    selcom.state.mode = 'refuse';
    const sale = (await postPurchase(app.base, { plan_id: harbourPlan.id, phone: '0712345678' })).body.data!;
    t.equal(azampay.byExternalId(sale.invoice_number)?.app, AZAMPAY_SITE_APP.appName);

    await page.getByRole('button', { name: 'Edit: Harbour café' }).click();
    t.equal(await page.getByLabel('AzamPay client secret').inputValue(), '', 'the form is empty again');
    t.ok(await page.locator('#site-azampay-drop-row').isVisible(), 'the own account may be dropped');
    t.ok(await page.locator('#site-selcom-drop-row').isHidden(), 'there is no own Selcom account');
    await shoot(page, 'accounts');
    await page.getByLabel('Drop the site’s own AzamPay account: use this box’s').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Site Harbour café saved.').waitFor();
    t.same(await accountsOf(), [[false, false]], 'back to the box’s accounts');
    t.same(foreign, []);
  },
);
