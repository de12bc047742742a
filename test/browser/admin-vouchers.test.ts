import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { addStaffForSites } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  chromiumSkip,
  firstPage,
  foreignRequests,
  launchBrowser,
  PHONE,
  waitForText,
  waitForValue,
} from '../helpers/browser.js';
import { decodeQr, matrixFromSvgPath } from '../helpers/qr-decode.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { aPlan } from '../helpers/wifi.js';

/**
 * The vouchers page in headless Chromium (DESIGN.md §4.8, docs/decisions/0027-vouchers.md): an
 * admin makes a batch and sees its codes once, prints them on A4 and on a 58 mm roll (new tabs;
 * each sheet also printed to PDF, checked for its paper size), downloads them as CSV, and after a
 * reload sees no code any more; prints again from the saved CSV; revokes the batch. With
 * VOUCHER_SHOTS=<dir> the pages and both PDFs are saved there (`pdftoppm -png` turns a PDF into
 * images to look at).
 */

const SHOTS = process.env.VOUCHER_SHOTS;
const DESKTOP = { width: 1280, height: 800 };
const CODE = /^BAR-[A-HJKMNP-Z2-9]{5}-[A-HJKMNP-Z2-9]{5}$/;

async function signedIn(t: Test, app: TestApp) {
  const email = 'admin@venue.test';
  await addStaffForSites(app.app.deps, { email, role: 'admin', password: STAFF_PASSWORD, sites: [] });
  const context = await launchBrowser(t, { viewport: PHONE });
  const foreign = foreignRequests(context, [app.base]);
  const page = await firstPage(context);
  await page.goto(`${app.base}/admin/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.base}/admin`);
  return { context, page, foreign };
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await page.screenshot({ path: path.join(SHOTS, `vouchers-${name}-360.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `vouchers-${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
}

/** The tab a print button opens, once its sheet has loaded. */
async function sheetTab(context: BrowserContext, click: () => Promise<void>): Promise<Page> {
  const [tab] = await Promise.all([context.waitForEvent('page'), click()]);
  await tab.waitForLoadState('load');
  return tab;
}

/** What the QR codes of a sheet say, read from their SVG paths. */
async function qrTexts(tab: Page): Promise<string[]> {
  const qrs = await tab.locator('svg.qr').evaluateAll((svgs) =>
    svgs.map((svg) => ({
      size: Number(svg.getAttribute('viewBox')?.split(' ')[2]),
      d: svg.querySelector('path')?.getAttribute('d') ?? '',
    })),
  );
  return qrs.map((q) => decodeQr(matrixFromSvgPath(q.d, q.size, 2)));
}

/** The first page's size in millimetres, from the PDF's MediaBox (points). */
function pdfPageMm(pdf: Buffer): { width: number; height: number; pages: number } {
  const text = pdf.toString('latin1');
  const box = /\/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]/.exec(text);
  const mm = (pt: string | undefined) => Math.round((Number(pt) * 25.4) / 72);
  return {
    width: mm(box?.[1]),
    height: mm(box?.[2]),
    pages: (text.match(/\/Type\s*\/Page\b/g) ?? []).length,
  };
}

t.test(
  'an admin makes a batch, sees the codes once, prints them, saves the CSV, prints again from it and revokes',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await aPlan(app.app, {
      name: 'Day pass',
      price_tzs: 2000,
      duration_seconds: 86_400,
      download_kbps: 4000,
      upload_kbps: 1000,
    });
    const { context, page, foreign } = await signedIn(t, app);
    await page.getByRole('link', { name: 'Vouchers' }).click();
    await page.waitForURL(`${app.base}/admin/vouchers`);
    await page.locator('#batch-plan option').first().waitFor({ state: 'attached' });
    // The plans and the batches load separately: wait for the list to leave "Loading…".
    await page.locator('#batches', { hasNotText: 'Loading' }).waitFor();
    t.match(await page.locator('#batches').innerText(), 'Nothing yet.');

    await page.getByLabel('How many codes').fill('12');
    await page.getByLabel('Prefix (optional)').fill('bar');
    await page.getByLabel('Last day of use (optional)').fill('2026-12-31');
    await page.getByRole('button', { name: 'Create codes' }).click();
    const box = page.locator('#codes-box');
    await box.waitFor();
    const codes = await page.locator('#codes-list li').allInnerTexts();
    t.equal(codes.length, 12);
    for (const code of codes) t.match(code, CODE, 'prefix, then groups of five');
    t.match(await box.innerText(), /12 codes for Day pass \(batch [0-9a-f]{8}\)/);
    const batchId = (
      await app.app.deps.db.selectFrom('voucher_batches').select('id').executeTakeFirstOrThrow()
    ).id;
    await shoot(page, 'created');

    // Print A4: a new tab with each code, the plan, its price, duration and speed, and a QR code.
    const a4 = await sheetTab(context, () => page.getByRole('button', { name: 'Print A4' }).click());
    t.equal(a4.url(), `${app.base}/admin/vouchers/${batchId}/print`);
    const a4Text = await a4.locator('body').innerText();
    for (const code of codes) t.match(a4Text, code);
    t.equal((a4Text.match(/Day pass/g) ?? []).length, 12, 'the plan on every card');
    t.match(a4Text, /TZS\s2,000 · 1\sday/);
    t.match(a4Text, '↓ 4 Mbit/s ↑ 1 Mbit/s');
    t.match(a4Text, 'Use by 2026-12-31');
    t.same(
      await qrTexts(a4),
      codes.map((c) => `${app.config.publicBaseUrl}/portal?voucher=${c.replace(/-/g, '')}`),
      'a QR code of the portal with each code filled in',
    );
    const qrBox = await a4.locator('svg.qr').first().boundingBox();
    t.ok((qrBox?.width ?? 0) >= 80, `the QR code is big enough to scan (${String(qrBox?.width)} px)`);
    const a4Pdf = await a4.pdf({ preferCSSPageSize: true, printBackground: true });
    t.match(pdfPageMm(a4Pdf), { width: 210, height: 297, pages: 1 }, 'one A4 page holds twelve cards');
    if (SHOTS) writeFileSync(path.join(SHOTS, 'vouchers-a4.pdf'), a4Pdf);
    await a4.close();

    const roll = await sheetTab(context, () => page.getByRole('button', { name: 'Print 58 mm' }).click());
    const rollText = await roll.locator('body').innerText();
    for (const code of codes) t.match(rollText, code);
    t.equal((await qrTexts(roll)).length, 12);
    // Within the 48 mm a 58 mm printer prints: every line of text and the QR code inside the
    // card's 5 mm margins (the text measured as laid out, not its box).
    const reach = await roll.evaluate<{ left: number; right: number; from: number; to: number }>(
      `(() => {
        const card = document.querySelector('.card').getBoundingClientRect();
        const margin = (5 * 96) / 25.4;
        const boxes = [...document.querySelector('.card').querySelectorAll('p, svg')].map((e) => {
          const range = document.createRange();
          range.selectNodeContents(e);
          return e.tagName === 'svg' ? e.getBoundingClientRect() : range.getBoundingClientRect();
        });
        return {
          left: Math.min(...boxes.map((b) => b.left)),
          right: Math.max(...boxes.map((b) => b.right)),
          from: card.left + margin,
          to: card.right - margin,
        };
      })()`,
    );
    t.ok(
      reach.left >= reach.from - 0.5 && reach.right <= reach.to + 0.5,
      `nothing in the 5 mm each side a 58 mm printer leaves blank (${JSON.stringify(reach)})`,
    );
    const rollPdf = await roll.pdf({ preferCSSPageSize: true, printBackground: true });
    t.match(pdfPageMm(rollPdf), { width: 58 }, 'a 58 mm wide roll');
    if (SHOTS) writeFileSync(path.join(SHOTS, 'vouchers-58mm.pdf'), rollPdf);
    await roll.close();

    // The CSV, built from the codes on the page: the one copy there will be.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    t.equal(download.suggestedFilename(), `voucher-codes-${batchId}.csv`);
    const csvFile = path.join(t.testdir(), 'codes.csv');
    await download.saveAs(csvFile);
    const csv = readFileSync(csvFile, 'utf8').trim().split('\r\n');
    t.equal(csv[0], 'code,voucher_id,batch_id,plan,valid_until');
    t.same(
      csv.slice(1).map((l) => l.split(',')[0]),
      codes,
    );
    t.match(csv[1], new RegExp(`,${batchId},Day pass,2026-12-31T21:00:00.000Z$`));

    await page.getByRole('button', { name: 'I have printed or saved them' }).click();
    t.ok(await box.isHidden());
    t.equal(await page.locator('#codes-list li').count(), 0, 'the codes are gone from the page');

    // Reloaded: the batch, its counts, and no code anywhere.
    await page.reload();
    const row = page.locator('#batches tbody tr').first();
    await row.waitFor();
    t.match(
      await row.innerText(),
      /^Day pass\nTZS 2,000\n12\n12\n0\n0\n0\n/,
      'plan, price, codes, unused, redeemed, revoked, expired',
    );
    const html = await page.content();
    for (const code of codes) {
      t.notOk(html.includes(code), `${code} is not on the page`);
      t.notOk(html.includes(code.replace(/-/g, '').slice(3)), 'not even without its dashes');
    }
    await shoot(page, 'list');

    // Print again from the saved CSV.
    await page.getByRole('button', { name: `Print codes of batch ${batchId.slice(0, 8)} again` }).click();
    await page.getByLabel('The CSV saved at creation').setInputFiles(csvFile);
    await waitForValue(page, '#reprint-codes');
    await shoot(page, 'reprint');
    const again = await sheetTab(context, () => page.locator('#reprint-a4').click());
    t.equal((await qrTexts(again)).length, 12, 'all twelve printed again');
    await again.close();

    // A code redeemed since: printing again from the same CSV refuses, and says how many.
    const redeemed = await fetch(`${app.base}/api/v1/public/vouchers/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: codes[0] }),
    });
    t.equal(redeemed.status, 200);
    await page.getByRole('button', { name: `Print codes of batch ${batchId.slice(0, 8)} again` }).click();
    await page.locator('#reprint-codes').fill(codes.join('\n'));
    const refused = await sheetTab(context, () => page.locator('#reprint-58').click());
    t.match(
      await refused.locator('body').innerText(),
      '1 of the 12 codes is not an unused code of this batch (used, revoked, expired or unknown): nothing was printed',
    );
    await refused.close();
    await page.reload();

    await page
      .getByRole('button', { name: `Revoke the unused codes of batch ${batchId.slice(0, 8)}` })
      .click();
    t.match(await page.locator('#confirm-text').innerText(), 'Revoke the 11 unused codes of batch');
    await page.locator('#confirm-yes').click();
    await page
      .locator('#vouchers-status')
      .getByText(`11 codes of batch ${batchId.slice(0, 8)} revoked.`)
      .waitFor();
    // Plan, price, codes, unused, redeemed, revoked, expired.
    await waitForText(page, '#batches tbody tr', /^Day pass\nTZS 2,000\n12\n0\n1\n11\n0\n/);
    t.equal(
      await page.getByRole('button', { name: /Revoke the unused codes/ }).count(),
      0,
      'nothing left to revoke or print',
    );

    const prints = await app.app.deps.db
      .selectFrom('wifi_audit')
      .select('action')
      .where('action', '=', 'voucher_batch.print')
      .execute();
    t.equal(prints.length, 3, 'every sheet shown is in the audit trail; the refused one is not');
    t.same(foreign, [], 'nothing loaded from elsewhere');
  },
);
