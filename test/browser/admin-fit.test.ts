import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { addStaff } from '../../src/identity/index.js';
import { extendGrant, issueAtCounter } from '../../src/wifi/counter.js';
import { refundInvoice } from '../../src/wifi/refunds.js';
import { createBatch } from '../../src/wifi/vouchers.js';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, launchBrowser, waitForCount } from '../helpers/browser.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { aDevice, aHarbourRouter, aLiveSession, aPaidPurchase, aPlan, aSite } from '../helpers/wifi.js';

/**
 * Every admin list at 1440 px with a busy venue's data (two sites, long names, a refund's audit
 * entry, failed payments with the provider's long reason): each table fits the box it scrolls in
 * and no cell breaks inside a word; at 390 px each row is still a card. With UPDATE_SCREENSHOTS=1
 * the pages issue 21's audit found too wide are saved to docs/screenshots/ at 390 and 1440 px.
 */

const SHOTS = path.join(import.meta.dirname, '../../docs/screenshots');
const SHOT = new Set(['sessions', 'audit', 'invoices', 'counter']);

const PAGES: readonly { path: string; table: string }[] = [
  { path: '/admin/counter', table: '#grants table' },
  { path: '/admin/vouchers', table: 'main table' },
  { path: '/admin/plans?status=all', table: 'main table' },
  { path: '/admin/devices?status=all', table: '#devices table' },
  { path: '/admin/sessions', table: '#sessions table' },
  { path: '/admin/guests', table: '#guests table' },
  { path: '/admin/invoices', table: '#invoices table' },
  { path: '/admin/payments', table: '#payments table' },
  { path: '/admin/sms', table: 'main table' },
  { path: '/admin/sites', table: 'main table' },
  { path: '/admin/audit', table: '#audit table' },
];

/** Per table: whether it fits its box, and the cells whose text breaks inside a word. */
interface Fit {
  tables: { scroll: number; client: number }[];
  broken: string[];
}

// Runs in the page: each table against its scrolling box, and every text node of every cell laid
// out line by line (a line box that starts where the one before ended mid-word breaks a word).
const MEASURE = `(() => {
  const tables = [...document.querySelectorAll('main table')].map((table) => {
    const box = table.closest('.table-wrap') ?? table.parentElement;
    return { scroll: box.scrollWidth, client: box.clientWidth };
  });
  const broken = [];
  for (const cell of document.querySelectorAll('main td, main th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      if (node.parentElement.closest('.sr-only, details:not([open]) > :not(summary)')) continue;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (top !== null && rect.top > top + 2 && /\\S/.test(text[i - 1] ?? ' ') && /\\S/.test(text[i])) {
          broken.push(text);
          break;
        }
        top = rect.top;
      }
    }
  }
  return { tables, broken };
})()`;

const measure = (page: Page): Promise<Fit> => page.evaluate<Fit>(MEASURE);

