import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for AzamPay, written from its public documentation (research/payments-sms.md
 * §1.2): the authenticator's `POST /AppRegistration/GenerateToken` (app name, client id, client
 * secret → a bearer token), and the checkout API's `POST /azampay/mno/checkout` (the USSD push)
 * and `GET /azampay/gettransactionstatus`, both of which want that token and the app's
 * `X-API-KEY`. It keeps the apps it knows (several: a site may have its own) and the
 * transactions, and sends callbacks as AzamPay does: an unsigned JSON POST to a URL.
 * Served on one port: the authenticator under /auth, the checkout API under /checkout.
 */

export interface FakeApp {
  appName: string;
  clientId: string;
  clientSecret: string;
  apiKey: string;
}

export const AZAMPAY_APP: FakeApp = {
  appName: 'VenueWifi',
  clientId: '7f2cd55d-0a9e-4a4e-9d1b-0e7c4c0b2a11',
  clientSecret: 'azampay-client-secret-for-tests',
  apiKey: 'azampay-api-key-for-tests',
};

/** A second app, for a site with its own AzamPay account. */
export const AZAMPAY_SITE_APP: FakeApp = {
  appName: 'HarbourWifi',
  clientId: '2b1e0c4d-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  clientSecret: 'harbour-client-secret-for-tests',
  apiKey: 'harbour-api-key-for-tests',
};

export const AZAMPAY_CALLBACK_TOKEN = 'cb_token_0123456789abcdefghijklmnopqrstuv';

export interface FakeTransaction {
  transactionId: string;
  app: string;
  externalId: string;
  accountNumber: string;
  amount: string;
  provider: string;
  /** pending | success | failed: what the status query answers. */
  status: string;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown> | null;
  headers: IncomingMessage['headers'];
  /** The app whose token (and API key) the request carried, or null. */
  app: string | null;
}

const OPERATORS = ['Airtel', 'Tigo', 'Halopesa', 'Azampesa', 'Mpesa'];

