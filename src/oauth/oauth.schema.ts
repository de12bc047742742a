import { objectBody, stringField } from '../http/body.js';
import { oauthErrors } from './errors.js';
import type { ConsentInput } from './flow.js';

const bad = oauthErrors.invalidBody;

export const consentBody = (raw: unknown): ConsentInput => {
  const o = objectBody(raw, bad);
  if (typeof o.approve !== 'boolean') throw bad();
  const str = (k: string) => stringField(o, k, bad);
  return {
    client_id: str('client_id'),
    redirect_uri: str('redirect_uri'),
    scope: str('scope'),
    state: str('state'),
    code_challenge: str('code_challenge'),
    code_challenge_method: str('code_challenge_method'),
    nonce: str('nonce'),
    // The authorize request's response_mode, which the consent page passes on (the answer goes
    // back the way the client asked; validateAuthorize checks the value).
    response_mode: str('response_mode'),
    approve: o.approve,
  };
};

/** POST /oauth/revoke: `{client_id}`, required (a 400, not a 404 for a connection of ''). */
export const revokeBody = (raw: unknown) => {
  const clientId = stringField(objectBody(raw, bad), 'client_id', bad);
  if (!clientId) throw oauthErrors.clientIdRequired();
  return { client_id: clientId };
};
