import { createHash } from 'node:crypto';
import { encode } from 'uqr';
import { startOfDay, wallClock } from '../lib/time.js';
// The portal's own words for how long a plan lasts ("1 week", "1 hour 30 minutes"), so a card
// and the portal's plan list say the same.
import { durationWords } from '../web/client/portal-format.js';
import { escapeHtml, html, Html } from '../web/html.js';
import { portalEn } from '../web/strings/portal.en.js';
import type { PlanRow } from './plans.store.js';
import type { VoucherBatchRow } from './vouchers.store.js';
import { formatCode, type PrintFormat } from './vouchers.schema.js';

/**
 * The print sheet of a batch (DESIGN.md §4.8): one self-contained HTML page with print CSS, each
 * code with its plan, the batch's price, duration, allowance and speed (the terms it was made with,
 * which redemption gives) and a QR code of the portal with the code filled in.
 * `a4`: cards on A4 sheets, to cut; `thermal58`: one code after the other on a 58 mm receipt roll.
 */

const speedWords = (kbps: number): string =>
  kbps >= 1000 ? `${String(Math.round(kbps / 100) / 10)} Mbit/s` : `${String(kbps)} kbit/s`;

const bytesWords = (bytes: number): string =>
  bytes >= 1e9 ? `${String(Math.round(bytes / 1e8) / 10)} GB` : `${String(Math.round(bytes / 1e5) / 10)} MB`;

function speedLine(terms: Pick<VoucherBatchRow, 'download_kbps' | 'upload_kbps'>): string {
  if (terms.download_kbps === null && terms.upload_kbps === null) return 'No speed limit';
  const parts = [
    terms.download_kbps === null ? null : `↓ ${speedWords(terms.download_kbps)}`,
    terms.upload_kbps === null ? null : `↑ ${speedWords(terms.upload_kbps)}`,
  ];
  return parts.filter((p) => p !== null).join('  ');
}

/**
 * The price, how long and how much, the duration in the portal's words (English: the sheet's
 * language): ["TZS 5,000", "1 week", "2 GB"]. Each keeps its words together (no-break spaces), so
 * a narrow card breaks the line between them, never inside "1.5 GB".
 */
function priceParts(
  terms: Pick<VoucherBatchRow, 'price_tzs' | 'duration_seconds' | 'data_limit_bytes'>,
): string[] {
  const data = terms.data_limit_bytes === null ? null : bytesWords(terms.data_limit_bytes);
  return [
    `TZS ${terms.price_tzs.toLocaleString('en-US')}`,
    durationWords(terms.duration_seconds, portalEn),
    data,
  ]
    .filter((p) => p !== null)
    .map((p) => p.replace(/ /g, '\u00a0'));
}

const PART_JOIN = ' · ';

