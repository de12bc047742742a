import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { outboxFor, registered, waitForSubject } from '../helpers/identity.js';
import { storeRows, type StoredRow } from '../helpers/store.js';
import { addPasskey, beginRegistration, finishRegistration, SoftAuthenticator } from '../helpers/webauthn.js';

/** Every row of a table, read straight from the app's store. */
function rows(app: TestApp, table: string): Promise<StoredRow[]> {
  return storeRows(app.app.deps.db, table);
}

/** What a refused call must leave as it was: passkeys, security events, the outbox. */
async function snapshot(app: TestApp) {
  await app.app.deps.background.drain(); // a notice of the last change is mailed after its answer
  return {
    passkeys: await rows(app, 'passkeys'),
    events: await rows(app, 'security_events'),
    outbox: (await outboxFor(app.dataDir, 'pk@example.com')).length,
  };
}

const authenticatorFor = (app: TestApp) => new SoftAuthenticator(app.config.webauthnOrigin);

t.test('begin-registration answers creation options and an opaque, hashed X-Passkey-Token', async (t) => {
  const app = await startTestApp(t, { env: { SERVICE_NAME: 'Cafe Wi-Fi' } });
  const c = await registered(app, 'pk@example.com');
  const me = (await c.get('/auth/me')).body.data;
  const res = await c.post('/auth/passkeys/begin-registration', { name: 'Laptop' });
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const token = res.headers.get('x-passkey-token') ?? '';
  t.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.equal(res.body.success, true);
  const options = res.body.data;
  t.match(options, {
    rp: { name: 'Cafe Wi-Fi', id: 'localhost' },
    user: {
      id: Buffer.from(me.id.replace(/-/g, ''), 'hex').toString('base64url'),
      name: 'pk@example.com',
      displayName: 'pk@example.com',
    },
    timeout: 180_000,
    attestation: 'none',
    excludeCredentials: [],
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  t.match(options.challenge, /^[A-Za-z0-9_-]{22,}$/);
  const [stored] = await rows(app, 'passkey_challenges');
  t.match(stored, { kind: 'registration', user_id: me.id, name: 'Laptop', challenge: options.challenge });
  t.notOk(
    JSON.stringify(await rows(app, 'passkey_challenges')).includes(token),
    'only a hash of the token is kept',
  );

  await addPasskey(c, authenticatorFor(app));
  const again = (await c.post('/auth/passkeys/begin-registration', { name: '' })).body.data;
  t.same(
    again.excludeCredentials,
    [{ id: (await rows(app, 'passkeys'))[0]?.id, type: 'public-key', transports: ['internal'] }],
    'the browser is asked not to register the same authenticator twice',
  );
});

t.test('WEBAUTHN_RPID and WEBAUTHN_ORIGIN override what PUBLIC_BASE_URL gives', async (t) => {
  const app = await startTestApp(t, {
    env: {
      PUBLIC_BASE_URL: 'https://id.venue.example',
      WEBAUTHN_RPID: 'venue.example',
      WEBAUTHN_ORIGIN: 'https://login.venue.example',
    },
  });
  const c = await registered(app, 'pk@example.com');
  const { options, token } = await beginRegistration(c);
  t.equal(options.rp.id, 'venue.example');
  const auth = new SoftAuthenticator('https://id.venue.example');
  const refused = await finishRegistration(c, token, auth.create(options));
  t.equal(refused.status, 400, 'a ceremony on the base URL is not the configured origin');
  const good = await beginRegistration(c);
  const ok = await finishRegistration(
    c,
    good.token,
    new SoftAuthenticator('https://login.venue.example').create(good.options),
  );
  t.equal(ok.status, 201);
});

t.test(
  'finish-registration stores the passkey and answers 201 {id, created_at} with no envelope',
  async (t) => {
    const app = await startTestApp(t);
    const c = await registered(app, 'pk@example.com');
    const auth = authenticatorFor(app);
    const { options, token } = await beginRegistration(c, '  Work laptop  ');
    app.clock.advance('2m');
    const credential = auth.create(options);
    credential.response.transports = ['usb', 'carrier-pigeon', 'usb', 'internal'];
    const res = await finishRegistration(c, token, credential);
    const createdAt = app.clock.now().toISOString();
    const id = auth.credentials[0]!.id;
    t.same([res.status, res.body], [201, { id, created_at: createdAt }]);

    t.same((await c.get('/auth/passkeys')).body, {
      success: true,
      data: [{ id, name: 'Work laptop', created_at: createdAt, last_used_at: createdAt }],
    });
    const [row] = await rows(app, 'passkeys');
    t.equal(row?.public_key, auth.credentials[0]?.cosePublicKey.toString('base64url'), 'the COSE key');
    t.equal(row?.counter, 0);
    t.equal(row?.transports, '["usb","internal"]', 'known transport hints, each once');

    const events = (await c.get('/auth/security-events')).body.data;
    t.match(events[0], { action: 'passkey_added', detail: 'Work laptop', ip_address: c.ip });
    const mail = await waitForSubject(app, 'pk@example.com', 'passkey added');
    t.match(mail.text, /A passkey \("Work laptop"\) was added to your account/);
    t.notOk(mail.text.includes(id), 'the credential id is not mailed');

    const replay = await finishRegistration(c, token, auth.create(options));
    t.same(
      [replay.status, replay.body],
      [401, { success: false, message: 'passkey challenge expired or already used' }],
    );
  },
);

t.test('a passkey name is trimmed, defaults to "Passkey" and has at most 100 characters', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'pk@example.com');
  const auth = authenticatorFor(app);
  await addPasskey(c, auth, '   ');
  await addPasskey(c, auth, 'é'.repeat(100));
  const names = ((await c.get('/auth/passkeys')).body.data as { name: string }[]).map((p) => p.name).sort();
  t.same(names, ['Passkey', 'é'.repeat(100)]);
  const before = (await rows(app, 'passkey_challenges')).length;
  t.same((await c.post('/auth/passkeys/begin-registration', { name: 'x'.repeat(101) })).body, {
    success: false,
    message: 'passkey name must be 100 characters or fewer',
  });
  t.same((await c.post('/auth/passkeys/begin-registration', { name: 7 })).body, {
    success: false,
    message: 'invalid request body',
  });
  t.equal((await rows(app, 'passkey_challenges')).length, before, 'no ceremony was opened');
});