export async function startAzamPayFake(apps: readonly FakeApp[] = [AZAMPAY_APP, AZAMPAY_SITE_APP]) {
  const tokens = new Map<string, FakeApp>();
  const transactions = new Map<string, FakeTransaction>();
  const requests: FakeRequest[] = [];
  /**
   * refuse: the checkout answers success:false; error500: every checkout-API call answers 500;
   * statusDown: only the status query does; hang: the checkout never answers; expireTokens: every
   * token is refused once (401), as after an early expiry.
   */
  const state = {
    mode: 'ok' as 'ok' | 'refuse' | 'error500' | 'statusDown' | 'hang',
    tokenLifetime: '3600' as string,
    expireTokens: false,
  };

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
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        body = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        return send(res, 400, { title: 'invalid JSON' });
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const app = bearer === undefined ? undefined : tokens.get(bearer);
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        headers: req.headers,
        app: app?.appName ?? null,
      });
      if (url.pathname === '/auth/AppRegistration/GenerateToken' && req.method === 'POST')
        return generateToken(body, res);
      if (!url.pathname.startsWith('/checkout/')) return send(res, 404, { message: 'no such API' });
      if (!app || req.headers['x-api-key'] !== app.apiKey)
        return send(res, 401, { message: 'Unauthorized', success: false });
      if (state.expireTokens) {
        tokens.clear();
        state.expireTokens = false;
        return send(res, 401, { message: 'token expired', success: false });
      }
      if (state.mode === 'error500') return send(res, 500, { message: 'upstream down' });
      if (url.pathname === '/checkout/azampay/mno/checkout' && req.method === 'POST')
        return checkout(app, body ?? {}, res);
      if (url.pathname === '/checkout/azampay/gettransactionstatus' && req.method === 'GET')
        return status(app, url.searchParams, res);
      send(res, 404, { message: 'no such API' });
    });
  });

  function generateToken(body: Record<string, unknown> | null, res: ServerResponse) {
    const app = apps.find(
      (a) =>
        a.appName === body?.appName && a.clientId === body.clientId && a.clientSecret === body.clientSecret,
    );
    if (!app)
      return send(res, 423, {
        data: null,
        message: 'Provided detail is not valid for this app or secret key has expired',
        success: false,
        statusCode: 423,
      });
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, app);
    send(res, 200, {
      data: { accessToken: token, expire: state.tokenLifetime },
      message: 'Token generated successfully',
      success: true,
      statusCode: 200,
    });
  }

  function checkout(app: FakeApp, body: Record<string, unknown>, res: ServerResponse) {
    const errors: Record<string, string[]> = {};
    if (typeof body.accountNumber !== 'string' || !/^(0|255|\+255)?[1-9]\d{8}$/.test(body.accountNumber))
      errors.AccountNumber = ['The account number is invalid'];
    if (typeof body.amount !== 'string' || !/^\d+$/.test(body.amount)) errors.Amount = ['Invalid amount'];
    if (body.currency !== 'TZS') errors.Currency = ['Only TZS is supported'];
    if (typeof body.externalId !== 'string' || body.externalId.length === 0 || body.externalId.length > 128)
      errors.ExternalId = ['ExternalId is required (at most 128 characters)'];
    if (typeof body.provider !== 'string' || !OPERATORS.includes(body.provider))
      errors.Provider = ['Unknown provider'];
    if (Object.keys(errors).length > 0)
      return send(res, 400, { title: 'One or more validation errors occurred.', status: 400, errors });
    if (state.mode === 'refuse')
      return send(res, 200, { success: false, transactionId: null, message: 'Wallet is not active' });
    const transactionId = randomBytes(16).toString('hex');
    transactions.set(transactionId, {
      transactionId,
      app: app.appName,
      externalId: body.externalId as string,
      accountNumber: body.accountNumber as string,
      amount: body.amount as string,
      provider: body.provider as string,
      status: 'pending',
    });
    if (state.mode === 'hang') return; // closed by close()
    send(res, 200, {
      success: true,
      transactionId,
      message: 'Your request has been received and is being processed.',
    });
  }

  function status(app: FakeApp, query: URLSearchParams, res: ServerResponse) {
    if (state.mode === 'statusDown') return send(res, 503, { message: 'service unavailable' });
    const tx = transactions.get(query.get('pgReferenceId') ?? '');
    if (!tx || tx.app !== app.appName || tx.provider !== query.get('bankName'))
      return send(res, 200, {
        data: null,
        message: 'Transaction not found',
        success: false,
        statusCode: 404,
      });
    send(res, 200, { data: tx.status, message: 'Transaction status', success: true, statusCode: 200 });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${String(port)}`;

  /** The transaction of an invoice number (AzamPay's externalId), if one was pushed. */
  const byExternalId = (externalId: string): FakeTransaction | undefined =>
    [...transactions.values()].find((t) => t.externalId === externalId);

  return {
    authUrl: `${origin}/auth`,
    checkoutUrl: `${origin}/checkout`,
    transactions,
    requests,
    state,
    byExternalId,
    /** The callback AzamPay would send for a transaction (status as AzamPay words it). */
    callbackBody(tx: FakeTransaction, transactionstatus = tx.status): Record<string, unknown> {
      return {
        msisdn: tx.accountNumber,
        amount: tx.amount,
        message: transactionstatus === 'success' ? 'Payment successful' : 'Payment failed',
        utilityref: tx.externalId,
        operator: tx.provider,
        reference: tx.transactionId,
        transactionstatus,
        submerchantAcc: '',
        mnoreference: `MNO${tx.transactionId.slice(0, 8).toUpperCase()}`,
        additionalProperties: {},
      };
    },
    env: (app: FakeApp = AZAMPAY_APP): Record<string, string> => ({
      AZAMPAY_AUTH_URL: `${origin}/auth`,
      AZAMPAY_CHECKOUT_URL: `${origin}/checkout`,
      AZAMPAY_APP_NAME: app.appName,
      AZAMPAY_CLIENT_ID: app.clientId,
      AZAMPAY_CLIENT_SECRET: app.clientSecret,
      AZAMPAY_API_KEY: app.apiKey,
      AZAMPAY_CALLBACK_TOKEN,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a hanging answer too
      }),
  };
}

export type AzamPayFake = Awaited<ReturnType<typeof startAzamPayFake>>;
