import { objectBody, stringField } from '../http/body.js';
import type { ClientInput, ClientPatch } from './clients.js';
import { consoleErrors } from './errors.js';

const bad = consoleErrors.invalidBody;
const str = (o: Record<string, unknown>, k: string) => stringField(o, k, bad);

function stringList(o: Record<string, unknown>, key: string): string[] | undefined {
  const value = o[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) throw bad();
  return value;
}

/** A nullable string field: absent → undefined (unchanged), null or '' → cleared. */
function nullableString(o: Record<string, unknown>, key: string): string | null | undefined {
  const value = o[key];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw bad();
  return value;
}

export const projectNameBody = (raw: unknown) => ({ name: str(objectBody(raw, bad), 'name') ?? '' });

export const clientCreateBody = (raw: unknown): ClientInput => {
  const o = objectBody(raw, bad);
  const optional = (k: 'logo_url' | 'homepage_url' | 'privacy_policy_url') => {
    const v = nullableString(o, k);
    return v === undefined ? {} : { [k]: v };
  };
  const clientType = str(o, 'client_type');
  return {
    name: str(o, 'name') ?? '',
    ...(clientType === undefined ? {} : { client_type: clientType }),
    redirect_uris: stringList(o, 'redirect_uris') ?? [],
    allowed_scopes: stringList(o, 'allowed_scopes') ?? [],
    ...optional('logo_url'),
    ...optional('homepage_url'),
    ...optional('privacy_policy_url'),
  };
};

export const clientPatchBody = (raw: unknown): ClientPatch => {
  const o = objectBody(raw, bad);
  const patch: ClientPatch = {};
  const name = str(o, 'name');
  if (name !== undefined) patch.name = name;
  const status = str(o, 'status');
  if (status !== undefined) patch.status = status;
  const uris = stringList(o, 'redirect_uris');
  if (uris !== undefined) patch.redirect_uris = uris;
  const scopes = stringList(o, 'allowed_scopes');
  if (scopes !== undefined) patch.allowed_scopes = scopes;
  for (const k of ['logo_url', 'homepage_url', 'privacy_policy_url'] as const) {
    const v = nullableString(o, k);
    if (v !== undefined) patch[k] = v;
  }
  return patch;
};