t.test(
  'every admin list fits 1440 px with two sites and long values; phones get cards',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await app.app.scheduler.stop();
    const deps = app.app.deps;
    await addStaff(deps, {
      email: 'owner.of.the.harbour.cafe@venue.test',
      role: 'owner',
      password: STAFF_PASSWORD,
    });
    const harbour = await aSite(app.app, { name: 'Harbour café and rooftop terrace', slug: 'harbour' });
    const lobbyPlan = await aPlan(app.app, { name: 'Weekend unlimited with streaming', price_tzs: 25000 });
    const harbourPlan = await aPlan(app.app, { name: 'Harbour day pass', site_id: harbour.id });
    const { device } = await aDevice(app.app, { name: 'Lobby AP on the first floor landing' });
    const { device: harbourAp } = await aHarbourRouter(app.app, harbour.id);
    const staff = { actor: { id: 'owner', label: 'owner.of.the.harbour.cafe@venue.test' }, scope: null };
    for (let i = 0; i < 4; i++) {
      app.clock.advance('7m');
      const sale = await aPaidPurchase(app, i % 2 === 0 ? lobbyPlan : harbourPlan, {
        phone: `071234567${String(i)}`,
      });
      if (i === 0)
        await refundInvoice(deps, sale.invoiceId, { reason: 'The guest paid twice by mistake' }, staff);
    }
    const counter = await issueAtCounter(
      deps,
      { plan_id: lobbyPlan.id, phone: '0755000111', channel: 'cash', amount_tzs: 25000 },
      staff,
    );
    await extendGrant(
      deps,
      counter.grant.id,
      { seconds: 7200, reason: 'Router was down for two hours' },
      staff,
    );
    await createBatch(deps, { plan_id: lobbyPlan.id, count: 5 }, staff.actor);
    await createBatch(deps, { plan_id: harbourPlan.id, count: 5 }, staff.actor);
    await aLiveSession(app.app, {
      deviceId: device.id,
      username: 'guest-long-username-0755000111',
      acctSessionId: 'acct-1',
      mac: '11:22:33:44:55:77',
    });
    await aLiveSession(app.app, {
      deviceId: harbourAp.id,
      username: counter.grant.username,
      acctSessionId: 'acct-2',
      mac: '11:22:33:44:55:78',
      framedIp: '10.2.0.254',
    });

    const context = await launchBrowser(t, { viewport: { width: 1440, height: 900 } });
    const page = await firstPage(context);
    await page.goto(`${app.base}/admin/login`);
    await page.getByLabel('Email').fill('owner.of.the.harbour.cafe@venue.test');
    await page.getByLabel('Password').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/admin\/?$/);

    for (const { path: where, table } of PAGES) {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${app.base}${where}`);
      const shown = await page
        .locator(`${table} tbody tr`)
        .first()
        .waitFor({ timeout: 10_000 })
        .then(
          () => true,
          () => false,
        );
      if (!shown) {
        t.fail(`${where}: the table shows`);
        continue;
      }
      const fit = await measure(page);
      t.ok(fit.tables.length > 0, `${where}: a table`);
      fit.tables.forEach((m, i) =>
        t.ok(
          m.scroll <= m.client,
          `${where}: table ${String(i + 1)} fits (${String(m.scroll)} / ${String(m.client)} px)`,
        ),
      );
      t.same(fit.broken, [], `${where}: no cell breaks inside a word`);
      const name = where.slice('/admin/'.length).split('?')[0] ?? '';
      if (process.env.UPDATE_SCREENSHOTS === '1' && SHOT.has(name))
        await page.screenshot({ path: path.join(SHOTS, `admin-${name}-1440.png`), fullPage: true });

      await page.setViewportSize({ width: 390, height: 900 });
      const phone = await measure(page);
      t.ok(
        phone.tables.every((m) => m.scroll <= m.client),
        `${where}: at 390 px each row is a card within the screen (${JSON.stringify(phone.tables)})`,
      );
      t.equal(
        await page
          .locator(`${table} thead`)
          .first()
          .evaluate((h) => (h.ownerDocument.defaultView?.getComputedStyle(h).position ?? '') as string),
        'absolute',
        `${where}: the headings are for screen readers only on a phone`,
      );
      if (process.env.UPDATE_SCREENSHOTS === '1' && SHOT.has(name))
        await page.screenshot({ path: path.join(SHOTS, `admin-${name}-390.png`), fullPage: true });
    }

    // Payments: each row says sale or refund (a pill) and its channel in words; the filter too.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${app.base}/admin/payments`);
    await page.locator('#payments tbody tr').first().waitFor();
    const refund = page.locator('#payments tbody tr', { has: page.locator('.badge', { hasText: 'refund' }) });
    t.equal(await refund.count(), 1, 'the refund is one row, with its pill');
    t.match(await refund.innerText(), /Mobile money/);
    t.equal(await page.locator('#payments tbody tr .badge', { hasText: 'sale' }).count(), 5);
    t.same(await page.locator('#payments-kind option').allTextContents(), [
      'any',
      'Mobile money',
      'Voucher',
      'In cash',
      'Free (complimentary)',
    ]);
    await page.getByLabel('Channel').selectOption('cash');
    await page.getByRole('button', { name: 'Show' }).click();
    await waitForCount(page, '#payments tbody tr', 1);
    t.match(await page.locator('#payments tbody tr').innerText(), /In cash/);
  },
);
