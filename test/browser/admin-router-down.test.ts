import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { addStaffForSites, markRoutersSeen, watchRouters } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, PHONE } from '../helpers/browser.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { aDevice, aLiveSession } from '../helpers/wifi.js';

/**
 * Router status at a glance (issue 21, docs/decisions/0038-router-down.md) in headless Chromium:
 * the devices page shows each router's live sessions, linking to the sessions list of that
 * router, and a router the router-down job reported as Down, with since when. With
 * ROUTER_SCREENSHOTS=<dir> the pages are saved there at 390 and 1440 px.
 */

const SHOTS = process.env.ROUTER_SCREENSHOTS;

async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${String(width)}.png`), fullPage: true });
  }
  await page.setViewportSize(PHONE);
}

t.test(
  'the devices page shows live sessions per router and a router that is down; the count opens its sessions',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await app.app.scheduler.stop();
    const deps = app.app.deps;
    const lobby = (await aDevice(app.app, { name: 'Lobby AP' })).device;
    const bar = (
      await aDevice(app.app, { name: 'Bar AP', mac_address: 'AA:BB:CC:DD:EE:02', radius_nas_id: 'bar-01' })
    ).device;
    await aDevice(app.app, {
      name: 'Garden AP',
      mac_address: 'AA:BB:CC:DD:EE:03',
      radius_nas_id: 'garden-01',
    });
    for (const [device, user] of [
      [lobby, 'lobby-guest-1'],
      [lobby, 'lobby-guest-2'],
      [bar, 'bar-guest-1'],
    ] as const)
      await aLiveSession(app.app, { deviceId: device.id, username: user, acctSessionId: user });
    const wentQuiet = app.clock.now().toISOString();
    await markRoutersSeen(deps, new Map([lobby, bar].map((d) => [d.id, wentQuiet])));
    app.clock.advance('11m');
    await markRoutersSeen(deps, new Map([[bar.id, app.clock.now().toISOString()]]));
    t.match(await watchRouters(deps), { down: [{ routerId: lobby.id, sessions: 2 }] });

    await addStaffForSites(deps, {
      email: 'admin@venue.test',
      role: 'admin',
      password: STAFF_PASSWORD,
      sites: [],
    });
    const context = await launchBrowser(t, { viewport: PHONE });
    const foreign = foreignRequests(context, [app.base]);
    const page = await firstPage(context);
    await page.goto(`${app.base}/admin/login?next=%2Fadmin%2Fdevices`);
    await page.getByLabel('Email').fill('admin@venue.test');
    await page.getByLabel('Password').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.base}/admin/devices`);

    const row = (name: string) => page.locator('#devices tbody tr', { hasText: name });
    await row('Lobby AP').waitFor();
    const down = row('Lobby AP').locator('.badge');
    t.equal(await down.textContent(), 'Down', 'a pill with its word');
    t.match(await down.getAttribute('class'), /\bwarn\b/);
    t.match(
      await row('Lobby AP').textContent(),
      /offline since \d{1,2} \w{3} 2026, \d\d:\d\d, guests were on it/,
    );
    t.equal(await row('Bar AP').locator('.badge').textContent(), 'Online');
    t.equal(await row('Garden AP').locator('.badge').textContent(), 'Offline');
    t.match(await row('Garden AP').textContent(), /never heard from/);
    const count = (name: string) => row(name).getByRole('link', { name: `Sessions of ${name}` });
    t.equal(await count('Lobby AP').textContent(), '2');
    t.equal(await count('Bar AP').textContent(), '1');
    t.equal(await count('Garden AP').textContent(), '0');
    await shoot(page, 'router-down-devices');
    await page.setViewportSize({ width: 1440, height: 900 });
    t.ok(
      (await page.evaluate<number>('document.documentElement.scrollWidth')) <= 1440,
      'at 1440 px the page does not scroll sideways (the table scrolls in its own box)',
    );
    await page.setViewportSize(PHONE);

    await count('Lobby AP').click();
    await page.waitForURL(`${app.base}/admin/sessions?router=${lobby.id}`);
    const sessions = page.locator('#sessions tbody tr');
    await sessions.first().waitFor();
    t.same(
      // The user's line (the MAC is under it).
      (await sessions.locator('td:first-child').allInnerTexts()).map((s) => s.split('\n')[0]).sort(),
      ['lobby-guest-1', 'lobby-guest-2'],
      'only that router’s sessions',
    );
    t.match(await page.locator('#sessions-router').textContent(), 'Only the sessions of one router.');
    await shoot(page, 'router-down-sessions');
    await page.getByRole('link', { name: 'Show every router' }).click();
    await page.waitForURL(`${app.base}/admin/sessions`);
    await page.locator('#sessions tbody tr', { hasText: 'bar-guest-1' }).waitFor();
    t.equal(await sessions.count(), 3, 'every router again');
    t.equal(await page.locator('#sessions-router').count(), 0);
    t.same(foreign, [], 'nothing loaded from elsewhere');
  },
);
