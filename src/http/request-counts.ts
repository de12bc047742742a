/**
 * HTTP requests answered by this daemon, by method, route and status, for GET /metrics. The route
 * is the matched route's path template (`/api/v1/public/purchases/:invoiceId`), never the path
 * itself, so the number of series stays that of the routes; anything unmatched is `unmatched`.
 */
export class RequestCounts {
  readonly #counts = new Map<string, { method: string; route: string; status: number; n: number }>();

  add(method: string, route: string, status: number): void {
    const key = `${method} ${route} ${String(status)}`;
    const entry = this.#counts.get(key);
    if (entry) entry.n += 1;
    else this.#counts.set(key, { method, route, status, n: 1 });
  }

  /** Every (method, route, status) seen so far, with its count. */
  entries(): { method: string; route: string; status: number; n: number }[] {
    return [...this.#counts.values()].map((e) => ({ ...e }));
  }
}
