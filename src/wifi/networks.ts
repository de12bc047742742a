/**
 * Tanzania's mobile-money networks, as a guest names theirs on the portal (the purchase's optional
 * `network`). Most providers find the network themselves; AzamPay's checkout must be told it.
 */
export const MOBILE_NETWORKS = ['vodacom', 'tigo', 'airtel', 'halotel', 'azampesa'] as const;
export type MobileNetwork = (typeof MOBILE_NETWORKS)[number];

export const isMobileNetwork = (value: unknown): value is MobileNetwork =>
  typeof value === 'string' && (MOBILE_NETWORKS as readonly string[]).includes(value);

/**
 * Tanzanian mobile prefixes (the two digits after +255) and their networks: Vodacom 74-76,
 * Tigo/Mixx by Yas 65, 67, 71 and Zantel's 77, Airtel 68, 69, 78, Halotel 61, 62. Number
 * portability makes this a guess, which is why the guest may name the network instead; a number
 * on another network (TTCL 73, Smile 66) or abroad has none here.
 */
const PREFIXES: Readonly<Record<string, MobileNetwork>> = {
  '74': 'vodacom',
  '75': 'vodacom',
  '76': 'vodacom',
  '65': 'tigo',
  '67': 'tigo',
  '71': 'tigo',
  '77': 'tigo',
  '68': 'airtel',
  '69': 'airtel',
  '78': 'airtel',
  '61': 'halotel',
  '62': 'halotel',
};

/** The network an E.164 phone number's prefix suggests, or null when it is not a Tanzanian mobile one. */
export function networkOfPhone(phone: string): MobileNetwork | null {
  const match = /^\+255(\d\d)\d{7}$/.exec(phone);
  return match ? (PREFIXES[match[1] ?? ''] ?? null) : null;
}
