import { dataOf, messageOf, type ApiResult } from './api.js';
import {
  $,
  busy,
  clearErrors,
  clearOnInput,
  fieldError,
  fill,
  formError,
  go,
  pageData,
  show,
} from './dom.js';
import { amount, displayPhone, normalisePhone, type Strings } from './portal-format.js';
import { fetchPlans, selectedPlan, showPlans } from './portal-plans.js';
import { canHandOff, checkRouter, purchaseHandOff, readRouter, wantedUrl } from './hotspot.js';
import { initTypedLogin, initVoucher, keepVoucherFromUrl } from './portal-login.js';
import {
  forgetPurchase,
  loadPurchase,
  newPurchaseKey,
  pollPurchase,
  savePurchase,
  startPurchase,
  type PurchaseStatus,
  type StoredPurchase,
} from './purchase.js';

/**
 * The captive portal: plans → phone → "confirm on your phone" (polling) → the router's own login
 * (CoovaChilli's /logon or MikroTik's link-login-only), or a login the guest already has. Every
 * visible word comes from the language tables the server put in the page.
 */
type Lang = 'en' | 'sw';
interface Data {
  lang: Lang;
  strings: Record<Lang, Strings>;
}
type Known = StoredPurchase & { invoiceId: string };

const POLL_MS = 3000;
const LANG_KEY = 'hotspot.lang';
const data = pageData() as Data;
const router = readRouter(location.search);
/** The router said the device is online already (it sent the guest back after a login). */
const online = router !== null && (router.res === 'success' || router.res === 'already');
let lang: Lang = storedLang() ?? data.lang;
let current: StoredPurchase | null = null;
let pollTimer: number | undefined;
/** Whether this box knows the router: nothing is sold on one it does not (asked at load). */
let routerKnown = true;
/** The answer to that question: every purchase waits for it, so none starts before it is known. */
let routerChecked: Promise<boolean> = Promise.resolve(true);
/** After "buy more time" on a page that says the device is online. */
let buyingMore = false;
/** Log in by ourselves at most once per page load, and only when the router asked for a login. */
let mayAutoConnect = router !== null && canHandOff(router) && router.res === 'notyet';

const t = (key: string, vars?: Readonly<Record<string, string | number>>): string =>
  fill(data.strings[lang][key] ?? data.strings.en[key] ?? key, vars);

function storedLang(): Lang | null {
  try {
    const v = localStorage.getItem(LANG_KEY);
    return v === 'en' || v === 'sw' ? v : null;
  } catch {
    return null;
  }
}

function setLang(next: Lang): void {
  lang = next;
  try {
    localStorage.setItem(LANG_KEY, next);
  } catch {
    // Not remembered; this page still switches.
  }
  applyLang();
  renderPlans();
}

function applyLang(): void {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll<HTMLElement>('[data-t]')) el.textContent = t(el.dataset.t ?? '');
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-lang]'))
    b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
  document.title = `${t('page.title')} · ${document.title.split(' · ').pop() ?? ''}`;
  updatePayLabel();
  if (current?.invoiceId) refreshTexts();
}

/** Texts built from values (amounts, phone, expiry) are rebuilt on a language switch. */
let refreshTexts: () => void = () => undefined;

function status(message: string | null, tone: 'info' | 'warn' = 'info'): void {
  const box = $('status');
  box.textContent = message ?? '';
  box.className = `notice ${tone}`;
  show(box, message !== null);
}

/** The buy form is offered on a known router, and on an online device only when asked for. */
const mayBuy = (): boolean => routerKnown && (!online || buyingMore);

function step(which: 'buy' | 'waiting' | 'outcome' | 'none'): void {
  show($('buy'), (which === 'buy' || which === 'outcome') && mayBuy());
  show($('buy-more'), online && !buyingMore && routerKnown && which !== 'waiting');
  show($('waiting'), which === 'waiting');
  show($('outcome'), which === 'outcome');
}

async function loadPlans(): Promise<void> {
  await fetchPlans(router);
  renderPlans();
}

function renderPlans(): void {
  showPlans(t, data.strings[lang], current?.planId, () => {
    fieldError($('plans'), null);
    updatePayLabel();
  });
  updatePayLabel();
}

