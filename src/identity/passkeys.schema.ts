import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { objectBody, stringField } from '../http/body.js';
import type { AppError } from '../lib/errors.js';
import { identityErrors } from './errors.js';

/**
 * Request bodies of the passkey routes. The finish bodies are the browser's own WebAuthn JSON
 * (PublicKeyCredential.toJSON()), not enveloped: a body that is not JSON, or not an object, is
 * `invalid request body`; an object that is not a credential of the expected kind gets the
 * route's verification error. Either way the ceremony is left untouched. Only the fields
 * verification reads are kept.
 */
const bad = identityErrors.invalidBody;

export const passkeyNameBody = (raw: unknown) => ({
  name: stringField(objectBody(raw, bad), 'name', bad) ?? '',
});

export const passkeyLoginBeginBody = (raw: unknown) => ({
  identifier: stringField(objectBody(raw, bad), 'identifier', bad) ?? '',
});

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The parts every PublicKeyCredential JSON has, with its `response` object. */
function credential(raw: unknown, refused: () => AppError, fields: readonly string[]) {
  const o = objectBody(raw, bad);
  const response = o.response;
  if (
    typeof o.id !== 'string' ||
    o.id === '' ||
    o.rawId !== o.id ||
    o.type !== 'public-key' ||
    !isObject(response) ||
    fields.some((f) => typeof response[f] !== 'string')
  )
    throw refused();
  // Client extension results and the attachment are hints verification does not read.
  return { id: o.id, rawId: o.id, type: 'public-key' as const, clientExtensionResults: {}, response };
}

/** finish-registration: the credential navigator.credentials.create() gave. */
export function registrationResponseBody(raw: unknown): RegistrationResponseJSON {
  const refused = identityErrors.passkeyNotVerified;
  const { response, ...rest } = credential(raw, refused, ['clientDataJSON', 'attestationObject']);
  const transports = response.transports;
  if (transports !== undefined && !isStringArray(transports)) throw refused();
  return {
    ...rest,
    response: {
      clientDataJSON: response.clientDataJSON as string,
      attestationObject: response.attestationObject as string,
      ...(transports === undefined ? {} : { transports }),
    },
  };
}

/** login/finish: the assertion navigator.credentials.get() gave. */
export function authenticationResponseBody(raw: unknown): AuthenticationResponseJSON {
  const { response, ...rest } = credential(raw, identityErrors.passkeyLoginFailed, [
    'clientDataJSON',
    'authenticatorData',
    'signature',
  ]);
  const userHandle = response.userHandle;
  if (userHandle !== undefined && userHandle !== null && typeof userHandle !== 'string')
    throw identityErrors.passkeyLoginFailed();
  return {
    ...rest,
    response: {
      clientDataJSON: response.clientDataJSON as string,
      authenticatorData: response.authenticatorData as string,
      signature: response.signature as string,
      ...(typeof userHandle === 'string' && userHandle !== '' ? { userHandle } : {}),
    },
  };
}
