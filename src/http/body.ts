import type { IncomingMessage } from 'node:http';
import { AppError } from '../lib/errors.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export const bodyErrors = {
  tooLarge: () =>
    new AppError('body_too_large', 413, 'request body too large', { headers: { Connection: 'close' } }),
  malformed: () => new AppError('invalid_body', 400, 'invalid request body'),
  notJson: () => new AppError('unsupported_media_type', 415, 'content type must be application/json'),
  notForm: () =>
    new AppError('unsupported_media_type', 415, 'content type must be application/x-www-form-urlencoded'),
};

/** Reads the whole body, refusing more than `limit` bytes (413) before or while it arrives. */
export async function readRawBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw bodyErrors.tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw bodyErrors.tooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Parses a JSON body: wrong content type 415, malformed 400. */
export function parseJsonBody(req: IncomingMessage, raw: Buffer): unknown {
  if (mediaType(req) !== 'application/json') throw bodyErrors.notJson();
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw bodyErrors.malformed();
  }
}

export function parseFormBody(req: IncomingMessage, raw: Buffer): URLSearchParams {
  if (mediaType(req) !== 'application/x-www-form-urlencoded') throw bodyErrors.notForm();
  return new URLSearchParams(raw.toString('utf8'));
}

/**
 * A JSON object with only the listed keys: anything else (an array, a string, an unknown field)
 * is refused with `error`. Route schemas start from this and then read typed fields.
 */
export function strictObject<K extends string>(
  raw: unknown,
  keys: readonly K[],
  error: () => AppError = bodyErrors.malformed,
): Partial<Record<K, unknown>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw error();
  for (const key of Object.keys(raw)) if (!keys.includes(key as K)) throw error();
  return raw;
}

/** A JSON object whose unknown fields are ignored (the identity API is lenient about extras). */
export function objectBody(
  raw: unknown,
  error: () => AppError = bodyErrors.malformed,
): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw error();
  return raw as Record<string, unknown>;
}

/** A field that must be a string when present: absent or null give `undefined`. */
export function stringField(
  obj: Readonly<Record<string, unknown>>,
  key: string,
  error: () => AppError = bodyErrors.malformed,
): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw error();
  return value;
}
