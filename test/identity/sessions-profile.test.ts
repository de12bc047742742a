import { createHash } from 'node:crypto';
import t from 'tap';
import { foundInDatabase, startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { outboxFor, PASSWORD, registered, waitForMail } from '../helpers/identity.js';

t.test('GET /sessions lists live sessions, most recently used first, with is_current', async (t) => {
  const app = await startTestApp(t);
  const first = await registered(app, 's@example.com');
  app.clock.advance('2m');
  const second = new Client(app.base);
  await second.post('/auth/login', { identifier: 's@example.com', password: PASSWORD });
  app.clock.advance('2m');
  const list = (await second.get('/sessions')).body.data as Record<string, unknown>[];
  t.equal(list.length, 2);
  t.same(Object.keys(list[0]!).sort(), [
    'created_at',
    'device_label',
    'id',
    'ip_address',
    'is_current',
    'last_used_at',
  ]);
  t.match(list[0], { is_current: true, ip_address: second.ip, device_label: null });
  t.match(list[1], { is_current: false, ip_address: first.ip });
  t.ok(String(list[0]!.last_used_at) > String(list[1]!.last_used_at));
  app.clock.advance('2m');
  t.equal(
    (await first.get('/sessions')).body.data[0].is_current,
    true,
    'the first session, just used, is now first',
  );
});

t.test('DELETE /sessions/{id}: ownership-checked; the current one acts like logout', async (t) => {
  const app = await startTestApp(t);
  const a = await registered(app, 'a@example.com');
  const a2 = new Client(app.base);
  await a2.post('/auth/login', { identifier: 'a@example.com', password: PASSWORD });
  const b = await registered(app, 'b@example.com');
  const [bSession] = (await b.get('/sessions')).body.data as { id: string }[];
  const foreign = await a.delete(`/sessions/${bSession!.id}`);
  t.same([foreign.status, foreign.body], [404, { success: false, message: 'session not found' }]);
  t.equal((await b.get('/auth/me')).status, 200, 'b is untouched');
  t.same(
    (await a.delete('/sessions/00000000-0000-0000-0000-000000000000')).body.message,
    'session not found',
  );

  const sessions = (await a.get('/sessions')).body.data as { id: string; is_current: boolean }[];
  const other = sessions.find((s) => !s.is_current)!;
  t.same((await a.delete(`/sessions/${other.id}`)).body, { success: true, message: 'session revoked' });
  t.equal((await a2.get('/auth/me')).body.message, 'session expired or invalid');

  const current = sessions.find((s) => s.is_current)!;
  const self = await a.delete(`/sessions/${current.id}`);
  t.equal(self.status, 200);
  t.match(a.setCookies[0], /^svc_session=; Max-Age=0/);
  t.equal((await a.get('/auth/me')).body.message, 'not authenticated');
});

t.test(
  'logout and deleting the current session revoke it server-side: the old cookie is refused',
  async (t) => {
    const app = await startTestApp(t);
    const expired = { success: false, message: 'session expired or invalid' };
    /** The cookie value sent again, as by someone who kept a copy (the browser dropped it). */
    const replay = (value: string) => {
      const copy = new Client(app.base);
      copy.cookies.set('svc_session', value);
      return copy.get('/auth/me');
    };
    const stored = (value: string) =>
      app.app.deps.db
        .selectFrom('sessions')
        .select('id')
        .where('token_hash', '=', createHash('sha256').update(value).digest('hex'))
        .execute();

    const c = await registered(app, 'out@example.com');
    const cookie = c.cookies.get('svc_session')!;
    t.equal((await replay(cookie)).status, 200, 'a copy of the cookie works while the session lives');
    const out = await c.post('/auth/logout');
    t.same([out.status, out.body], [200, { success: true, message: 'logged out' }]);
    t.match(c.setCookies[0], /^svc_session=; Max-Age=0/);
    const afterLogout = await replay(cookie);
    t.same([afterLogout.status, afterLogout.body], [401, expired], 'logout revoked it on the server');
    t.same(await stored(cookie), [], 'the session row is gone');

    const d = new Client(app.base);
    await d.post('/auth/login', { identifier: 'out@example.com', password: PASSWORD });
    const other = new Client(app.base);
    await other.post('/auth/login', { identifier: 'out@example.com', password: PASSWORD });
    const dCookie = d.cookies.get('svc_session')!;
    t.equal((await replay(dCookie)).status, 200);
    const current = ((await d.get('/sessions')).body.data as { id: string; is_current: boolean }[]).find(
      (s) => s.is_current,
    )!;
    t.same((await d.delete(`/sessions/${current.id}`)).body, { success: true, message: 'session revoked' });
    t.match(d.setCookies[0], /^svc_session=; Max-Age=0/);
    const afterDelete = await replay(dCookie);
    t.same([afterDelete.status, afterDelete.body], [401, expired], 'DELETE /sessions/{current} revoked it');
    t.same(await stored(dCookie), []);
    t.equal((await other.get('/auth/me')).status, 200, "the user's other session lives on");
  },
);

t.test('only a hash of the session id is stored: the cookie value is nowhere in the database', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'hash@example.com');
  await c.get('/auth/me');
  const cookie = c.cookies.get('svc_session')!;
  t.match(cookie, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  const rows = await app.app.deps.db.selectFrom('sessions').selectAll().execute();
  t.equal(rows.length, 1);
  const hash = createHash('sha256').update(cookie).digest('hex');
  t.equal(rows[0]?.token_hash, hash, 'its SHA-256');
  t.notOk(
    Object.values(rows[0] ?? {}).some((v) => String(v).includes(cookie)),
    'no column of the row holds the cookie value',
  );
  t.same(
    await foundInDatabase(app, [hash, cookie]),
    [hash],
    'the database files hold the hash, never the value',
  );
});

