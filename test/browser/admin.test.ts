import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { addStaff } from '../../src/identity/index.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import { deviceByNasId, findLiveForPurchase, getPlan, recordAccounting } from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { Client } from '../helpers/client.js';
import { CoaListener } from '../helpers/coa-listener.js';
import { NAS_ID, papRequest, radclient, SECRET, startRadiusApp } from '../helpers/radius.js';
import { STAFF_PASSWORD, staffClient } from '../helpers/staff.js';
import { sendStaffSmsForTest } from '../helpers/staff-sms.js';
import { totpForSecret } from '../helpers/totp.js';
import { aDevice, aLiveSession, aPaidPurchase, aPlan, wifiRows } from '../helpers/wifi.js';

/**
 * The staff admin UI in headless Chromium against the real daemon: sign-in (with the TOTP step),
 * plans with their speeds (and applying a new speed to guests online now), routers with whether
 * they are online, their once-shown RADIUS secret and their set-up file, what a viewer is not
 * offered, and an operator's disconnect with each router's answer.
 */

/** Run in the page (the test program has no DOM types): the id of the focused element. */
const FOCUSED = 'document.activeElement?.id';
/** The widest thing that could scroll sideways: the page, or a table in its scroll box. */
const WIDEST =
  "Math.max(document.documentElement.scrollWidth, ...[...document.querySelectorAll('.table-wrap')].map((el) => el.scrollWidth))";

async function browser(t: Test, app: TestApp, viewport?: { width: number; height: number }) {
  const context = await launchBrowser(t, viewport ? { viewport } : {});
  const foreign = foreignRequests(context, [app.base]);
  return { page: await firstPage(context), foreign };
}

async function signIn(page: Page, email: string, password = STAFF_PASSWORD): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A staff member as `hotspot-ctl staff add` makes one. */
const staff = (app: TestApp, email: string, role: 'owner' | 'operator' | 'viewer') =>
  addStaff(app.app.deps, { email, role, password: STAFF_PASSWORD });

/** A guest online on a router: a paid purchase's grant and the router's Accounting Start for it. */
async function aGuestOnline(app: TestApp, deviceId: string, acctSessionId: string, planId?: string) {
  const plan = planId === undefined ? undefined : await getPlan(app.app.deps, planId);
  const purchase = await aPaidPurchase(app, plan);
  const live = await findLiveForPurchase(app.app.deps, purchase.invoiceId, sha256Hex(purchase.key));
  if (live.kind !== 'live') throw new Error(`expected a live grant, got ${live.kind}`);
  const username = live.grant.username;
  await aLiveSession(app.app, { deviceId, username, acctSessionId, mac: 'AA:BB:CC:00:00:01' });
  return username;
}

