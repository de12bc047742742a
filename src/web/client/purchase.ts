import { api, type ApiResult } from './api.js';

/**
 * The guest's purchase as this browser remembers it. The purchase key is made here (Web Crypto)
 * and sent as the Idempotency-Key, X-Purchase-Key and uam-login `purchase_key`; the server keeps
 * only its hash. It lives in localStorage so a reload, a closed tab or a second visit resumes
 * the purchase and can show the credentials again.
 */
export interface StoredPurchase {
  key: string;
  planId: string;
  phone: string;
  /** The mobile-money network the guest named (only where the portal asks); absent: found from the number. */
  network?: string;
  invoiceId?: string;
  invoiceNumber?: string;
  amount?: number;
}

export interface PurchaseStatus {
  invoice_id: string;
  invoice_number: string;
  status: 'pending' | 'paid' | 'failed' | 'expired';
  amount_tzs: number;
  plan_id: string;
  credentials?: { username: string; password: string; expires_at: string };
}

const STORAGE_KEY = 'hotspot.purchase';

/**
 * 32 random bytes, base64url: 43 characters of the Idempotency-Key alphabet. getRandomValues
 * works on plain http too, where a venue portal usually runs (crypto.randomUUID does not).
 */
export function newPurchaseKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `pk_${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

export function loadPurchase(): StoredPurchase | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    const parsed = raw ? (JSON.parse(raw) as Partial<StoredPurchase>) : null;
    if (!parsed || typeof parsed.key !== 'string' || typeof parsed.planId !== 'string') return null;
    return parsed as StoredPurchase;
  } catch {
    return null;
  }
}

export function savePurchase(purchase: StoredPurchase): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(purchase));
  } catch {
    // Storage off (private mode, full): the purchase still works for this page's lifetime.
  }
}

export function forgetPurchase(): void {
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

const BASE = '/api/v1/public/purchases';

/**
 * Starts (or, with the same key and details, replays) the purchase. `lang` is the portal's
 * language as the guest chose it: the server keeps it for the SMS it sends the guest.
 */
export const startPurchase = (p: StoredPurchase, lang: string): Promise<ApiResult> =>
  api(
    'POST',
    BASE,
    { plan_id: p.planId, phone: p.phone, ...(p.network ? { network: p.network } : {}) },
    { 'Idempotency-Key': p.key, 'Accept-Language': lang },
  );

export const pollPurchase = (p: StoredPurchase & { invoiceId: string }): Promise<ApiResult> =>
  api('GET', `${BASE}/${encodeURIComponent(p.invoiceId)}`, undefined, { 'X-Purchase-Key': p.key });
