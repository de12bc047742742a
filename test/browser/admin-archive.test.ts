import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import t from 'tap';
import { addStaffForSites } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser, PHONE } from '../helpers/browser.js';
import { CoaListener } from '../helpers/coa-listener.js';
import { SECRET } from '../helpers/radius.js';
import { STAFF_PASSWORD } from '../helpers/staff.js';
import { aDevice, aLiveSession, aPaidPurchase, aPlan } from '../helpers/wifi.js';

/**
 * Archive, unarchive and delete on the plans and routers pages (issue 21,
 * docs/decisions/0037-archive.md) in headless Chromium: each asked in the page's dialog, the
 * API's 409 shown as it words it, a router with live sessions archived only after a second
 * "Disconnect N live sessions and archive", the Active / Archived / All filter kept in the
 * address, the Archived pill, and no such buttons for an operator. With UPDATE_SCREENSHOTS=1 the
 * two pages are saved to docs/screenshots/ at 390 and 1440 px.
 */

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');

async function signIn(page: Page, base: string, email: string, next: string): Promise<void> {
  await page.goto(`${base}/admin/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}${next}`);
}

/** Clicks the row's button, checks the dialog's question, and answers yes with `yes`. */
async function confirm(page: Page, button: string, question: RegExp, yes: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.locator('#confirm');
  await dialog.waitFor();
  t.match(await page.locator('#confirm-text').textContent(), question);
  t.equal(await page.locator('#confirm-yes').textContent(), yes);
  await page.locator('#confirm-yes').click();
}

const statusText = (page: Page, id: string) => page.locator(`#${id}`).textContent();

