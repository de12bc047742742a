import { readFileSync } from 'node:fs';
import t from 'tap';
import { addStaff } from '../../src/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, launchBrowser, waitForCount } from '../helpers/browser.js';
import { STAFF_PASSWORD, staffClient } from '../helpers/staff.js';
import { aDevice, aLiveSession, aPaidPurchase, aPlan } from '../helpers/wifi.js';

/**
 * The admin lists as a tool (issue 21) in Chromium at 1440 px: the content uses the width, a
 * MAC or a time never breaks across lines, statuses are pills with their word, and a list is
 * searched, filtered, paged and exported as CSV.
 */

t.test(
  'an owner searches, filters, pages and exports the invoices; cells stay whole',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await addStaff(app.app.deps, { email: 'owner@venue.test', role: 'owner', password: STAFF_PASSWORD });
    const plan = await aPlan(app.app, { name: 'Hour' });
    const { device } = await aDevice(app.app);
    // 51 sales to one phone, one to another: two pages of 50.
    for (let i = 0; i < 52; i++) {
      app.clock.advance('1m');
      await aPaidPurchase(app, plan, { phone: i === 51 ? '0755000111' : '0712345678' });
    }
    await aLiveSession(app.app, {
      deviceId: device.id,
      username: 'guest-a',
      acctSessionId: 'acct-a',
      mac: '11:22:33:44:55:77',
    });

    const context = await launchBrowser(t, { viewport: { width: 1440, height: 900 } });
    const page = await firstPage(context);
    await page.goto(`${app.base}/admin/login?next=%2Fadmin%2Finvoices`);
    await page.getByLabel('Email').fill('owner@venue.test');
    await page.getByLabel('Password').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.base}/admin/invoices`);
    const rows = page.locator('#invoices tbody tr');
    await rows.first().waitFor();
    t.equal(await rows.count(), 50, 'a page of 50');
    t.ok(await page.getByRole('button', { name: 'Previous' }).isDisabled());
    t.equal(await page.locator('.pager span').textContent(), 'Page 1');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator('.pager span', { hasText: 'Page 2' }).waitFor();
    t.equal(await rows.count(), 2);
    t.ok(await page.getByRole('button', { name: 'Next' }).isDisabled(), 'no third page');

    const width = await page.evaluate<number>("document.querySelector('main').getBoundingClientRect().width");
    t.ok(width > 1300, `the content uses the width (${String(width)} px)`);
    const pill = page.locator('#invoices tbody tr').first().locator('.badge');
    t.equal(await pill.textContent(), 'paid', 'the status is a pill with its word');
    t.match(await pill.getAttribute('class'), /\bgood\b/);

    await page.getByLabel('Search').fill('0755 000 111');
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('.pager span', { hasText: 'Page 1' }).waitFor();
    await rows.filter({ hasText: '+255 755 000 111' }).waitFor();
    await waitForCount(page, '#invoices tbody tr', 1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    t.match(download.suggestedFilename(), /^invoices-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
    t.equal(csv.length, 3, 'the header, the one matching invoice and the end');
    t.match(csv[1], /,\+255755000111,1000,paid,/);

    await page.getByLabel('From').fill('2001-01-01');
    await page.getByLabel('To (inclusive)').fill('2001-01-02');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('#invoices', { hasText: 'Nothing yet.' }).waitFor();

    // A MAC and a time each on one line.
    await page.goto(`${app.base}/admin/sessions`);
    // The MAC sits under the user (the table fits 1440 px): on one line, kept there.
    const mac = page.locator('#sessions td .heard', { hasText: '11:22:33:44:55:77' });
    await mac.waitFor();
    // The text's line boxes: one per line it takes.
    const lines = await page.evaluate<number>(
      "(() => { const span = [...document.querySelectorAll('#sessions td .heard')].find((e) => e.textContent === '11:22:33:44:55:77'); const r = document.createRange(); r.selectNodeContents(span); return r.getClientRects().length; })()",
    );
    t.equal(lines, 1, 'the MAC is on one line');
    t.equal(
      await mac.evaluate(
        (span) => (span.ownerDocument.defaultView?.getComputedStyle(span).whiteSpace ?? '') as string,
      ),
      'nowrap',
      'and kept there however narrow the column',
    );
    t.equal(await page.locator('#sessions .badge').first().textContent(), 'online');
  },
);

t.test(
  'the payments page says who sold at the counter and narrows the list to one seller',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const plan = await aPlan(app.app, { name: 'Hour' });
    await aPaidPurchase(app, plan, { phone: '0712345678' });
    const asha = await staffClient(app, 'operator');
    const ravi = await staffClient(app, 'operator');
    for (const [who, amount] of [
      [asha, 1000],
      [ravi, 2000],
      [asha, 3000],
    ] as const) {
      app.clock.advance('1m');
      const sale = await who.post('/api/v1/admin/grants', {
        plan_id: plan.id,
        channel: 'cash',
        amount_tzs: amount,
      });
      t.equal(sale.status, 201);
    }
    const owner = await staffClient(app, 'owner');
    const context = await launchBrowser(t, { viewport: { width: 1440, height: 900 } });
    await context.addCookies([
      { name: 'admin_session', value: owner.cookies.get('admin_session') ?? '', url: app.base },
    ]);
    const page = await firstPage(context);
    await page.goto(`${app.base}/admin/payments`);
    await waitForCount(page, '#payments tbody tr', 4);
    const soldBy = () => page.locator('#payments tbody td[data-label="Sold by"]').allTextContents();
    t.same(
      await soldBy(),
      [asha.email, ravi.email, asha.email, ''],
      'newest first; a mobile-money sale by nobody',
    );
    await page.getByLabel('Sold by (email or cli:user)').fill(asha.email);
    await page.getByRole('button', { name: 'Show' }).click();
    await waitForCount(page, '#payments tbody tr', 2);
    t.same(await soldBy(), [asha.email, asha.email]);
    t.match(
      await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'),
      `seller=${encodeURIComponent(asha.email)}`,
      'the export is of the same list',
    );
  },
);
