import { createHash } from 'node:crypto';
import t from 'tap';
import { removeStaff } from '../../src/identity/index.js';
import { startTestApp } from '../helpers/app.js';
import { rawRequest } from '../helpers/http.js';
import { verifiedUser } from '../helpers/identity.js';
import { staffClient } from '../helpers/staff.js';
import { formToken } from '../../src/web/admin-page.js';

/** The staff admin pages over plain HTTP: session redirects, `next`, headers, role-rendered controls, size. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const SECTIONS = [
  '/admin',
  '/admin/plans',
  '/admin/devices',
  '/admin/sessions',
  '/admin/guests',
  '/admin/invoices',
  '/admin/payments',
  '/admin/sms',
  '/admin/counter',
  '/admin/vouchers',
  '/admin/audit',
];

/** A page as the staff member's browser gets it (the helper Client reads JSON only). */
const visit = (base: string, path: string, staff?: { cookieHeader(): string }) =>
  rawRequest(`${base}${path}`, { headers: staff ? { Cookie: staff.cookieHeader() } : {} });

const pageData = (html: string): Record<string, unknown> =>
  JSON.parse(
    /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null',
  );

t.test('admin pages without a staff session go to /admin/login?next=<themselves>', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const member = await verifiedUser(app, 'member@example.com');
  const paths = [...SECTIONS, '/admin/sessions?since=today'];
  for (const path of paths) {
    for (const cookie of [{}, { Cookie: member.cookieHeader() }, { Cookie: 'admin_session=forged' }]) {
      const res = await rawRequest(`${app.base}${path}`, { headers: cookie });
      t.equal(res.status, 303, `${path} ${JSON.stringify(cookie)}`);
      t.equal(res.headers.location, `/admin/login?next=${encodeURIComponent(path)}`, path);
      t.equal(res.headers['cache-control'], 'no-store', `${path}: the redirect is not cached`);
    }
  }

  const owner = await staffClient(app, 'owner');
  t.equal((await visit(app.base, '/admin/plans', owner)).status, 200, 'a live session gets the page');
  app.clock.advance('12h');
  app.clock.advance(1000);
  const expired = await visit(app.base, '/admin/plans', owner);
  t.equal(expired.status, 303, 'the session lasts 12 hours, not a second more');
  t.equal(expired.headers.location, '/admin/login?next=%2Fadmin%2Fplans');

  const admin = await staffClient(app, 'admin');
  t.equal((await visit(app.base, '/admin', admin)).status, 200);
  await removeStaff(app.app.deps, admin.email);
  t.equal((await visit(app.base, '/admin', admin)).status, 303, 'a role taken away ends the pages at once');
});

t.test('every admin page sends CSP, refuses framing, is not cached and loads nothing foreign', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const owner = await staffClient(app, 'owner');
  for (const path of ['/admin/login', ...SECTIONS]) {
    const headers = path === '/admin/login' ? {} : { Cookie: owner.cookieHeader() };
    const res = await rawRequest(`${app.base}${path}`, { headers });
    t.equal(res.status, 200, path);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8', path);
    t.equal(res.headers['content-security-policy'], CSP, `${path}: CSP`);
    t.equal(res.headers['x-frame-options'], 'DENY', `${path}: X-Frame-Options`);
    t.equal(res.headers['x-content-type-options'], 'nosniff', path);
    t.equal(res.headers['cache-control'], 'no-store', `${path}: no-store`);
    t.equal(res.headers['referrer-policy'], 'no-referrer', path);
    t.notMatch(res.text, /<script(?![^>]*\b(src=|type="application\/json"))/, `${path}: no inline script`);
    t.notMatch(res.text, /\sstyle=|<style/, `${path}: no inline style`);
    t.notMatch(res.text, /(src="|href=")(https?:)?\/\//, `${path}: nothing from another origin`);
  }
});