async function shoot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${String(width)}.png`), fullPage: true });
  }
  await page.setViewportSize(PHONE);
}

t.test(
  'plans and routers: archive, filter, unarchive, delete; 409s shown; force for live sessions; not for operators',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await app.app.scheduler.stop();
    const deps = app.app.deps;
    await aPlan(app.app, { name: 'Day pass' });
    const week = await aPlan(app.app, { name: 'Week pass', price_tzs: 5000 });
    await aPaidPurchase(app, week);
    // The lobby router answers Disconnect-Requests (a forced archive sends it one).
    const router = new CoaListener(SECRET);
    const coaPort = await router.listen();
    t.teardown(() => router.close());
    const lobby = (
      await aDevice(app.app, {
        name: 'Lobby AP',
        radius_secret: SECRET,
        radius_client_ip: '127.0.0.1',
        coa_port: coaPort,
      })
    ).device;
    await aDevice(app.app, { name: 'Spare AP', mac_address: 'AA:BB:CC:DD:EE:09', radius_nas_id: 'spare-01' });
    await aLiveSession(app.app, { deviceId: lobby.id, username: 'guest-1', acctSessionId: 'acct-1' });
    for (const role of ['admin', 'operator'] as const)
      await addStaffForSites(deps, {
        email: `${role}@venue.test`,
        role,
        password: STAFF_PASSWORD,
        sites: [],
      });

    const context = await launchBrowser(t, { viewport: PHONE });
    const foreign = foreignRequests(context, [app.base]);
    const page = await firstPage(context);
    await signIn(page, app.base, 'admin@venue.test', '/admin/plans');
    const planRow = (name: string) => page.locator('#plans tbody tr', { hasText: name });
    await planRow('Week pass').waitFor();

    // A sold plan cannot be deleted: the API's message, and nothing changes.
    await confirm(page, 'Delete Week pass', /Delete the plan Week pass for good\?/, 'Delete');
    await page.locator('#plans-status', { hasText: 'archive it instead' }).waitFor();
    t.equal(
      await statusText(page, 'plans-status'),
      'the plan has been sold or has voucher batches, so it cannot be deleted: archive it instead',
    );
    t.equal(await planRow('Week pass').count(), 1, 'still listed');

    await confirm(page, 'Archive Week pass', /Archive the plan Week pass\?/, 'Archive');
    await page.locator('#plans-status', { hasText: 'Week pass archived.' }).waitFor();
    await planRow('Week pass').waitFor({ state: 'detached' });
    t.equal(await planRow('Day pass').count(), 1, 'the active list keeps the other plan');

    await page.locator('#plans-show').selectOption('archived');
    await planRow('Week pass').waitFor();
    t.match(page.url(), /\/admin\/plans\?status=archived$/, 'the filter is in the address');
    t.equal(await planRow('Day pass').count(), 0);
    t.equal(await planRow('Week pass').locator('.badge', { hasText: 'Archived' }).count(), 1, 'the pill');
    await shoot(page, 'admin-plans-archived');

    await page.reload();
    await planRow('Week pass').waitFor();
    t.equal(await page.locator('#plans-show').inputValue(), 'archived', 'a reload keeps the filter');

    await confirm(page, 'Unarchive Week pass', /Unarchive the plan Week pass\?/, 'Unarchive');
    await planRow('Week pass').waitFor({ state: 'detached' });
    await page.locator('#plans-show').selectOption('all');
    await planRow('Week pass').waitFor();
    t.equal(await planRow('Week pass').locator('.badge', { hasText: 'Archived' }).count(), 0, 'no pill now');
    t.match(page.url(), /\?status=all$/);

    await confirm(page, 'Delete Day pass', /Delete the plan Day pass/, 'Delete');
    await page.locator('#plans-status', { hasText: 'Day pass deleted.' }).waitFor();
    await planRow('Day pass').waitFor({ state: 'detached' });
    await page.locator('#plans-show').selectOption('');
    t.match(page.url(), /\/admin\/plans$/, 'Active: no status in the address');

    // Routers.
    await page.goto(`${app.base}/admin/devices`);
    const routerRow = (name: string) => page.locator('#devices tbody tr', { hasText: name });
    await routerRow('Lobby AP').waitFor();
    await confirm(page, 'Delete Lobby AP', /Delete the router Lobby AP/, 'Delete');
    await page.locator('#devices-status', { hasText: 'archive it instead' }).waitFor();
    t.equal(
      await statusText(page, 'devices-status'),
      'the router has had sessions, so it cannot be deleted: archive it instead',
    );

    await confirm(page, 'Archive Lobby AP', /Archive the router Lobby AP\?/, 'Archive');
    // Refused for its live session: the API's message, then the offer to disconnect it.
    await page.locator('#confirm-text', { hasText: 'live sessions' }).waitFor();
    t.match(await statusText(page, 'devices-status'), /^the router has live sessions/);
    t.match(await page.locator('#confirm-text').textContent(), /Lobby AP has 1 live sessions\./);
    t.equal(await page.locator('#confirm-yes').textContent(), 'Disconnect 1 live sessions and archive');
    // Declined: nothing archived.
    await page.locator('#confirm-no').click();
    t.equal(await routerRow('Lobby AP').count(), 1, 'declined: still listed');
    // Asked again and accepted: the live session is disconnected and the router archived.
    await confirm(page, 'Archive Lobby AP', /Archive the router Lobby AP\?/, 'Archive');
    await page.locator('#confirm-text', { hasText: 'live sessions' }).waitFor();
    await page.locator('#confirm-yes').click();
    await page.locator('#devices-status', { hasText: 'Lobby AP archived.' }).waitFor();
    await routerRow('Lobby AP').waitFor({ state: 'detached' });
    t.match(router.received, [{ code: 40, authenticatorOk: true }], 'one Disconnect-Request, signed');
    t.match(
      await deps.db.selectFrom('radius_sessions').select(['stopped_at', 'terminate_cause']).execute(),
      [{ terminate_cause: 'Admin-Reset' }],
      'its session ended',
    );

    await confirm(page, 'Delete Spare AP', /Delete the router Spare AP/, 'Delete');
    await page.locator('#devices-status', { hasText: 'Spare AP deleted.' }).waitFor();
    await routerRow('Spare AP').waitFor({ state: 'detached' });
    await page.locator('#devices-show').selectOption('all');
    await routerRow('Lobby AP').waitFor();
    t.match(page.url(), /\/admin\/devices\?status=all$/);
    await shoot(page, 'admin-devices-all');
    await confirm(page, 'Unarchive Lobby AP', /Lobby AP/, 'Unarchive');
    await page.locator('#devices-status', { hasText: 'Lobby AP unarchived.' }).waitFor();
    t.equal(
      (
        await deps.db
          .selectFrom('devices')
          .select('archived_at')
          .where('id', '=', lobby.id)
          .executeTakeFirst()
      )?.archived_at,
      null,
      'unarchived',
    );

    // An operator sees the lists and the filter, not the buttons.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/admin\/login/);
    await signIn(page, app.base, 'operator@venue.test', '/admin/plans');
    await planRow('Week pass').waitFor();
    t.equal(await page.getByRole('button', { name: /^(Archive|Unarchive|Delete) / }).count(), 0, 'plans');
    await page.goto(`${app.base}/admin/devices`);
    await routerRow('Lobby AP').waitFor();
    t.equal(await page.getByRole('button', { name: /^(Archive|Unarchive|Delete) / }).count(), 0, 'routers');
    t.same(foreign, [], 'nothing from another origin');
  },
);
