import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.js';
import type { Db } from '../../src/db/index.js';
import { signWebhook } from '../../src/payments/index.js';
import {
  createPlan,
  createSite,
  type SiteRequest,
  type SiteRow,
  recordAccounting,
  registerDevice,
  type DeviceRequest,
  type PlanRequest,
  type PlanRow,
} from '../../src/wifi/index.js';
import type { TestApp } from './app.js';
import { jsonRequest, rawRequest, type RawResponse } from './http.js';
import { onPostgres } from './store.js';

/** State is created through the domain functions, never by writing rows by hand. */

export function aPlan(app: App, overrides: PlanRequest = {}): Promise<PlanRow> {
  return createPlan(app.deps, { name: '1 hour', price_tzs: 1000, duration_seconds: 3600, ...overrides });
}

export function aSite(app: App, overrides: SiteRequest = {}): Promise<SiteRow> {
  return createSite(app.deps, { slug: 'harbour', name: 'Harbour café', ...overrides });
}

/** A second venue's router (for sites): its own NAS id, MAC and guest network 10.2.0.0/24. */
export const aHarbourRouter = (app: App, siteId: string) =>
  aDevice(app, {
    name: 'Harbour AP',
    radius_nas_id: 'harbour-01',
    mac_address: 'aa:bb:cc:dd:ee:02',
    local_network: '10.2.0.0/24',
    uam_server: 'http://10.2.0.10:8080/portal',
    radius_client_ip: '10.2.0.1',
    site_id: siteId,
  });

export function aDevice(app: App, overrides: DeviceRequest = {}) {
  return registerDevice(app.deps, {
    name: 'Lobby AP',
    model: 'CoovaChilli on OpenWrt',
    mac_address: 'aa:bb:cc:dd:ee:01',
    local_network: '10.1.0.0/24',
    uam_server: 'http://10.1.0.10:8080/portal',
    radius_nas_id: 'lobby-01',
    radius_client_ip: '10.1.0.1',
    ...overrides,
  });
}

/** A fresh purchase key (Idempotency-Key) of the allowed alphabet. */
export const aPurchaseKey = (): string => `pk_${randomBytes(16).toString('hex')}`;

export interface PurchaseResponse {
  status: number;
  body: {
    data?: { invoice_id: string; invoice_number: string; status: string; amount_tzs: number };
    message?: string;
  };
}

export async function postPurchase(
  base: string,
  body: unknown,
  /** null: send no Idempotency-Key. */
  key: string | null = aPurchaseKey(),
  headers: Record<string, string> = {},
): Promise<PurchaseResponse> {
  const res = await jsonRequest(`${base}/api/v1/public/purchases`, {
    method: 'POST',
    headers: { ...(key === null ? {} : { 'Idempotency-Key': key }), ...headers },
    body,
  });
  return res as PurchaseResponse;
}

export interface SandboxEvent {
  id: string;
  type: 'payment.succeeded' | 'payment.failed';
  data: Record<string, unknown>;
}

/** POSTs a sandbox event signed with the box's webhook secret at the clock's current time. */
export function postSandboxEvent(
  t: TestApp,
  event: SandboxEvent | string,
  options: { secret?: string; timestamp?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const raw = typeof event === 'string' ? event : JSON.stringify(event);
  const timestamp = options.timestamp ?? String(Math.floor(t.clock.now().getTime() / 1000));
  return rawRequest(`${t.base}/webhooks/sandbox`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'x-webhook-timestamp': timestamp,
      'x-webhook-signature': signWebhook(options.secret ?? t.config.paymentWebhookSecret, timestamp, raw),
      ...options.headers,
    },
    body: raw,
  });
}

export const succeeded = (
  invoiceNumber: string,
  amount: number,
  id = `evt_${invoiceNumber}`,
): SandboxEvent => ({
  id,
  type: 'payment.succeeded',
  data: {
    invoice_number: invoiceNumber,
    amount_tzs: amount,
    phone: '+255712345678',
    provider_reference: 'MP123ABC',
  },
});

export interface PaidPurchase {
  plan: PlanRow;
  key: string;
  invoiceId: string;
  invoiceNumber: string;
}

/**
 * A plan, a purchase for it and a signed payment event: the paid purchase a guest holds. `guest`
 * names the phone (0712345678 otherwise) and the Accept-Language the portal sends.
 */
export async function aPaidPurchase(
  t: TestApp,
  plan?: PlanRow,
  guest: { phone?: string; language?: string } = {},
): Promise<PaidPurchase> {
  const p = plan ?? (await aPlan(t.app));
  const key = aPurchaseKey();
  const started = await postPurchase(
    t.base,
    { plan_id: p.id, phone: guest.phone ?? '0712345678' },
    key,
    guest.language === undefined ? {} : { 'Accept-Language': guest.language },
  );
  const data = started.body.data;
  if (started.status !== 201 || !data) throw new Error(`purchase failed: ${JSON.stringify(started.body)}`);
  const paid = await postSandboxEvent(t, succeeded(data.invoice_number, p.price_tzs));
  if (paid.status !== 200) throw new Error(`payment failed: ${paid.text}`);
  return { plan: p, key, invoiceId: data.invoice_id, invoiceNumber: data.invoice_number };
}

const WIFI_TABLES = [
  'plans',
  'devices',
  'invoices',
  'purchase_keys',
  'grants',
  'payments',
  'payment_events',
  'radius_sessions',
  'sites',
  'staff_sites',
] as const;

/** Creation order on PostgreSQL, which has no rowid order: invoices by number, the rest by time. */
const byCreation = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const text = (...values: unknown[]): string => {
    const found = values.find((v) => typeof v === 'string');
    return typeof found === 'string' ? found : '';
  };
  const key = (r: Record<string, unknown>): string =>
    typeof r.sequence === 'number'
      ? String(r.sequence).padStart(12, '0')
      : `${text(r.created_at, r.started_at, r.received_at)}|${text(r.id, r.key_hash)}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
};

/**
 * Every row of every Wi-Fi table: compare before and after a refused request. In the order they
 * were made (SQLite's rowid order; on PostgreSQL sorted, as an update moves a row there).
 */
export async function wifiRows(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of WIFI_TABLES) {
    const rows: Record<string, unknown>[] = await db.selectFrom(table).selectAll().execute();
    out[table] = onPostgres ? rows.sort(byCreation) : rows;
  }
  return out;
}

/** An open RADIUS session, recorded the way an Accounting Start from the router records it. */
export async function aLiveSession(
  app: App,
  input: { deviceId: string; username: string; acctSessionId: string; mac?: string; framedIp?: string },
): Promise<void> {
  await recordAccounting(app.deps, [
    {
      deviceId: input.deviceId,
      statusType: 'Start',
      acctSessionId: input.acctSessionId,
      username: input.username,
      framedIp: input.framedIp ?? '10.1.0.5',
      mac: input.mac ?? 'AA:BB:CC:00:00:01',
      inputOctets: 0,
      outputOctets: 0,
      sessionTime: 0,
      terminateCause: null,
      delaySeconds: 0,
    },
  ]);
}

/** A purchase's credentials as the API gives them to its key holder (the poll, independent of a page). */
export async function credentialsOf(
  t: Pick<TestApp, 'base'>,
  invoiceId: string,
  key: string,
): Promise<{ username: string; password: string }> {
  const res = await fetch(`${t.base}/api/v1/public/purchases/${invoiceId}`, {
    headers: { 'X-Purchase-Key': key },
  });
  return ((await res.json()) as { data: { credentials: { username: string; password: string } } }).data
    .credentials;
}