/** The QR code of `text` as inline SVG: one path of unit squares, black on white. */
function qrSvg(text: string, label: string): Html {
  const { data, size } = encode(text, { ecc: 'M', border: 2 });
  let d = '';
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${String(x)} ${String(y)}h1v1h-1z`;
    });
  });
  return html`<svg
    class="qr"
    viewBox="0 0 ${size} ${size}"
    role="img"
    aria-label="${label}"
    shape-rendering="crispEdges"
  >
    <rect width="100%" height="100%" fill="#fff" />
    <path d="${d}" fill="#000" />
  </svg>`;
}

/** The portal's address with the code filled in: what the QR code opens. */
export const voucherUrl = (portalUrl: string, code: string): string =>
  `${portalUrl}?voucher=${encodeURIComponent(code)}`;

/**
 * Paper and layout. `a4`: two cards a row, six rows a page, each with the plan, the code and its
 * terms beside the QR code, in dashed boxes to cut along. `thermal58`: a 58 mm roll (48 mm
 * printable on most such printers: the cards keep 5 mm each side), one card a page, so each is a
 * ticket of its own (printers with a cutter cut between them), everything centred one under the
 * other; the page is as long as the sheet's longest card needs (thermalPageMm). A long code
 * breaks after a dash, never inside a group.
 */
const STYLE = {
  a4: () => `@page { size: A4; margin: 10mm; }
.sheet { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 4mm; }
.card { border: 0.3mm dashed #888; padding: 3mm 4mm; display: grid; gap: 0.5mm 3mm;
  grid-template-columns: minmax(0, 1fr) 28mm; grid-template-areas: "head qr" "code qr" "terms qr" "hint hint"; }
.head { grid-area: head; } .terms { grid-area: terms; } .code { grid-area: code; } .hint { grid-area: hint; }
.qr { grid-area: qr; width: 28mm; height: 28mm; align-self: center; }`,
  thermal58: (pageMm: number) => `@page { size: 58mm ${String(pageMm)}mm; margin: 0; }
body { width: 58mm; }
.card { padding: 4mm 5mm 2mm; text-align: center; display: flex; flex-direction: column;
  align-items: center; gap: 1mm; break-after: page; page-break-after: always; }
.card:last-child { break-after: auto; page-break-after: auto; }
.code { font-size: 14pt; }
.qr { width: 32mm; height: 32mm; margin: 1mm 0; flex: none; }`,
} as const;

/** How many lines `text` takes at about `perLine` characters a line (at least one). */
const linesOf = (text: string, perLine: number): number => Math.max(1, Math.ceil(text.length / perLine));

/** How many lines a written code takes when it breaks only after a dash, `perLine` characters a line. */
function codeLines(written: string, perLine: number): number {
  let lines = 1;
  let used = 0;
  for (const piece of written.match(/[^-]+-?/g) ?? []) {
    if (used > 0 && used + piece.length > perLine) {
      lines++;
      used = 0;
    }
    used += piece.length;
  }
  return lines;
}

/** How many lines `parts` take, joined by PART_JOIN and broken only between them. */
function partLines(parts: readonly string[], perLine: number): number {
  let lines = 1;
  let used = 0;
  for (const part of parts) {
    const width = used === 0 ? part.length : PART_JOIN.length + part.length;
    if (used > 0 && used + width > perLine) {
      lines++;
      used = part.length;
    } else used += width;
  }
  return lines;
}

/**
 * The length of a 58 mm ticket (mm): each part's height times its lines (the characters a line
 * of 48 mm holds at its size, measured in Chromium: 7 pt capitals 30, the 10 pt bold plan name
 * 20, the 14 pt code 15, the 6 pt hint 40), the QR code, the gaps, and 6 mm to tear off.
 */
function thermalPageMm(input: SheetInput, hint: string): number {
  const code = Math.max(...input.codes.map((c) => codeLines(formatCode(c, input.batch.prefix.length), 15)));
  // The terms at 8 pt: about 30 characters a line (a long duration can take two).
  const terms =
    partLines(priceParts(input.batch), 30) +
    linesOf(speedLine(input.batch), 30) +
    (input.batch.valid_until === null ? 0 : 1);
  const mm =
    4 + // top padding
    linesOf(`${input.serviceName} Wi-Fi`, 30) * 3.2 +
    linesOf(input.plan.name, 20) * 4.6 +
    code * 6.3 +
    terms * 4 +
    34 + // QR code and its margins
    linesOf(hint, 40) * 2.6 +
    7 + // the gaps between the parts and above the hint
    2 + // bottom padding
    6;
  return Math.ceil(mm);
}

/** `YYYY-MM-DD` (and ` HH:MM` with `withTime`) of an instant in a time zone. */
function localDate(at: Date, timeZone: string, withTime: boolean): string {
  const w = wallClock(at, timeZone);
  const day = `${w.year}-${w.month}-${w.day}`;
  return withTime ? `${day} ${w.hour}:${w.minute}` : day;
}

/**
 * The last moment of use, as the venue reads it: `--valid-until 2026-12-31` is stored as the
 * midnight that ends that day, which reads "Use by 2026-12-31"; any other instant reads with its
 * time ("Use before 2026-12-31 18:00").
 */
export function useBy(validUntil: string, timeZone: string): string {
  const at = new Date(validUntil);
  return startOfDay(at, timeZone).getTime() === at.getTime()
    ? `Use by ${localDate(new Date(at.getTime() - 1), timeZone, false)}`
    : `Use before ${localDate(at, timeZone, true)}`;
}

export interface SheetInput {
  format: PrintFormat;
  /** The site's time zone: the one "Use by" is written in. */
  timeZone: string;
  serviceName: string;
  portalUrl: string;
  /** The batch with the terms it was made with: what the cards print (not the plan's now). */
  batch: Pick<
    VoucherBatchRow,
    | 'id'
    | 'prefix'
    | 'valid_until'
    | 'price_tzs'
    | 'duration_seconds'
    | 'data_limit_bytes'
    | 'download_kbps'
    | 'upload_kbps'
  >;
  /** Its plan, for the name. */
  plan: Pick<PlanRow, 'name'>;
  codes: readonly string[];
}

export function voucherSheet(input: SheetInput): string {
  const { plan, batch } = input;
  const until = batch.valid_until === null ? null : useBy(batch.valid_until, input.timeZone);
  const hint = `Time starts when the code is used. Scan, or type the code at ${input.portalUrl}`;
  const card = (code: string): Html => {
    const url = voucherUrl(input.portalUrl, code);
    // Each group after the first may start a new line (<wbr>), so a long code never overflows.
    const written = new Html(formatCode(code, batch.prefix.length).split('-').map(escapeHtml).join('-<wbr>'));
    return html`<section class="card">
      <div class="head">
        <p class="service">${input.serviceName} Wi-Fi</p>
        <p class="plan">${plan.name}</p>
      </div>
      <p class="code">${written}</p>
      <div class="terms">
        <p>${priceParts(batch).join(PART_JOIN)}</p>
        <p>${speedLine(batch)}</p>
        ${until === null ? '' : html`<p>${until}</p>`}
      </div>
      ${qrSvg(url, `QR code of ${url}`)}
      <p class="hint">${hint}</p>
    </section>`;
  };
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>Vouchers · ${plan.name} · ${input.serviceName}</title>
        <style>
          * { box-sizing: border-box; }
          body { margin: 0; font-family: system-ui, sans-serif; color: #000; }
          p { margin: 0 0 0.6mm; }
          .card { break-inside: avoid; page-break-inside: avoid; }
          .service { font-size: 7pt; text-transform: uppercase; letter-spacing: 0.05em; }
          .plan { font-size: 10pt; font-weight: 600; }
          .code { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: 13pt; font-weight: 700; letter-spacing: 0.04em; margin: 0.5mm 0; }
          .terms { font-size: 8pt; }
          .hint { font-size: 6pt; color: #333; margin-top: 1mm; overflow-wrap: anywhere; }
          ${new Html(input.format === 'a4' ? STYLE.a4() : STYLE.thermal58(thermalPageMm(input, hint)))}
          @media screen { body { margin: 8mm auto; ${input.format === 'a4' ? 'max-width: 190mm;' : ''} } }
        </style>
      </head>
      <body>
        <main class="sheet">${input.codes.map(card)}</main>
      </body>
    </html> `.value;
}

/**
 * The headers a print sheet is served with (the admin API and the admin UI): never stored, never
 * framed, and a CSP that runs no script and allows its one style block by hash, nothing else.
 */
export function sheetHeaders(sheet: string): Record<string, string> {
  const style = /<style>([\s\S]*?)<\/style>/.exec(sheet)?.[1] ?? '';
  const hash = createHash('sha256').update(style, 'utf8').digest('base64');
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src 'sha256-${hash}'`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}
