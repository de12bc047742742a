import type { CoreDeps } from '../deps.js';
import { readCookie } from '../http/cookies.js';
import { defineRoute, type Route } from '../http/route.js';
import type { HttpRequest } from '../http/types.js';
import { safeEqual } from '../lib/crypto.js';
import { AppError, isAppError } from '../lib/errors.js';
import {
  ADMIN_COOKIE,
  authenticateAdmin,
  codesFromText,
  mayAct,
  printVouchers,
  sheetHeaders,
  staffActor,
  wifiErrors,
  type StaffPrincipal,
} from '../wifi/index.js';
import { choice, numberField } from './admin-fields.js';
import {
  a,
  confirmDialog,
  formToken,
  sectionHead,
  statusLine,
  tableSlot,
  type capabilities,
} from './admin-page.js';
import { field, submitRow } from './forms.js';
import { html, type Html } from './html.js';
import { pageHeaders } from './security.js';

/**
 * /admin/vouchers (DESIGN.md §4.8, docs/decisions/0027-vouchers.md): the batches with how many
 * codes are in each state, and for admins a batch's creation, its codes shown once with print
 * buttons and a CSV download, printing again from the saved codes, and revoking. The print
 * buttons are plain forms that post the codes to POST /admin/vouchers/{id}/print and open the
 * sheet in a new tab; everything else calls the admin API from admin-vouchers.js.
 */

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'vault'>;

export function vouchersMain(can: ReturnType<typeof capabilities>, token: string): Html {
  return html`${sectionHead('vouchers.title', 'vouchers.intro', !can.vouchers)}
    ${can.vouchers ? html`${createForm()} ${codesBox(token)}` : ''} ${statusLine('vouchers-status')}
    <h2 id="batches-heading">${a('vouchers.batches')}</h2>
    ${tableSlot('batches', 'vouchers.batches')}
    ${can.vouchers ? html`${reprintDialog(token)} ${confirmDialog()}` : ''}`;
}

function createForm(): Html {
  return html`<form id="batch-form" class="card" novalidate aria-labelledby="batch-form-heading">
    <h2 id="batch-form-heading">${a('vouchers.new')}</h2>
    ${choice({ id: 'batch-plan', label: a('vouchers.plan'), choices: [] })}
    ${numberField({ id: 'batch-count', label: a('vouchers.count'), hint: a('vouchers.countHint'), value: '10' })}
    ${field({
      id: 'batch-prefix',
      label: a('vouchers.prefix'),
      hint: a('vouchers.prefixHint'),
      required: false,
      maxlength: 8,
      autocomplete: 'off',
    })}
    ${numberField({ id: 'batch-length', label: a('vouchers.length'), hint: a('vouchers.lengthHint'), value: '10' })}
    ${field({
      id: 'batch-valid-until',
      label: a('vouchers.validUntil'),
      hint: a('vouchers.validUntilHint'),
      required: false,
      autocomplete: 'off',
      maxlength: 10,
    })}
    ${submitRow('batch-form', a('vouchers.create'))}
  </form>`;
}

/**
 * The hidden form fields a print request carries: the page's form token and the codes (one a
 * line; a textarea, since an input would lose the line breaks).
 */
const printFields = (token: string, codesId: string, visible: boolean): Html =>
  html`<input type="hidden" name="csrf" value="${token}" /> ${
      visible
        ? html`<div class="field">
            <label for="${codesId}">${a('vouchers.reprintCodes')}</label>
            <textarea
              id="${codesId}"
              name="codes"
              rows="6"
              spellcheck="false"
              autocomplete="off"
              aria-describedby="${codesId}-hint"
            ></textarea>
            <p class="hint" id="${codesId}-hint">${a('vouchers.reprintCodesHint')}</p>
          </div>`
        : html`<textarea id="${codesId}" name="codes" hidden></textarea>`
    }`;

const printButtons = (prefix: string): Html =>
  html`<button type="submit" class="primary" name="format" value="a4" id="${prefix}-a4">
      ${a('vouchers.printA4')}
    </button>
    <button type="submit" name="format" value="thermal58" id="${prefix}-58">
      ${a('vouchers.print58')}
    </button>`;

