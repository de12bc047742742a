import { databaseReady, type Db } from '../db/index.js';
import { sha256Hex, uuid } from '../lib/crypto.js';
import { normalisePhone } from '../lib/phone.js';
import { newInvoiceSuffix } from './codes.js';
import { isUniqueViolation } from './db-errors.js';
import type { WifiDeps } from './deps.js';
import type { PromptResult } from './ports.js';
import { wifiErrors } from './errors.js';
import { findLiveForPurchase } from './grants.js';
import { findPlan, type PlanRow } from './plans.store.js';
import type { GuestLanguage } from './language.js';
import { isMobileNetwork, type MobileNetwork } from './networks.js';
import { isUuid } from './purchases.schema.js';
import {
  bindPurchaseKey,
  findInvoice,
  findInvoiceByNumber,
  findPurchaseKey,
  insertInvoice,
  nextSequence,
  updateInvoiceIf,
  type InvoiceRow,
} from './purchases.store.js';

export type { InvoiceRow, InvoiceStatus } from './purchases.store.js';

type Deps = Pick<WifiDeps, 'db' | 'clock' | 'config' | 'payments' | 'log' | 'outcomes'>;

export interface PurchaseRequest {
  /** Body values as sent; checked here (422). */
  planId: unknown;
  phone: unknown;
  /** The guest's mobile-money network, optional (a number that moved networks); checked here (422). */
  network?: unknown;
  /** The validated Idempotency-Key: the purchase key. */
  purchaseKey: string;
  /** The portal language the guest buys in (Accept-Language), kept for the guest's SMS. */
  language?: GuestLanguage;
}

/** `<PREFIX>-<6 digits>-<8 chars>`; the digits are the sequence modulo one million. */
export const invoiceNumber = (prefix: string, sequence: number, suffix: string): string =>
  `${prefix}-${String(sequence % 1_000_000).padStart(6, '0')}-${suffix}`;

/**
 * Starts (or replays) a guest purchase. The purchase key decides: unseen → a new pending invoice
 * and a payment prompt (201); seen with the same plan, phone and network → that invoice (200), unless it
 * failed or expired, in which case a new invoice replaces it; seen with other details → 409.
 * The prompt goes out after the commit; if the provider refuses or cannot be reached the invoice
 * is marked failed (so a retry with the key starts afresh) and the caller gets 502.
 */
export async function startPurchase(
  deps: Deps,
  request: PurchaseRequest,
): Promise<{ invoice: InvoiceRow; created: boolean }> {
  if (!(await databaseReady(deps.db))) throw wifiErrors.notReady();
  const phone =
    typeof request.phone === 'string' ? normalisePhone(request.phone, deps.config.defaultCountryCode) : null;
  if (phone === null) throw wifiErrors.invalidPhone();
  if (!isUuid(request.planId)) throw wifiErrors.invalidPlan();
  const network = request.network ?? null;
  if (network !== null && !isMobileNetwork(network)) throw wifiErrors.invalidNetwork();
  const details = {
    planId: request.planId.toLowerCase(),
    phone,
    network,
    keyHash: sha256Hex(request.purchaseKey),
    language: request.language ?? null,
  };

  const result = await withRetryOnConflict(() =>
    deps.db.transaction().execute((tx) => findOrCreateInvoice(tx, deps, details)),
  );
  if (!result.created) return result;
  deps.log.info(
    { event: 'purchase.created', invoice_id: result.invoice.id, invoice_number: result.invoice.number },
    'purchase started',
  );
  return { invoice: await sendPrompt(deps, result.invoice), created: true };
}

interface PurchaseDetails {
  planId: string;
  phone: string;
  network: MobileNetwork | null;
  keyHash: string;
  language: GuestLanguage | null;
}

/** The network an invoice's guest named (a column of known values: anything else reads as none). */
export const networkOf = (invoice: Pick<InvoiceRow, 'network'>): MobileNetwork | null =>
  isMobileNetwork(invoice.network) ? invoice.network : null;

async function findOrCreateInvoice(
  tx: Db,
  deps: Deps,
  details: PurchaseDetails,
): Promise<{ invoice: InvoiceRow; created: boolean }> {
  const key = await findPurchaseKey(tx, details.keyHash);
  const previous = key && (await findInvoice(tx, key.invoice_id));
  if (previous) {
    if (
      previous.plan_id !== details.planId ||
      previous.phone !== details.phone ||
      previous.network !== details.network
    )
      throw wifiErrors.idempotencyKeyReused();
    if (previous.status === 'pending' || previous.status === 'paid')
      return { invoice: previous, created: false };
  }
  const plan = await findPlan(tx, details.planId);
  if (plan?.active !== 1) throw wifiErrors.invalidPlan();
  const invoice = await newInvoice(tx, deps, plan, {
    phone: details.phone,
    amount_tzs: plan.price_tzs,
    purchase_key_hash: details.keyHash,
    provider: deps.payments.name,
    channel: 'mobile_money',
    sold_by: null,
    language: details.language,
    network: details.network,
  });
  await bindPurchaseKey(tx, details.keyHash, invoice.id, invoice.created_at, key !== undefined);
  return { invoice, created: true };
}

/**
 * Inserts a pending invoice for `plan` inside `tx`: the next number, and the plan's terms copied
 * (a later change of the plan changes nothing sold). The sale's own facts come from the caller.
 */