t.test('sessions slide: 30 days from the last use, and the cookie is renewed', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'slide@example.com');
  const token = c.cookies.get('svc_session');
  app.clock.advance('29d');
  const used = await c.get('/auth/me');
  t.equal(used.status, 200);
  t.match(c.setCookies[0], /^svc_session=[^;]+; Max-Age=2592000/, 'renewed');
  t.equal(c.cookies.get('svc_session'), token, 'same session');
  app.clock.advance('29d');
  t.equal((await c.get('/auth/me')).status, 200, '58 days old, but used 29 days ago');
  app.clock.advance('30d');
  const expired = await c.get('/auth/me');
  t.same([expired.status, expired.body], [401, { success: false, message: 'session expired or invalid' }]);
});

t.test('the three 401 messages', async (t) => {
  const app = await startTestApp(t);
  t.same((await new Client(app.base).get('/auth/me')).body, { success: false, message: 'not authenticated' });
  const forged = new Client(app.base);
  forged.cookies.set('svc_session', 'not-a-real-session');
  const res = await forged.get('/sessions');
  t.same([res.status, res.body], [401, { success: false, message: 'session expired or invalid' }]);
  // The bearer message comes with the OAuth issue; the catalogue already holds it.
});

t.test('profile: empty by default, partial PATCH, 100-character limit', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'pro@example.com');
  const userId = (await c.get('/auth/me')).body.data.id as string;
  t.same((await c.get('/profile')).body, {
    success: true,
    data: { user_id: userId, display_name: '', avatar_url: null },
  });
  const named = await c.patch('/profile', { display_name: 'Zoë 🎉' });
  t.same(named.body.data, { user_id: userId, display_name: 'Zoë 🎉', avatar_url: null });
  const pic = await c.patch('/profile', { avatar_url: 'https://cdn.example.com/z.png' });
  t.same(
    pic.body.data,
    { user_id: userId, display_name: 'Zoë 🎉', avatar_url: 'https://cdn.example.com/z.png' },
    'name kept',
  );
  t.equal(
    (await c.patch('/profile', { display_name: 'é'.repeat(100) })).status,
    200,
    '100 characters is allowed',
  );
  const long = await c.patch('/profile', { display_name: 'x'.repeat(101) });
  t.same(
    [long.status, long.body],
    [400, { success: false, message: 'display name must be 100 characters or fewer' }],
  );
  t.equal((await c.patch('/profile', { avatar_url: 'javascript:alert(1)' })).status, 400);
  t.equal(
    (await c.get('/profile')).body.data.display_name,
    'é'.repeat(100),
    'failed PATCHes changed nothing',
  );
  t.equal((await c.patch('/profile', { avatar_url: '' })).body.data.avatar_url, null, 'empty clears');
  t.equal((await new Client(app.base).get('/profile')).status, 401);
});

t.test('security events: newest first, at most 100', async (t) => {
  const app = await startTestApp(t);
  await registered(app, 'ev@example.com');
  const c = new Client(app.base);
  for (let i = 0; i < 103; i++) {
    await c.post('/auth/login', { identifier: 'ev@example.com', password: PASSWORD });
    app.clock.advance('1m'); // also resets the login limiter's window
  }
  const events = (await c.get('/auth/security-events')).body.data as Record<string, unknown>[];
  t.equal(events.length, 100);
  t.same(Object.keys(events[0]!).sort(), ['action', 'created_at', 'detail', 'ip_address']);
  t.ok(String(events[0]!.created_at) > String(events[99]!.created_at), 'newest first');
});

