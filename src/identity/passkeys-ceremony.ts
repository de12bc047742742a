import type { CoreDeps } from '../deps.js';
import type { PasskeyCeremonyKind } from '../db/tables/identity.js';
import { randomToken, sha256Hex, uuid } from '../lib/crypto.js';
import { lazy } from '../lib/lazy.js';
import { isoIn, isoNow } from '../lib/time.js';
import { identityErrors } from './errors.js';
import {
  deleteExpiredPasskeyChallenges,
  insertPasskeyChallenge,
  takePasskeyChallenge,
  type PasskeyChallengeRow,
  type PasskeyRow,
} from './passkeys.store.js';

/**
 * What the register and login ceremonies share: who the relying party is, and the challenge
 * kept between a begin call and its finish call, named by the opaque X-Passkey-Token.
 * Choices are recorded in docs/decisions/0011-passkeys.md.
 */

/** The WebAuthn library, loaded by the first ceremony (bench/footprint.ts). */
export const webauthn = lazy('@simplewebauthn/server', () => import('@simplewebauthn/server'));

/** identity-service.md §8: a ceremony challenge is single use and lives 3 minutes. */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 180;
/** How long the browser is told to wait for the authenticator: the challenge's lifetime. */
export const PASSKEY_CEREMONY_TIMEOUT_MS = PASSKEY_CHALLENGE_TTL_SECONDS * 1000;

/** Transport hints WebAuthn defines; anything else a client sends is dropped. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** Who we are to authenticators: WEBAUTHN_RPID, shown as SERVICE_NAME. */
export const relyingParty = (config: CoreDeps['config']) => ({
  id: config.webauthnRpId,
  name: config.serviceName,
});

/**
 * What a finish call's credential is checked against, besides its key: this ceremony's
 * challenge, our origin and RP id. User presence is required, user verification only
 * preferred (decisions/0011).
 */
export const expectations = (config: CoreDeps['config'], challenge: string) => ({
  expectedChallenge: challenge,
  expectedOrigin: config.webauthnOrigin,
  expectedRPID: config.webauthnRpId,
  requireUserVerification: false,
});

/** The WebAuthn user handle: the 16 bytes of the account's UUID (opaque, no personal data). */
export const userHandle = (userId: string): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));

/** Known transport hints, each once. */
export const cleanTransports = (transports: readonly string[] | undefined): string[] =>
  [...new Set(transports ?? [])].filter((t) => TRANSPORTS.has(t));

/** A stored passkey as begin options list it (excludeCredentials / allowCredentials). */
export function credentialDescriptor(passkey: PasskeyRow): { id: string; transports: string[] } {
  const parsed: unknown = JSON.parse(passkey.transports);
  const list = Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
  return { id: passkey.id, transports: cleanTransports(list) };
}

/**
 * Starts a ceremony: stores its challenge under the SHA-256 of a fresh token and returns the
 * token (the X-Passkey-Token the client echoes on finish). Expired ceremonies are swept here,
 * so abandoned ones never pile up.
 */
export async function openCeremony(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  input: { kind: PasskeyCeremonyKind; userId: string; challenge: string; name?: string },
): Promise<string> {
  const token = randomToken(32);
  const now = isoNow(deps.clock);
  await deleteExpiredPasskeyChallenges(deps.db, now);
  await insertPasskeyChallenge(deps.db, {
    id: uuid(),
    user_id: input.userId,
    kind: input.kind,
    token_hash: sha256Hex(token),
    challenge: input.challenge,
    name: input.name ?? null,
    expires_at: isoIn(deps.clock, PASSKEY_CHALLENGE_TTL_SECONDS),
    used_at: null,
    created_at: now,
  });
  return token;
}

/**
 * Uses up the ceremony a finish call names, whatever the verification that follows decides.
 * Registration passes the signed-in user: another user's token is as unknown as a made-up one.
 */
export async function takeCeremony(
  deps: Pick<CoreDeps, 'db' | 'clock'>,
  input: { kind: PasskeyCeremonyKind; token: string; userId?: string },
): Promise<PasskeyChallengeRow> {
  const ceremony = await takePasskeyChallenge(deps.db, {
    tokenHash: sha256Hex(input.token),
    kind: input.kind,
    now: isoNow(deps.clock),
    ...(input.userId === undefined ? {} : { userId: input.userId }),
  });
  if (!ceremony) throw identityErrors.passkeyChallengeInvalid();
  return ceremony;
}