t.test('the sign-in page: a signed-in visit goes straight to next, only on our origin', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const page = await rawRequest(`${app.base}/admin/login?next=${encodeURIComponent('//evil.example/admin')}`);
  t.equal(pageData(page.text).next, '/admin', 'a foreign next becomes the overview');
  t.notMatch(page.text, /evil\.example/);
  t.equal(
    pageData((await rawRequest(`${app.base}/admin/login?next=%2Fadmin%2Fsms`)).text).next,
    '/admin/sms',
  );
  t.match(page.text, /id="code-box" hidden/, 'the code field waits until the API asks for it');

  const staff = await staffClient(app, 'viewer');
  const cases: [string | null, string][] = [
    [null, '/admin'],
    ['/admin/devices?x=1', '/admin/devices?x=1'],
    ['//evil.example', '/admin'],
    ['https://evil.example/', '/admin'],
    ['/\\evil.example', '/admin'],
    ['javascript:alert(1)', '/admin'],
  ];
  for (const [next, location] of cases) {
    const path = next === null ? '/admin/login' : `/admin/login?next=${encodeURIComponent(next)}`;
    const res = await visit(app.base, path, staff);
    t.equal(res.status, 303, String(next));
    t.equal(res.headers.location, location, String(next));
  }
});

t.test('the page shows who is signed in and renders only the controls the role may use', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const controls: [string, RegExp][] = [
    ['/admin/plans', /id="plan-form"/],
    ['/admin/devices', /id="device-form"/],
    ['/admin/devices', /id="secret-box"/],
    ['/admin/devices', /<dialog id="setup"/],
    ['/admin/devices', /id="devices-setup-note"/],
    ['/admin/plans', /id="plan-apply-live"/],
    ['/admin/sessions', /id="confirm"/],
    ['/admin/sms', /id="sms-form"/],
    ['/admin/counter', /id="issue-form"/],
    ['/admin/vouchers', /id="batch-form"/],
    ['/admin/vouchers', /id="print-form"/],
    ['/admin/vouchers', /<dialog id="reprint"/],
    ['/admin/vouchers', /name="csrf"/],
  ];
  const allowed: Record<string, string[]> = {
    viewer: [],
    operator: ['/admin/sessions', '/admin/sms', '/admin/counter'],
    admin: [
      '/admin/plans',
      '/admin/devices',
      '/admin/sessions',
      '/admin/sms',
      '/admin/counter',
      '/admin/vouchers',
    ],
    owner: [
      '/admin/plans',
      '/admin/devices',
      '/admin/sessions',
      '/admin/sms',
      '/admin/counter',
      '/admin/vouchers',
    ],
  };
  for (const role of ['viewer', 'operator', 'admin', 'owner'] as const) {
    const staff = await staffClient(app, role);
    const home = await visit(app.base, '/admin', staff);
    t.match(home.text, `Signed in as ${staff.email} (${role})`, role);
    t.match(home.text, /<button type="button" id="sign-out">Sign out<\/button>/);
    t.match(home.text, /<a href="\/admin" aria-current="page">Overview<\/a>/);
    t.equal(pageData(home.text).role, role);
    for (const [path, control] of controls) {
      const res = await visit(app.base, path, staff);
      const expected = allowed[role]?.includes(path) ?? false;
      t.equal(control.test(res.text), expected, `${role} ${path} ${String(control)}`);
      t.equal(/id="read-only"/.test(res.text), !expected, `${role} ${path}: read-only note`);
    }
    // Marking paid by hand and the audit trail are for admins (DESIGN.md §4.8).
    const counter = await visit(app.base, '/admin/counter', staff);
    const admins = role === 'admin' || role === 'owner';
    t.equal(/<dialog id="mark-paid"/.test(counter.text), admins, `${role}: mark paid`);
    t.equal(/href="\/admin\/audit"/.test(home.text), admins, `${role}: the audit trail in the navigation`);
  }
});

