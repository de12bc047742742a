import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/**
 * A local stand-in for the SMS gateway (SMS_PROVIDER=http, SMS_HTTP_URL = `url`): answers
 * `status.code` (change it between sends), keeps the text of every message it got.
 */
export async function fakeSmsGateway(t: Test, status: { code: number }) {
  const texts: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      texts.push((JSON.parse(raw) as { message: string }).message);
      res.writeHead(status.code, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/send`, texts };
}
