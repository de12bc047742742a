import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { randomToken, sha256Hex, uuid } from '../lib/crypto.js';
import { isoIn, isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import { presentSession } from './present.js';
import {
  deleteAllUserSessions,
  deleteExpiredSessions,
  deleteSessionById,
  deleteUserSession,
  findLiveSessionByHash,
  insertSession,
  listLiveSessions,
  touchSession,
} from './sessions.store.js';
import { findUserById, type UserRow } from './users.store.js';

export const SESSION_COOKIE = 'svc_session';
/** 30-day sliding lifetime (identity-service.md §5). */
export const SESSION_TTL_SECONDS = 30 * 86_400;
/** A used session is written back at most this often. */
const TOUCH_EVERY_MS = 60_000;

export interface NewSession {
  id: string;
  /** The cookie value: shown to the browser once, stored only as its SHA-256. */
  token: string;
}

export async function createSession(
  db: Db,
  clock: Clock,
  input: { userId: string; ip: string; deviceLabel?: string | null },
): Promise<NewSession> {
  const token = randomToken(32);
  const id = uuid();
  const now = isoNow(clock);
  await insertSession(db, {
    id,
    user_id: input.userId,
    token_hash: sha256Hex(token),
    ip_address: input.ip,
    device_label: input.deviceLabel ?? null,
    created_at: now,
    last_used_at: now,
    expires_at: isoIn(clock, SESSION_TTL_SECONDS),
  });
  return { id, token };
}

export interface AuthenticatedSession {
  sessionId: string;
  /** When the user signed in (the session's start): OIDC's auth_time. */
  authTime: string;
  user: UserRow;
  /** The lifetime was extended: the cookie should be sent again with a fresh Max-Age. */
  extended: boolean;
}

/** The session a cookie value stands for, slid forward; null when unknown or expired. */
export async function authenticateSession(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  token: string,
): Promise<AuthenticatedSession | null> {
  const now = deps.clock.now();
  const session = await findLiveSessionByHash(deps.db, sha256Hex(token), now.toISOString());
  if (!session) return null;
  const user = await findUserById(deps.db, session.user_id);
  if (!user) return null;
  const extended = now.getTime() - Date.parse(session.last_used_at) >= TOUCH_EVERY_MS;
  if (extended)
    await touchSession(deps.db, session.id, now.toISOString(), isoIn(deps.clock, SESSION_TTL_SECONDS));
  return { sessionId: session.id, authTime: session.created_at, user, extended };
}

export async function listSessions(deps: Pick<CoreDeps, 'db' | 'clock'>, userId: string, currentId: string) {
  return (await listLiveSessions(deps.db, userId, isoNow(deps.clock))).map((s) =>
    presentSession(s, currentId),
  );
}

/** Revokes one of the user's sessions; another user's session is "not found". */
export async function revokeSession(
  deps: Pick<CoreDeps, 'db'>,
  userId: string,
  sessionId: string,
): Promise<void> {
  if (!(await deleteUserSession(deps.db, userId, sessionId))) throw identityErrors.sessionNotFound();
}

export const endSession = (deps: Pick<CoreDeps, 'db'>, sessionId: string) =>
  deleteSessionById(deps.db, sessionId);

export const revokeAllSessions = (db: Db, userId: string) => deleteAllUserSessions(db, userId);

/** Scheduled: forget sessions past their lifetime. */
export const pruneExpiredSessions = (deps: Pick<CoreDeps, 'db' | 'clock'>) =>
  deleteExpiredSessions(deps.db, isoNow(deps.clock));