t.test('finish-registration refuses every bad call of §4.3 and changes nothing', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'pk@example.com');
  const other = await registered(app, 'other@example.com');
  const auth = authenticatorFor(app);
  const { options, token } = await beginRegistration(c);
  const good = auth.create(options);
  const before = await snapshot(app);
  const expired = { success: false, message: 'passkey challenge expired or already used' };

  t.same(
    (
      await new Client(app.base).post('/auth/passkeys/finish-registration', good, {
        'X-Passkey-Token': token,
      })
    ).body,
    {
      success: false,
      message: 'not authenticated',
    },
  );
  const missing = await finishRegistration(c, '', good);
  t.same(
    [missing.status, missing.body],
    [400, { success: false, message: 'missing X-Passkey-Token header' }],
  );
  t.same((await finishRegistration(c, 'made-up', good)).body, expired, 'unknown token');
  t.same((await finishRegistration(other, token, good)).body, expired, "another user's token");
  for (const body of ['{"id":', '[]', '"text"']) {
    const res = await c.request('POST', '/auth/passkeys/finish-registration', body, {
      'X-Passkey-Token': token,
    });
    t.same([res.status, res.body], [400, { success: false, message: 'invalid request body' }], body);
  }
  for (const body of [
    { ...good, type: 'other' },
    { ...good, rawId: 'x' },
    { ...good, response: {} },
    { ...good, id: 5 },
  ]) {
    const res = await finishRegistration(c, token, body);
    t.same(
      [res.status, res.body],
      [400, { success: false, message: 'could not verify passkey' }],
      'not a credential',
    );
  }
  t.same(await snapshot(app), before, 'nothing stored, recorded or mailed');

  const ok = await finishRegistration(c, token, good);
  t.equal(ok.status, 201, 'none of those used the ceremony up');
});

