import t from 'tap';
import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { jsonRequest } from '../helpers/http.js';
import { staffClient } from '../helpers/staff.js';
import { aDevice, aPlan } from '../helpers/wifi.js';
import { decodeQr, matrixFromSvgPath } from '../helpers/qr-decode.js';

/**
 * Vouchers through HTTP (DESIGN.md §4.8): the admin API makes a batch, a guest redeems a code on
 * the public API and hands the credentials to the router; every refusal with its exact message.
 */

const ALPHABET = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]+$/;
const redeem = (app: TestApp, body: unknown) =>
  jsonRequest(`${app.base}/api/v1/public/vouchers/redeem`, { method: 'POST', body });

type Created = { id: string; codes: { id: string; code: string }[]; count: number; prefix: string };

async function aBatch(app: TestApp, body: Record<string, unknown> = {}) {
  const admin = await staffClient(app, 'admin');
  const plan = await aPlan(app.app, {
    name: 'Day',
    price_tzs: 2000,
    duration_seconds: 86_400,
    download_kbps: 4000,
  });
  const res = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 3, ...body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { admin, plan, batch: (res.body as { data: Created }).data };
}

t.test('a batch: codes from the unambiguous alphabet, shown once, stored only as digests', async (t) => {
  const app = await startTestApp(t);
  const { admin, plan, batch } = await aBatch(app, { count: 5, prefix: 'BAR' });
  t.equal(batch.codes.length, 5);
  for (const { code } of batch.codes) {
    t.match(code, /^BAR-[A-Z2-9]{5}-[A-Z2-9]{5}$/, 'prefix, then groups of five');
    t.match(code.replace(/-/g, ''), ALPHABET, 'no 0, O, 1, I or L');
  }
  const rows = await app.app.deps.db.selectFrom('vouchers').selectAll().execute();
  t.equal(rows.length, 5);
  t.same(
    Object.keys(rows[0] ?? {}).sort(),
    [
      'batch_id',
      'code_hash',
      'grant_id',
      'id',
      'invoice_id',
      'last3',
      'redeemed_at',
      'revoked_at',
      'status',
      'valid_until',
    ],
    'no column holds the code, sealed or not (migration 0029)',
  );
  const dump = JSON.stringify(rows);
  for (const { code } of batch.codes) {
    const plain = code.replace(/-/g, '');
    t.notOk(dump.includes(plain), 'the plaintext is nowhere in the table');
    t.notOk(dump.includes(createHash('sha256').update(plain).digest('hex')), 'nor its bare SHA-256');
    t.ok(
      rows.some((r) => r.last3 === plain.slice(-3)),
      'the last three characters are kept',
    );
  }
  const listed = await admin.get('/api/v1/admin/vouchers');
  t.match(listed.body, {
    data: [{ id: batch.id, plan_id: plan.id, count: 5, counts: { unused: 5, redeemed: 0 } }],
  });
  const one = await admin.get(`/api/v1/admin/vouchers/${batch.id}`);
  t.equal((one.body as { data: { vouchers: unknown[] } }).data.vouchers.length, 5);
  t.notOk(JSON.stringify(one.body).includes(batch.codes[0]?.code.slice(4, 9) ?? 'x'), 'no code in the list');

  const audit = await app.app.deps.db.selectFrom('wifi_audit').selectAll().execute();
  t.match(audit, [{ action: 'voucher_batch.create', target_id: batch.id, actor: admin.email }]);

  // Validation
  t.same((await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, extra: 1 })).body, {
    message: 'invalid request body',
  });
  t.same((await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 0 })).body, {
    message: 'count must be a whole number from 1 to 1000',
  });
  t.equal(
    (await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, prefix: 'B0' })).status,
    422,
  );
  t.equal(
    (await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, length: 7 })).status,
    422,
  );
  for (const prefix of [7, 'abcdefghj', 'o']) {
    const res = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, prefix });
    t.match(res, { status: 422, body: { message: /^prefix must be 1-8 characters/ } }, String(prefix));
  }
  // Codes are read without regard to case, and so is the prefix; null is "not given".
  const lower = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, prefix: 'bar' });
  t.match(lower, { status: 201, body: { data: { prefix: 'BAR', codes: [{ code: /^BAR-/ }] } } });
  const nulls = await admin.post('/api/v1/admin/vouchers', {
    plan_id: plan.id,
    count: 1,
    prefix: null,
    length: null,
  });
  t.match(nulls, {
    status: 201,
    body: { data: { prefix: '', codes: [{ code: /^[A-Z2-9]{5}-[A-Z2-9]{5}$/ }] } },
  });
  t.same((await admin.post('/api/v1/admin/vouchers', { plan_id: 'nope', count: 1 })).body, {
    message: 'plan_id must be the id of a plan you can see',
  });
  const viewer = await staffClient(app, 'viewer');
  t.equal((await viewer.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1 })).status, 403);
});