t.test(
  'cookie-authenticated changes refuse a foreign Origin; JSON routes need a JSON content type',
  async (t) => {
    const app = await startTestApp(t, { env: { CORS_ALLOWED_ORIGINS: 'https://partner.example' } });
    const c = await registered(app, 'csrf@example.com');
    const evil = await c.request(
      'PATCH',
      '/profile',
      { display_name: 'pwned' },
      { Origin: 'https://evil.example' },
    );
    t.same([evil.status, evil.body], [403, { success: false, message: 'origin not allowed' }]);
    const logout = await c.request('POST', '/auth/logout', undefined, { Origin: 'https://evil.example' });
    t.equal(logout.status, 403);
    t.equal((await c.get('/auth/me')).status, 200, 'still signed in');
    const anonymous = await new Client(app.base).request(
      'PATCH',
      '/profile',
      { display_name: 'x' },
      {
        Origin: 'https://evil.example',
      },
    );
    t.same(
      [anonymous.status, anonymous.body],
      [401, { success: false, message: 'not authenticated' }],
      'no cookie is 401 whatever the Origin',
    );
    t.equal(
      (
        await c.request(
          'PATCH',
          '/profile',
          { display_name: 'ok' },
          { Origin: app.base.replace('127.0.0.1', 'localhost') },
        )
      ).status,
      403,
      'only the configured base origin',
    );
    t.equal(
      (await c.request('PATCH', '/profile', { display_name: 'own' }, { Origin: 'http://localhost:8080' }))
        .status,
      200,
      'PUBLIC_BASE_URL origin',
    );
    t.equal(
      (
        await c.request(
          'PATCH',
          '/profile',
          { display_name: 'partner' },
          { Origin: 'https://partner.example' },
        )
      ).status,
      200,
    );
    const form = await c.request('PATCH', '/profile', 'display_name=x', {
      'Content-Type': 'application/x-www-form-urlencoded',
    });
    t.same(
      [form.status, form.body],
      [415, { success: false, message: 'content type must be application/json' }],
    );
    t.equal((await c.get('/profile')).body.data.display_name, 'partner');
  },
);

/** The addresses named by the "new sign-in" alerts mailed to `email`, oldest first. */
async function newSignInAlerts(app: TestApp, email: string): Promise<string[]> {
  return (await outboxFor(app.dataDir, email))
    .filter((m) => m.subject?.endsWith('new sign-in'))
    .map((m) => /from a new address \(([^)]+)\)/.exec(m.text)?.[1] ?? m.text);
}

t.test(
  'a sign-in from an address the account never used mails the user; the sign-up address counts as used (issue 3)',
  async (t) => {
    const app = await startTestApp(t);
    const signUp = async (email: string, ip: string) => {
      const res = await new Client(app.base, { ip }).post('/auth/register', { email, password: PASSWORD });
      t.equal(res.status, 201);
    };
    const signIn = async (email: string, ip: string) => {
      const res = await new Client(app.base, { ip }).post('/auth/login', {
        identifier: email,
        password: PASSWORD,
      });
      t.equal(res.status, 200, `${email} signs in from ${ip}`);
    };
    // Each case ends with a sign-in that must alert: once its mail is in, any alert the earlier
    // sign-ins sent (they went out before it) is in too.
    const alertsOnceIn = async (email: string, last: string) => {
      await waitForMail(app, email, (list) => list.some((m) => m.text.includes(`(${last})`)));
      return newSignInAlerts(app, email);
    };

    await signUp('same@example.com', '203.0.113.1');
    await signIn('same@example.com', '203.0.113.1'); // the first sign-in, from the sign-up address
    await signIn('same@example.com', '203.0.113.7');
    t.same(
      await alertsOnceIn('same@example.com', '203.0.113.7'),
      ['203.0.113.7'],
      'no alert for the sign-up address',
    );

    await signUp('moved@example.com', '203.0.113.2');
    await signIn('moved@example.com', '203.0.113.99'); // the first sign-in, from elsewhere
    await signIn('moved@example.com', '203.0.113.2');
    await signIn('moved@example.com', '203.0.113.99');
    await signIn('moved@example.com', '203.0.113.8');
    t.same(
      await alertsOnceIn('moved@example.com', '203.0.113.8'),
      ['203.0.113.99', '203.0.113.8'],
      'the first sign-in from a new address alerts; addresses used before do not',
    );
    const alert = (await outboxFor(app.dataDir, 'moved@example.com')).find((m) =>
      m.subject?.endsWith('new sign-in'),
    );
    t.match(alert?.text, 'Your account was signed in to from a new address (203.0.113.99)');
  },
);
