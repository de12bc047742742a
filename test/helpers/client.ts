let nextAddress = 1;

/**
 * A tiny browser stand-in: keeps cookies per name, sends JSON, never follows redirects.
 * `setCookies` holds the raw Set-Cookie lines of the last response for attribute checks.
 * Each client comes from its own address (X-Forwarded-For, which the test app trusts from
 * loopback), so per-IP rate limits of one test do not leak into another; pass `ip` to share one.
 */
export class Client {
  readonly base: string;
  readonly ip: string;
  readonly cookies = new Map<string, string>();
  readonly headers: Record<string, string>;
  setCookies: string[] = [];

  constructor(base: string, options: { ip?: string; headers?: Record<string, string> } = {}) {
    this.base = base;
    const n = nextAddress++;
    this.ip = options.ip ?? `10.${String((n >> 16) & 255)}.${String((n >> 8) & 255)}.${String(n & 255)}`;
    this.headers = { 'X-Forwarded-For': this.ip, ...options.headers };
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of any route; tests pin their shape with t.same/t.match
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(this.cookies.size > 0 ? { Cookie: this.cookieHeader() } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    this.setCookies = res.headers.getSetCookie();
    for (const line of this.setCookies) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    return { status: res.status, body: parsed, headers: res.headers };
  }

  get = (path: string, headers?: Record<string, string>) => this.request('GET', path, undefined, headers);
  post = (path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request('POST', path, body, headers);
  patch = (path: string, body?: unknown) => this.request('PATCH', path, body);
  delete = (path: string) => this.request('DELETE', path);
}
