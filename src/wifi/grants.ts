import type { Db } from '../db/index.js';
import { mapConcurrent } from '../lib/concurrent.js';
import { safeEqual, uuid } from '../lib/crypto.js';
import { newPassword, newUsername } from './codes.js';
import type { WifiDeps } from './deps.js';
import { wifiErrors } from './errors.js';
import {
  findGrant,
  findGrantByInvoice,
  findGrantByUsername,
  insertGrant,
  insertRememberedDevice,
  markEnded,
  markRevoked,
  planRemembersDevices,
  selectDueGrants,
  selectRememberedGrants,
  usernameTaken,
  type GrantRow,
} from './grants.store.js';
import { disconnectGrant, type CoaOutcome } from './disconnect.js';
import { findInvoice, type InvoiceRow } from './purchases.store.js';
import { recordAudit, type WifiActor } from './audit.js';
import { inScope, type SiteScope } from './sites.js';
import { grantUsage } from './sessions.store.js';

/**
 * The access-grant service: the only code that decides whether Wi-Fi credentials are valid now.
 * The purchase poll, the UAM login, the RADIUS authorizer and the admin/CLI revocation all come
 * through here.
 */

export type { GrantRow } from './grants.store.js';

/** Expired grants whose sessions are being disconnected at the same time, at most. */
const EXPIRY_DISCONNECTS_AT_ONCE = 16;

const passwordContext = (grantId: string): string => `grant-password:${grantId}`;

/** Opened passwords by sealed value: every RADIUS login needs one, and a sealed value never changes. */
const openedPasswords = new Map<string, string>();
const OPENED_PASSWORDS_MAX = 10_000;

function openPassword(deps: Pick<WifiDeps, 'vault'>, grant: Pick<GrantRow, 'id' | 'password_enc'>): string {
  let password = openedPasswords.get(grant.password_enc);
  if (password === undefined) {
    password = deps.vault.open(grant.password_enc, passwordContext(grant.id));
    if (openedPasswords.size >= OPENED_PASSWORDS_MAX) openedPasswords.clear();
    openedPasswords.set(grant.password_enc, password);
  }
  return password;
}

/** Parsed expiry times of grant rows (the authorization cache hands out the same row object each login). */
const expiryOfRow = new WeakMap<GrantRow, number>();
function expiresAtMs(grant: GrantRow): number {
  let ms = expiryOfRow.get(grant);
  if (ms === undefined) expiryOfRow.set(grant, (ms = Date.parse(grant.expires_at)));
  return ms;
}

const secondsBetween = (from: Date, to: string): number =>
  Math.floor((new Date(to).getTime() - from.getTime()) / 1000);

export interface IssuedGrant {
  grant: GrantRow;
  password: string;
}

/**
 * Creates the grant of a paid invoice inside the settlement transaction `tx`: a random username
 * and password, valid for the invoice's duration from `paidAt`.
 */
export async function issue(
  tx: Db,
  deps: Pick<WifiDeps, 'vault'>,
  input: {
    invoice: Pick<
      InvoiceRow,
      'id' | 'duration_seconds' | 'data_limit_bytes' | 'max_devices' | 'download_kbps' | 'upload_kbps'
    >;
    paidAt: Date;
  },
): Promise<IssuedGrant> {
  let username = newUsername();
  while (await usernameTaken(tx, username)) username = newUsername();
  const id = uuid();
  const password = newPassword();
  const grant: GrantRow = {
    id,
    invoice_id: input.invoice.id,
    username,
    password_enc: deps.vault.seal(password, passwordContext(id)),
    data_limit_bytes: input.invoice.data_limit_bytes,
    max_devices: input.invoice.max_devices,
    download_kbps: input.invoice.download_kbps,
    upload_kbps: input.invoice.upload_kbps,
    issued_at: input.paidAt.toISOString(),
    expires_at: new Date(input.paidAt.getTime() + input.invoice.duration_seconds * 1000).toISOString(),
    revoked_at: null,
    revoke_reason: null,
    ended_at: null,
    end_reminder_at: null,
    data_reminder_at: null,
  };
  await insertGrant(tx, grant);
  return { grant, password };
}

export type RejectReason =
  'unknown' | 'bad_password' | 'revoked' | 'expired' | 'too_many_devices' | 'data_exhausted';

/** What RADIUS (and anyone else asking "may this user in now?") gets back. */
export type Decision =
  | {
      decision: 'accept';
      grantId: string;
      username: string;
      expiresAt: string;
      /** Whole seconds until the grant expires (> 0): the Session-Timeout. */
      secondsLeft: number;
      limits: {
        /** The plan's data allowance for the whole grant, or null. */
        dataLimitBytes: number | null;
        /** What is left of it after every session's octets so far (> 0), or null. */
        dataLeftBytes: number | null;
        maxDevices: number;
        /** The grant's speed limits in kbit/s (download: to the guest), each null when none. */
        downloadKbps: number | null;
        uploadKbps: number | null;
      };
    }
  | { decision: 'reject'; reason: RejectReason };

