import { choice, numberField, textArea } from './admin-fields.js';
import { a, confirmDialog, sectionHead, statusLine, tableSlot, type capabilities } from './admin-page.js';
import { field, submitRow } from './forms.js';
import { html, type Html } from './html.js';

/**
 * The admin UI's counter tools (DESIGN.md §4.8) and the audit trail: /admin/counter (issue access
 * for cash or free, extend and revoke grants, refund a paid sale by hand, re-check or mark paid an
 * unpaid invoice) and /admin/audit (admins). The API enforces the roles; the pages leave out what a role cannot use.
 */

export function counterMain(can: ReturnType<typeof capabilities>): Html {
  return html`${sectionHead('counter.title', 'counter.intro', !can.counter)} ${can.counter ? issueForm() : ''}
    ${credentialsBox()} ${statusLine('counter-status')}
    <h2 id="grants-heading">${a('counter.grants')}</h2>
    ${tableSlot('grants', 'counter.grants')}
    <h2 id="unpaid-heading">${a('counter.unpaid')}</h2>
    <p class="hint">${a('counter.unpaidIntro')}</p>
    ${tableSlot('unpaid', 'counter.unpaid')} ${can.counter ? extendDialog() : ''}
    ${can.markPaid ? html`${markPaidDialog()} ${refundDialog()}` : ''} ${can.counter ? confirmDialog() : ''}`;
}

function issueForm(): Html {
  return html`<form id="issue-form" class="card" novalidate aria-labelledby="issue-form-heading">
    <h2 id="issue-form-heading">${a('counter.issue')}</h2>
    ${choice({ id: 'issue-plan', label: a('counter.plan'), choices: [] })}
    ${field({
      id: 'issue-phone',
      label: a('counter.phone'),
      type: 'tel',
      inputmode: 'tel',
      hint: a('counter.phoneHint'),
      autocomplete: 'off',
      required: false,
    })}
    ${choice({
      id: 'issue-channel',
      label: a('counter.channel'),
      choices: [
        ['cash', a('channel.cash')],
        ['complimentary', a('channel.complimentary')],
      ],
      selected: 'cash',
    })}
    <div id="issue-amount-row">
      ${numberField({ id: 'issue-amount', label: a('counter.amount'), hint: a('counter.amountHint') })}
    </div>
    ${submitRow('issue-form', a('counter.issueSubmit'))}
  </form>`;
}

/** Where a sale's credentials are shown, once, for the staff member to hand over. */
function credentialsBox(): Html {
  return html`<section
    id="counter-credentials"
    class="notice warn secret"
    role="alert"
    tabindex="-1"
    aria-labelledby="credentials-heading"
    hidden
  >
    <h2 id="credentials-heading">${a('counter.credentials')}</h2>
    <dl class="credentials">
      <div>
        <dt>${a('counter.username')}</dt>
        <dd><code id="credentials-username"></code></dd>
      </div>
      <div>
        <dt>${a('counter.password')}</dt>
        <dd><code id="credentials-password"></code></dd>
      </div>
      <div>
        <dt>${a('counter.expires')}</dt>
        <dd id="credentials-expires"></dd>
      </div>
    </dl>
    <p id="credentials-note" class="hint"></p>
    <button type="button" class="primary" id="credentials-done">${a('secret.done')}</button>
  </section>`;
}

function extendDialog(): Html {
  return html`<dialog id="extend" aria-labelledby="extend-heading">
    <form id="extend-form" novalidate>
      <h2 id="extend-heading"></h2>
      ${choice({
        id: 'extend-by',
        label: a('counter.extendBy'),
        choices: [
          ['1800', a('counter.30min')],
          ['3600', a('counter.1h')],
          ['10800', a('counter.3h')],
          ['86400', a('counter.1d')],
        ],
        selected: '3600',
      })}
      ${field({ id: 'extend-reason', label: a('counter.reason'), required: false, maxlength: 500, autocomplete: 'off' })}
      ${submitRow('extend-form', a('counter.extend'))}
      <button type="button" id="extend-cancel">${a('common.cancel')}</button>
    </form>
  </dialog>`;
}

function markPaidDialog(): Html {
  return html`<dialog id="mark-paid" aria-labelledby="mark-paid-heading">
    <form id="mark-paid-form">
      <h2 id="mark-paid-heading"></h2>
      <p class="hint">${a('counter.markPaidHint')}</p>
      ${textArea({ id: 'mark-paid-reason', label: a('counter.reasonRequired'), rows: 2, required: true })}
      ${submitRow('mark-paid-form', a('counter.markPaid'))}
      <button type="button" id="mark-paid-cancel">${a('common.cancel')}</button>
    </form>
  </dialog>`;
}

/** Refund by hand (admins): the dialog is the confirm step, with the reason it needs. */
function refundDialog(): Html {
  return html`<dialog id="refund" aria-labelledby="refund-heading">
    <form id="refund-form">
      <h2 id="refund-heading"></h2>
      <p class="hint">${a('counter.refundHint')}</p>
      ${textArea({ id: 'refund-reason', label: a('counter.refundReason'), rows: 2, required: true })}
      <button type="submit" class="danger" id="refund-form-submit">${a('counter.refund')}</button>
      <p class="error" id="refund-form-error" role="alert" hidden></p>
      <button type="button" id="refund-cancel">${a('common.cancel')}</button>
    </form>
  </dialog>`;
}

/** /admin/audit: the script draws the filter bar (admin-filters.ts) above the list and its pages. */
export function auditMain(): Html {
  return html`${sectionHead('audit.title', 'audit.intro')} ${tableSlot('audit', 'audit.title')}`;
}
