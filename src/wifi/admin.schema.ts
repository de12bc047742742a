import { strictObject } from '../http/body.js';
import { DEVICE_FIELDS, type DeviceRequest } from './devices.schema.js';
import { wifiErrors } from './errors.js';
import type { SmsRequest } from './messages.js';
import { PLAN_FIELDS, type PlanRequest } from './plans.schema.js';

/** Admin request bodies: strict JSON (an unknown field or a wrong type is 400). */
const bad = wifiErrors.invalidBody;

function str(value: unknown, optional: boolean): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw bad();
  return value;
}

/**
 * The body of an action whose path names all it needs (disconnect, archive, apply-to-live…):
 * none, or an empty object. Anything else is 400 and the action is not taken.
 */
export const NO_FIELDS = {
  kind: 'json',
  optional: true,
  parse: (raw: unknown): Record<string, never> => {
    strictObject(raw, [], bad);
    return {};
  },
} as const;

export const staffLoginBody = (raw: unknown) => {
  const o = strictObject(raw, ['email', 'password', 'code'], bad);
  return {
    email: str(o.email, false) ?? '',
    password: str(o.password, false) ?? '',
    code: str(o.code, true),
  };
};

export const planBody = (raw: unknown): PlanRequest => strictObject(raw, PLAN_FIELDS, bad);

export const deviceBody = (raw: unknown): DeviceRequest => strictObject(raw, DEVICE_FIELDS, bad);

export const smsBody = (raw: unknown): SmsRequest => {
  const o = strictObject(raw, ['recipient', 'message', 'sender_id'], bad);
  return {
    recipient: str(o.recipient, false) ?? '',
    message: str(o.message, false) ?? '',
    sender_id: str(o.sender_id, true),
  };
};
