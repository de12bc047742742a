import { createHash, generateKeyPair, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import type { CoreDeps } from '../deps.js';
import { committedChangeVersion } from '../db/connect.js';
import { writeSecretFile } from '../config/secrets.js';
import { errorCatalogue } from '../lib/errors.js';
import { isoNow } from '../lib/time.js';
import {
  deleteKey,
  insertKey,
  listKeys,
  listUnpublished,
  retireSigningKeys,
  unpublishKeys,
  type SigningKeyRow,
} from './keys.store.js';
import type { SigningKey } from './jwt.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'log' | 'vault'>;

/**
 * The public JWK of an RSA key and its RFC 7638 thumbprint (the kid): SHA-256 over the required
 * members in lexicographic order without whitespace. node:crypto gives both, so a first start
 * does not load jose to make its key (bench/footprint.ts: about 3 MB of idle memory); jwt.test.ts
 * checks them against jose's.
 */
export function publicJwk(publicKey: KeyObject): { jwk: JWK; kid: string } {
  const { kty, n, e } = publicKey.export({ format: 'jwk' });
  if (kty !== 'RSA' || n === undefined || e === undefined) throw new Error('signing keys are RSA');
  const kid = createHash('sha256').update(JSON.stringify({ e, kty, n })).digest('base64url');
  return { jwk: { kty, n, e }, kid };
}

/** DESIGN.md §4.6: a new key is published 5 minutes before it signs (verifiers refetch every 5). */
export const PREPUBLISH_SECONDS = 5 * 60;
/** …and an old key stays published 15 minutes after it last signed, plus a minute of clock skew. */
export const OVERLAP_SECONDS = 16 * 60;
/**
 * How often a running daemon re-reads the key table when it cannot tell whether it changed (the
 * PostgreSQL change feed is down); otherwise a change is seen at the next use.
 */
const RELOAD_MS = 30_000;

export const keyErrors = errorCatalogue({
  retireNeedsNow: [
    400,
    '--retire-old needs --now: without a key that signs at once there would be none to sign with',
  ],
});

export type KeyState = 'pending' | 'active' | 'retired';

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * A new RSA key pair for RS256, made on libuv's thread pool: about 0.2 s of CPU that the event
 * loop does not wait through (a first start makes its first key while it migrates: app.ts).
 */
export const makeKeyPair = (): Promise<KeyPair> => promisify(generateKeyPair)('rsa', { modulusLength: 2048 });

const at = (iso: string | null): number => (iso === null ? Infinity : Date.parse(iso));
const sealContext = (kid: string): string => `signing-key:${kid}`;

/**
 * The signing keys: metadata and public JWKs in the database; private keys sealed with the vault
 * key in the database too (every daemon sharing the vault key signs with them) and in
 * `<data dir>/keys/<kid>.pem` (0600; keys made before migration 0018 have only the file).
 * Shared by the daemons and the CLI through the database.
 */
export class Keyring {
  readonly #deps: Deps;
  #rows: SigningKeyRow[] = [];
  #loadedAt = -Infinity;
  /** The change version of signing_keys the rows were read at (null: unknown). */
  #version: number | null = null;
  readonly #private = new Map<string, KeyObject>();
  readonly #public = new Map<string, KeyObject>();
  /** The version was read in this turn of the event loop and found unchanged (see #reload). */
  #checkedThisTurn = false;

  /** A key pair made ahead (first start), used by the next rotation instead of a new one. */
  #spare: Promise<KeyPair> | undefined;
  /** The first key, being made while the listeners open (firstKeyInBackground): uses wait for it. */
  #making: Promise<void> | undefined;

  constructor(deps: Deps, options: { spare?: Promise<KeyPair> } = {}) {
    this.#deps = deps;
    this.#spare = options.spare;
  }

  get #dir(): string {
    return path.join(this.#deps.config.dataDir, 'keys');
  }

  async #reload(force = false): Promise<void> {
    // Under load one turn of the event loop reads many requests (token grants, bearer checks):
    // the table's version is read once per turn, not once per request (docs/decisions/0042). A
    // rotation committed by the CLI during the turn is seen in the next one: the same race as a
    // commit just after the turn.
    if (!force && this.#checkedThisTurn) return;
    if (!force && this.#making !== undefined) await this.#making.catch(() => undefined);
    const now = this.#deps.clock.now().getTime();
    // The CLI's or another daemon's rotation is seen at the next use (connect.ts
    // committedChangeVersion): SQLite's data_version, or PostgreSQL's change feed.
    const version = committedChangeVersion(this.#deps.db, ['signing_keys']);
    const unchanged = version === null || version === this.#version; // null: the feed is down
    if (!force && now - this.#loadedAt < RELOAD_MS && unchanged) {
      this.#checkedThisTurn = true;
      setImmediate(() => {
        this.#checkedThisTurn = false;
      });
      return;
    }
    this.#rows = await listKeys(this.#deps.db);
    this.#loadedAt = now;
    this.#version = version;
    for (const row of this.#rows) {
      if (!this.#public.has(row.kid))
        this.#public.set(row.kid, createPublicKey({ key: JSON.parse(row.public_jwk) as JWK, format: 'jwk' }));
    }
  }

  /** Creates the first key at first start; no-op when one exists. */
  async ensureKey(): Promise<void> {
    await this.#reload(true);
    if (this.#rows.length === 0) await this.#rotate({ now: true });
  }

  /**
   * ensureKey without waiting for it: on a new box the key pair takes 80-450 ms on the thread
   * pool, and the listeners open meanwhile (bench/footprint.ts, first start). Signing, the JWKS,
   * bearer checks and the CLI's key commands wait for it; the returned promise is the caller's to
   * await (app.start, app.close) so a failure still stops the daemon.
   */
  firstKeyInBackground(): Promise<void> {
    const making = this.ensureKey().finally(() => {
      if (this.#making === making) this.#making = undefined;
    });
    this.#making = making;
    making.catch(() => undefined); // reported by the caller's await
    return making;
  }

  /**
   * A new key: signing at once (`now`) or after the pre-publication delay. `retireOld` (with
   * `now`: a key that may have leaked) unpublishes every other key at once, and forgets them.
   */
  async rotate(options: {
    now: boolean;
    retireOld?: boolean;
  }): Promise<SigningKeyRow & { unpublished: string[] }> {
    if (options.retireOld && !options.now) throw keyErrors.retireNeedsNow();
    await this.#making?.catch(() => undefined); // a rotation comes after the first key, not beside it
    return this.#rotate(options);
  }

  async #rotate(options: {
    now: boolean;
    retireOld?: boolean;
  }): Promise<SigningKeyRow & { unpublished: string[] }> {
    const spare = this.#spare;
    this.#spare = undefined;
    const { privateKey, publicKey } = await (spare?.catch(makeKeyPair) ?? makeKeyPair());
    const { jwk, kid } = publicJwk(publicKey);
    const published = { ...jwk, kid, use: 'sig', alg: 'RS256' };
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    writeSecretFile(path.join(this.#dir, `${kid}.pem`), pem);

    const clock = this.#deps.clock;
    const now = clock.now().getTime();
    const signsFrom = new Date(now + (options.now ? 0 : PREPUBLISH_SECONDS * 1000)).toISOString();
    const unpublishAt = new Date(Date.parse(signsFrom) + OVERLAP_SECONDS * 1000).toISOString();
    const row: SigningKeyRow = {
      kid,
      public_jwk: JSON.stringify(published),
      created_at: isoNow(clock),
      signs_from: signsFrom,
      retired_at: null,
      unpublish_at: null,
      private_key_enc: this.#deps.vault.seal(pem, sealContext(kid)),
    };
    const unpublished = await this.#deps.db.transaction().execute(async (tx) => {
      const ended = options.retireOld ? await unpublishKeys(tx, signsFrom) : [];
      await retireSigningKeys(tx, signsFrom, unpublishAt);
      await insertKey(tx, row);
      return ended;
    });
    this.#deps.log.info({ event: 'oauth.key_rotated', kid, signs_from: signsFrom }, 'signing key created');
    if (unpublished.length > 0) {
      this.#deps.log.info(
        { event: 'oauth.keys_unpublished', kids: unpublished },
        'old signing keys unpublished',
      );
      await this.dropUnpublished(); // their rows and private key files go too
    }
    await this.#reload(true);
    return { ...row, unpublished };
  }

  /** The key new tokens are signed with: the newest one whose signing time has come. */
  async signingKey(): Promise<SigningKey> {
    await this.#reload();
    const now = this.#deps.clock.now().getTime();
    const row = this.#signing(now);
    if (!row) throw new Error('no signing key: run hotspot-ctl migrate or start the daemon once');
    let key = this.#private.get(row.kid);
    if (!key) {
      key = createPrivateKey(
        row.private_key_enc === null
          ? readFileSync(path.join(this.#dir, `${row.kid}.pem`))
          : this.#deps.vault.open(row.private_key_enc, sealContext(row.kid)),
      );
      this.#private.set(row.kid, key);
    }
    return { kid: row.kid, privateKey: key };
  }

  /** Signing at `now`: started, not retired, still published; the newest such key. */
  #signing(now: number): SigningKeyRow | undefined {
    return this.#rows
      .filter((r) => at(r.signs_from) <= now && at(r.retired_at) > now && at(r.unpublish_at) > now)
      .at(-1);
  }

  /** Published keys: the JWKS. */
  async published(): Promise<JWK[]> {
    await this.#reload();
    const now = this.#deps.clock.now().getTime();
    return this.#rows.filter((r) => at(r.unpublish_at) > now).map((r) => JSON.parse(r.public_jwk) as JWK);
  }

  /** The public key of a published kid (verification picks the key by kid). */
  verifyKey(kid: string): KeyObject | undefined {
    const row = this.#rows.find((r) => r.kid === kid);
    if (!row || at(row.unpublish_at) <= this.#deps.clock.now().getTime()) return undefined;
    return this.#public.get(kid);
  }

  /** Makes sure the cached view is fresh enough before a burst of verifyKey calls. */
  refresh = (): Promise<void> => this.#reload();

  /** Scheduled: forget keys past their overlap window (rows and files). */
  async dropUnpublished(): Promise<string[]> {
    const gone = await listUnpublished(this.#deps.db, isoNow(this.#deps.clock));
    for (const { kid } of gone) {
      await deleteKey(this.#deps.db, kid);
      rmSync(path.join(this.#dir, `${kid}.pem`), { force: true });
      this.#private.delete(kid);
      this.#public.delete(kid);
    }
    if (gone.length > 0) await this.#reload(true);
    return gone.map((g) => g.kid);
  }

  /** Operator view for `keys list`. */
  async list(): Promise<
    {
      kid: string;
      state: KeyState;
      created_at: string;
      signs_from: string;
      retired_at: string | null;
      unpublish_at: string | null;
    }[]
  > {
    await this.#making?.catch(() => undefined);
    await this.#reload(true);
    const now = this.#deps.clock.now().getTime();
    const active = this.#signing(now)?.kid;
    return this.#rows.map((r) => ({
      kid: r.kid,
      state: r.kid === active ? 'active' : at(r.signs_from) > now ? 'pending' : 'retired',
      created_at: r.created_at,
      signs_from: r.signs_from,
      retired_at: r.retired_at,
      unpublish_at: r.unpublish_at,
    }));
  }
}
