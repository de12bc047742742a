import type { Clock } from '../lib/clock.js';
import { deviceByNasId, type RadiusSecretSource, type WifiDeps } from '../wifi/index.js';

/** Which vendor attributes a router understands, from its model (docs/decisions/0020-radius-server.md). */
export type NasVendor = 'chillispot' | 'mikrotik' | 'unknown';

export function vendorOf(model: string): NasVendor {
  if (/mikrotik|routeros|routerboard/i.test(model)) return 'mikrotik';
  if (/chilli|coova|openwrt/i.test(model)) return 'chillispot';
  return 'unknown';
}

/** A registered router as the RADIUS listener needs it. */
export interface Nas {
  deviceId: string;
  nasId: string;
  /** The device's own secret, or RADIUS_SECRET when it has none. */
  secret: string;
  secretSource: RadiusSecretSource;
  vendor: NasVendor;
  requireMessageAuthenticator: boolean;
}

/** Cached entries are reread after this long, so `devices update` applies without a restart. */
const TTL_MS = 30_000;
/** A secret that fails is reread at most this often per NAS (a rotated secret applies at once). */
const RELOAD_AFTER_MS = 1_000;
/** Unknown NAS ids are remembered briefly too, so garbage cannot make every packet a query. */
const NEGATIVE_TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  nas: Nas | undefined;
  loadedAt: number;
}

/**
 * Finds routers by NAS-Identifier, caching the device row and its opened secret: the hot path
 * then costs no query and no decryption. Changes made by the CLI (another process) show within
 * the TTL; a secret that stops verifying is reread at once (at most once a second).
 */
export class NasDirectory {
  readonly #cache = new Map<string, Entry>();

  constructor(private readonly deps: Pick<WifiDeps, 'db' | 'vault' | 'config'> & { clock: Clock }) {}

  async find(nasId: string): Promise<Nas | undefined> {
    const now = this.deps.clock.now().getTime();
    const hit = this.#cache.get(nasId);
    if (hit && now - hit.loadedAt < (hit.nas ? TTL_MS : NEGATIVE_TTL_MS)) return hit.nas;
    return this.#load(nasId, now);
  }

  /** Rereads a NAS whose secret just failed; undefined when nothing newer can be had. */
  async reload(nasId: string): Promise<Nas | undefined> {
    const now = this.deps.clock.now().getTime();
    const hit = this.#cache.get(nasId);
    if (hit && now - hit.loadedAt < RELOAD_AFTER_MS) return undefined;
    const fresh = await this.#load(nasId, now);
    return fresh && fresh.secret !== hit?.nas?.secret ? fresh : undefined;
  }

  async #load(nasId: string, now: number): Promise<Nas | undefined> {
    const found = await deviceByNasId(this.deps, nasId);
    const nas = found && {
      deviceId: found.device.id,
      nasId: found.device.radius_nas_id,
      secret: found.radiusSecret,
      secretSource: found.secretSource,
      vendor: vendorOf(found.device.model),
      requireMessageAuthenticator: found.device.require_message_authenticator === 1,
    };
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    this.#cache.set(nasId, { nas, loadedAt: now });
    return nas;
  }
}
