import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, safeEqual, sha256Hex } from '../lib/crypto.js';

/**
 * The metrics scrape token: how a Prometheus on another box reads GET /metrics, which answers
 * only loopback clients and signed-in staff otherwise (a scraper has no staff session). One token
 * per database, made by `hotspot-ctl metrics token`, shown once, kept only as its SHA-256 in
 * app_meta (a random 256-bit token needs no slow hash), presented as `Authorization: Bearer …`.
 * Making a new one replaces the old; `metrics revoke` removes it.
 */

const KEY = 'metrics_token_sha256';
/** A prefix that says what the secret is when it turns up in a file or a paste. */
const PREFIX = 'hsm_';

export interface MetricsTokenState {
  /** When the current token was made; null when there is none. */
  created_at: string | null;
}

/** A new token (returned once, never stored) replacing any earlier one. */
export async function issueMetricsToken(
  db: Db,
  clock: Clock,
): Promise<{ token: string; created_at: string }> {
  const token = `${PREFIX}${randomToken(32)}`;
  const created_at = clock.now().toISOString();
  await db
    .insertInto('app_meta')
    .values({ key: KEY, value: sha256Hex(token), updated_at: created_at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: sha256Hex(token), updated_at: created_at }))
    .execute();
  return { token, created_at };
}

/** Removes the token; true when there was one. */
export async function revokeMetricsToken(db: Db): Promise<boolean> {
  const result = await db.deleteFrom('app_meta').where('key', '=', KEY).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function metricsTokenState(db: Db): Promise<MetricsTokenState> {
  const row = await db.selectFrom('app_meta').select('updated_at').where('key', '=', KEY).executeTakeFirst();
  return { created_at: row?.updated_at ?? null };
}

/** Whether `presented` is the current token (constant-time; false when there is none). */
export async function isMetricsToken(db: Db, presented: string): Promise<boolean> {
  const row = await db.selectFrom('app_meta').select('value').where('key', '=', KEY).executeTakeFirst();
  if (!row) return false;
  return safeEqual(sha256Hex(presented), row.value);
}
