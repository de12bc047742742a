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
}

/** An HttpOnly, SameSite=Lax cookie for the whole site. */
export function setCookieHeader(name: string, value: string, options: CookieOptions): string {
  return serialize(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  });
}

export function clearCookieHeader(name: string, options: { secure: boolean }): string {
  return serialize(name, '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: options.secure,
    maxAge: 0,
  });
}
