import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local stand-in for an SMS gateway's HTTP API: records requests, answers as told. */
export async function fakeGateway(t: Test, answer: (seen: Seen) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const entry = { path: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      const reply = answer(entry);
      res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, seen };
}

/**
 * The generic gateway (SMS_PROVIDER=http, SMS_HTTP_URL = `url`): answers `status.code` (change
 * it between sends), keeps the text of every message it got.
 */
export async function fakeSmsGateway(t: Test, status: { code: number }) {
  const gateway = await fakeGateway(t, () => ({ status: status.code, body: {} }));
  return {
    url: `${gateway.url}/send`,
    get texts(): string[] {
      return gateway.seen
        .filter((s) => s.body !== '') // a probe's GET sends nothing
        .map((s) => (JSON.parse(s.body) as { message: string }).message);
    },
  };
}