t.test(
  'an owner signs in with the TOTP step, creates a plan, registers a router and sees its secret once',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const email = 'owner@venue.test';
    await staff(app, email, 'owner');
    // Two-step verification on, through the identity API as the account page does it.
    const identity = new Client(app.base);
    await identity.post('/auth/login', { identifier: email, password: STAFF_PASSWORD });
    const { secret: totp } = (await identity.post('/auth/mfa/setup')).body.data as { secret: string };
    await identity.post('/auth/mfa/enable', { code: totpForSecret(totp, app.clock.now()) });
    app.clock.advance('2m');

    const { page, foreign } = await browser(t, app);
    await page.goto(`${app.base}/admin/plans`);
    await page.waitForURL(`${app.base}/admin/login?next=%2Fadmin%2Fplans`);
    await signIn(page, email, 'not the password');
    await page.locator('#password-error', { hasText: 'invalid email or password' }).waitFor();
    t.equal(
      await page.getByLabel('Password').getAttribute('aria-invalid'),
      'true',
      'error next to the field',
    );
    t.ok(await page.locator('#code-box').isHidden(), 'no code field before the API asks for one');

    await signIn(page, email);
    await page.locator('#code-error', { hasText: 'mfa code required' }).waitFor();
    const code = page.getByLabel('Code from your authenticator app');
    t.equal(await page.evaluate<string>(FOCUSED), 'code', 'the code field has the focus');
    await code.fill(totpForSecret(totp, app.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.base}/admin/plans`);
    t.equal(await page.locator('#who').textContent(), `Signed in as ${email} (owner)`);

    // A plan: the API's own message next to the field, then created and listed.
    await page.getByLabel('Name').fill('Weekend');
    await page.getByLabel('Price (TZS)').fill('499');
    await page.getByLabel('Duration', { exact: true }).fill('2');
    await page.getByLabel('Unit of the duration').selectOption({ label: 'days' });
    await page.getByLabel('Data limit', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page
      .locator('#plan-price-error', { hasText: 'price_tzs must be a whole number of at least 500' })
      .waitFor();
    await page.getByLabel('Price (TZS)').fill('2500');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('status').getByText('Plan Weekend created.').waitFor();
    const row = page.locator('#plans tr', { hasText: 'Weekend' });
    t.same(await row.locator('td').allTextContents(), [
      'Weekend',
      'TZS 2,500',
      '2 d',
      '5 GB',
      'no limit',
      'no limit',
      '1',
      'no',
      '0',
      'on sale',
      'EditArchiveDelete', // the row's buttons: an owner may archive and delete a plan
    ]);

    // Edit it: the form comes back filled in, in the units it was entered in.
    await page.getByRole('button', { name: 'Edit: Weekend' }).click();
    t.equal(await page.getByLabel('Duration', { exact: true }).inputValue(), '2');
    t.equal(await page.getByLabel('Data limit', { exact: true }).inputValue(), '5');
    t.equal(await page.getByLabel('Remember devices').isChecked(), false);
    await page.getByLabel('Price (TZS)').fill('3000');
    await page.getByLabel('Remember devices').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Plan Weekend saved.').waitFor();
    await row.getByText('TZS 3,000').waitFor();
    t.equal(await row.locator('td').nth(7).textContent(), 'yes', 'the plan remembers devices now');
    t.match(await app.app.deps.db.selectFrom('plans').select(['name', 'remember_device']).execute(), [
      { name: 'Weekend', remember_device: 1 },
    ]);
    await page.getByRole('button', { name: 'Edit: Weekend' }).click();
    t.equal(await page.getByLabel('Remember devices').isChecked(), true, 'the form shows it when editing');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A router: its RADIUS secret appears once, with the notice to copy it now.
    await page.getByRole('link', { name: 'Routers' }).click();
    await page.waitForURL(`${app.base}/admin/devices`);
    await page.getByLabel('Name').fill('Lobby AP');
    await page.getByLabel('Model').fill('MikroTik hAP ac2');
    await page.getByLabel('MAC address').fill('AA:BB');
    await page.getByLabel('Guest network').fill('10.1.0.0/24');
    await page.getByLabel('Portal URL (uam server)').fill('http://10.1.0.10:8080/portal');
    await page.getByLabel('RADIUS NAS identifier').fill('lobby-01');
    await page.getByLabel('Router address for disconnects').fill('10.1.0.1');
    await page.getByRole('button', { name: 'Register router' }).click();
    await page
      .locator('#device-mac-error', { hasText: 'mac_address must be six colon-separated hex pairs' })
      .waitFor();
    await page.getByLabel('MAC address').fill('AA:BB:CC:DD:EE:01');
    await page.getByLabel('Gateway address').fill('10.2.0.1');
    await page.getByRole('button', { name: 'Register router' }).click();
    await page
      .locator('#device-gateway-error', {
        hasText: 'gateway_ip must be an IPv4 address inside local_network',
      })
      .waitFor();
    await page.getByLabel('Gateway address').fill('10.1.0.254');
    await page.getByRole('button', { name: 'Register router' }).click();
    await page.getByRole('heading', { name: 'Copy the RADIUS secret now' }).waitFor();
    t.match(await page.locator('#secret-intro').textContent(), /shown only this once/);
    const shown = (await page.locator('#secret-value').textContent()) ?? '';
    const stored = await deviceByNasId(app.app.deps, 'lobby-01');
    t.equal(shown, stored?.radiusSecret, 'the secret shown is the one the router must use');
    t.ok(shown.length >= 16);
    await page.locator('#devices tr', { hasText: 'lobby-01' }).waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    t.ok(await page.locator('#secret-box').isHidden());
    t.notOk((await page.content()).includes(shown), 'gone from the page');
    await page.reload();
    await page.locator('#devices tr', { hasText: 'lobby-01' }).waitFor();
    t.notOk((await page.content()).includes(shown), 'never shown again');

    // Edit the router, then give it a new secret (asked first; shown once too).
    await page.getByRole('button', { name: 'Edit: Lobby AP' }).click();
    t.equal(await page.getByLabel('RADIUS NAS identifier').inputValue(), 'lobby-01');
    t.equal(await page.getByLabel('Gateway address').inputValue(), '10.1.0.254');
    await page.getByLabel('Name').fill('Lobby AP 2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Router Lobby AP 2 saved.').waitFor();
    await page.getByRole('button', { name: 'New RADIUS secret for Lobby AP 2' }).click();
    const dialog = page.getByRole('dialog');
    t.match(await dialog.textContent(), /The old one stops working at once/);
    await dialog.getByRole('button', { name: 'Make a new secret' }).click();
    await page.getByRole('heading', { name: 'Copy the RADIUS secret now' }).waitFor();
    const rotated = (await page.locator('#secret-value').textContent()) ?? '';
    t.not(rotated, shown);
    t.equal(
      rotated,
      (await deviceByNasId(app.app.deps, 'lobby-01'))?.radiusSecret,
      'the new secret is in force',
    );

    // The plan is on sale on the captive portal.
    await page.goto(`${app.base}/portal`);
    const onSale = page.locator('.plan', { hasText: 'Weekend' });
    await onSale.waitFor();
    t.match(await onSale.textContent(), /TZS 3,000.*2 days · 5 GB of data/, 'at the edited price');

    await page.goto(`${app.base}/admin`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.base}/admin/login`);
    await page.goto(`${app.base}/admin`);
    await page.waitForURL(`${app.base}/admin/login?next=%2Fadmin`);
    t.same(foreign, [], 'nothing requested from another origin');
  },
);

