import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

/**
 * Headless Chromium for the browser tests: Debian's package (installed by .ci/run), driven by
 * playwright-core, never a downloaded browser. Tests skip with `chromiumSkip` when it is missing.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: apt-get install chromium (CI installs it)`;

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A phone-sized viewport (a cheap Android phone), used by the page tests. */
export const PHONE = { width: 360, height: 740 };

/** A fresh Chromium profile for this test, closed and deleted at teardown. */
export async function launchBrowser(
  t: Test,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  const profile = mkdtempSync(path.join(tmpdir(), 'hotspot-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: options.viewport ?? PHONE,
  });
  t.teardown(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}

/** The context's first page (a persistent context opens with one). */
export const firstPage = async (context: BrowserContext): Promise<Page> =>
  context.pages()[0] ?? (await context.newPage());

/**
 * Every request the context makes to an origin other than `allowed` (the page's own, plus any
 * the test routes itself, such as the router's uamip).
 */
export function foreignRequests(context: BrowserContext, allowed: readonly string[]): string[] {
  const foreign: string[] = [];
  context.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (!allowed.includes(new URL(url).origin)) foreign.push(url);
  });
  return foreign;
}

/*
 * Waiting on the page's state. Functions, never a string predicate: Playwright evaluates a string
 * with eval in the page, which our pages' CSP (script-src 'self') refuses as soon as the first
 * check fails and it has to poll, so a string wait failed only when the page was slow. The test
 * project has no DOM types: the little of the DOM read here is typed by `PageDom`.
 */
interface PageElement {
  readonly innerText?: string;
  readonly value?: string;
  readonly complete?: boolean;
  readonly naturalWidth?: number;
}
interface PageDom {
  document: {
    querySelectorAll(selector: string): ArrayLike<PageElement>;
  };
}

/** Until exactly `count` elements match `selector`. */
export async function waitForCount(page: Page, selector: string, count: number): Promise<void> {
  await page.waitForFunction(
    ([sel, n]) => (globalThis as unknown as PageDom).document.querySelectorAll(sel).length === n,
    [selector, count] as const,
  );
}

/** Until the first element matching `selector` (an input) has a value. */
export async function waitForValue(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(
    (sel) => ((globalThis as unknown as PageDom).document.querySelectorAll(sel)[0]?.value ?? '') !== '',
    selector,
  );
}

/** Until the first element matching `selector` shows text that `pattern` matches. */
export async function waitForText(page: Page, selector: string, pattern: RegExp): Promise<void> {
  await page.waitForFunction(
    ([sel, source, flags]) =>
      new RegExp(source, flags).test(
        (globalThis as unknown as PageDom).document.querySelectorAll(sel)[0]?.innerText ?? '',
      ),
    [selector, pattern.source, pattern.flags] as const,
  );
}

/**
 * Until an image matching `selector` is loaded and decoded (`width`: exactly that wide): an image
 * the CSP refused never gets a width.
 */
export async function waitForImage(page: Page, selector: string, width?: number): Promise<void> {
  await page.waitForFunction(
    ([sel, w]) =>
      Array.from((globalThis as unknown as PageDom).document.querySelectorAll(sel)).some(
        (img) =>
          img.complete === true && (img.naturalWidth ?? 0) > 0 && (w === null || img.naturalWidth === w),
      ),
    [selector, width ?? null] as const,
  );
}
