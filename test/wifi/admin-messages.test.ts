import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { outboxFor } from '../helpers/identity.js';
import { fakeGateway } from '../helpers/sms-gateway.js';
import { staffClient } from '../helpers/staff.js';

t.test(
  'POST messages: 202 with the record when the gateway accepts; validation of recipient, length, sender',
  async (t) => {
    const app = await startTestApp(t, { env: { SMS_SENDER_ID: 'CAFE' } });
    const op = await staffClient(app, 'operator');
    const res = await op.post('/api/v1/admin/messages', {
      recipient: '0712 345 678',
      message: 'Karibu! Wi-Fi ni bure leo.',
      sender_id: 'VENUE',
    });
    t.equal(res.status, 202);
    t.same(Object.keys(res.body.data).sort(), [
      'created_at',
      'error',
      'id',
      'message',
      'provider',
      'provider_reference',
      'recipient',
      'sender_id',
      'sent_by',
      'status',
    ]);
    t.match(res.body.data, {
      recipient: '+255712345678',
      sender_id: 'VENUE',
      status: 'accepted',
      provider: 'outbox',
      error: null,
    });
    t.match(await outboxFor(app.dataDir, '+255712345678'), [
      { channel: 'sms', text: 'Karibu! Wi-Fi ni bure leo.', sender_id: 'VENUE' },
    ]);
    const defaulted = await op.post('/api/v1/admin/messages', { recipient: '+255712345678', message: 'hi' });
    t.equal(defaulted.body.data.sender_id, 'CAFE', 'SMS_SENDER_ID by default');

    const post = (body: unknown) => op.post('/api/v1/admin/messages', body);
    t.same((await post({ recipient: 'not a phone', message: 'x' })).body, {
      message: 'recipient must be a phone number',
    });
    t.same((await post({ recipient: '0712345678', message: '' })).body, {
      message: 'message must be 1-1600 bytes',
    });
    t.equal(
      (await post({ recipient: '0712345678', message: 'é'.repeat(800) })).status,
      202,
      '1,600 bytes is fine',
    );
    t.same(
      (await post({ recipient: '0712345678', message: 'é'.repeat(801) })).body,
      { message: 'message must be 1-1600 bytes' },
      'counted in bytes, not characters',
    );
    t.same((await post({ recipient: '0712345678', message: 'x', sender_id: 'Has Space' })).body, {
      message: 'sender_id must be 1-11 letters or digits',
    });
    t.same((await post({ recipient: '0712345678', message: 'x', sender_id: 'TWELVECHARSX' })).status, 422);
    t.same((await post({ recipient: '0712345678', message: 'x', priority: 'high' })).body, {
      message: 'invalid request body',
    });
    t.equal((await op.get('/api/v1/admin/messages')).body.data.length, 3, 'refused requests left no record');
  },
);

t.test(
  'beem: Basic auth, JSON body, E.164 without plus; the request id is kept; a refusal is a 502 with a failed record',
  async (t) => {
    let accept = true;
    const beem = await fakeGateway(t, () =>
      accept
        ? {
            status: 200,
            body: {
              successful: true,
              request_id: 36331663,
              code: 100,
              message: 'Message Submitted Successfully',
            },
          }
        : { status: 400, body: { successful: false, code: 111, message: 'Invalid Sender Id' } },
    );
    const app = await startTestApp(t, {
      env: {
        SMS_PROVIDER: 'beem',
        BEEM_API_KEY: 'key-1',
        BEEM_SECRET_KEY: 'secret-1',
        BEEM_SMS_URL: `${beem.url}/v1/send`,
      },
    });
    const op = await staffClient(app, 'operator');
    const ok = await op.post('/api/v1/admin/messages', {
      recipient: '0712345678',
      message: 'Habari',
      sender_id: 'INFO',
    });
    t.equal(ok.status, 202);
    t.match(ok.body.data, { status: 'accepted', provider: 'beem', provider_reference: '36331663' });
    t.equal(beem.seen[0]?.path, '/v1/send');
    t.equal(beem.seen[0]?.headers.authorization, `Basic ${Buffer.from('key-1:secret-1').toString('base64')}`);
    t.same(JSON.parse(beem.seen[0]!.body), {
      source_addr: 'INFO',
      encoding: 0,
      schedule_time: '',
      message: 'Habari',
      recipients: [{ recipient_id: '1', dest_addr: '255712345678' }],
    });
    accept = false;
    app.clock.advance('1s');
    const refused = await op.post('/api/v1/admin/messages', {
      recipient: '0712345678',
      message: 'Habari',
      sender_id: 'NOPE',
    });
    t.same([refused.status, refused.body], [502, { message: 'the SMS gateway did not accept the message' }]);
    const [latest] = (await op.get('/api/v1/admin/messages')).body.data as {
      status: string;
      error: string;
    }[];
    t.match(
      latest,
      { status: 'failed', error: 'gateway answered 400: Invalid Sender Id' },
      'the record keeps the gateway status',
    );
  },
);

t.test(
  'africastalking: apiKey header, form body, 201 with recipient Success; the messageId is kept',
  async (t) => {
    let status = 'Success';
    const at = await fakeGateway(t, () => ({
      status: 201,
      body: {
        SMSMessageData: {
          Message: 'Sent to 1/1',
          Recipients: [
            {
              statusCode: status === 'Success' ? 101 : 403,
              number: '+255712345678',
              status,
              cost: 'TZS 20',
              messageId: 'ATXid_abc',
            },
          ],
        },
      },
    }));
    const app = await startTestApp(t, {
      env: {
        SMS_PROVIDER: 'africastalking',
        AFRICASTALKING_USERNAME: 'sandbox',
        AFRICASTALKING_API_KEY: 'at-key',
        AFRICASTALKING_SMS_URL: `${at.url}/version1/messaging`,
      },
    });
    const op = await staffClient(app, 'operator');
    const ok = await op.post('/api/v1/admin/messages', {
      recipient: '+255712345678',
      message: 'Habari',
      sender_id: 'VENUE',
    });
    t.match(
      [ok.status, ok.body.data],
      [202, { status: 'accepted', provider: 'africastalking', provider_reference: 'ATXid_abc' }],
    );
    t.equal(at.seen[0]?.headers.apikey, 'at-key');
    t.match(at.seen[0]?.headers['content-type'], 'application/x-www-form-urlencoded');
    t.same(Object.fromEntries(new URLSearchParams(at.seen[0]!.body)), {
      username: 'sandbox',
      to: '+255712345678',
      message: 'Habari',
      from: 'VENUE',
    });
    status = 'InvalidPhoneNumber';
    const refused = await op.post('/api/v1/admin/messages', {
      recipient: '+255712345678',
      message: 'Habari',
    });
    t.equal(refused.status, 502);
  },
);

t.test('the SMS provider settings are checked at start', async (t) => {
  const { loadConfig, ConfigError } = await import('../../src/config/index.js');
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ env, defaultConfigFile: '/nonexistent' });
      return [];
    } catch (err) {
      return err instanceof ConfigError ? err.problems : [String(err)];
    }
  };
  t.same(problems({ SMS_PROVIDER: 'beem' }), [
    'BEEM_API_KEY: must be set when SMS_PROVIDER is beem',
    'BEEM_SECRET_KEY: must be set when SMS_PROVIDER is beem',
  ]);
  t.same(problems({ SMS_PROVIDER: 'africastalking', AFRICASTALKING_USERNAME: 'x' }), [
    'AFRICASTALKING_API_KEY: must be set when SMS_PROVIDER is africastalking',
  ]);
});