t.test(
  'a viewer at 320 px reads every section but is offered no change, edit or disconnect',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    await staff(app, 'viewer@venue.test', 'viewer');
    await aPlan(app.app, { name: 'Hour' });
    const { device } = await aDevice(app.app);
    const username = await aGuestOnline(app, device.id, 'acct-viewer-1');
    await sendStaffSmsForTest(app, 'Welcome to the venue');

    const { page, foreign } = await browser(t, app, { width: 320, height: 640 });
    await page.goto(`${app.base}/admin/login`);
    // Keyboard only.
    await page.getByLabel('Email').focus();
    await page.keyboard.type('viewer@venue.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type(STAFF_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.base}/admin`);
    await page.locator('#stat-active_sessions', { hasText: '1' }).waitFor();
    t.equal(await page.locator('#stat-devices').textContent(), '1');
    t.equal(await page.locator('#stat-sales').textContent(), '1', 'the paid purchase is today’s sale');
    t.equal(await page.locator('#stat-revenue_tzs').textContent(), 'TZS 1,000');
    t.equal(await page.locator('#who').textContent(), 'Signed in as viewer@venue.test (viewer)');

    const sections: [string, string][] = [
      ['/admin/plans', 'Hour'],
      ['/admin/devices', 'lobby-01'],
      ['/admin/sessions', username],
      // A viewer sees guests' phones by their last 3 digits.
      ['/admin/guests', '**********678'],
      ['/admin/invoices', 'TZS 1,000'],
      ['/admin/payments', 'MP123ABC'],
      ['/admin/sms', 'Welcome to the venue'],
    ];
    for (const [path, text] of sections) {
      await page.goto(`${app.base}${path}`);
      await page.locator('main tr', { hasText: text }).first().waitFor();
      t.equal(
        await page.locator('main form:not(.filters), main td button, dialog').count(),
        0,
        `${path}: no controls`,
      );
      // Nothing scrolls sideways: neither the page nor a table in its scroll box.
      const widest = await page.evaluate<number>(WIDEST);
      t.ok(widest <= 320, `${path}: fits 320 px (${String(widest)})`);
    }
    t.ok(await page.getByText('Your role can look at this page but not change anything on it.').isVisible());
    t.same(foreign, []);
  },
);