t.test('the plan form takes speeds in kbit/s or Mbit/s, each field labelled and described', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const admin = await staffClient(app, 'admin');
  const { text } = await visit(app.base, '/admin/plans', admin);
  for (const [id, label] of [
    ['plan-download', 'Download speed'],
    ['plan-upload', 'Upload speed'],
  ] as const) {
    t.match(text, `<label for="${id}">${label}</label>`, id);
    t.match(
      text,
      new RegExp(`id="${id}"[^>]*aria-describedby="${id}-hint ${id}-error"`),
      `${id}: hint and error`,
    );
    t.notMatch(text, new RegExp(`id="${id}"[^>]* required`), `${id}: empty is no limit`);
    t.match(
      text,
      new RegExp(
        `<select id="${id}-unit"[^>]*>\\s*<option value="1"\\s*>kbit/s</option>\\s*<option value="1000"\\s+selected>Mbit/s</option>`,
      ),
      `${id}: kbit/s or Mbit/s (chosen)`,
    );
  }
  t.match(text, /id="plan-apply-live-row"\s+hidden/, 'apply to guests online now: only while editing');
  t.match(
    text,
    /<input\s+id="plan-remember-device"\s+name="plan-remember-device"\s+type="checkbox"\s+aria-describedby="plan-remember-device-hint plan-remember-device-error"/,
    'remember devices: a check box, off unless the plan has it',
  );
  t.match(text, '<label for="plan-remember-device">Remember devices</label>');
});

t.test('the routers page says what Online means with the box’s own interim interval', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true, env: { RADIUS_INTERIM_INTERVAL: '600' } });
  const viewer = await staffClient(app, 'viewer');
  const { text } = await visit(app.base, '/admin/devices', viewer);
  t.match(text, /Online: the router sent a RADIUS packet in the last 25 minutes\./, '2.5 × 600 s');
  t.notMatch(text, /id="devices-setup-note"|id="setup"/, 'no set-up file for a viewer');
});

