import path from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { freePort, startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip, firstPage, foreignRequests, launchBrowser } from '../helpers/browser.js';
import { PASSWORD, registered, verifiedUser } from '../helpers/identity.js';
import { connectProvider } from '../helpers/social.js';

/**
 * Social login as a person does it, in headless Chromium: the venue's /login links the provider
 * (another hotspot-ctl), the person signs in and answers the consent page there, and comes back
 * signed in at `next`. The provider listens on 127.0.0.2, a host (and site) of its own, so the
 * two daemons' cookies stay apart as they would on two machines. Real time, because
 * openid-client checks token times against its own clock.
 */
async function upstreamOnItsOwnHost(t: Test, dataDir: string) {
  const port = await freePort();
  const base = `http://127.0.0.2:${String(port)}`;
  const upstream = await startTestApp(t, {
    env: { HTTP_HOST: '127.0.0.2', HTTP_PORT: String(port), PUBLIC_BASE_URL: base },
    clock: new ManualClock(new Date()),
    dataDir,
  });
  return { ...upstream, base } satisfies TestApp;
}

async function signInAt(page: Page, identifier: string): Promise<void> {
  await page.getByLabel('Email or phone').fill(identifier);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

t.test(
  'sign in with the provider linked on /login, after a first try cancelled there',
  { skip: chromiumSkip },
  async (t) => {
    const root = t.testdir();
    const upstream = await upstreamOnItsOwnHost(t, path.join(root, 'up'));
    const venue = await startTestApp(t, {
      selfIssuer: true,
      clock: new ManualClock(new Date()),
      dataDir: path.join(root, 'venue'),
    });
    await connectProvider(upstream, await registered(upstream, 'idp-admin@example.com'), venue, 'hq', {
      displayName: 'Venue HQ',
    });
    await verifiedUser(upstream, 'alice@example.com');

    const context = await launchBrowser(t);
    const foreign = foreignRequests(context, [venue.base, upstream.base]);
    const page = await firstPage(context);
    const next = '/account?tab=apps';
    await page.goto(`${venue.base}/login?next=${encodeURIComponent(next)}`);
    await page.getByRole('link', { name: 'Sign in with Venue HQ' }).click();

    await page.waitForURL((url) => url.origin === upstream.base && url.pathname === '/login');
    await signInAt(page, 'alice@example.com');
    await page.getByRole('heading', { name: 'Venue wants to use your account' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.waitForURL((url) => url.origin === venue.base && url.pathname === '/login');
    t.equal(new URL(page.url()).searchParams.get('error'), 'social_cancelled');
    t.equal(
      await page.getByRole('alert').textContent(),
      'The sign-in was cancelled at the other service, so you are not signed in.',
      'the login page says why',
    );
    t.equal(
      await page.getByRole('link', { name: 'Sign in with Venue HQ' }).getAttribute('href'),
      `/auth/social/hq/begin?next=${encodeURIComponent(next)}`,
      'next is still there for the second try',
    );

    await page.getByRole('link', { name: 'Sign in with Venue HQ' }).click();
    await page.getByRole('heading', { name: 'Venue wants to use your account' }).waitFor();
    t.equal(
      new URL(page.url()).origin,
      upstream.base,
      'still signed in at the provider: straight to consent',
    );
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${venue.base}${next}`);
    await page.getByText('Signed in as alice@example.com').waitFor();
    await page.locator('#sessions li', { hasText: 'hq' }).waitFor();
    t.pass('signed in at the venue through the provider, the session labelled with it');
    t.same(foreign, [], 'no request to a third origin');
  },
);