t.test('redeem: normalised code → a paid voucher sale and a grant whose time runs from now', async (t) => {
  const app = await startTestApp(t);
  const { plan, batch, admin } = await aBatch(app);
  const code = batch.codes[0]?.code ?? '';
  app.clock.advance('2h'); // printed earlier: the time still starts at redemption
  const typed = ` ${code.toLowerCase().replace(/-/g, ' ').slice(0, 6)}-${code.toLowerCase().replace(/-/g, '').slice(5)} `;
  // The portal sends the guest's language as the header, as a purchase does: reminders use it.
  const res = await jsonRequest(`${app.base}/api/v1/public/vouchers/redeem`, {
    method: 'POST',
    body: { code: typed },
    headers: { 'Accept-Language': 'sw' },
  });
  t.equal(res.status, 200, JSON.stringify(res.body));
  const data = (res.body as { data: Record<string, string> }).data;
  t.same(Object.keys(data).sort(), ['expires_at', 'password', 'plan_id', 'username']);
  t.equal(data.plan_id, plan.id);
  t.equal(data.expires_at, new Date(app.clock.now().getTime() + 86_400_000).toISOString());
  t.equal(res.headers.get('cache-control'), 'no-store');

  const db = app.app.deps.db;
  const invoice = await db.selectFrom('invoices').selectAll().executeTakeFirstOrThrow();
  t.match(invoice, {
    channel: 'voucher',
    language: 'sw',
    status: 'paid',
    phone: '',
    amount_tzs: 2000,
    plan_id: plan.id,
    duration_seconds: 86_400,
    download_kbps: 4000,
  });
  const payment = await db.selectFrom('payments').selectAll().executeTakeFirstOrThrow();
  t.match(payment, { channel: 'voucher', invoice_id: invoice.id, amount_tzs: 2000 });
  const grant = await db.selectFrom('grants').selectAll().executeTakeFirstOrThrow();
  t.match(grant, { invoice_id: invoice.id, username: data.username, download_kbps: 4000 });
  const voucher = await db
    .selectFrom('vouchers')
    .selectAll()
    .where('id', '=', batch.codes[0]?.id ?? '')
    .executeTakeFirstOrThrow();
  t.match(voucher, { status: 'redeemed', invoice_id: invoice.id, grant_id: grant.id });

  t.same((await redeem(app, { code })).body, { message: 'the voucher has already been used' });
  t.equal((await redeem(app, { code })).status, 409);
  t.same((await redeem(app, { code: 'ABCDEFGHJK' })).body, { message: 'unknown voucher' });
  t.equal((await redeem(app, { code: 'ABCDEFGHJK' })).status, 404);
  // No code at all is a bad request, not a wrong guess.
  for (const body of [{ code: 42 }, {}, { code: null }, [], 'ABCDEFGHJK'])
    t.match(await redeem(app, body), { status: 400, body: { message: 'invalid request body' } });
  t.same((await redeem(app, { code, phone: '0712345678' })).body, { message: 'invalid request body' });

  // The credentials open the router like a paid purchase's (CoovaChilli here).
  await aDevice(app.app, {});
  const login = await jsonRequest(`${app.base}/api/v1/public/access/login`, {
    method: 'POST',
    body: {
      username: data.username,
      password: data.password,
      uamip: '10.1.0.1',
      uamport: 3990,
      challenge: '8b10938e9770a389af6667748c2c828f',
    },
  });
  t.equal(login.status, 200, JSON.stringify(login.body));
  t.match(
    (login.body as { data: { redirect_url: string } }).data.redirect_url,
    /^http:\/\/10\.1\.0\.1:3990\/logon\?username=/,
  );

  const listed = await admin.get('/api/v1/admin/vouchers');
  t.match(listed.body, { data: [{ counts: { unused: 2, redeemed: 1, revoked: 0, expired: 0 } }] });
});