function updatePayLabel(): void {
  const plan = selectedPlan();
  $('pay').textContent = plan ? t('pay.buttonAmount', { amount: amount(plan.price_tzs) }) : t('pay.button');
}

async function buy(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = $('buy', HTMLFormElement);
  clearErrors(form);
  const plan = selectedPlan();
  const phoneInput = $('phone', HTMLInputElement);
  const phone = normalisePhone(phoneInput.value);
  if (!plan) fieldError($('plans'), t('plan.required'));
  if (!phone) fieldError(phoneInput, t('phone.invalid'));
  if (!plan || !phone) return;
  // Only where a provider must be told the network; empty: found from the number.
  const network =
    document.getElementById('network') instanceof HTMLSelectElement
      ? $('network', HTMLSelectElement).value
      : '';
  // Remembered before the request: a reload mid-request replays it with the same key.
  begin({
    key: newPurchaseKey(),
    planId: plan.id,
    phone,
    ...(network ? { network } : {}),
    amount: plan.price_tzs,
  });
  await submit();
}

function begin(purchase: StoredPurchase): void {
  current = purchase;
  savePurchase(purchase);
}

/** POSTs the current purchase (a new one, a replay after a reload, or a retry after failure). */
async function submit(): Promise<void> {
  if (!current) return;
  const form = $('buy', HTMLFormElement);
  const pay = $('pay', HTMLButtonElement);
  busy(pay, true);
  if (!(await routerChecked)) {
    busy(pay, false);
    return;
  }
  status(t('pay.sending'));
  const result = await startPurchase(current, lang);
  busy(pay, false);
  status(null);
  if (result.status === 200 || result.status === 201) {
    handle(dataOf(result) as PurchaseStatus);
    return;
  }
  if (result.status === 422 && /phone/.test(messageOf(result))) fieldError($('phone'), t('phone.invalid'));
  else if (result.status === 422 && /network/.test(messageOf(result)) && document.getElementById('network'))
    fieldError($('network'), t('network.invalid'));
  else
    formError(
      form,
      t(result.status === 0 ? 'error.network' : result.status === 502 ? 'error.provider' : 'error.generic'),
    );
  if (result.status !== 0) forgetPurchase();
  current = result.status === 0 ? current : null;
  step('buy');
}

function handle(p: PurchaseStatus): void {
  if (!current) return;
  current = { ...current, invoiceId: p.invoice_id, invoiceNumber: p.invoice_number, amount: p.amount_tzs };
  savePurchase(current);
  const known = current as Known;
  window.clearTimeout(pollTimer);
  if (p.status === 'pending') {
    waiting(known);
    return;
  }
  if (p.status === 'failed' || p.status === 'expired') {
    outcome(p.status);
    return;
  }
  if (!p.credentials) {
    // Paid, but the access has run out or was revoked: start afresh.
    forgetPurchase();
    current = null;
    outcome('ended');
    return;
  }
  credentials(p.credentials);
  step('none');
  if (mayAutoConnect) void connect();
}

function waiting(p: Known): void {
  step('waiting');
  refreshTexts = () => {
    $('waiting-body').textContent = t('confirm.body', {
      amount: amount(p.amount ?? 0),
      phone: displayPhone(p.phone),
    });
    $('waiting-invoice').textContent = t('confirm.invoice', { number: p.invoiceNumber ?? '' });
  };
  refreshTexts();
  pollTimer = window.setTimeout(() => void poll(), POLL_MS);
}

function outcome(kind: 'failed' | 'expired' | 'ended'): void {
  step('outcome');
  $('outcome').dataset.kind = kind;
  $('outcome-heading').textContent = t(`${kind}.heading`);
  $('outcome-body').textContent = t(`${kind}.body`);
  show($('retry'), kind !== 'ended');
  show($('another'), kind !== 'ended');
  refreshTexts = () => {
    $('outcome-heading').textContent = t(`${kind}.heading`);
    $('outcome-body').textContent = t(`${kind}.body`);
  };
}

async function poll(): Promise<void> {
  if (!current?.invoiceId) return;
  const result: ApiResult = await pollPurchase(current as Known);
  if (result.status === 200) {
    status(null);
    handle(dataOf(result) as PurchaseStatus);
  } else if (result.status === 404) {
    forgetPurchase();
    current = null;
    step('buy');
  } else {
    status(t('error.network'), 'warn');
    pollTimer = window.setTimeout(() => void poll(), POLL_MS);
  }
}

