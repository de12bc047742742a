/** The one way pages call the APIs: same-origin fetch with JSON in and out, never throwing. */

export interface ApiResult {
  /** 0 when the server could not be reached at all. */
  status: number;
  body: unknown;
  headers: Headers;
}

export async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResult> {
  try {
    const res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed, headers: res.headers };
  } catch {
    return { status: 0, body: null, headers: new Headers() };
  }
}

const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/** `data` of either envelope. */
export const dataOf = (result: ApiResult): unknown => field(result.body, 'data');

/** The API's error (or confirmation) message, or ''. */
export function messageOf(result: ApiResult): string {
  const message = field(result.body, 'message');
  return typeof message === 'string' ? message : '';
}

export const ok = (result: ApiResult): boolean => result.status >= 200 && result.status < 300;