export async function newInvoice(
  tx: Db,
  deps: Pick<WifiDeps, 'clock' | 'config'>,
  plan: PlanRow,
  sale: Pick<
    InvoiceRow,
    'phone' | 'amount_tzs' | 'purchase_key_hash' | 'provider' | 'channel' | 'sold_by' | 'language'
  > & { network?: MobileNetwork | null },
): Promise<InvoiceRow> {
  const now = deps.clock.now().toISOString();
  const sequence = await nextSequence(tx);
  const invoice: InvoiceRow = {
    id: uuid(),
    number: invoiceNumber(deps.config.invoicePrefix, sequence, newInvoiceSuffix()),
    sequence,
    plan_id: plan.id,
    ...sale,
    network: sale.network ?? null,
    refunded_at: null,
    first_device_id: null,
    duration_seconds: plan.duration_seconds,
    data_limit_bytes: plan.data_limit_bytes,
    max_devices: plan.max_devices,
    download_kbps: plan.download_kbps,
    upload_kbps: plan.upload_kbps,
    status: 'pending',
    provider_reference: null,
    failure_reason: null,
    created_at: now,
    updated_at: now,
    paid_at: null,
    site_id: plan.site_id,
  };
  await insertInvoice(tx, invoice);
  return invoice;
}

/**
 * Why a prompt failed, as the invoice's failure_reason starts. A refusal is final; an unreachable
 * provider (timeout, connection lost) may still have prompted the phone, so the status poll keeps
 * asking about those invoices (jobs.ts).
 */
export const PROMPT_REFUSED = 'payment prompt refused';
export const PROMPT_UNREACHABLE = 'payment prompt unreachable';

/**
 * Sends the payment prompt of a committed invoice; on failure marks it failed and throws 502. The
 * invoice records the provider that took the prompt (or the last one that failed: the poll asks
 * that one about a prompt that may still have gone out).
 */
async function sendPrompt(deps: Deps, invoice: InvoiceRow): Promise<InvoiceRow> {
  const plan = await findPlan(deps.db, invoice.plan_id);
  const prompt = await deps.payments
    .requestPayment({
      invoiceId: invoice.id,
      invoiceNumber: invoice.number,
      amountTzs: invoice.amount_tzs,
      phone: invoice.phone,
      description: plan?.name ?? 'Wi-Fi access',
      siteId: invoice.site_id,
      network: networkOf(invoice),
    })
    // An adapter that throws instead of answering counts as a provider we could not use.
    .catch((err: unknown): PromptResult & { provider: string } => ({
      ok: false,
      reason: 'unreachable',
      detail: String(err),
      provider: invoice.provider,
    }));
  const now = deps.clock.now().toISOString();
  const provider = prompt.provider;
  if (prompt.ok) {
    if (prompt.providerReference === null && provider === invoice.provider) return invoice;
    const providerReference = prompt.providerReference ?? invoice.provider_reference;
    await updateInvoiceIf(deps.db, invoice.id, ['pending'], {
      provider,
      provider_reference: providerReference,
      updated_at: now,
    });
    return { ...invoice, provider, provider_reference: providerReference };
  }
  deps.log.warn(
    {
      event: 'purchase.prompt_failed',
      invoice_id: invoice.id,
      provider,
      reason: prompt.reason,
      detail: prompt.detail,
    },
    'payment prompt failed',
  );
  const failed = await updateInvoiceIf(deps.db, invoice.id, ['pending'], {
    status: 'failed',
    provider,
    failure_reason:
      `${prompt.reason === 'refused' ? PROMPT_REFUSED : PROMPT_UNREACHABLE}: ${prompt.detail}`.slice(0, 500),
    updated_at: now,
  });
  if (failed) deps.outcomes?.add('failed');
  throw prompt.reason === 'refused' ? wifiErrors.providerRefused() : wifiErrors.providerUnreachable();
}

/** One retry after a unique-index conflict: a concurrent request with the same key won the race. */
async function withRetryOnConflict<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return run();
  }
}

/** An invoice by its number (a provider callback names it), or undefined. */
export function invoiceByNumber(deps: Pick<WifiDeps, 'db'>, number: string): Promise<InvoiceRow | undefined> {
  return findInvoiceByNumber(deps.db, number);
}

export interface PurchaseStatus {
  invoice: InvoiceRow;
  credentials?: { username: string; password: string; expiresAt: string };
}

/**
 * The poll: basic status for anyone who knows the invoice id, plus the credentials for the holder
 * of the purchase key while the grant is live. A wrong key is not an error here; it only gets the
 * basic status.
 */
export async function getPurchase(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault'>,
  invoiceId: string,
  purchaseKey: string | undefined,
): Promise<PurchaseStatus> {
  const invoice = isUuid(invoiceId) ? await findInvoice(deps.db, invoiceId.toLowerCase()) : undefined;
  if (!invoice) throw wifiErrors.invoiceNotFound();
  if (purchaseKey === undefined) return { invoice };
  const live = await findLiveForPurchase(deps, invoice.id, sha256Hex(purchaseKey));
  if (live.kind !== 'live') return { invoice };
  return {
    invoice,
    credentials: { username: live.grant.username, password: live.password, expiresAt: live.grant.expires_at },
  };
}