function credentials(c: NonNullable<PurchaseStatus['credentials']>): void {
  $('cred-user').textContent = c.username;
  $('cred-pass').textContent = c.password;
  const fmt = new Intl.DateTimeFormat(lang === 'sw' ? 'sw-TZ' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  refreshTexts = () => {
    $('cred-expires').textContent = t('creds.expires', { time: fmt.format(new Date(c.expires_at)) });
  };
  refreshTexts();
  show($('creds'));
  show($('connect'), router !== null && canHandOff(router) && routerKnown);
}

async function connect(): Promise<void> {
  if (!router || !current?.invoiceId) return;
  mayAutoConnect = false;
  const button = $('connect', HTMLButtonElement);
  busy(button, true);
  status(t('connecting'));
  const result = await purchaseHandOff(current.invoiceId, current.key, router);
  busy(button, false);
  if ('url' in result) {
    go(result.url);
    return;
  }
  const { error } = result;
  if (error.status === 409) {
    forgetPurchase();
    current = null;
    show($('creds'), false);
    status(null);
    outcome('ended');
    return;
  }
  if (error.status === 422 && /router|uamip|nasid|link_login_only/.test(messageOf(error))) {
    status(null);
    unknownRouter();
    return;
  }
  status(t(error.status === 0 ? 'error.network' : 'error.generic'), 'warn');
}

/** The box does not know this router: say so, sell nothing, hand nothing off. */
function unknownRouter(): void {
  routerKnown = false;
  mayAutoConnect = false;
  show($('unknown-router'));
  show($('have-login'), false);
  show($('connect'), false);
  if (!$('buy').hidden) step('none');
  show($('buy-more'), false);
}

function startOver(): void {
  window.clearTimeout(pollTimer);
  forgetPurchase();
  current = null;
  status(null);
  step('buy');
}

/** What the router said when it sent the guest here; kept apart from our own progress line. */
function routerNote(): void {
  const res = router?.res;
  if (res === 'success' || res === 'already' || res === 'failed' || res === 'logoff') {
    const note = $('router');
    note.dataset.t = `res.${res}`;
    note.textContent = t(`res.${res}`);
    note.classList.toggle('warn', res === 'failed');
    show(note);
  }
  const wanted = router && online ? wantedUrl(router) : undefined;
  if (wanted !== undefined) {
    const link = $('continue', HTMLAnchorElement);
    link.href = wanted;
    link.textContent = t('continue', { url: new URL(wanted).host });
    show(link);
  }
}

function init(): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-lang]'))
    b.addEventListener('click', () => setLang(b.dataset.lang === 'sw' ? 'sw' : 'en'));
  $('buy').addEventListener('submit', (e) => void buy(e));
  clearOnInput($('buy', HTMLFormElement));
  $('check-now').addEventListener('click', () => void poll());
  $('cancel').addEventListener('click', startOver);
  $('another').addEventListener('click', startOver);
  $('retry').addEventListener('click', () => void submit());
  $('connect').addEventListener('click', () => void connect());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !$('waiting').hidden) void poll();
  });
  $('buy-more').addEventListener('click', () => {
    buyingMore = true;
    step('buy');
    $('plans').focus();
  });
  applyLang();
  keepVoucherFromUrl();
  show($('not-hotspot'), router === null);
  routerNote();
  if (router) {
    show($('have-login'), canHandOff(router));
    if (canHandOff(router)) {
      initTypedLogin(router, t);
      initVoucher(router, t, () => lang);
    }
    routerChecked = checkRouter(router).then((known) => {
      if (known === 'unknown') unknownRouter();
      return known !== 'unknown';
    });
  }
  void loadPlans();
  current = loadPurchase();
  if (!current) {
    step('buy');
    return;
  }
  $('phone', HTMLInputElement).value = current.phone;
  const networkSelect = document.getElementById('network');
  if (networkSelect instanceof HTMLSelectElement) networkSelect.value = current.network ?? '';
  step('none');
  void (current.invoiceId ? poll() : submit());
}

init();
