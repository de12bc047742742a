import { api, dataOf, type ApiResult } from './api.js';

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

/** Starts (or, with the same key and details, replays) the purchase. */
export const startPurchase = (p: StoredPurchase): Promise<ApiResult> =>
  api('POST', BASE, { plan_id: p.planId, phone: p.phone }, { 'Idempotency-Key': p.key });

export const pollPurchase = (p: StoredPurchase & { invoiceId: string }): Promise<ApiResult> =>
  api('GET', `${BASE}/${encodeURIComponent(p.invoiceId)}`, undefined, { 'X-Purchase-Key': p.key });

export interface Chilli {
  res: string;
  uamip: string;
  uamport: number;
  challenge: string;
  userurl: string | undefined;
}

/** The CoovaChilli redirect's parameters, or null when the page was not opened through it. */
export function readChilli(search: string): Chilli | null {
  const q = new URLSearchParams(search);
  const uamip = q.get('uamip') ?? '';
  const uamport = Number(q.get('uamport'));
  const challenge = q.get('challenge') ?? '';
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(uamip) || !Number.isInteger(uamport) || uamport < 1 || uamport > 65535)
    return null;
  if (!/^[0-9a-f]{32}$/i.test(challenge)) return null;
  const userurl = q.get('userurl') ?? '';
  return {
    res: q.get('res') ?? 'notyet',
    uamip,
    uamport,
    challenge,
    // Only a URL the API accepts; anything else would make the whole login fail.
    userurl: /^https?:\/\//i.test(userurl) && userurl.length <= 2048 ? userurl : undefined,
  };
}

/** Asks the server for the router's logon URL; returns it only if it points at that router. */
export async function uamLogin(
  p: StoredPurchase & { invoiceId: string },
  chilli: Chilli,
): Promise<{ url: string } | { error: ApiResult }> {
  const result = await api('POST', `${BASE}/${encodeURIComponent(p.invoiceId)}/uam-login`, {
    purchase_key: p.key,
    uamip: chilli.uamip,
    uamport: chilli.uamport,
    challenge: chilli.challenge,
    ...(chilli.userurl === undefined ? {} : { userurl: chilli.userurl }),
  });
  const url =
    result.status === 200
      ? (dataOf(result) as { redirect_url?: unknown } | undefined)?.redirect_url
      : undefined;
  if (typeof url === 'string' && url.startsWith(`http://${chilli.uamip}:${String(chilli.uamport)}/logon?`))
    return { url };
  return { error: result };
}
