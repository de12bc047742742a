import { objectBody, stringField } from '../http/body.js';
import { identityErrors } from './errors.js';

/**
 * Request bodies of the identity routes. Types are checked here (a wrong type is
 * `invalid request body`); the rules with their own messages live in the domain, so the CLI
 * and HTTP say the same thing. Unknown fields are ignored.
 */
const bad = identityErrors.invalidBody;
const str = (obj: Record<string, unknown>, key: string) => stringField(obj, key, bad);

export const registerBody = (raw: unknown) => {
  const o = objectBody(raw, bad);
  return {
    email: str(o, 'email') ?? null,
    phone: str(o, 'phone') ?? null,
    password: str(o, 'password') ?? '',
  };
};

export const loginBody = (raw: unknown) => {
  const o = objectBody(raw, bad);
  return { identifier: str(o, 'identifier') ?? '', password: str(o, 'password') ?? '' };
};

/** verify-email/check, verify-phone/check, mfa/enable, mfa/disable: `{code}`. */
export const codeBody = (raw: unknown) => {
  const code = str(objectBody(raw, bad), 'code') ?? '';
  if (code === '') throw identityErrors.codeRequired();
  return { code: code.trim() };
};

export const phoneBody = (raw: unknown) => ({ phone: (str(objectBody(raw, bad), 'phone') ?? '').trim() });

export const mfaVerifyBody = (raw: unknown) => {
  const o = objectBody(raw, bad);
  const mfaToken = str(o, 'mfa_token') ?? '';
  const code = str(o, 'code') ?? '';
  if (mfaToken === '' || code === '') throw identityErrors.mfaVerifyFieldsRequired();
  return { mfaToken, code: code.trim() };
};

export const forgotBody = (raw: unknown) => {
  const identifier = (str(objectBody(raw, bad), 'identifier') ?? '').trim();
  if (identifier === '') throw identityErrors.forgotIdentifierRequired();
  return { identifier };
};

export const resetBody = (raw: unknown) => {
  const o = objectBody(raw, bad);
  const token = str(o, 'token') ?? '';
  const newPassword = str(o, 'new_password') ?? '';
  if (token === '' || newPassword === '') throw identityErrors.resetFieldsRequired();
  return { token: token.trim(), newPassword };
};

export const profilePatchBody = (raw: unknown) => {
  const o = objectBody(raw, bad);
  const displayName = str(o, 'display_name');
  const avatar = o.avatar_url;
  if (avatar !== undefined && avatar !== null && typeof avatar !== 'string') throw bad();
  return {
    ...(displayName === undefined ? {} : { display_name: displayName }),
    ...(avatar === undefined ? {} : { avatar_url: avatar }),
  };
};
