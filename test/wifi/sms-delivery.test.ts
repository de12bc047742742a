import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/client.js';
import { fakeGateway } from '../helpers/sms-gateway.js';
import { staffClient } from '../helpers/staff.js';

/**
 * SMS delivery reports (docs/decisions/0047-sms-delivery.md): the gateway POSTs them to
 * PUBLIC_BASE_URL/sms/delivery/<SMS_DELIVERY_TOKEN>, and the SMS log's row becomes delivered or
 * failed. Driven over HTTP as a gateway would, read back through the admin SMS list.
 */

const TOKEN = 'dlr-token-0123456789abcdefghijklmnop';

/** POSTs a report as a gateway would: a form (Africa's Talking's default) or JSON. */
async function report(app: TestApp, body: string | Record<string, unknown> | unknown[], token = TOKEN) {
  const form = typeof body === 'string';
  const res = await fetch(`${app.base}/sms/delivery/${token}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface SmsRow {
  id: string;
  provider_reference: string | null;
  state: string;
  error: string | null;
}

/** The admin SMS list's rows by the gateway's reference, as `reader` sees them. */
async function states(reader: Client): Promise<Record<string, Pick<SmsRow, 'state' | 'error'>>> {
  const rows = (await reader.get('/api/v1/admin/sms')).body.data as SmsRow[];
  return Object.fromEntries(rows.map((r) => [r.provider_reference, { state: r.state, error: r.error }]));
}

t.test(
  "Africa's Talking: Success is delivered, Failed keeps the reason, Buffered stays sent; reports are final",
  async (t) => {
    let next = 0;
    const gateway = await fakeGateway(t, () => ({
      status: 201,
      body: {
        SMSMessageData: {
          Message: 'Sent to 1/1',
          Recipients: [{ statusCode: 101, status: 'Success', messageId: `ATXid_${String(++next)}` }],
        },
      },
    }));
    const app = await startTestApp(t, {
      env: {
        PUBLIC_BASE_URL: 'https://wifi.venue.example',
        SMS_PROVIDER: 'africastalking',
        AFRICASTALKING_USERNAME: 'venue',
        AFRICASTALKING_API_KEY: 'at-key',
        AFRICASTALKING_SMS_URL: `${gateway.url}/version1/messaging`,
        SMS_DELIVERY_TOKEN: TOKEN,
      },
    });
    const op = await staffClient(app, 'operator');
    for (const message of ['one', 'two', 'three', 'four'])
      t.equal((await op.post('/api/v1/admin/messages', { recipient: '0712345678', message })).status, 202);
    const sent = { state: 'sent', error: null };
    t.same(await states(op), { ATXid_1: sent, ATXid_2: sent, ATXid_3: sent, ATXid_4: sent });

    const delivered = await report(
      app,
      'id=ATXid_1&status=Success&phoneNumber=%2B255712345678&networkCode=64002',
    );
    t.same(delivered.status, 200);
    t.match(delivered.body, { data: { state: 'delivered' } });
    const failed = await report(app, 'id=ATXid_2&status=Failed&failureReason=UserIsInactive&retryCount=0');
    t.match([failed.status, failed.body], [200, { data: { state: 'failed' } }]);
    const buffered = await report(app, 'id=ATXid_3&status=Buffered');
    t.match([buffered.status, buffered.body], [200, { data: { state: 'sent' } }], 'on the way: still sent');
    // The same gateway may send JSON.
    t.equal((await report(app, { id: 'ATXid_4', status: 'Success' })).status, 200);
    t.same(await states(op), {
      ATXid_1: { state: 'delivered', error: null },
      ATXid_2: { state: 'failed', error: 'not delivered: UserIsInactive' },
      ATXid_3: sent,
      ATXid_4: { state: 'delivered', error: null },
    });
    const delivering = await op.get('/api/v1/admin/sms?status=delivered');
    t.equal((delivering.body.data as unknown[]).length, 2, 'the list filters on delivered');

    // A second report, or a late one after the final, changes nothing.
    const again = await report(app, 'id=ATXid_1&status=Failed&failureReason=DeliveryFailure');
    t.match([again.status, again.body], [200, { data: { state: 'delivered' } }]);
    t.match((await states(op)).ATXid_1, { state: 'delivered', error: null });
  },
);

t.test('bad reports get a clear 4xx and change nothing', async (t) => {
  const gateway = await fakeGateway(t, () => ({ status: 200, body: { id: 'm-1' } }));
  const app = await startTestApp(t, {
    env: {
      SMS_PROVIDER: 'http',
      SMS_HTTP_URL: `${gateway.url}/send`,
      SMS_DELIVERY_TOKEN: TOKEN,
    },
  });
  const op = await staffClient(app, 'operator');
  t.equal((await op.post('/api/v1/admin/messages', { recipient: '0712345678', message: 'hi' })).status, 202);

  const invalid = {
    message: 'invalid delivery report: it needs the message id and a status (delivered, failed or pending)',
  };
  t.same(await report(app, { id: 'm-1', status: 'delivered' }, `${TOKEN}x`), {
    status: 401,
    body: { message: 'invalid delivery report token' },
  });
  t.same(await report(app, { id: 'm-1' }), { status: 400, body: invalid }, 'no status');
  t.same(await report(app, { status: 'delivered' }), { status: 400, body: invalid }, 'no id');
  t.same(await report(app, { id: 'm-1', status: 'lost in space' }), { status: 400, body: invalid });
  t.same(await report(app, { id: 'm-1', status: 'constructor' }), { status: 400, body: invalid });
  t.same(await report(app, ['m-1', 'delivered']), { status: 400, body: invalid }, 'not an object');
  t.same(await report(app, '{"id": "m-1", "status": '), { status: 400, body: invalid }, 'broken JSON');
  t.same(await report(app, { id: 'm-9', status: 'delivered' }), {
    status: 404,
    body: { message: 'no SMS with that reference' },
  });
  t.same(await states(op), { 'm-1': { state: 'sent', error: null } }, 'nothing changed');

  // The http gateway's own words: delivered, failed (with its error), pending.
  const [row] = (await op.get('/api/v1/admin/sms')).body.data as SmsRow[];
  t.same(await report(app, { message_id: 'm-1', status: 'pending' }), {
    status: 200,
    body: { data: { id: row?.id, state: 'sent' } },
  });
  t.same(await report(app, { message_id: 'm-1', status: 'failed', error: 'absent subscriber' }), {
    status: 200,
    body: { data: { id: row?.id, state: 'failed' } },
  });
  t.same(await states(op), { 'm-1': { state: 'failed', error: 'not delivered: absent subscriber' } });
});

t.test("Beem: its JSON report, answered with Beem's own acknowledgement", async (t) => {
  const gateway = await fakeGateway(t, () => ({
    status: 200,
    body: { successful: true, request_id: 36331663, code: 100, message: 'Message Submitted Successfully' },
  }));
  const app = await startTestApp(t, {
    env: {
      SMS_PROVIDER: 'beem',
      BEEM_API_KEY: 'key-1',
      BEEM_SECRET_KEY: 'secret-1',
      BEEM_SMS_URL: `${gateway.url}/v1/send`,
      SMS_DELIVERY_TOKEN: TOKEN,
    },
  });
  const op = await staffClient(app, 'operator');
  t.equal(
    (await op.post('/api/v1/admin/messages', { recipient: '0712345678', message: 'Habari' })).status,
    202,
  );
  const res = await report(app, {
    request_id: 36331663,
    recipient_id: '1',
    dest_addr: '255712345678',
    status: 'DELIVERED',
  });
  t.same(res, { status: 200, body: { request_id: '36331663', successful: true } });
  t.same(await states(op), { '36331663': { state: 'delivered', error: null } });
});

t.test(
  'without SMS_DELIVERY_TOKEN reports are refused; the portal config names the URL, never the token',
  async (t) => {
    const off = await startTestApp(t, { env: { SMS_PROVIDER: 'outbox' } });
    t.same(await report(off, { id: 'x', status: 'delivered' }), {
      status: 404,
      body: { message: 'SMS delivery reports are off: set SMS_DELIVERY_TOKEN' },
    });
    const viewer = await staffClient(off, 'viewer');
    t.match((await viewer.get('/api/v1/admin/portal/config')).body.data, {
      endpoints: { sms_delivery: null },
    });

    const on = await startTestApp(t, {
      env: { PUBLIC_BASE_URL: 'https://wifi.venue.example', SMS_DELIVERY_TOKEN: TOKEN },
    });
    const config = (await (await staffClient(on, 'viewer')).get('/api/v1/admin/portal/config')).body.data;
    t.match(config, {
      endpoints: { sms_delivery: 'https://wifi.venue.example/sms/delivery/{SMS_DELIVERY_TOKEN}' },
    });
    t.notMatch(JSON.stringify(config), TOKEN, 'the secret URL is named, never shown');
  },
);
