import type { EncodeAttribute } from './codec.js';
import { VENDOR } from './dictionary.js';
import type { NasVendor } from './nas.js';

/**
 * The vendor attributes that carry a grant's limits to a router, by router family (DESIGN.md §4.5,
 * §4.7; units checked against the vendors' documentation, see docs/decisions/0023):
 * - data: ChilliSpot-Max-Total-Octets (+ CoovaChilli-Max-Total-Gigawords), Mikrotik-Total-Limit
 *   (+ -Gigawords), bytes;
 * - speed: Mikrotik-Rate-Limit "rx/tx" from the router's side (rx is the guest's upload), with
 *   the k suffix (1k = 1000 bit/s); ChilliSpot-Bandwidth-Max-Up/-Down in kbit/s (CoovaChilli
 *   multiplies by 1000); WISPr-Bandwidth-Max-Up/-Down in bit/s.
 * A router of unknown make gets every family's attributes: each ignores the others' vendors.
 */

const GIGA = 2 ** 32;

/** A 64-bit byte count as a 32-bit value and its gigawords (bits 32..63). */
const split64 = (bytes: number): { low: number; high: number } => ({
  low: bytes % GIGA,
  high: Math.floor(bytes / GIGA),
});

const wants = (vendor: NasVendor, family: Exclude<NasVendor, 'unknown'>): boolean =>
  vendor === family || vendor === 'unknown';

/** The data allowance `bytes` (what is left of it) in the attributes `vendor` honours. */
export function dataLimitAttributes(vendor: NasVendor, bytes: number): EncodeAttribute[] {
  const { low, high } = split64(bytes);
  const out: EncodeAttribute[] = [];
  if (wants(vendor, 'chillispot'))
    out.push([
      'Vendor-Specific',
      VENDOR.chillispot,
      [
        ['ChilliSpot-Max-Total-Octets', low],
        ...(high > 0 ? [['CoovaChilli-Max-Total-Gigawords', high] as const] : []),
      ],
    ]);
  if (wants(vendor, 'mikrotik'))
    out.push([
      'Vendor-Specific',
      VENDOR.mikrotik,
      [
        ['Mikrotik-Total-Limit', low],
        ...(high > 0 ? [['Mikrotik-Total-Limit-Gigawords', high] as const] : []),
      ],
    ]);
  return out;
}

/** Speed limits in kbit/s; null: none in that direction. */
export interface Rate {
  downloadKbps: number | null;
  uploadKbps: number | null;
}

/** MikroTik's rate text: "<upload>k/<download>k", 0 for no limit in a direction. */
export const mikrotikRateLimit = (rate: Rate): string =>
  [rate.uploadKbps, rate.downloadKbps].map((kbps) => (kbps === null ? '0' : `${String(kbps)}k`)).join('/');

/**
 * The speed limits in the attributes `vendor` honours; nothing when neither direction is limited
 * (unless `lift`: then MikroTik is told "0/0", no limit, since it keeps a rate a CoA omits).
 */
export function rateAttributes(
  vendor: NasVendor,
  rate: Rate,
  options: { lift?: boolean } = {},
): EncodeAttribute[] {
  const limited = rate.downloadKbps !== null || rate.uploadKbps !== null;
  const out: EncodeAttribute[] = [];
  if (!limited && !options.lift) return out;
  if (wants(vendor, 'mikrotik'))
    out.push(['Vendor-Specific', VENDOR.mikrotik, [['Mikrotik-Rate-Limit', mikrotikRateLimit(rate)]]]);
  if (!limited || !wants(vendor, 'chillispot')) return out;
  const chilli: EncodeAttribute[] = [];
  const wispr: EncodeAttribute[] = [];
  if (rate.uploadKbps !== null) {
    chilli.push(['ChilliSpot-Bandwidth-Max-Up', rate.uploadKbps]);
    wispr.push(['WISPr-Bandwidth-Max-Up', rate.uploadKbps * 1000]);
  }
  if (rate.downloadKbps !== null) {
    chilli.push(['ChilliSpot-Bandwidth-Max-Down', rate.downloadKbps]);
    wispr.push(['WISPr-Bandwidth-Max-Down', rate.downloadKbps * 1000]);
  }
  out.push(['Vendor-Specific', VENDOR.chillispot, chilli], ['Vendor-Specific', VENDOR.wispr, wispr]);
  return out;
}