/**
 * Decides a login attempt. `check(password)` receives the grant's cleartext password and says
 * whether the request proves it (PAP: compare; CHAP: recompute the response). The username is
 * matched case-insensitively: phones like to capitalise the first letter. `mac` is the device
 * asking: its own open sessions do not count against the simultaneous-use limit (a phone that
 * reconnects before its old session was closed). The data allowance is shared by all sessions.
 * `deviceLimit: false` leaves the simultaneous-use limit out (the portal cannot name the device).
 */
export async function authorize(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault'>,
  request: {
    username: string;
    check: (password: string) => boolean;
    mac?: string | null;
    deviceLimit?: boolean;
  },
): Promise<Decision> {
  const grant = await findGrantByUsername(deps.db, request.username.trim().toLowerCase());
  if (!grant) return { decision: 'reject', reason: 'unknown' };
  if (!request.check(openPassword(deps, grant))) return { decision: 'reject', reason: 'bad_password' };
  return decide(deps, grant, request.mac ?? null, request.deviceLimit !== false);
}

/** Whether a grant whose credentials were proven may be used now, and with what limits. */
async function decide(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  grant: GrantRow,
  mac: string | null,
  deviceLimit: boolean,
): Promise<Decision> {
  if (grant.revoked_at !== null) return { decision: 'reject', reason: 'revoked' };
  const secondsLeft = Math.floor((expiresAtMs(grant) - deps.clock.now().getTime()) / 1000);
  if (secondsLeft <= 0) return { decision: 'reject', reason: 'expired' };
  const usage = await grantUsage(deps.db, grant.id, mac);
  if (deviceLimit && usage.otherLiveSessions >= grant.max_devices)
    return { decision: 'reject', reason: 'too_many_devices' };
  const dataLeft = grant.data_limit_bytes === null ? null : grant.data_limit_bytes - usage.usedOctets;
  if (dataLeft !== null && dataLeft <= 0) return { decision: 'reject', reason: 'data_exhausted' };
  return {
    decision: 'accept',
    grantId: grant.id,
    username: grant.username,
    expiresAt: grant.expires_at,
    secondsLeft,
    limits: {
      dataLimitBytes: grant.data_limit_bytes,
      dataLeftBytes: dataLeft,
      maxDevices: grant.max_devices,
      downloadKbps: grant.download_kbps,
      uploadKbps: grant.upload_kbps,
    },
  };
}

/**
 * Returning guests (DESIGN.md §4.8): after a login a router accepted, the device's MAC is
 * remembered for the grant when the grant's plan has `remember_device`.
 */
export async function rememberDevice(
  deps: Pick<WifiDeps, 'db' | 'clock'>,
  accepted: { username: string },
  mac: string,
): Promise<void> {
  const grant = await findGrantByUsername(deps.db, accepted.username);
  if (!grant || !(await planRemembersDevices(deps.db, grant.invoice_id))) return;
  await insertRememberedDevice(deps.db, grant.id, mac, deps.clock.now().toISOString());
}

/**
 * A MAC-authentication request (the router asks with the device's MAC as User-Name): accepted
 * with the limits of a live grant that MAC logged in with, while its plan remembers devices and
 * its device limit allows; otherwise refused as an unknown login (or with the last grant's reason).
 */
export async function authorizeDevice(deps: Pick<WifiDeps, 'db' | 'clock'>, mac: string): Promise<Decision> {
  let decision: Decision = { decision: 'reject', reason: 'unknown' };
  for (const grant of await selectRememberedGrants(deps.db, mac, deps.clock.now().toISOString())) {
    decision = await decide(deps, grant, mac, true);
    if (decision.decision === 'accept') return decision;
  }
  return decision;
}

/** The live grant a MAC was remembered for, for an accounting record whose User-Name is that MAC. */
export async function rememberedGrant(db: Db, mac: string, now: string): Promise<GrantRow | undefined> {
  return (await selectRememberedGrants(db, mac, now))[0];
}

/** A typed login checked against the grants: the live grant and its password, or why not. */
export type LoginCheck =
  | { kind: 'live'; grant: GrantRow; password: string }
  | { kind: 'invalid' | 'revoked' | 'expired' | 'used_up' };

/**
 * A username and password a guest typed on the portal (DESIGN.md §4.8). Both are generated in
 * lower case (codes.ts), so case and surrounding spaces are forgiven: phones capitalise the first
 * letter. An unknown username and a wrong password answer alike. The device limit is not checked
 * here: the router asks over RADIUS with the device's real MAC address, which the portal cannot
 * vouch for.
 */
export async function checkLogin(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault'>,
  typed: { username: string; password: string },
): Promise<LoginCheck> {
  const given = typed.password.trim().toLowerCase();
  const decision = await authorize(deps, {
    username: typed.username,
    check: (password) => safeEqual(given, password),
    deviceLimit: false,
  });
  if (decision.decision === 'reject') return { kind: LOGIN_REFUSALS[decision.reason] };
  // The grant authorize just read (cached), for the password the router is handed.
  const grant = await findGrantByUsername(deps.db, decision.username);
  if (!grant) return { kind: 'invalid' };
  return { kind: 'live', grant, password: openPassword(deps, grant) };
}