/** Where a new batch's codes are shown, once, with the ways to keep them: print, CSV. */
function codesBox(token: string): Html {
  return html`<section
    id="codes-box"
    class="notice warn secret"
    role="alert"
    tabindex="-1"
    aria-labelledby="codes-heading"
    hidden
  >
    <h2 id="codes-heading">${a('vouchers.codesHeading')}</h2>
    <p id="codes-about"></p>
    <p class="hint">${a('vouchers.codesOnce')}</p>
    <ol id="codes-list" class="codes"></ol>
    <form id="print-form" method="post" target="_blank" action="/admin/vouchers">
      ${printFields(token, 'print-codes', false)} ${printButtons('print')}
      <button type="button" id="codes-csv">${a('vouchers.csv')}</button>
    </form>
    <button type="button" id="codes-done">${a('vouchers.codesDone')}</button>
  </section>`;
}

/** Printing again: the codes saved at creation, pasted or read from the CSV file. */
function reprintDialog(token: string): Html {
  return html`<dialog id="reprint" aria-labelledby="reprint-heading">
    <form id="reprint-form" method="post" target="_blank" action="/admin/vouchers">
      <h2 id="reprint-heading"></h2>
      <div class="field">
        <label for="reprint-file">${a('vouchers.reprintFile')}</label>
        <input id="reprint-file" type="file" accept=".csv,.txt,text/csv,text/plain" />
      </div>
      ${printFields(token, 'reprint-codes', true)} ${printButtons('reprint')}
      <button type="button" id="reprint-cancel">${a('common.cancel')}</button>
    </form>
  </dialog>`;
}

const formTokenInvalid = (): AppError =>
  new AppError('formTokenInvalid', 403, 'this page is out of date: reload it and try again');

/**
 * The staff member behind a form post: a live admin session (401), of an admin (403), with the
 * page's form token (403) and, when the browser names one, our own origin (403).
 */
async function formStaff(deps: Deps, req: HttpRequest, token: string | null): Promise<StaffPrincipal> {
  const session = readCookie(req, ADMIN_COOKIE);
  const principal = session ? await authenticateAdmin(deps, session) : null;
  if (!session || !principal) throw wifiErrors.notAuthenticated();
  const origin = req.headers.origin;
  const allowed = [new URL(deps.config.publicBaseUrl).origin, deps.config.adminOrigin, 'null'];
  if (origin !== undefined && !allowed.includes(origin)) throw wifiErrors.originNotAllowed();
  if (token === null || !safeEqual(token, formToken(deps, session))) throw formTokenInvalid();
  if (!mayAct(principal.role, 'admin')) throw wifiErrors.forbidden();
  return principal;
}

/** A refusal in the tab the form opened: the message, in a page of its own. */
const refusal = (err: AppError) => ({
  status: err.status,
  html: html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${a('vouchers.notPrinted')}</title>
      </head>
      <body>
        <h1>${a('vouchers.notPrinted')}</h1>
        <p id="reason">${err.message}</p>
        <p>${a('vouchers.notPrintedHint')}</p>
      </body>
    </html> `.value,
  headers: pageHeaders(),
});

/**
 * POST /admin/vouchers/{id}/print (form: csrf, format, codes one a line): the print sheet, made by
 * the same printVouchers as the admin API's (every code an unused one of the batch, audited).
 */
export function voucherPrintRoute(deps: Deps): Route {
  return defineRoute({
    method: 'POST',
    path: '/admin/vouchers/:id/print',
    api: 'identity',
    body: { kind: 'form', parse: (form) => form },
    handler: async ({ req, params, body }) => {
      try {
        const principal = await formStaff(deps, req, body.get('csrf'));
        const { sheet } = await printVouchers(
          deps,
          params.id ?? '',
          { format: body.get('format') ?? undefined, codes: codesFromText(body.get('codes') ?? '') },
          staffActor(principal),
          principal.sites,
        );
        return { body: sheet, type: 'text/html; charset=utf-8', headers: sheetHeaders(sheet) };
      } catch (err) {
        if (isAppError(err)) return refusal(err);
        throw err;
      }
    },
  });
}
