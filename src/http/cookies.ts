import type { IncomingMessage } from 'node:http';
import { parse, serialize } from 'cookie';

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parse(header)[name];
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
  /** Defaults to the whole site. */
  path?: string;
}

/** An HttpOnly, SameSite=Lax cookie. */
export function setCookieHeader(name: string, value: string, options: CookieOptions): string {
  return serialize(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: options.path ?? '/',
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  });
}

export function clearCookieHeader(name: string, options: { secure: boolean; path?: string }): string {
  return setCookieHeader(name, '', { ...options, maxAgeSeconds: 0 });
}