/** Why authorize refused → what a typed login is told (the device limit is not asked). */
const LOGIN_REFUSALS: Readonly<Record<RejectReason, Exclude<LoginCheck['kind'], 'live'>>> = {
  unknown: 'invalid',
  bad_password: 'invalid',
  revoked: 'revoked',
  expired: 'expired',
  data_exhausted: 'used_up',
  too_many_devices: 'invalid',
};

export type LiveGrantLookup =
  | { kind: 'live'; grant: GrantRow; password: string; secondsLeft: number }
  | { kind: 'unknown_invoice' | 'key_mismatch' | 'not_paid' | 'expired' | 'revoked' };

/**
 * The live grant of a purchase, for whoever holds its purchase key (compared in constant time
 * with the stored hash). Anything else says why there is none.
 */
export async function findLiveForPurchase(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'vault'>,
  invoiceId: string,
  keyHash: string,
): Promise<LiveGrantLookup> {
  const invoice = await findInvoice(deps.db, invoiceId);
  if (!invoice) return { kind: 'unknown_invoice' };
  if (!safeEqual(keyHash, invoice.purchase_key_hash)) return { kind: 'key_mismatch' };
  const grant = invoice.status === 'paid' ? await findGrantByInvoice(deps.db, invoice.id) : undefined;
  if (!grant) return { kind: 'not_paid' };
  if (grant.revoked_at !== null) return { kind: 'revoked' };
  const secondsLeft = secondsBetween(deps.clock.now(), grant.expires_at);
  if (secondsLeft <= 0) return { kind: 'expired' };
  return {
    kind: 'live',
    grant,
    password: deps.vault.open(grant.password_enc, passwordContext(grant.id)),
    secondsLeft,
  };
}

/** Who revokes, when staff do: written to the audit trail; a grant of a site outside `scope` is 404. */
export interface RevokedBy {
  actor: WifiActor;
  scope?: SiteScope;
}

/**
 * Revokes a grant (committed first, with its audit entry when staff did it), then asks the
 * routers to disconnect its live RADIUS sessions, so the grant is revoked whether or not a router
 * answers; the outcome says what each router said. Revoking twice keeps the first reason (and
 * writes no second entry).
 */
export async function revoke(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  grantId: string,
  reason: string,
  by?: RevokedBy,
): Promise<{ grant: GrantRow; disconnect: CoaOutcome }> {
  const grant = await deps.db.transaction().execute(async (tx) => {
    const before = await findGrant(tx, grantId);
    const invoice = before && (await findInvoice(tx, before.invoice_id));
    if (!before || !invoice || !inScope(by?.scope ?? null, invoice.site_id)) return undefined;
    const changed = await markRevoked(tx, grantId, deps.clock.now().toISOString(), reason);
    const after = (await findGrant(tx, grantId)) ?? before;
    if (changed && by)
      await recordAudit(tx, deps.clock, {
        actor: by.actor,
        action: 'grant.revoke',
        target: { type: 'grant', id: grantId },
        siteId: invoice.site_id,
        reason,
        before: presentGrant(before),
        after: presentGrant(after),
      });
    return after;
  });
  if (!grant) throw wifiErrors.grantNotFound();
  deps.log.info({ event: 'grant.revoked', grant_id: grant.id, reason: grant.revoke_reason }, 'grant revoked');
  const disconnect = await disconnectGrant(deps, grant.id, reason);
  return { grant, disconnect };
}

/** A grant as staff see it (never its password). */
export const presentGrant = (g: GrantRow) => ({
  id: g.id,
  invoice_id: g.invoice_id,
  username: g.username,
  issued_at: g.issued_at,
  expires_at: g.expires_at,
  revoked_at: g.revoked_at,
  revoke_reason: g.revoke_reason,
  ended_at: g.ended_at,
  max_devices: g.max_devices,
  data_limit_bytes: g.data_limit_bytes,
  download_kbps: g.download_kbps,
  upload_kbps: g.upload_kbps,
});

export interface ExpiredGrant {
  grantId: string;
  username: string;
  disconnect: CoaOutcome;
}

/**
 * The scheduled job: marks grants whose time is up as handled (one transaction), then asks the
 * routers to disconnect their sessions. Each grant is handled once.
 */
export async function expireDue(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  options: { batch?: number } = {},
): Promise<ExpiredGrant[]> {
  const now = deps.clock.now().toISOString();
  const due = await deps.db.transaction().execute(async (tx) => {
    const rows = await selectDueGrants(tx, now, options.batch ?? 500);
    await markEnded(
      tx,
      rows.map((g) => g.id),
      now,
    );
    return rows;
  });
  // Each grant waits on its own routers (a router that never answers costs three tries, ~6 s):
  // a batch of them must not take one after another.
  return mapConcurrent(due, EXPIRY_DISCONNECTS_AT_ONCE, async (grant): Promise<ExpiredGrant> => {
    const disconnect = await disconnectGrant(deps, grant.id, 'expired');
    deps.log.info(
      { event: 'grant.expired', grant_id: grant.id, disconnect: disconnect.status },
      'grant expired',
    );
    return { grantId: grant.id, username: grant.username, disconnect };
  });
}
