import t from 'tap';
import { signWebhook, verifyWebhookSignature } from '../../src/payments/index.js';

// research/payments-sms.md §2.6: computed with node:crypto and matching Stripe's v1 scheme.
const SECRET = 'whsec_test_secret_for_vectors_0001';
const TIMESTAMP = '1763740800';
const BODY =
  '{"id":"evt_01","type":"payment.succeeded","data":{"invoice_number":"INV-000123","amount_tzs":1000,"phone":"+255712345678","provider_reference":"MP123ABC"}}';
const EXPECTED = 'v1=d5e15a83cc1ea3a712fb682479c51862abb2321cb7226fcfa3f8d881ca335247';
const NOW = new Date(Number(TIMESTAMP) * 1000);

const verify = (
  signature: string | undefined,
  overrides: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {},
) =>
  verifyWebhookSignature({
    secret: SECRET,
    signature,
    timestamp: TIMESTAMP,
    rawBody: Buffer.from(BODY),
    now: NOW,
    ...overrides,
  });

t.test('signs the test vector', async (t) => {
  t.equal(signWebhook(SECRET, TIMESTAMP, BODY), EXPECTED);
});

t.test('accepts the vector, several signatures (rotation) and upper-case hex', async (t) => {
  t.equal(verify(EXPECTED), 'ok');
  t.equal(verify(`v1=${'0'.repeat(64)} ${EXPECTED}`), 'ok', 'any one valid signature passes');
  t.equal(verify(`v0=abc,${EXPECTED}`), 'ok', 'comma separated, unknown schemes ignored');
  t.equal(verify(EXPECTED.toUpperCase().replace('V1=', 'v1=')), 'ok');
});

t.test('refuses missing, forged and tampered signatures', async (t) => {
  t.equal(verify(undefined), 'missing');
  t.equal(verify(EXPECTED, { timestamp: undefined }), 'missing');
  t.equal(verify('v1=' + '0'.repeat(64)), 'bad_signature');
  t.equal(verify(EXPECTED.slice(0, -1)), 'bad_signature', 'truncated');
  t.equal(verify(EXPECTED.replace('v1=', 'v2=')), 'bad_signature', 'unknown scheme only');
  t.equal(
    verify(EXPECTED, { rawBody: Buffer.from(BODY.replace('1000', '100')) }),
    'bad_signature',
    'body changed',
  );
  t.equal(verify(EXPECTED, { timestamp: '1763740801' }), 'bad_signature', 'timestamp changed');
  t.equal(verify(EXPECTED, { secret: `${SECRET}x` }), 'bad_signature', 'another secret');
});

t.test('a genuine signature with a timestamp more than 5 minutes off our clock is refused', async (t) => {
  t.equal(verify(EXPECTED, { now: new Date(NOW.getTime() + 300_000) }), 'ok', 'exactly 5 minutes late');
  t.equal(verify(EXPECTED, { now: new Date(NOW.getTime() - 300_000) }), 'ok', 'exactly 5 minutes early');
  t.equal(verify(EXPECTED, { now: new Date(NOW.getTime() + 301_000) }), 'bad_timestamp', '5 min 1 s late');
  t.equal(verify(EXPECTED, { now: new Date(NOW.getTime() - 301_000) }), 'bad_timestamp', 'from the future');
  const ts = '1763740800.5';
  t.equal(verify(signWebhook(SECRET, ts, BODY), { timestamp: ts }), 'bad_timestamp', 'not whole seconds');
});
