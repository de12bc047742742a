import type { CoreDeps } from '../deps.js';
import { randomToken, safeEqual, sha256Hex, uuid } from '../lib/crypto.js';
import { errorCatalogue } from '../lib/errors.js';
import { safeNext } from '../lib/next.js';
import { isoIn, isoNow } from '../lib/time.js';
import { signIn } from './login.js';
import { hashPassword } from './passwords.js';
import { codePoints } from './rules.js';
import type { NewSession } from './sessions.js';
import {
  finishLogin,
  openidClient,
  startLogin,
  upstreamConfig,
  type UpstreamAccount,
  type UpstreamProvider,
} from './social-oidc.js';
import {
  deleteProvider,
  deleteStaleLogins,
  findLinkedUserId,
  findProvider,
  insertLogin,
  linkIdentity,
  listProviders,
  takeLogin,
  upsertProvider,
  type SocialProviderRow,
} from './social.store.js';
import { findUserByEmail, findUserById, findUserHolding, insertUser, type UserRow } from './users.store.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'notifier' | 'log' | 'vault' | 'background'>;

export const socialErrors = errorCatalogue({
  unknownProvider: [404, 'unknown login provider'],
  providerUnavailable: [502, 'the login provider cannot be reached, try again later'],
  nameInvalid: [400, 'provider name must be 1-32 lower-case letters, digits or hyphens'],
  issuerInvalid: [400, 'issuer must be an absolute http:// or https:// URL'],
  clientRequired: [400, 'client id and client secret are required'],
  displayNameInvalid: [400, 'display name must be 1-40 characters, without control characters'],
});

export const SOCIAL_LOGIN_TTL_SECONDS = 600;
const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const DISPLAY_NAME_MAX = 40;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
const secretContext = (name: string): string => `social-client-secret:${name}`;
const verifierContext = (stateHash: string): string => `social-verifier:${stateHash}`;

export const socialCallbackUrl = (deps: Pick<CoreDeps, 'config'>, name: string): string =>
  `${deps.config.publicBaseUrl}/auth/social/${name}/callback`;

const present = (deps: Pick<CoreDeps, 'config'>, p: SocialProviderRow) => ({
  name: p.name,
  display_name: p.display_name,
  issuer: p.issuer,
  client_id: p.client_id,
  callback_url: socialCallbackUrl(deps, p.name),
  created_at: p.created_at,
});

/** Operator (CLI): add or replace a provider. The client secret is sealed in the vault. */
export async function addSocialProvider(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'vault'>,
  input: { name: string; displayName?: string; issuer: string; clientId: string; clientSecret: string },
) {
  if (!NAME.test(input.name)) throw socialErrors.nameInvalid();
  const displayName = (input.displayName ?? input.name).trim();
  if (displayName === '' || codePoints(displayName) > DISPLAY_NAME_MAX || CONTROL.test(displayName))
    throw socialErrors.displayNameInvalid();
  let issuer: URL;
  try {
    issuer = new URL(input.issuer);
  } catch {
    throw socialErrors.issuerInvalid();
  }
  if (issuer.protocol !== 'https:' && issuer.protocol !== 'http:') throw socialErrors.issuerInvalid();
  if (input.clientId === '' || input.clientSecret === '') throw socialErrors.clientRequired();
  const now = isoNow(deps.clock);
  const row: SocialProviderRow = {
    name: input.name,
    display_name: displayName,
    issuer: input.issuer.replace(/\/+$/, ''),
    client_id: input.clientId,
    client_secret: deps.vault.seal(input.clientSecret, secretContext(input.name)),
    created_at: now,
    updated_at: now,
  };
  await upsertProvider(deps.db, row);
  return present(deps, row);
}

export async function listSocialProviders(deps: Pick<Deps, 'db' | 'config'>) {
  return (await listProviders(deps.db)).map((p) => present(deps, p));
}

/** What the login page offers: each provider's path name and the name people see. */
export async function socialLoginChoices(
  deps: Pick<Deps, 'db'>,
): Promise<{ name: string; display_name: string }[]> {
  return (await listProviders(deps.db)).map((p) => ({ name: p.name, display_name: p.display_name }));
}

export async function removeSocialProvider(deps: Pick<Deps, 'db'>, name: string): Promise<void> {
  if (!(await deleteProvider(deps.db, name))) throw socialErrors.unknownProvider();
}

async function upstream(deps: Deps, name: string): Promise<UpstreamProvider> {
  const row = NAME.test(name) ? await findProvider(deps.db, name) : undefined;
  if (!row) throw socialErrors.unknownProvider();
  return {
    name,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: deps.vault.open(row.client_secret, secretContext(name)),
  };
}

/**
 * GET /auth/social/{provider}/begin: authorization code + PKCE + state + nonce against the
 * provider's discovery document. The state also goes to the browser (cookie), so the callback
 * only completes in the browser that began.
 */
