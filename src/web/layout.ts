import type { Assets } from './assets.js';
import { html, jsonForScript, type Html } from './html.js';
import { pageHeaders } from './security.js';

export interface PageOptions {
  lang: string;
  /** The page's own title; the service name is appended. */
  title: string;
  serviceName: string;
  /** The page's module (an asset name such as `login.js`). */
  script: string;
  main: Html;
  /** Handed to the script as JSON in a data block (never executed, so CSP allows it). */
  data: unknown;
  /** Images from other origins the page may show (the consent page's client logo). */
  extraImgSrc?: readonly string[];
  /** A logo beside the name in the header (a path on this box), and a stylesheet over app.css (the portal's site branding). */
  logoUrl?: string | null;
  stylesheetUrl?: string | null;
}

/**
 * The shell every page shares: one stylesheet, one module (plus modulepreload hints for what
 * it imports, so a slow phone fetches them in parallel), and the page's data block.
 */
export function renderPage(assets: Assets, page: PageOptions) {
  const preload = assets
    .closure(page.script)
    .filter((name) => name !== page.script)
    .map((name) => html`<link rel="modulepreload" href="${assets.url(name)}" />`);
  const logo = page.logoUrl ? html`<img class="logo" src="${page.logoUrl}" alt="" />` : '';
  const body = html`<!doctype html>
    <html lang="${page.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <title>${page.title} · ${page.serviceName}</title>
        <link rel="stylesheet" href="${assets.url('app.css')}" />
        ${page.stylesheetUrl ? html`<link rel="stylesheet" href="${page.stylesheetUrl}" />` : ''}
        <script type="module" src="${assets.url(page.script)}"></script>
        ${preload}
      </head>
      <body>
        <header class="bar">${logo}<span class="brand">${page.serviceName}</span></header>
        <main id="main">${page.main}</main>
        <script type="application/json" id="page-data">
          ${jsonForScript(page.data)}
        </script>
      </body>
    </html> `;
  return {
    html: body.value,
    headers: pageHeaders(page.extraImgSrc ? { extraImgSrc: page.extraImgSrc } : {}),
  };
}
