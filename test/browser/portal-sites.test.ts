import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, waitForImage } from '../helpers/browser.js';
import { aDevice, aHarbourRouter, aPlan, aSite } from '../helpers/wifi.js';

/**
 * The portal of a box with two sites (DESIGN.md §4.9), in headless Chromium: a guest sees the
 * plans and the branding (name, logo, colours) of the site of the router they came through, and
 * a guest who came through no router sees the default site, as a single venue always does.
 * With SITES_SCREENSHOTS=<dir> the pages are also saved there (phone and desktop).
 */

const SHOTS = process.env.SITES_SCREENSHOTS;

const chilli = (uamip: string, nasid: string): string =>
  new URLSearchParams({
    res: 'notyet',
    uamip,
    uamport: '3990',
    challenge: '8b10938e9770a389af6667748c2c828f',
    nasid,
    userurl: 'http://example.com/',
  }).toString();

/** A small logo, drawn by the browser itself. */
async function drawLogo(page: Page): Promise<Buffer> {
  await page.setContent(
    `<div id="logo" style="width:96px;height:96px;background:#0f766e;color:#fff;font:bold 42px sans-serif;
      display:flex;align-items:center;justify-content:center;border-radius:22px">HC</div>`,
  );
  return page.locator('#logo').screenshot();
}

const planNames = (page: Page) => page.locator('.plan-name').allTextContents();

t.test('each router’s guests see their own site’s plans and branding', { skip: chromiumSkip }, async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_NAME: 'Lobby Hotspot' } });
  const context = await launchBrowser(t, { viewport: { width: 390, height: 844 } });
  const foreign = foreignRequests(context, [app.base, 'http://10.1.0.1:3990', 'http://10.2.0.1:3990']);
  const page = await firstPage(context);
  const logo = await drawLogo(page);
  const harbour = await aSite(app.app, {
    display_name: 'Harbour Café Wi-Fi',
    logo: `data:image/png;base64,${logo.toString('base64')}`,
    brand_color: '#0f766e',
    background_color: '#f0fdfa',
  });
  await aPlan(app.app, { name: 'Lobby hour', price_tzs: 1000 });
  await aPlan(app.app, { name: 'Harbour hour', price_tzs: 1500, site_id: harbour.id, download_kbps: 4000 });
  await aPlan(app.app, {
    name: 'Harbour day',
    price_tzs: 5000,
    duration_seconds: 86_400,
    site_id: harbour.id,
    data_limit_bytes: 3e9,
  });
  await aDevice(app.app);
  await aHarbourRouter(app.app, harbour.id);

  await page.goto(`${app.base}/portal?${chilli('10.2.0.1', 'harbour-01')}`);
  await page.locator('.plan').first().waitFor();
  t.same(await planNames(page), ['Harbour hour', 'Harbour day'], 'only the harbour’s plans');
  t.equal(await page.locator('.bar .brand').textContent(), 'Harbour Café Wi-Fi');
  t.match(await page.title(), /· Harbour Café Wi-Fi$/);
  const img = page.locator('.bar img.logo');
  await t.resolves(waitForImage(page, '.bar img.logo'), 'the logo loads from this box');
  t.equal(await img.getAttribute('alt'), '', 'decorative: the name is next to it');
  const colours = await page.evaluate<Record<string, string>>(`({
    bar: getComputedStyle(document.querySelector('.bar')).backgroundColor,
    page: getComputedStyle(document.documentElement).backgroundColor,
    pay: getComputedStyle(document.querySelector('#pay')).backgroundColor,
  })`);
  t.same(colours, {
    bar: 'rgb(15, 118, 110)',
    page: 'rgb(240, 253, 250)',
    pay: 'rgb(15, 118, 110)',
  });
  if (SHOTS) {
    await page.screenshot({ path: path.join(SHOTS, 'sites-portal-harbour-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(SHOTS, 'sites-portal-harbour-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  }

  await page.goto(`${app.base}/portal?${chilli('10.1.0.1', 'lobby-01')}`);
  await page.locator('.plan').first().waitFor();
  t.same(await planNames(page), ['Lobby hour'], 'the lobby router: the default site');
  t.equal(await page.locator('.bar .brand').textContent(), 'Lobby Hotspot', 'SERVICE_NAME, as before sites');
  t.equal(await page.locator('.bar img').count(), 0);
  if (SHOTS)
    await page.screenshot({ path: path.join(SHOTS, 'sites-portal-lobby-phone.png'), fullPage: true });

  await page.goto(`${app.base}/portal`);
  await page.locator('.plan').first().waitFor();
  t.same(await planNames(page), ['Lobby hour'], 'no router: the default site');

  await page.goto(`${app.base}/portal?${chilli('10.9.0.1', 'nowhere')}`);
  await page.locator('#unknown-router').waitFor();
  t.equal(
    await page.locator('.bar .brand').textContent(),
    'Lobby Hotspot',
    'an unknown router: the default look',
  );
  t.equal(await page.locator('#buy').isVisible(), false, 'and nothing for sale');
  t.same(foreign, [], 'nothing loaded from anywhere else');
});
