import type { ServerResponse } from 'node:http';
import send from '@polka/send-type';
import type { ApiFamily } from './types.js';

type Headers = Record<string, string | number | readonly string[]>;

/** Identity success: `{success: true, data?, message?}`. */
export function identityOk(data?: unknown, message?: string): Record<string, unknown> {
  return {
    success: true,
    ...(data === undefined ? {} : { data }),
    ...(message === undefined ? {} : { message }),
  };
}

/** An error body in the family's shape: identity `{success:false,message,errors?}`, Wi-Fi `{message}`. */
export function errorBody(
  family: ApiFamily,
  message: string,
  details?: readonly string[],
): Record<string, unknown> {
  if (family === 'wifi') return { message };
  return { success: false, message, ...(details && details.length > 0 ? { errors: details } : {}) };
}

/** Writes a JSON response unless one was already sent (for instance by the request timeout). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  if (res.headersSent || res.writableEnded) return;
  send(res, status, body, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
}

export function sendError(
  res: ServerResponse,
  family: ApiFamily,
  status: number,
  message: string,
  details?: readonly string[],
  headers: Headers = {},
): void {
  sendJson(res, status, errorBody(family, message, details), headers);
}
