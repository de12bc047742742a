import { committedChangeVersion, sharedChangeVersion, type Db } from '../db/connect.js';
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
  /** SHA-256 fingerprint of the RadSec certificate issued to it last (`AB:CD:…`); null: none pinned. */
  radsecFingerprint: string | null;
  /** Archived by staff (docs/decisions/0037): unknown to the listeners; only a Disconnect still goes to it. */
  archived: boolean;
}

/** Cached entries are reread after this long, so `devices update` applies without a restart. */
const TTL_MS = 30_000;
/** A secret that fails is reread at most this often per NAS (a rotated secret applies at once). */
const RELOAD_AFTER_MS = 1_000;
/** Unknown NAS ids are remembered briefly too, so garbage cannot make every packet a query. */
const NEGATIVE_TTL_MS = 2_000;
/**
 * The version cache entries are kept at: PostgreSQL's change feed for devices (every daemon's and
 * the CLI's writes); on SQLite, commits by other connections (the CLI's `devices archive`), while
 * this daemon's own archiving tells the directory through `forget`.
 */
const versionOf = (db: Db): number | null =>
  sharedChangeVersion(db, ['devices']) ?? committedChangeVersion(db, []);

/** Archived routers are unknown to the listeners; only the CoA client asks for them. */
const visible = (nas: Nas | undefined, options: { archived?: boolean }): Nas | undefined =>
  nas?.archived === true && options.archived !== true ? undefined : nas;
/** Known routers: registered devices only, so this bound is never reached in practice. */
const MAX_KNOWN = 10_000;
/** Unknown ids remembered at once; past this the oldest is forgotten first. */
const MAX_UNKNOWN = 1_024;

/**
 * Finds routers by NAS-Identifier, caching the device row and its opened secret: the hot path
 * then costs no query and no decryption. Changes made by the CLI (another process) show within
 * the TTL, and at once on PostgreSQL when the change feed reports a write to devices (another
 * daemon's or the CLI's); a secret that stops verifying is reread at once (at most once a
 * second). Unknown ids
 * live in their own bounded map, so a spray of made-up NAS-Identifiers only evicts other
 * made-up ones, never a known router.
 */
export class NasDirectory {
  readonly #known = new Map<string, { nas: Nas; loadedAt: number; version: number | null }>();
  /** NAS id → when it was found unknown, at which change version. */
  readonly #unknown = new Map<string, { at: number; version: number | null }>();

  constructor(private readonly deps: Pick<WifiDeps, 'db' | 'vault' | 'config'> & { clock: Clock }) {}

  /**
   * The router with this NAS-Identifier; an archived one only when asked (`archived`: the CoA
   * client, to disconnect its sessions), for the listeners it is unknown.
   */
  async find(nasId: string, options: { archived?: boolean } = {}): Promise<Nas | undefined> {
    const hit = this.#fromCache(nasId);
    const nas =
      hit !== null ? hit : await this.#load(nasId, this.deps.clock.now().getTime(), versionOf(this.deps.db));
    return visible(nas, options);
  }

  /**
   * What `find` would answer the listeners from the cache, without a promise (the hot path): the
   * router, undefined for an id known to be unknown (or archived), null when it must be read
   * (call `find`).
   */
  cached(nasId: string): Nas | undefined | null {
    const hit = this.#fromCache(nasId);
    return hit === null ? null : visible(hit, {});
  }

  /** Drops what is cached about a NAS id (archived or unarchived here): its next packet rereads it. */
  forget(nasId: string): void {
    this.#known.delete(nasId);
    this.#unknown.delete(nasId);
  }

  #fromCache(nasId: string): Nas | undefined | null {
    const now = this.deps.clock.now().getTime();
    const version = versionOf(this.deps.db);
    const hit = this.#known.get(nasId);
    if (hit && now - hit.loadedAt < TTL_MS && (version === null || hit.version === version)) return hit.nas;
    const missed = this.#unknown.get(nasId);
    if (missed && now - missed.at < NEGATIVE_TTL_MS && (version === null || missed.version === version))
      return undefined;
    return null;
  }

  /** Rereads a NAS whose secret just failed; undefined when nothing newer can be had. */
  async reload(nasId: string): Promise<Nas | undefined> {
    const now = this.deps.clock.now().getTime();
    const hit = this.#known.get(nasId);
    if (hit && now - hit.loadedAt < RELOAD_AFTER_MS) return undefined;
    const fresh = await this.#load(nasId, now, versionOf(this.deps.db));
    return fresh && fresh.secret !== hit?.nas.secret ? fresh : undefined;
  }

  /** Reads a NAS; `version` is the change version taken before the read. */
  async #load(nasId: string, now: number, version: number | null): Promise<Nas | undefined> {
    const found = await deviceByNasId(this.deps, nasId);
    if (!found) {
      this.#known.delete(nasId);
      this.#unknown.delete(nasId); // re-inserted last: maps iterate in insertion order
      if (this.#unknown.size >= MAX_UNKNOWN) {
        const oldest = this.#unknown.keys().next();
        if (!oldest.done) this.#unknown.delete(oldest.value);
      }
      this.#unknown.set(nasId, { at: now, version });
      return undefined;
    }
    const nas: Nas = {
      deviceId: found.device.id,
      nasId: found.device.radius_nas_id,
      secret: found.radiusSecret,
      secretSource: found.secretSource,
      vendor: vendorOf(found.device.model),
      requireMessageAuthenticator: found.device.require_message_authenticator === 1,
      radsecFingerprint: found.device.radsec_cert_sha256,
      archived: found.device.archived_at !== null,
    };
    this.#unknown.delete(nasId);
    if (this.#known.size >= MAX_KNOWN && !this.#known.has(nasId)) this.#known.clear();
    this.#known.set(nasId, { nas, loadedAt: now, version });
    return nas;
  }

  /** How many ids are cached, known and unknown (for tests and diagnostics). */
  get size(): { known: number; unknown: number } {
    return { known: this.#known.size, unknown: this.#unknown.size };
  }
}
