import { encode } from 'uqr';
import { formatDuration } from '../lib/duration.js';
import { html, Html } from '../web/html.js';
import type { PlanRow } from './plans.store.js';
import type { VoucherBatchRow } from './vouchers.store.js';
import { formatCode, type PrintFormat } from './vouchers.schema.js';

/**
 * The print sheet of a batch (DESIGN.md §4.8): one self-contained HTML page with print CSS, each
 * code with its plan, price, duration, speed and a QR code of the portal with the code filled in.
 * `a4`: cards on A4 sheets, to cut; `thermal58`: one code after the other on a 58 mm receipt roll.
 */

const speedWords = (kbps: number): string =>
  kbps >= 1000 ? `${String(Math.round(kbps / 100) / 10)} Mbit/s` : `${String(kbps)} kbit/s`;

const bytesWords = (bytes: number): string =>
  bytes >= 1e9 ? `${String(Math.round(bytes / 1e8) / 10)} GB` : `${String(Math.round(bytes / 1e5) / 10)} MB`;

function speedLine(plan: PlanRow): string {
  if (plan.download_kbps === null && plan.upload_kbps === null) return 'No speed limit';
  const parts = [
    plan.download_kbps === null ? null : `↓ ${speedWords(plan.download_kbps)}`,
    plan.upload_kbps === null ? null : `↑ ${speedWords(plan.upload_kbps)}`,
  ];
  return parts.filter((p) => p !== null).join('  ');
}

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

const STYLE = {
  a4: `@page { size: A4; margin: 10mm; }
.sheet { display: grid; grid-template-columns: repeat(3, 1fr); gap: 4mm; }
.card { border: 0.3mm dashed #888; padding: 3mm; display: grid; grid-template-columns: 1fr 24mm; gap: 2mm; }
.qr { width: 24mm; height: 24mm; }`,
  thermal58: `@page { size: 58mm auto; margin: 2mm; }
body { width: 54mm; }
.card { border-bottom: 0.3mm dashed #000; padding: 3mm 0; text-align: center; }
.qr { width: 30mm; height: 30mm; margin: 1mm auto 0; display: block; }`,
} as const;

export interface SheetInput {
  format: PrintFormat;
  serviceName: string;
  portalUrl: string;
  batch: Pick<VoucherBatchRow, 'id' | 'prefix' | 'valid_until'>;
  plan: PlanRow;
  codes: readonly string[];
}

export function voucherSheet(input: SheetInput): string {
  const { plan, batch } = input;
  const until = batch.valid_until === null ? null : `Use by ${batch.valid_until.slice(0, 10)}`;
  const data = plan.data_limit_bytes === null ? null : bytesWords(plan.data_limit_bytes);
  const card = (code: string): Html => {
    const url = voucherUrl(input.portalUrl, code);
    return html`<section class="card">
      <div class="text">
        <p class="service">${input.serviceName} Wi-Fi</p>
        <p class="plan">${plan.name}</p>
        <p class="code">${formatCode(code, batch.prefix.length)}</p>
        <p class="terms">
          TZS ${plan.price_tzs.toLocaleString('en-US')} ·
          ${formatDuration(plan.duration_seconds)}${data === null ? '' : ` · ${data}`}
        </p>
        <p class="terms">${speedLine(plan)}</p>
        ${until === null ? '' : html`<p class="terms">${until}</p>`}
        <p class="hint">Time starts when the code is used. Scan, or type the code at ${input.portalUrl}</p>
      </div>
      ${qrSvg(url, `QR code of ${url}`)}
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
          .code { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: 12pt; font-weight: 700; letter-spacing: 0.04em; white-space: nowrap; margin: 1mm 0; }
          .terms { font-size: 8pt; }
          .hint { font-size: 6pt; color: #333; margin-top: 1mm; overflow-wrap: anywhere; }
          ${new Html(STYLE[input.format])}
          @media screen { body { margin: 8mm auto; ${input.format === 'a4' ? 'max-width: 190mm;' : ''} } }
        </style>
      </head>
      <body>
        <main class="sheet">${input.codes.map(card)}</main>
      </body>
    </html> `.value;
}