t.test('each admin page with its CSS and JS stays under 50 KB gzip', async (t) => {
  const app = await startTestApp(t, { selfIssuer: true });
  const owner = await staffClient(app, 'owner');
  for (const path of ['/admin/login', ...SECTIONS]) {
    const headers = path === '/admin/login' ? {} : { Cookie: owner.cookieHeader() };
    // What travels: each body as the server sends it to a browser that accepts gzip.
    const sent = await rawRequest(`${app.base}${path}`, {
      headers: { ...headers, 'Accept-Encoding': 'gzip' },
    });
    t.equal(sent.status, 200, path);
    let total = sent.body.length;
    const { text } = await rawRequest(`${app.base}${path}`, { headers });
    const assets = [...text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
    t.ok(assets.some((u) => u.endsWith('.css')) && assets.some((u) => u.endsWith('.js')), `${path}: assets`);
    for (const url of assets) {
      const res = await rawRequest(`${app.base}${url}`, { headers: { 'Accept-Encoding': 'gzip' } });
      t.equal(res.status, 200, url);
      total += res.body.length;
    }
    t.ok(total < 50 * 1024, `${path}: ${String(total)} bytes`);
    t.comment(`${path}: ${String(total)} bytes gzip`);
  }
});

t.test(
  'the voucher print form: the sheet for an admin with the page token, a page of its own otherwise',
  async (t) => {
    const app = await startTestApp(t, { selfIssuer: true });
    const admin = await staffClient(app, 'admin');
    const plan = (
      await admin.post('/api/v1/admin/plans', { name: 'Day', price_tzs: 2000, duration_seconds: 86_400 })
    ).body as { data: { id: string } };
    const created = (await admin.post('/api/v1/admin/vouchers', { plan_id: plan.data.id, count: 2 }))
      .body as {
      data: { id: string; codes: { code: string }[] };
    };
    const codes = created.data.codes.map((c) => c.code);
    const page = await visit(app.base, '/admin/vouchers', admin);
    const token = /name="csrf" value="([0-9a-f]{64})"/.exec(page.text)?.[1] ?? '';
    t.ok(token, 'the page carries its form token');
    t.match(page.text, /<form id="print-form" method="post" target="_blank"/);

    const post = (
      fields: Record<string, string>,
      staff: { cookieHeader(): string } | null = admin,
      headers: Record<string, string> = {},
    ) =>
      rawRequest(`${app.base}/admin/vouchers/${created.data.id}/print`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(staff ? { Cookie: staff.cookieHeader() } : {}),
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      });
    const good = { csrf: token, format: 'thermal58', codes: codes.join('\r\n') };
    const sheet = await post(good, admin, { Origin: 'null' });
    t.equal(sheet.status, 200, sheet.text);
    t.equal(sheet.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(sheet.headers['cache-control'], 'no-store');
    t.equal(sheet.headers['x-frame-options'], 'DENY');
    const style = /<style>([\s\S]*?)<\/style>/.exec(sheet.text)?.[1] ?? '';
    t.equal(
      sheet.headers['content-security-policy'],
      `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'no script at all; the one style block by its hash',
    );
    t.notMatch(sheet.text, /<script/);
    for (const code of codes) t.ok(sheet.text.replace(/<wbr>/g, '').includes(code), code);
    t.match(sheet.text, /size: 58mm \d+mm/);
    const fromOwnOrigin = await post({ ...good, format: 'a4' }, admin, { Origin: app.base });
    t.equal(fromOwnOrigin.status, 200);
    t.match(fromOwnOrigin.text, /size: A4/);

    const refused = async (
      expected: number,
      message: string,
      fields: Record<string, string>,
      staff: { cookieHeader(): string } | null = admin,
      headers: Record<string, string> = {},
    ) => {
      const res = await post(fields, staff, headers);
      t.equal(res.status, expected, message);
      t.equal(res.headers['content-type'], 'text/html; charset=utf-8', message);
      t.equal(res.headers['content-security-policy'], CSP, message);
      t.match(res.text, '<h1>Nothing was printed</h1>', message);
      t.match(res.text, `<p id="reason">${message}</p>`, message);
    };
    await refused(401, 'not authenticated', good, null);
    await refused(403, 'this page is out of date: reload it and try again', { ...good, csrf: '' });
    await refused(403, 'this page is out of date: reload it and try again', {
      ...good,
      csrf: 'f'.repeat(64),
    });
    await refused(403, 'origin not allowed', good, admin, { Origin: 'http://evil.example' });
    const other = await staffClient(app, 'admin');
    await refused(403, 'this page is out of date: reload it and try again', good, other, {});
    const viewer = await staffClient(app, 'viewer');
    const viewerToken = formToken(app.app.deps, viewer.cookies.get('admin_session') ?? '');
    await refused(403, 'your staff role does not allow this', { ...good, csrf: viewerToken }, viewer);
    await refused(
      422,
      '1 of the 2 codes is not an unused code of this batch (used, revoked, expired or unknown): nothing was printed',
      { ...good, codes: `${codes[0] ?? ''}\nABCDEFGHJK` },
    );
    await refused(422, 'codes must be a list of 1 to 1000 voucher codes', { ...good, codes: '' });
    await refused(422, 'format must be a4 or thermal58', { ...good, format: 'letter' });

    const prints = await app.app.deps.db
      .selectFrom('wifi_audit')
      .select(['actor', 'after'])
      .where('action', '=', 'voucher_batch.print')
      .execute();
    t.match(prints, [{ actor: admin.email }, { actor: admin.email }], 'the two sheets, audited; no refusal');
  },
);

t.test('the overview shows a warning banner while the sandbox gives Wi-Fi away', async (t) => {
  const free = await startTestApp(t, { selfIssuer: true, env: { SANDBOX_AUTOPAY_SECONDS: '10' } });
  const page = await visit(free.base, '/admin', await staffClient(free, 'owner'));
  t.equal(page.status, 200);
  t.match(
    page.text,
    /<p class="notice warn" id="free-wifi" role="alert">Wi-Fi is being given away free: the sandbox payment provider pays every purchase by itself/,
  );
  const paid = await startTestApp(t, { selfIssuer: true });
  t.notMatch((await visit(paid.base, '/admin', await staffClient(paid, 'owner'))).text, /free-wifi/);
});
