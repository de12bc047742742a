import type { CoreDeps } from '../deps.js';
import type { ClientStatus } from '../db/tables/console.js';
import { randomString, randomToken, safeEqual, sha256Hex } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import { audit, type Actor } from './audit.js';
import {
  countProjectClients,
  deleteClient as storeDelete,
  findClientById,
  findProjectClient,
  insertClient,
  listProjectClients,
  updateClient as storeUpdate,
  type ClientRow,
} from './clients.store.js';
import { consoleErrors } from './errors.js';
import type { ClientGrantStats } from './ports.js';
import { presentClient, presentPublicClient } from './present.js';
import { ownedProject, writableProject } from './projects.js';
import {
  checkClientType,
  checkName,
  checkOptionalUrl,
  checkRedirectUris,
  checkScopes,
  checkStatus,
  checkStatusMove,
} from './rules.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'log'>;

export const CLIENTS_PER_PROJECT = 25;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ROTATE_NOTE =
  'Store this secret now: it is shown only once, and the previous secret no longer works.';

/** `cask_` + 43 base64url characters (48 in all); only `sha256$<hex>` is stored. */
const newSecret = (): { secret: string; hash: string } => {
  const secret = `cask_${randomToken(32)}`;
  return { secret, hash: hashSecret(secret) };
};
const hashSecret = (secret: string): string => `sha256$${sha256Hex(secret)}`;

/** Constant-time check of a presented client secret against the stored hash. */
export const clientSecretMatches = (client: Pick<ClientRow, 'secret_hash'>, presented: string): boolean =>
  client.secret_hash !== null && safeEqual(client.secret_hash, hashSecret(presented));

export interface ClientInput {
  name: string;
  client_type?: string;
  redirect_uris: string[];
  allowed_scopes: string[];
  logo_url?: string | null;
  homepage_url?: string | null;
  privacy_policy_url?: string | null;
}

export async function createClient(deps: Deps, actor: Actor, projectId: string, input: ClientInput) {
  const name = checkName(input.name);
  const type = checkClientType(input.client_type);
  const redirectUris = checkRedirectUris(input.redirect_uris, { allowEmpty: false });
  const scopes = checkScopes(input.allowed_scopes, { allowEmpty: false });
  const urls = {
    logo_url: checkOptionalUrl(input.logo_url ?? null),
    homepage_url: checkOptionalUrl(input.homepage_url ?? null),
    privacy_policy_url: checkOptionalUrl(input.privacy_policy_url ?? null),
  };
  const secret = type === 'confidential' ? newSecret() : null;
  const client = await deps.db.transaction().execute(async (tx) => {
    const project = await writableProject(tx, actor.userId, projectId);
    if ((await countProjectClients(tx, projectId)) >= CLIENTS_PER_PROJECT) throw consoleErrors.clientQuota();
    let id: string;
    do id = `${project.slug}-${randomString(ID_ALPHABET, 6)}`;
    while (await findClientById(tx, id));
    const now = isoNow(deps.clock);
    const row: ClientRow = {
      id,
      project_id: projectId,
      name,
      type,
      status: 'testing',
      redirect_uris: JSON.stringify(redirectUris),
      allowed_scopes: JSON.stringify(scopes),
      secret_hash: secret?.hash ?? null,
      ...urls,
      first_party: 0,
      created_at: now,
      updated_at: now,
    };
    await insertClient(tx, row);
    await audit(tx, deps.clock, {
      projectId,
      actor,
      action: 'client.created',
      target: { type: 'client', id },
      metadata: { name },
    });
    return row;
  });
  return { client: presentClient(client), client_secret: secret?.secret ?? null };
}

async function projectClient(
  deps: Pick<CoreDeps, 'db'>,
  ownerId: string,
  projectId: string,
  clientId: string,
) {
  await ownedProject(deps.db, ownerId, projectId);
  const client = await findProjectClient(deps.db, projectId, clientId);
  if (!client) throw consoleErrors.clientNotFound();
  return client;
}

export async function listClients(deps: Pick<CoreDeps, 'db'>, ownerId: string, projectId: string) {
  await ownedProject(deps.db, ownerId, projectId);
  return (await listProjectClients(deps.db, projectId)).map(presentClient);
}

export async function getClient(
  deps: Pick<CoreDeps, 'db'>,
  ownerId: string,
  projectId: string,
  clientId: string,
) {
  return presentClient(await projectClient(deps, ownerId, projectId, clientId));
}

export interface ClientPatch {
  name?: string;
  status?: string;
  redirect_uris?: string[];
  allowed_scopes?: string[];
  logo_url?: string | null;
  homepage_url?: string | null;
  privacy_policy_url?: string | null;
}