export async function beginSocialLogin(
  deps: Deps,
  name: string,
  next: string | undefined,
): Promise<{ location: string; state: string }> {
  const provider = await upstream(deps, name);
  let started;
  await openidClient(); // a library that cannot load is a server error, not an unavailable provider
  try {
    started = await startLogin(
      await upstreamConfig(provider, deps.clock.now().getTime()),
      socialCallbackUrl(deps, name),
    );
  } catch (err) {
    deps.log.warn(
      { event: 'social.discovery_failed', provider: name, err },
      'social login provider unavailable',
    );
    throw socialErrors.providerUnavailable();
  }
  const stateHash = sha256Hex(started.state);
  await deleteStaleLogins(deps.db, isoNow(deps.clock));
  await insertLogin(deps.db, {
    state_hash: stateHash,
    provider: name,
    code_verifier: deps.vault.seal(started.verifier, verifierContext(stateHash)),
    nonce: started.nonce,
    next: safeNext(next),
    expires_at: isoIn(deps.clock, SOCIAL_LOGIN_TTL_SECONDS),
    used_at: null,
    created_at: isoNow(deps.clock),
  });
  return { location: started.url.toString(), state: started.state };
}

export type SocialOutcome =
  | { kind: 'signed_in'; user: UserRow; session: NewSession; next: string }
  /** `next` when the pending login was found, so the person can try again and still get there. */
  | { kind: 'refused'; reason: 'cancelled' | 'state' | 'failed' | 'email_unverified'; next?: string };

/** The callback: verify, exchange, then link or create the account and sign it in (TOTP bypassed). */
export async function finishSocialLogin(
  deps: Deps,
  input: { name: string; callbackUrl: URL; cookieState: string | undefined; ip: string },
): Promise<SocialOutcome> {
  const provider = await upstream(deps, input.name);
  const state = input.callbackUrl.searchParams.get('state') ?? '';
  if (input.cookieState === undefined || state === '' || !safeEqual(state, input.cookieState)) {
    return { kind: 'refused', reason: 'state' };
  }
  const stateHash = sha256Hex(state);
  const pending = await takeLogin(deps.db, stateHash, input.name, isoNow(deps.clock));
  if (!pending) return { kind: 'refused', reason: 'state' };
  const next = pending.next;
  if (input.callbackUrl.searchParams.has('error')) return { kind: 'refused', reason: 'cancelled', next };

  let account: UpstreamAccount;
  await openidClient(); // a library that cannot load is a server error, not a failed login
  try {
    const config = await upstreamConfig(provider, deps.clock.now().getTime());
    account = await finishLogin(config, input.callbackUrl, {
      state,
      nonce: pending.nonce,
      verifier: deps.vault.open(pending.code_verifier, verifierContext(stateHash)),
    });
  } catch (err) {
    deps.log.warn({ event: 'social.exchange_failed', provider: input.name, err }, 'social login failed');
    return { kind: 'refused', reason: 'failed', next };
  }
  const user = await linkOrCreate(deps, input.name, account, input.ip);
  if (!user) return { kind: 'refused', reason: 'email_unverified', next };
  const session = await signIn(deps, user, {
    ip: input.ip,
    deviceLabel: input.name,
    method: `social:${input.name}`,
  });
  return { kind: 'signed_in', user, session, next };
}

/**
 * The linked account; else the account with the same verified email (both sides verified:
 * linking to an unverified local email would hand a pre-registered account to whoever made it);
 * else a new account. Null when an account has that email but never verified it.
 */
async function linkOrCreate(
  deps: Deps,
  provider: string,
  account: UpstreamAccount,
  ip: string,
): Promise<UserRow | null> {
  const unusablePassword = await hashPassword(randomToken(32));
  return deps.db.transaction().execute(async (tx) => {
    const linked = await findLinkedUserId(tx, provider, account.subject);
    if (linked) return (await findUserById(tx, linked)) ?? null;
    const now = isoNow(deps.clock);
    let email = account.email !== null && account.emailVerified ? account.email : null;
    let user = email === null ? undefined : await findUserByEmail(tx, email);
    if (user && user.email_verified !== 1) return null;
    // An address that is another account's phone cannot become this account's email.
    if (!user && email !== null && (await findUserHolding(tx, [email], deps.config.defaultCountryCode)))
      email = null;
    if (!user) {
      user = {
        id: uuid(),
        email,
        phone: null,
        email_verified: email === null ? 0 : 1,
        phone_verified: 0,
        password_hash: unusablePassword,
        display_name: account.name === null ? '' : [...account.name].slice(0, 100).join(''), // eslint-disable-line @typescript-eslint/no-misused-spread -- code points, as the 100-character rule counts them
        avatar_url: account.picture !== null && /^https?:\/\//.test(account.picture) ? account.picture : null,
        staff_role: null,
        totp_secret: null,
        totp_enabled: 0,
        totp_last_step: null,
        registration_ip: ip,
        password_changed_at: null,
        created_at: now,
        updated_at: now,
      };
      await insertUser(tx, user);
    }
    await linkIdentity(tx, provider, account.subject, user.id, now);
    return user;
  });
}