t.test('two redemptions of one code at once: one grant', async (t) => {
  const app = await startTestApp(t);
  const { batch } = await aBatch(app, { count: 1 });
  const code = batch.codes[0]?.code ?? '';
  const answers = await Promise.all(Array.from({ length: 4 }, () => redeem(app, { code })));
  t.same(answers.map((a) => a.status).sort(), [200, 409, 409, 409]);
  t.equal((await app.app.deps.db.selectFrom('grants').selectAll().execute()).length, 1);
  t.equal((await app.app.deps.db.selectFrom('invoices').selectAll().execute()).length, 1);
});

t.test(
  'a revoke takes an optional reason for the audit trail, refuses any other body, and one that changes nothing is not audited',
  async (t) => {
    const app = await startTestApp(t);
    const { admin, batch } = await aBatch(app, { count: 3 });
    const code = batch.codes[0]?.id ?? '';
    // In action order: the test's clock stands still, so created_at does not order them.
    const audit = async () =>
      (
        await app.app.deps.db
          .selectFrom('wifi_audit')
          .select(['action', 'target_id', 'reason'])
          .where('action', 'like', '%revoke')
          .execute()
      ).sort((a, b) => (a.action < b.action ? -1 : 1));
    for (const [body, status] of [
      [{ bogus: 1 }, 400],
      [[], 400],
      ['"lost"', 400],
      [{ reason: 123 }, 422],
      [{ reason: '  ' }, 422],
      [{ reason: 'x'.repeat(501) }, 422],
    ] as const) {
      const res = await admin.post(`/api/v1/admin/vouchers/${code}/revoke`, body);
      t.equal(res.status, status, `${JSON.stringify(body).slice(0, 30)}: ${String(status)}`);
    }
    t.same(await audit(), [], 'refused bodies change nothing');
    t.same((await redeem(app, { code: batch.codes[0]?.code })).status, 200, 'the code still works');

    const lost = await admin.post(`/api/v1/admin/vouchers/${batch.codes[1]?.id ?? ''}/revoke`, {
      reason: ' card lost by the reseller ',
    });
    t.same(lost.body, { data: { batch_id: batch.id, voucher_id: batch.codes[1]?.id, revoked: 1 } });
    // Again, and a redeemed code: nothing changes, nothing is audited.
    t.same((await admin.post(`/api/v1/admin/vouchers/${batch.codes[1]?.id ?? ''}/revoke`, {})).body, {
      data: { batch_id: batch.id, voucher_id: batch.codes[1]?.id, revoked: 0 },
    });
    t.equal((await admin.post(`/api/v1/admin/vouchers/${code}/revoke`)).body.data.revoked, 0);
    // The batch: its one unused code, then nothing left to revoke.
    t.equal((await admin.post(`/api/v1/admin/vouchers/${batch.id}/revoke`)).body.data.revoked, 1);
    t.equal((await admin.post(`/api/v1/admin/vouchers/${batch.id}/revoke`)).body.data.revoked, 0);
    t.same(await audit(), [
      { action: 'voucher.revoke', target_id: batch.codes[1]?.id, reason: 'card lost by the reseller' },
      { action: 'voucher_batch.revoke', target_id: batch.id, reason: null },
    ]);
  },
);