t.test('a credential that fails verification uses up its ceremony; an old one has expired', async (t) => {
  const app = await startTestApp(t);
  const c = await registered(app, 'pk@example.com');
  const auth = authenticatorFor(app);
  const before = await snapshot(app);
  const couldNot = { success: false, message: 'could not verify passkey' };
  for (const tweaks of [{ origin: 'http://evil.example' }, { challenge: 'AAAA' }, { rpId: 'evil.example' }]) {
    const { options, token } = await beginRegistration(c);
    const bad = await finishRegistration(c, token, auth.create(options, tweaks));
    t.same([bad.status, bad.body], [400, couldNot], JSON.stringify(tweaks));
    const retry = await finishRegistration(c, token, auth.create(options));
    t.equal(retry.status, 401, 'single use, whatever the outcome');
  }
  const { options, token } = await beginRegistration(c);
  app.clock.advance('3m');
  t.same((await finishRegistration(c, token, auth.create(options))).body, {
    success: false,
    message: 'passkey challenge expired or already used',
  });
  await beginRegistration(c);
  t.same(
    (await rows(app, 'passkey_challenges')).map((r) => r.expires_at),
    [new Date(app.clock.now().getTime() + 180_000).toISOString()],
    'a new ceremony sweeps away the expired ones',
  );
  t.same(await snapshot(app), before);
  const logs = app.logs.events('passkey.registration_refused');
  t.equal(logs.length, 3);
});

t.test('a credential already registered, to anyone, is refused', async (t) => {
  const app = await startTestApp(t);
  const a = await registered(app, 'pk@example.com');
  const b = await registered(app, 'b@example.com');
  const auth = authenticatorFor(app);
  await addPasskey(a, auth);
  const { options, token } = await beginRegistration(b);
  const res = await finishRegistration(b, token, auth.create(options, { reuse: auth.credentials[0]! }));
  t.same([res.status, res.body], [400, { success: false, message: 'could not verify passkey' }]);
  t.same((await b.get('/auth/passkeys')).body.data, []);
  t.equal((await rows(app, 'passkeys')).length, 1);
});

t.test('DELETE /auth/passkeys/{id} removes only the caller’s own passkey', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'pk@example.com');
  const stranger = await registered(app, 'stranger@example.com');
  const id = await addPasskey(owner, authenticatorFor(app));
  const before = await snapshot(app);
  const notFound = { success: false, message: 'passkey not found' };

  const foreign = await stranger.delete(`/auth/passkeys/${id}`);
  t.same([foreign.status, foreign.body], [404, notFound], 'looks exactly like a missing one');
  t.same((await owner.delete('/auth/passkeys/nope')).body, notFound);
  t.equal((await new Client(app.base).delete(`/auth/passkeys/${id}`)).status, 401);
  t.same(await snapshot(app), before, 'nothing changed');

  const ok = await owner.delete(`/auth/passkeys/${id}`);
  t.same([ok.status, ok.body], [200, { success: true, message: 'passkey removed' }]);
  t.same((await owner.get('/auth/passkeys')).body.data, []);
  t.match((await owner.get('/auth/security-events')).body.data[0], {
    action: 'passkey_removed',
    detail: 'Laptop',
  });
  await waitForSubject(app, 'pk@example.com', 'passkey removed');
  t.same((await owner.delete(`/auth/passkeys/${id}`)).body, notFound, 'gone');
  t.equal(
    (await owner.post('/auth/passkeys/login/begin', { identifier: 'pk@example.com' })).status,
    401,
    'and no longer offered for sign-in',
  );
});

t.test('passkey routes need a session (and the list is per user)', async (t) => {
  const app = await startTestApp(t);
  const anon = new Client(app.base);
  for (const [method, route] of [
    ['POST', '/auth/passkeys/begin-registration'],
    ['GET', '/auth/passkeys'],
  ] as const) {
    const res = await anon.request(method, route, method === 'POST' ? { name: 'x' } : undefined);
    t.same([res.status, res.body], [401, { success: false, message: 'not authenticated' }], route);
  }
  const a = await registered(app, 'pk@example.com');
  await addPasskey(a, authenticatorFor(app));
  t.same((await (await registered(app, 'b@example.com')).get('/auth/passkeys')).body, {
    success: true,
    data: [],
  });
});
