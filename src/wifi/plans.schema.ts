import { wifiErrors } from './errors.js';
import { isWholeNumber as isInt, parseChanges, type Checks } from './values.js';

/**
 * The Plan request of wifi-access-api.md §2, with the optional sort_order of DESIGN.md §3.2 and the
 * optional max_devices (simultaneous-use limit, default 1; docs/decisions/0021-radius-sessions.md)
 * and the optional speed limits of DESIGN.md §4.7 (kbit/s, null: none), and the optional site_id
 * of §4.9 (checked against the sites by the domain, wifi/sites.ts), and the optional
 * remember_device of §4.8 (default false).
 */
export const PLAN_FIELDS = [
  'name',
  'description',
  'price_tzs',
  'duration_seconds',
  'data_limit_bytes',
  'active',
  'sort_order',
  'max_devices',
  'download_kbps',
  'upload_kbps',
  'site_id',
  'remember_device',
] as const;
export type PlanField = (typeof PLAN_FIELDS)[number];

/** A plan request as it arrives (admin API body, CLI flags): values not checked yet. */
export type PlanRequest = Partial<Record<PlanField, unknown>>;

export interface PlanValues {
  name: string;
  description: string;
  priceTzs: number;
  durationSeconds: number;
  dataLimitBytes: number | null;
  active: boolean;
  sortOrder: number;
  maxDevices: number;
  downloadKbps: number | null;
  uploadKbps: number | null;
  rememberDevice: boolean;
}

export const MIN_PRICE_TZS = 500;
/** Upper bound of a plan's simultaneous-use limit (devices online at once on one grant). */
export const MAX_DEVICES = 100;
/**
 * A speed limit's range in kbit/s: routers do not shape below 64 kbit/s usefully, and WISPr's
 * bit/s attributes are 32-bit (at most about 4.29 Gbit/s).
 */
export const MIN_SPEED_KBPS = 64;
export const MAX_SPEED_KBPS = 4_000_000;

const speed =
  (error: () => Error) =>
  (v: unknown): number | null => {
    if (v === null) return null;
    if (!isInt(v) || v < MIN_SPEED_KBPS || v > MAX_SPEED_KBPS) throw error();
    return v;
  };

const checks: Checks<PlanValues> = {
  name: (v) => {
    if (typeof v !== 'string' || v.trim() === '' || v.trim().length > 100) throw wifiErrors.planNameInvalid();
    return v.trim();
  },
  description: (v) => {
    if (typeof v !== 'string' || v.length > 1000) throw wifiErrors.planDescriptionInvalid();
    return v.trim();
  },
  priceTzs: (v) => {
    if (!isInt(v) || v < MIN_PRICE_TZS) throw wifiErrors.planPriceInvalid();
    return v;
  },
  durationSeconds: (v) => {
    if (!isInt(v) || v <= 0) throw wifiErrors.planDurationInvalid();
    return v;
  },
  dataLimitBytes: (v) => {
    if (v === null) return null;
    if (!isInt(v) || v <= 0) throw wifiErrors.planDataLimitInvalid();
    return v;
  },
  active: (v) => {
    if (typeof v !== 'boolean') throw wifiErrors.planActiveInvalid();
    return v;
  },
  sortOrder: (v) => {
    if (!isInt(v)) throw wifiErrors.planSortOrderInvalid();
    return v;
  },
  maxDevices: (v) => {
    if (!isInt(v) || v < 1 || v > MAX_DEVICES) throw wifiErrors.planMaxDevicesInvalid();
    return v;
  },
  downloadKbps: speed(wifiErrors.planDownloadInvalid),
  uploadKbps: speed(wifiErrors.planUploadInvalid),
  rememberDevice: (v) => {
    if (typeof v !== 'boolean') throw wifiErrors.planRememberDeviceInvalid();
    return v;
  },
};

const WIRE: { readonly [K in keyof PlanValues]: PlanField } = {
  name: 'name',
  description: 'description',
  priceTzs: 'price_tzs',
  durationSeconds: 'duration_seconds',
  dataLimitBytes: 'data_limit_bytes',
  active: 'active',
  sortOrder: 'sort_order',
  maxDevices: 'max_devices',
  downloadKbps: 'download_kbps',
  uploadKbps: 'upload_kbps',
  rememberDevice: 'remember_device',
};

/**
 * A new plan: name, price and duration required; the rest default (active, sort order 0, 1 device,
 * no data or speed limit, devices not remembered).
 */
export function parsePlanCreate(request: PlanRequest): PlanValues {
  return {
    name: checks.name(request.name),
    description: checks.description(request.description ?? ''),
    priceTzs: checks.priceTzs(request.price_tzs),
    durationSeconds: checks.durationSeconds(request.duration_seconds),
    dataLimitBytes: checks.dataLimitBytes(request.data_limit_bytes ?? null),
    active: checks.active(request.active ?? true),
    sortOrder: checks.sortOrder(request.sort_order ?? 0),
    maxDevices: checks.maxDevices(request.max_devices ?? 1),
    downloadKbps: checks.downloadKbps(request.download_kbps ?? null),
    uploadKbps: checks.uploadKbps(request.upload_kbps ?? null),
    rememberDevice: checks.rememberDevice(request.remember_device ?? false),
  };
}

/** The values a change supplies; an absent (undefined) field is left as it is. */
export const parsePlanChanges = (request: PlanRequest): Partial<PlanValues> =>
  parseChanges(checks, WIRE, request);