t.test('revoked and expired codes are refused; a revoked batch keeps its redeemed grants', async (t) => {
  const app = await startTestApp(t);
  const { admin, batch, plan } = await aBatch(app, { count: 3 });
  const [first, second, third] = batch.codes.map((c) => c.code);
  t.equal((await redeem(app, { code: first })).status, 200);
  const one = await admin.post(`/api/v1/admin/vouchers/${batch.codes[2]?.id ?? ''}/revoke`);
  t.same(one.body, { data: { batch_id: batch.id, voucher_id: batch.codes[2]?.id, revoked: 1 } });
  t.same((await redeem(app, { code: third })).body, { message: 'the voucher has been revoked' });
  const all = await admin.post(`/api/v1/admin/vouchers/${batch.id}/revoke`);
  t.same(all.body, { data: { batch_id: batch.id, voucher_id: null, revoked: 1 } });
  t.same((await redeem(app, { code: second })).body, { message: 'the voucher has been revoked' });
  t.equal((await redeem(app, { code: second })).status, 409);
  t.equal(
    (await app.app.deps.db.selectFrom('grants').where('revoked_at', 'is', null).selectAll().execute()).length,
    1,
  );
  const actions = (
    await app.app.deps.db.selectFrom('wifi_audit').select('action').orderBy('created_at').execute()
  ).map((r) => r.action);
  t.same(actions.sort(), ['voucher.revoke', 'voucher_batch.create', 'voucher_batch.revoke']);
  const operator = await staffClient(app, 'operator');
  t.equal((await operator.post(`/api/v1/admin/vouchers/${batch.id}/revoke`)).status, 403);

  // Expiry: the end of the given day at the venue (Africa/Dar_es_Salaam, UTC+3).
  const day = app.clock.now().toISOString().slice(0, 10);
  const dated = await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 2, valid_until: day });
  const d = (dated.body as { data: Created & { valid_until: string } }).data;
  t.equal(d.valid_until, new Date(Date.parse(`${day}T00:00:00Z`) + 21 * 3_600_000).toISOString());
  app.clock.advance('2d');
  t.same((await redeem(app, { code: d.codes[0]?.code })).body, { message: 'the voucher has expired' });
  // The admin session of two days ago has ended: a fresh one.
  const got = await (await staffClient(app, 'viewer')).get(`/api/v1/admin/vouchers/${d.id}`);
  t.same(
    (got.body as { data: { vouchers: { status: string }[] } }).data.vouchers.map((v) => v.status),
    ['expired', 'expired'],
  );
  const admin2 = await staffClient(app, 'admin');
  // The past, and days that do not exist (Date.parse rolled 2026-02-31 into 3 March).
  for (const validUntil of ['2020-01-01', '2027-02-31', '2027-02-29', '2027-02-31T10:00:00Z'])
    t.same(
      (await admin2.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1, valid_until: validUntil }))
        .body,
      { message: 'valid_until must be a future date (YYYY-MM-DD) or ISO-8601 instant, or null' },
      validUntil,
    );
});

t.test('wrong codes are limited per client like logins: 30 a minute, shared with typed logins', async (t) => {
  const app = await startTestApp(t);
  const { batch } = await aBatch(app, { count: 1 });
  // Bad requests draw nothing from the budget.
  for (let i = 0; i < 40; i++) t.equal((await redeem(app, {})).status, 400);
  for (let i = 0; i < 30; i++)
    t.equal(
      (await redeem(app, { code: `WRONG${String(i).padStart(5, 'A')}`.replace(/[01]/g, '2') })).status,
      404,
    );
  const limited = await redeem(app, { code: batch.codes[0]?.code });
  t.equal(limited.status, 429, 'past the budget even the right code waits');
  app.clock.advance('61s');
  t.equal((await redeem(app, { code: batch.codes[0]?.code })).status, 200);
});