/** PATCH: a partial merge (omitted = unchanged, [] = cleared), status moves of §3.1 with the publishing gate. */
export async function updateClient(
  deps: Deps,
  actor: Actor,
  projectId: string,
  clientId: string,
  patch: ClientPatch,
) {
  const updated = await deps.db.transaction().execute(async (tx) => {
    await writableProject(tx, actor.userId, projectId);
    const current = await findProjectClient(tx, projectId, clientId);
    if (!current) throw consoleErrors.clientNotFound();
    const next = {
      name: patch.name === undefined ? current.name : checkName(patch.name),
      redirect_uris:
        patch.redirect_uris === undefined
          ? (JSON.parse(current.redirect_uris) as string[])
          : checkRedirectUris(patch.redirect_uris, { allowEmpty: true }),
      allowed_scopes:
        patch.allowed_scopes === undefined
          ? (JSON.parse(current.allowed_scopes) as string[])
          : checkScopes(patch.allowed_scopes, { allowEmpty: true }),
      logo_url: patch.logo_url === undefined ? current.logo_url : checkOptionalUrl(patch.logo_url),
      homepage_url:
        patch.homepage_url === undefined ? current.homepage_url : checkOptionalUrl(patch.homepage_url),
      privacy_policy_url:
        patch.privacy_policy_url === undefined
          ? current.privacy_policy_url
          : checkOptionalUrl(patch.privacy_policy_url),
      status: patch.status === undefined ? current.status : checkStatus(patch.status),
    };
    checkStatusMove(
      current.status,
      next.status,
      { redirectUris: next.redirect_uris, homepageUrl: next.homepage_url },
      patch.status !== undefined,
    );
    const now = isoNow(deps.clock);
    const row: ClientRow = {
      ...current,
      ...next,
      redirect_uris: JSON.stringify(next.redirect_uris),
      allowed_scopes: JSON.stringify(next.allowed_scopes),
      updated_at: now,
    };
    await storeUpdate(tx, clientId, row);
    const fields = (Object.keys(patch) as (keyof ClientPatch)[]).filter((k) => k !== 'status');
    if (fields.length > 0) {
      await audit(tx, deps.clock, {
        projectId,
        actor,
        action: 'client.updated',
        target: { type: 'client', id: clientId },
        metadata: { fields },
      });
    }
    if (next.status !== current.status) {
      await audit(tx, deps.clock, {
        projectId,
        actor,
        action: 'client.status_changed',
        target: { type: 'client', id: clientId },
        metadata: { from: current.status, to: next.status },
      });
    }
    return row;
  });
  return presentClient(updated);
}

/** A new secret; the old one stops working at once. */
export async function rotateClientSecret(deps: Deps, actor: Actor, projectId: string, clientId: string) {
  const secret = newSecret();
  const client = await deps.db.transaction().execute(async (tx) => {
    await writableProject(tx, actor.userId, projectId);
    const current = await findProjectClient(tx, projectId, clientId);
    if (!current) throw consoleErrors.clientNotFound();
    if (current.type !== 'confidential') throw consoleErrors.publicNoSecret();
    const now = isoNow(deps.clock);
    await storeUpdate(tx, clientId, { secret_hash: secret.hash, updated_at: now });
    await audit(tx, deps.clock, {
      projectId,
      actor,
      action: 'client.secret_rotated',
      target: { type: 'client', id: clientId },
    });
    return { ...current, secret_hash: secret.hash, updated_at: now };
  });
  return { client: presentClient(client), client_secret: secret.secret, note: ROTATE_NOTE };
}

export async function clientStats(
  deps: Pick<CoreDeps, 'db'> & { grantStats: ClientGrantStats },
  ownerId: string,
  projectId: string,
  clientId: string,
) {
  await projectClient(deps, ownerId, projectId, clientId);
  return deps.grantStats.clientStats(clientId);
}

/** Hard delete: consents, codes, refresh families and access tokens go with it (foreign keys). */
export async function deleteClient(
  deps: Deps,
  actor: Actor,
  projectId: string,
  clientId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    await ownedProject(tx, actor.userId, projectId);
    const client = await findProjectClient(tx, projectId, clientId);
    if (!client) throw consoleErrors.clientNotFound();
    await storeDelete(tx, clientId);
    await audit(tx, deps.clock, {
      projectId,
      actor,
      action: 'client.deleted',
      target: { type: 'client', id: clientId },
      metadata: { name: client.name },
    });
  });
}

/** GET /oauth/clients/{client_id}. */
export async function publicClient(deps: Pick<CoreDeps, 'db'>, clientId: string) {
  const client = await findClientById(deps.db, clientId);
  if (!client) throw consoleErrors.clientNotFound();
  return presentPublicClient(client);
}

/** The client as the OAuth provider needs it (no ownership check: the client id is public). */
export const findClient = (deps: Pick<CoreDeps, 'db'>, clientId: string) => findClientById(deps.db, clientId);

/** Operator only (CLI): first-party clients skip the consent screen. */
export async function setFirstParty(deps: Pick<CoreDeps, 'db' | 'clock'>, clientId: string, on: boolean) {
  const client = await findClientById(deps.db, clientId);
  if (!client) throw consoleErrors.clientNotFound();
  await storeUpdate(deps.db, clientId, { first_party: on ? 1 : 0, updated_at: isoNow(deps.clock) });
  return presentPublicClient({ ...client, first_party: on ? 1 : 0 });
}

export type { ClientRow, ClientStatus };
