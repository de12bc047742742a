import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Selcom's API gateway (Checkout API: create-order-minimal, wallet-payment,
 * order-status), written from Selcom's public documentation. It checks every request's
 * authentication the way Selcom describes it, with its own HMAC code, and keeps the orders.
 */

export const SELCOM_KEY = 'selcom-test-key';
export const SELCOM_SECRET = 'selcom-test-secret';

export interface FakeOrder {
  order_id: string;
  amount: number;
  buyer_phone: string;
  webhook: string;
  payment_status: string;
  transid: string | null;
  reference: string | null;
}

export interface FakeRequest {
  method: string;
  path: string;
  fields: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  authentic: boolean;
  /** The API key the request's Authorization named. */
  key: string;
}

/** Digest as Selcom documents it: base64 HMAC-SHA256 of "timestamp=<ts>&k1=v1&…" in Signed-Fields order. */
export function selcomSign(secret: string, timestamp: string, fields: [string, unknown][]): string {
  let data = `timestamp=${timestamp}`;
  for (const [k, v] of fields) data += `&${k}=${String(v)}`;
  return createHmac('sha256', secret).update(data, 'utf8').digest('base64');
}

/** `accounts`: the API key → secret pairs it accepts (a site may have its own account). */
export async function startSelcomFake(
  accounts: ReadonlyMap<string, string> = new Map([[SELCOM_KEY, SELCOM_SECRET]]),
) {
  const orders = new Map<string, FakeOrder>();
  const requests: FakeRequest[] = [];
  /**
   * pushLost: the USSD push goes out but its answer is lost (a gateway timeout reaches us);
   * pushHangs: the push goes out and its answer never comes.
   */
  const state = { mode: 'ok' as 'ok' | 'refuse' | 'error500' | 'pushLost' | 'pushHangs' };

  const send = (res: ServerResponse, status: number, body: unknown): true => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
    return true;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const fields: Record<string, unknown> =
        req.method === 'GET'
          ? Object.fromEntries(url.searchParams)
          : (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>);
      const signed = String(req.headers['signed-fields'] ?? '').split(',');
      const key = Buffer.from(String(req.headers.authorization).replace(/^SELCOM /, ''), 'base64').toString();
      const secret = accounts.get(key);
      const authentic =
        secret !== undefined &&
        req.headers.authorization === `SELCOM ${Buffer.from(key).toString('base64')}` &&
        req.headers['digest-method'] === 'HS256' &&
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/.test(String(req.headers.timestamp)) &&
        [...signed].sort().join(',') === Object.keys(fields).sort().join(',') &&
        req.headers.digest ===
          selcomSign(
            secret,
            String(req.headers.timestamp),
            signed.map((k) => [k, fields[k]]),
          );
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        fields,
        headers: req.headers,
        authentic,
        key,
      });
      if (!authentic)
        return send(res, 401, { resultcode: '401', result: 'FAIL', message: 'Invalid signature' });
      if (state.mode === 'error500') return send(res, 500, { message: 'upstream down' });
      if (state.mode === 'refuse')
        return send(res, 200, {
          resultcode: '403',
          result: 'FAIL',
          message: 'No reponse from upstream system',
          data: [],
        });
      route(url.pathname, fields, res);
    });
  });

  function route(path: string, fields: Record<string, unknown>, res: ServerResponse) {
    const orderId = String(fields.order_id);
    if (path === '/v1/checkout/create-order-minimal') {
      if (orders.has(orderId))
        return send(res, 200, { resultcode: '400', result: 'FAIL', message: 'Order already exists' });
      orders.set(orderId, {
        order_id: orderId,
        amount: Number(fields.amount),
        buyer_phone: String(fields.buyer_phone),
        webhook: Buffer.from(String(fields.webhook), 'base64').toString('utf8'),
        payment_status: 'PENDING',
        transid: null,
        reference: null,
      });
      return send(res, 200, {
        reference: '0270720833',
        resultcode: '000',
        result: 'SUCCESS',
        message: 'Order creation successful',
        data: [{ payment_token: '80008000', payment_gateway_url: 'aHR0cHM6Ly9leGFtcGxl' }],
      });
    }
    if (path === '/v1/checkout/wallet-payment') {
      const order = orders.get(orderId);
      if (!order) return send(res, 200, { resultcode: '404', result: 'FAIL', message: 'Order not found' });
      order.transid = String(fields.transid);
      if (state.mode === 'pushLost') return send(res, 504, { message: 'gateway timeout' });
      if (state.mode === 'pushHangs') return; // closed by close()
      return send(res, 200, {
        reference: '0289999288',
        resultcode: '111',
        result: 'PENDING',
        message: 'Request in progress. You will receive a callback shortly.',
        data: [],
      });
    }
    if (path === '/v1/checkout/order-status') {
      const order = orders.get(orderId);
      if (!order)
        return send(res, 200, { resultcode: '404', result: 'FAIL', message: 'Order not found', data: [] });
      return send(res, 200, {
        reference: '0289999288',
        resultcode: '000',
        result: 'SUCCESS',
        message: 'Order fetch successful',
        data: [
          {
            order_id: order.order_id,
            creation_date: '2026-01-15 12:00:00',
            amount: String(order.amount),
            payment_status: order.payment_status,
            transid: order.transid,
            channel: order.payment_status === 'COMPLETED' ? 'MPESA-TZ' : null,
            reference: order.reference,
            phone: order.payment_status === 'COMPLETED' ? order.buyer_phone : null,
          },
        ],
      });
    }
    send(res, 404, { message: 'no such API' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${String(port)}/v1`,
    orders,
    requests,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a hanging answer too
      }),
  };
}

/** The headers and body of a Selcom callback, signed like Selcom signs them. */
export function selcomCallback(
  body: Record<string, string>,
  options: { secret?: string; key?: string; signedFields?: string[]; timestamp?: string } = {},
) {
  const signedFields = options.signedFields ?? Object.keys(body);
  const timestamp = options.timestamp ?? '2026-01-15 12:02:00';
  return {
    headers: {
      'Content-Type': 'application/json',
      Authorization: `SELCOM ${Buffer.from(options.key ?? SELCOM_KEY).toString('base64')}`,
      'Digest-Method': 'HS256',
      Digest: selcomSign(
        options.secret ?? SELCOM_SECRET,
        timestamp,
        signedFields.map((k) => [k, body[k]]),
      ),
      Timestamp: timestamp,
      'Signed-Fields': signedFields.join(','),
    },
    body: JSON.stringify(body),
  };
}