t.test('export (CSV), without codes, of every code of a batch', async (t) => {
  const app = await startTestApp(t);
  const { admin, batch } = await aBatch(app, { count: 3 });
  t.equal((await redeem(app, { code: batch.codes[0]?.code })).status, 200);
  const csv = await fetch(`${app.base}/api/v1/admin/vouchers/${batch.id}/export`, {
    headers: { cookie: admin.cookieHeader() },
  });
  t.equal(csv.status, 200);
  t.match(csv.headers.get('content-type'), /^text\/csv/);
  const text = await csv.text();
  const lines = text.trim().split('\r\n');
  t.equal(lines[0], 'voucher_id,batch_id,last3,status,valid_until,redeemed_at,revoked_at,invoice_id');
  t.equal(lines.length, 4);
  t.equal(lines.filter((l) => l.includes(',redeemed,')).length, 1);
  for (const c of batch.codes) t.notOk(text.includes(c.code.replace(/-/g, '').slice(0, 7)), 'no code in it');
});

/** POST /api/v1/admin/vouchers/{id}/print as the admin UI's script or a reseller tool sends it. */
const print = (app: TestApp, staff: { cookieHeader(): string }, batchId: string, body: unknown) =>
  fetch(`${app.base}/api/v1/admin/vouchers/${batchId}/print`, {
    method: 'POST',
    headers: { cookie: staff.cookieHeader(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

t.test('the print sheet of codes handed back: only unused codes of that batch, audited', async (t) => {
  const app = await startTestApp(t);
  const { admin, batch, plan } = await aBatch(app, { count: 4 });
  const other = (await admin.post('/api/v1/admin/vouchers', { plan_id: plan.id, count: 1 })).body as {
    data: Created;
  };
  t.equal((await redeem(app, { code: batch.codes[0]?.code })).status, 200);
  t.equal((await admin.post(`/api/v1/admin/vouchers/${batch.codes[1]?.id ?? ''}/revoke`)).status, 200);
  const [, , third, fourth] = batch.codes.map((c) => c.code);
  const audited = () =>
    app.app.deps.db
      .selectFrom('wifi_audit')
      .selectAll()
      .where('action', '=', 'voucher_batch.print')
      .execute();

  // As typed from a saved list: lower case, spaces instead of dashes.
  const typed = [third ?? '', fourth ?? ''].map((c) => c.toLowerCase().replace(/-/g, ' '));
  const sheet = await print(app, admin, batch.id, { format: 'thermal58', codes: typed });
  t.equal(sheet.status, 200);
  t.match(sheet.headers.get('content-type'), /^text\/html/);
  t.equal(sheet.headers.get('cache-control'), 'no-store');
  t.match(
    sheet.headers.get('content-security-policy'),
    /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'/,
  );
  const page = await sheet.text();
  t.match(page, /@page \{ size: 58mm \d+mm; margin: 0; \}/, 'a 58 mm roll, a page per code');
  const qrs = [...page.matchAll(/viewBox="0 0 (\d+) \d+"[^>]*>.*?<path d="([^"]+)"/gs)].map((m) =>
    decodeQr(matrixFromSvgPath(m[2] ?? '', Number(m[1]), 2)),
  );
  t.same(
    qrs,
    [third, fourth].map((c) => `${app.config.publicBaseUrl}/portal?voucher=${(c ?? '').replace(/-/g, '')}`),
    'each code handed in, with a QR code of the portal with the code filled in',
  );
  for (const c of [third, fourth])
    t.ok(
      page.includes((c ?? 'x').replace(/-/g, '-<wbr>')),
      'the code, written out (a line may break after a dash)',
    );
  t.match(
    page,
    /TZS\u00a02,000 · 1\u00a0day</,
    'how long in the portal’s words, not 1d; each term kept whole',
  );
  t.match(page, /↓ 4 Mbit\/s/);
  t.match(await audited(), [
    { actor: admin.email, target_type: 'voucher_batch', target_id: batch.id, after: /"codes":2/ },
  ]);

  // Refused: the whole request, with how many; nothing printed, nothing audited.
  const refusals: [unknown[], string][] = [
    [[third, batch.codes[0]?.code], '1 of the 2 codes is not an unused code'],
    [[third, batch.codes[1]?.code, other.data.codes[0]?.code], '2 of the 3 codes are not unused codes'],
    [['ABCDEFGHJK'], 'the code is not an unused code'],
    [['not a code'], 'the code is not an unused code'],
  ];
  for (const [codes, start] of refusals) {
    const res = await print(app, admin, batch.id, { format: 'a4', codes });
    t.equal(res.status, 422, start);
    t.same(await res.json(), {
      message: `${start} of this batch (used, revoked, expired or unknown): nothing was printed`,
    });
  }
  app.clock.advance('1s');
  t.equal((await audited()).length, 1, 'refusals are not audited');

  const bad = async (body: unknown) => {
    const res = await print(app, admin, batch.id, body);
    return [res.status, await res.json()];
  };
  t.same(await bad({ format: 'a4', codes: [third], extra: 1 }), [400, { message: 'invalid request body' }]);
  t.same(await bad({ format: 'letter', codes: [third] }), [
    422,
    { message: 'format must be a4 or thermal58' },
  ]);
  const codesMessage = { message: 'codes must be a list of 1 to 1000 voucher codes' };
  t.same(await bad({ format: 'a4', codes: [] }), [422, codesMessage]);
  t.same(await bad({ format: 'a4', codes: third }), [422, codesMessage]);
  t.same(await bad({ format: 'a4', codes: [42] }), [422, codesMessage]);
  t.same(await bad({ format: 'a4' }), [422, codesMessage]);
  t.same(
    await (await print(app, admin, other.data.id, { codes: [third] })).json(),
    {
      message:
        'the code is not an unused code of this batch (used, revoked, expired or unknown): nothing was printed',
    },
    "another batch's code is refused",
  );
  const a4 = await print(app, admin, batch.id, { codes: [third] });
  t.match(await a4.text(), /@page \{ size: A4/, 'A4 unless told');

  const unknown = await print(app, admin, '00000000-0000-4000-8000-000000000000', { codes: [third] });
  t.equal(unknown.status, 404);
  const operator = await staffClient(app, 'operator');
  t.equal((await print(app, operator, batch.id, { codes: [third] })).status, 403, 'admins print');
  t.equal(
    (
      await fetch(`${app.base}/api/v1/admin/vouchers/${batch.id}/print?format=a4`, {
        headers: { cookie: admin.cookieHeader() },
      })
    ).status,
    404,
    'no GET: the box has no codes to print from',
  );

  // Revoked or expired: no longer printable.
  await admin.post(`/api/v1/admin/vouchers/${batch.id}/revoke`);
  t.equal((await print(app, admin, batch.id, { codes: [fourth] })).status, 422);
  const dated = (
    await admin.post('/api/v1/admin/vouchers', {
      plan_id: plan.id,
      count: 1,
      valid_until: app.clock.now().toISOString().slice(0, 10),
    })
  ).body as { data: Created };
  t.equal((await print(app, admin, dated.data.id, { codes: [dated.data.codes[0]?.code] })).status, 200);
  app.clock.advance('2d');
  const fresh = await staffClient(app, 'admin');
  t.equal((await print(app, fresh, dated.data.id, { codes: [dated.data.codes[0]?.code] })).status, 422);
});