t.test(
  'an operator disconnects guests and sees each router’s answer: ack, then no_answer after the retries',
  { skip: chromiumSkip },
  async (t) => {
    const SECRET = 'router-secret-0001';
    const answering = new CoaListener(SECRET);
    const silent = new CoaListener(SECRET, () => 'silent');
    const [answeringPort, silentPort] = [await answering.listen(), await silent.listen()];
    t.teardown(() => {
      answering.close();
      silent.close();
    });
    const app = await startTestApp(t, { selfIssuer: true });
    const coa = { radius_secret: SECRET, radius_client_ip: '127.0.0.1' };
    const lobby = await aDevice(app.app, { ...coa, coa_port: answeringPort });
    const bar = await aDevice(app.app, {
      ...coa,
      coa_port: silentPort,
      name: 'Bar AP',
      radius_nas_id: 'bar-01',
      mac_address: 'aa:bb:cc:dd:ee:02',
      local_network: '10.2.0.0/24',
    });
    const lobbyGuest = await aGuestOnline(app, lobby.device.id, 'acct-lobby-1');
    app.clock.advance('1m');
    // The router's interim update: 1.5 MB down, 200 KB up, 25 minutes online.
    await recordAccounting(app.app.deps, [
      {
        deviceId: lobby.device.id,
        statusType: 'Interim-Update',
        acctSessionId: 'acct-lobby-1',
        username: lobbyGuest,
        framedIp: '10.1.0.5',
        mac: 'AA:BB:CC:00:00:01',
        inputOctets: 200_000,
        outputOctets: 1_500_000,
        sessionTime: 1500,
        terminateCause: null,
        delaySeconds: 0,
      },
    ]);
    app.clock.advance('1m');
    const barGuest = await aGuestOnline(app, bar.device.id, 'acct-bar-1');
    const keptGuest = await aGuestOnline(app, lobby.device.id, 'acct-lobby-2');
    await staff(app, 'operator@venue.test', 'operator');

    const { page, foreign } = await browser(t, app);
    await page.goto(`${app.base}/admin/sessions`);
    await signIn(page, 'operator@venue.test');
    await page.waitForURL(`${app.base}/admin/sessions`);
    const lobbyRow = page.locator('#sessions tr', { hasText: lobbyGuest });
    await lobbyRow.waitFor();
    t.match(
      await lobbyRow.textContent(),
      /AA:BB:CC:00:00:01.*Lobby AP.*10\.1\.0\.5.*25 min.*1\.5 MB \/ 200 KB.*online/,
    );
    t.equal(await page.locator('#plan-form, #device-form').count(), 0, 'an operator does not manage plans');

    // Escape cancels: nothing is sent.
    await page.getByRole('button', { name: `Disconnect and revoke ${lobbyGuest} on Lobby AP` }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    t.equal(answering.received.length, 0, 'cancelled: no Disconnect-Request');

    await page.getByRole('button', { name: `Disconnect and revoke ${lobbyGuest} on Lobby AP` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect and revoke' }).click();
    const result = page.locator('#disconnect-result');
    await result.getByText('lobby-01 (acct-lobby-1): ack: the router disconnected the guest').waitFor();
    t.ok(await result.getByText('The access was revoked.').isVisible());
    await lobbyRow.getByText('ended (Admin-Reset)').waitFor();
    t.equal(await lobbyRow.getByRole('button').count(), 0, 'an ended session has no Disconnect');
    t.equal(answering.received.length, 1);

    // Disconnect only: the router drops the guest, the paid time stays.
    await page.getByRole('button', { name: `Disconnect ${keptGuest} on Lobby AP, keep paid time` }).click();
    t.match(await page.getByRole('dialog').textContent(), /their paid time is kept/);
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect (keep paid time)' }).click();
    await result.getByText('lobby-01 (acct-lobby-2): ack: the router disconnected the guest').waitFor();
    t.ok(await result.getByText('The paid time was kept: the guest can sign in again.').isVisible());
    t.equal(answering.received.length, 2);
    const kept = await app.app.deps.db
      .selectFrom('grants')
      .select('revoked_at')
      .where('username', '=', keptGuest)
      .executeTakeFirstOrThrow();
    t.equal(kept.revoked_at, null, 'the grant is still live');

    // The bar's router never answers: three tries 2 s apart on the app's clock, then no_answer.
    await page.getByRole('button', { name: `Disconnect and revoke ${barGuest} on Bar AP` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect and revoke' }).click();
    await result.getByText(`Disconnecting ${barGuest}: waiting for the router…`).waitFor();
    for (const n of [1, 2, 3]) {
      await silent.receivedCount(n);
      app.clock.advance('2s');
    }
    await result
      .getByText('bar-01 (acct-bar-1): no_answer: the router did not answer after three tries')
      .waitFor();
    t.ok(await result.getByText('The access was revoked.').isVisible(), 'revoked whatever the router says');

    // Operators also send SMS: the API's message next to the field, then 202 from the gateway.
    await page.getByRole('link', { name: 'SMS' }).click();
    await page.waitForURL(`${app.base}/admin/sms`);
    await page.getByLabel('Phone number').fill('12345');
    await page.getByLabel('Message', { exact: true }).fill('Your access ends in 10 minutes');
    t.equal(await page.locator('#sms-message-hint').textContent(), '30 of 1600 bytes');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#sms-recipient-error', { hasText: 'recipient must be a phone number' }).waitFor();
    await page.getByLabel('Phone number').fill('0712 345 678');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByText('Accepted by the SMS gateway for +255 712 345 678. Delivery to the phone is not confirmed.')
      .waitFor();
    await page
      .locator('#messages tr', { hasText: 'Your access ends in 10 minutes' })
      .getByText('sent', { exact: true }) // the SMS log's state of a message the gateway took
      .waitFor();
    t.same(foreign, []);
  },
);

/** The file a click saves, with the name the server gave it. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(file, 'utf8') };
}

t.test(
  'routers show Online or Offline with when they were last heard; an admin downloads a set-up file, a viewer is offered none',
  { skip: chromiumSkip },
  async (t) => {
    const app = await startRadiusApp(t, { selfIssuer: true });
    await aDevice(app.app, {
      name: 'Bar AP',
      radius_nas_id: 'bar-01',
      mac_address: 'aa:bb:cc:dd:ee:02',
      local_network: '10.2.0.0/24',
    });
    // The lobby router asks RADIUS (for a guest it does not know): that is a valid packet, so it is heard.
    const asked = await radclient(app.auth, 'auth', papRequest('nobody', 'wrong'));
    t.equal(asked.replies[0]?.code, 'Access-Reject');
    await app.app.radius.flushLastSeen();
    await staff(app, 'owner@venue.test', 'owner');
    await staff(app, 'viewer@venue.test', 'viewer');

    const { page, foreign } = await browser(t, app);
    await page.goto(`${app.base}/admin/devices`);
    await signIn(page, 'owner@venue.test');
    await page.waitForURL(`${app.base}/admin/devices`);
    const lobby = page.locator('#devices tr', { hasText: NAS_ID });
    const bar = page.locator('#devices tr', { hasText: 'bar-01' });
    await lobby.waitFor();
    t.equal(await lobby.locator('.badge').textContent(), 'Online', 'said in words, not colour alone');
    t.match(await lobby.locator('td[data-label="Status"]').textContent(), /^Online ?last heard \d/);
    t.equal(await bar.locator('.badge').textContent(), 'Offline');
    t.match(await bar.locator('td[data-label="Status"]').textContent(), /^Offline ?never heard from$/);
    t.match(
      await page.locator('#devices-online-note').textContent(),
      /in the last 12\.5 minutes/,
      '2.5 × the default interim interval',
    );
    t.match(await page.locator('#devices-setup-note').textContent(), /holds the router’s own RADIUS secret/);

    // The RouterOS script: the router's RADIUS client with its own secret and NAS id.
    await page.getByRole('button', { name: 'Set-up file for Lobby AP' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Set-up file for Lobby AP' }).waitFor();
    t.equal(await page.evaluate<string>(FOCUSED), 'setup-format', 'the choice has the focus');
    t.equal(await dialog.getByLabel('Router software').inputValue(), 'routeros');
    const script = await downloaded(page, () => dialog.getByRole('button', { name: 'Download' }).click());
    t.equal(script.name, `hotspot-ctl-${NAS_ID}.rsc`, 'named after the router, as the script says');
    t.match(script.text, '/radius add');
    t.match(script.text, `/system identity set name="${NAS_ID}"`);
    t.match(script.text, `secret="${SECRET}"`, 'the router’s own secret');
    await page.locator('#devices-status:not([hidden])').waitFor();
    t.equal(
      await page.locator('#devices-status').textContent(),
      `Set-up file for Lobby AP downloaded (${script.name}). It holds the router’s RADIUS secret.`,
    );
    t.equal(await page.evaluate<string>(FOCUSED), 'devices-status', 'said where focus is');
    t.ok(await dialog.isHidden());

    // This box's address: the API's message next to the field, and nothing saved; then OpenWrt.
    await page.getByRole('button', { name: 'Set-up file for Bar AP' }).click();
    await dialog
      .getByLabel('Router software')
      .selectOption({ label: 'OpenWrt with coova-chilli (uci commands)' });
    await dialog.getByLabel('This box’s address for the router').fill('10.0.0.300');
    let saved = 0;
    page.on('download', () => saved++);
    await dialog.getByRole('button', { name: 'Download' }).click();
    await page
      .locator('#setup-address-error', { hasText: 'radius_address must be an IPv4 address' })
      .waitFor();
    t.equal(await page.evaluate<string>(FOCUSED), 'setup-address');
    t.equal(saved, 0, 'a refusal is not saved as the file');
    await dialog.getByLabel('This box’s address for the router').fill('192.168.88.2');
    const uci = await downloaded(page, () => dialog.getByRole('button', { name: 'Download' }).click());
    t.equal(uci.name, 'hotspot-ctl-bar-01.sh');
    t.match(uci.text, 'uci ');
    t.match(uci.text, '192.168.88.2', 'the address typed');
    t.match(uci.text, 'bar-01');
    t.same(foreign, []);

    // A viewer sees the same health, and no set-up control.
    const viewer = await browser(t, app);
    await viewer.page.goto(`${app.base}/admin/devices`);
    await signIn(viewer.page, 'viewer@venue.test');
    await viewer.page.waitForURL(`${app.base}/admin/devices`);
    const seen = viewer.page.locator('#devices tr', { hasText: NAS_ID });
    await seen.waitFor();
    t.equal(await seen.locator('.badge').textContent(), 'Online');
    t.equal(await viewer.page.getByRole('button', { name: /Set-up file/ }).count(), 0);
    t.equal(await viewer.page.locator('#setup, #devices-setup-note').count(), 0);
    t.same(viewer.foreign, []);
  },
);

t.test(
  'an admin gives a plan a speed in Mbit/s, is told next to the field when it is too slow, and applies a new speed to guests online now',
  { skip: chromiumSkip },
  async (t) => {
    const ROUTER_SECRET = 'router-secret-0001';
    const router = new CoaListener(ROUTER_SECRET);
    const coaPort = await router.listen();
    t.teardown(() => {
      router.close();
    });
    const app = await startTestApp(t, { selfIssuer: true });
    const lobby = await aDevice(app.app, {
      radius_secret: ROUTER_SECRET,
      radius_client_ip: '127.0.0.1',
      coa_port: coaPort,
    });
    await staff(app, 'owner@venue.test', 'owner');
    const api = await staffClient(app, 'viewer');
    const plans = async () =>
      ((await api.get('/api/v1/admin/plans')).body as { data: Record<string, unknown>[] }).data;

    const { page, foreign } = await browser(t, app);
    await page.goto(`${app.base}/admin/plans`);
    await signIn(page, 'owner@venue.test');
    await page.waitForURL(`${app.base}/admin/plans`);
    await page.locator('#plans').getByText('Nothing yet.').waitFor();
    t.ok(await page.locator('#plan-apply-live-row').isHidden(), 'nothing to apply to for a new plan');

    // 4 Mbit/s down, 1 Mbit/s up: the API stores kbit/s.
    await page.getByLabel('Name').fill('Fast hour');
    await page.getByLabel('Price (TZS)').fill('1000');
    await page.getByLabel('Duration', { exact: true }).fill('1');
    await page.getByLabel('Download speed', { exact: true }).fill('4');
    t.equal(
      await page.getByLabel('Unit of the download speed').inputValue(),
      '1000',
      'Mbit/s unless changed',
    );
    await page.getByLabel('Upload speed', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('status').getByText('Plan Fast hour created.').waitFor();
    const row = page.locator('#plans tr', { hasText: 'Fast hour' });
    t.same(await row.locator('td').allTextContents(), [
      'Fast hour',
      'TZS 1,000',
      '1 h',
      'no limit',
      '4 Mbit/s',
      '1 Mbit/s',
      '1',
      'no',
      '0',
      'on sale',
      'EditArchiveDelete',
    ]);
    const [created] = await plans();
    t.match(created, { name: 'Fast hour', download_kbps: 4000, upload_kbps: 1000 });
    const planId = String(created?.id);

    // 32 kbit/s is below what routers shape: the API's message next to the field; nothing changes.
    await page.getByRole('button', { name: 'Edit: Fast hour' }).click();
    t.equal(
      await page.getByLabel('Download speed', { exact: true }).inputValue(),
      '4',
      'back in the unit it was entered in',
    );
    t.equal(await page.getByLabel('Unit of the download speed').inputValue(), '1000');
    t.ok(await page.getByLabel('Also apply this speed to guests online now').isVisible());
    const before = await wifiRows(app.app.deps.db);
    await page.getByLabel('Download speed', { exact: true }).fill('32');
    await page.getByLabel('Unit of the download speed').selectOption({ label: 'kbit/s' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator('#plan-download-error', {
        hasText: 'download_kbps must be a whole number of kbit/s from 64 to 4000000, or null',
      })
      .waitFor();
    t.equal(await page.getByLabel('Download speed', { exact: true }).getAttribute('aria-invalid'), 'true');
    t.equal(await page.evaluate<string>(FOCUSED), 'plan-download', 'the field has the focus');
    t.same(await wifiRows(app.app.deps.db), before, 'changes nothing');
    t.same(router.received, [], 'no router asked');

    // Applied with nobody online: the access already sold (none) and no router to ask.
    await page.getByLabel('Download speed', { exact: true }).fill('2');
    await page.getByLabel('Unit of the download speed').selectOption({ label: 'Mbit/s' });
    await page.getByLabel('Also apply this speed to guests online now').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const outcome = page.locator('#plans-status');
    await outcome.getByText('No guest of this plan is online, so no router was asked.').waitFor();
    t.ok(
      await outcome
        .getByText('No purchase of this plan is still running: nothing else had to change.')
        .isVisible(),
    );
    t.equal(await page.evaluate<string>(FOCUSED), 'plans-status', 'the outcome has the focus');
    await row.getByText('2 Mbit/s').waitFor();
    t.match((await plans())[0], { download_kbps: 2000, upload_kbps: 1000 });

    // A guest of this plan online on the lobby router: it is asked, and acknowledges.
    await aGuestOnline(app, lobby.device.id, 'acct-speed-1', planId);
    await page.getByRole('button', { name: 'Edit: Fast hour' }).click();
    t.notOk(
      await page.getByLabel('Also apply this speed to guests online now').isChecked(),
      'asked each time',
    );
    await page.getByLabel('Download speed', { exact: true }).fill('1.5');
    await page.getByLabel('Also apply this speed to guests online now').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await outcome.getByText('lobby-01 (acct-speed-1): ack: the router changed the speed').waitFor();
    t.ok(
      await outcome
        .getByText('1 purchase of this plan that is still running now has this speed.')
        .isVisible(),
    );
    t.ok(
      await outcome
        .getByRole('heading', {
          name: 'Plan Fast hour saved, and its speed given to guests who already bought it',
        })
        .isVisible(),
    );
    t.equal(router.received.length, 1);
    t.equal(router.received[0]?.code, 43, 'a CoA-Request, not a Disconnect');
    await row.getByText('1.5 Mbit/s').waitFor();
    t.match((await plans())[0], { download_kbps: 1500 });

    // Saved without the tick: no router is asked.
    await page.getByRole('button', { name: 'Edit: Fast hour' }).click();
    await page.getByLabel('Upload speed', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Plan Fast hour saved.').waitFor();
    t.match((await plans())[0], { download_kbps: 1500, upload_kbps: null }, 'empty: no limit');
    t.equal(router.received.length, 1);
    t.same(foreign, []);
  },
);
