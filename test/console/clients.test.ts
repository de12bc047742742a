import { sql, type RawBuilder } from 'kysely';
import t, { type Test } from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import type { Client } from '../helpers/client.js';
import { verifiedUser, registered } from '../helpers/identity.js';
import { authorizeCode, codeFlowTokens, consoleClient, pkcePair, tokenRequest } from '../helpers/oauth.js';
import { storeRows, storeTables } from '../helpers/store.js';

const CLIENT_KEYS = [
  'allowed_scopes',
  'created_at',
  'has_secret',
  'homepage_url',
  'id',
  'name',
  'redirect_uris',
  'status',
  'type',
];

async function project(owner: Client, name = 'Acme Portal'): Promise<string> {
  return (await owner.post('/console/projects', { name })).body.data.id as string;
}

const good = {
  name: 'Acme App',
  redirect_uris: ['https://acme.example/cb'],
  allowed_scopes: ['openid', 'email'],
};

t.test('create: 201 with the client and a secret shown once; only its sha256 is stored', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'c@example.com');
  const pid = await project(owner);
  const res = await owner.post(`/console/projects/${pid}/clients`, {
    ...good,
    client_type: 'confidential',
    homepage_url: 'https://acme.example',
  });
  t.equal(res.status, 201);
  t.equal(res.headers.get('cache-control'), 'no-store');
  const { client, client_secret: secret } = res.body.data as {
    client: Record<string, unknown>;
    client_secret: string;
  };
  t.same(Object.keys(client).sort(), CLIENT_KEYS);
  t.match(client, {
    name: 'Acme App',
    type: 'confidential',
    status: 'testing',
    has_secret: true,
    allowed_scopes: ['openid', 'email'],
  });
  t.match(client.id, /^acme-portal-[a-z0-9]{6}$/);
  t.match(secret, /^cask_[A-Za-z0-9_-]{43}$/);
  t.equal(secret.length, 48);

  const db = app.app.deps.db;
  const stored = (
    await db
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .where('id', '=', client.id as string)
      .executeTakeFirst()
  )?.secret_hash;
  t.match(stored, /^sha256\$[0-9a-f]{64}$/);
  const everything = await storeTables(db, { sqliteInternal: true });
  for (const table of everything) {
    const dump = JSON.stringify(await storeRows(db, table));
    t.notMatch(dump, secret.slice(5), `no plaintext secret in ${table}`);
  }
  const listed = (await owner.get(`/console/projects/${pid}/clients`)).body.data as Record<string, unknown>[];
  t.notMatch(JSON.stringify(listed), secret.slice(5), 'never shown again');
  t.same((await owner.get(`/console/projects/${pid}/clients/${String(client.id)}`)).body.data, listed[0]);
});

t.test('create: every rule of the client creation table', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'rules@example.com');
  const pid = await project(owner);
  const create = async (body: Record<string, unknown>) => {
    app.clock.advance('1h'); // stay clear of the 20-per-hour limiter
    return owner.post(`/console/projects/${pid}/clients`, body);
  };
  const publicClient = await create({ ...good, client_type: '' });
  t.match(
    publicClient.body.data,
    { client: { type: 'public', has_secret: false }, client_secret: null },
    "'' is public",
  );
  t.match((await create({ ...good })).body.data.client, { type: 'public' }, 'omitted is public');
  const cases: [string, Record<string, unknown>, string][] = [
    ['empty name', { ...good, name: ' ' }, 'name must be between 1 and 100 characters'],
    ['bad type', { ...good, client_type: 'secret' }, 'client_type must be public or confidential'],
    ['no URIs', { ...good, redirect_uris: [] }, 'redirect_uris must contain between 1 and 20 URIs'],
    [
      '21 URIs',
      { ...good, redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${String(i)}`) },
      'redirect_uris must contain between 1 and 20 URIs',
    ],
    [
      'relative',
      { ...good, redirect_uris: ['/callback'] },
      'each redirect URI must be an absolute scheme://… URI of at most 512 characters',
    ],
    [
      '513 chars',
      { ...good, redirect_uris: [`https://a.example/${'x'.repeat(495)}`] },
      'each redirect URI must be an absolute scheme://… URI of at most 512 characters',
    ],
    [
      'fragment',
      { ...good, redirect_uris: ['https://a.example/cb#frag'] },
      'each redirect URI must be an absolute scheme://… URI of at most 512 characters',
    ],
    [
      'wildcard',
      { ...good, redirect_uris: ['https://*.example.com/cb'] },
      'redirect URIs may not contain wildcards',
    ],
    [
      'javascript',
      { ...good, redirect_uris: ['javascript://alert(1)'] },
      'redirect URI scheme must be https, http or a custom app scheme',
    ],
    [
      'no scopes',
      { ...good, allowed_scopes: [] },
      'allowed_scopes must contain at least one of openid, profile, email, phone',
    ],
    [
      'unknown scope',
      { ...good, allowed_scopes: ['openid', 'admin'] },
      'allowed_scopes may only contain openid, profile, email, phone',
    ],
    [
      'bad homepage',
      { ...good, homepage_url: 'ftp://acme.example' },
      'logo_url, homepage_url and privacy_policy_url must be http:// or https:// URLs',
    ],
  ];
  for (const [label, body, message] of cases) {
    const res = await create(body);
    t.equal(res.status, 400, label);
    t.equal(res.body.message, message, label);
  }
  t.equal(
    (await create({ ...good, redirect_uris: 'https://a.example/cb' })).body.message,
    'invalid request body',
  );
  const okUris = [
    'https://a.example/cb',
    'http://localhost:3000/cb',
    'com.example.app://oauth/cb',
    `https://a.example/${'x'.repeat(494)}`,
  ];
  const ok = await create({
    ...good,
    redirect_uris: okUris,
    logo_url: 'https://a.example/logo.png',
    privacy_policy_url: 'https://a.example/privacy',
  });
  t.equal(ok.status, 201);
  t.same(ok.body.data.client.redirect_uris, okUris);
  t.equal(
    (await owner.get(`/console/projects/${pid}/clients`)).body.data.length,
    3,
    'failed creations left nothing',
  );
});

t.test('25 clients per project; the create limiter allows 20 per hour per IP', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'many@example.com');
  const pid = await project(owner);
  for (let i = 0; i < 20; i++)
    t.equal((await owner.post(`/console/projects/${pid}/clients`, good)).status, 201);
  const limited = await owner.post(`/console/projects/${pid}/clients`, good);
  t.same([limited.status, limited.body.message], [429, 'too many requests, try again later']);
  app.clock.advance('1h');
  for (let i = 0; i < 5; i++)
    t.equal((await owner.post(`/console/projects/${pid}/clients`, good)).status, 201);
  const over = await owner.post(`/console/projects/${pid}/clients`, good);
  t.same(
    [over.status, over.body],
    [400, { success: false, message: 'quota exceeded: client limit of 25 reached' }],
  );
});

t.test('PATCH is a partial merge; [] clears; omitted fields stay', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'patch@example.com');
  const pid = await project(owner);
  const created = await owner.post(`/console/projects/${pid}/clients`, {
    ...good,
    redirect_uris: ['http://localhost/cb'],
  });
  const url = `/console/projects/${pid}/clients/${String(created.body.data.client.id)}`;
  const patch = (body: Record<string, unknown>) => owner.patch(url, body);

  const renamed = await patch({ name: 'Renamed' });
  t.match(renamed.body.data, {
    name: 'Renamed',
    redirect_uris: ['http://localhost/cb'],
    allowed_scopes: ['openid', 'email'],
    status: 'testing',
  });
  t.equal((await patch({ status: 'live' })).body.message, 'status must be testing, production or disabled');
  t.same((await patch({ status: 'production', redirect_uris: ['https://acme.example/cb'] })).body, {
    success: false,
    message: 'publishing requires at least one https:// redirect_uri and a homepage_url',
  });
  t.same((await owner.get(url)).body.data, renamed.body.data, 'a refused PATCH changes nothing');
  const cleared = await patch({ redirect_uris: [], allowed_scopes: [], homepage_url: null });
  t.match(cleared.body.data, { name: 'Renamed', redirect_uris: [], allowed_scopes: [], status: 'testing' });
  t.notOk('homepage_url' in cleared.body.data, 'cleared URL is omitted');
  t.equal((await patch({ redirect_uris: ['https://*.x/cb'] })).status, 400);
});

t.test('the client status table of §3.1, row by row, with the publishing gate', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'status@example.com');
  const pid = await project(owner);
  const gate = 'publishing requires at least one https:// redirect_uri and a homepage_url';
  const publishable = { redirect_uris: ['https://acme.example/cb'], homepage_url: 'https://acme.example' };
  const bare = { redirect_uris: ['http://localhost/cb'], homepage_url: null };
  type Status = 'testing' | 'production' | 'disabled';
  /** A new client in `from` whose fields are `fields` (production ones are created publishable). */
  const clientIn = async (from: Status, fields: Record<string, unknown>) => {
    app.clock.advance('1h'); // stay clear of the 20-per-hour create limiter
    const created = await owner.post(`/console/projects/${pid}/clients`, { ...good, ...fields });
    t.equal(created.status, 201);
    const url = `/console/projects/${pid}/clients/${String(created.body.data.client.id)}`;
    if (from !== 'testing') t.equal((await owner.patch(url, { status: from })).body.data?.status, from);
    return { url, id: created.body.data.client.id as string };
  };
  const statusChanges = async (id: string) =>
    (await audit(owner, pid)).filter((e) => e.action === 'client.status_changed' && e.target_id === id);

  const rows: {
    row: string;
    from: Status;
    fields: Record<string, unknown>;
    patch: Record<string, unknown>;
    to?: Status;
    refused?: string;
  }[] = [
    {
      row: 'testing → testing: no change',
      from: 'testing',
      fields: bare,
      patch: { status: 'testing' },
      to: 'testing',
    },
    {
      row: 'testing → production: refused by the gate',
      from: 'testing',
      fields: bare,
      patch: { status: 'production' },
      refused: gate,
    },
    {
      row: 'testing → production: through the gate',
      from: 'testing',
      fields: bare,
      patch: { status: 'production', ...publishable },
      to: 'production',
    },
    {
      row: 'testing → disabled',
      from: 'testing',
      fields: bare,
      patch: { status: 'disabled' },
      to: 'disabled',
    },
    {
      row: 'production → production: no change, and not gated',
      from: 'production',
      fields: publishable,
      patch: { status: 'production', ...bare },
      to: 'production',
    },
    {
      row: 'production without a status in the PATCH: not gated either',
      from: 'production',
      fields: publishable,
      patch: bare,
      to: 'production',
    },
    {
      row: 'production → disabled',
      from: 'production',
      fields: publishable,
      patch: { status: 'disabled' },
      to: 'disabled',
    },
    {
      row: 'disabled → testing',
      from: 'disabled',
      fields: bare,
      patch: { status: 'testing' },
      to: 'testing',
    },
    {
      row: 'disabled → production: refused by the gate',
      from: 'disabled',
      fields: bare,
      patch: { status: 'production' },
      refused: gate,
    },
    {
      row: 'disabled → production: refused without a homepage',
      from: 'disabled',
      fields: { ...bare, redirect_uris: ['https://acme.example/cb'] },
      patch: { status: 'production' },
      refused: gate,
    },
    {
      row: 'disabled → production: through the gate',
      from: 'disabled',
      fields: bare,
      patch: { status: 'production', ...publishable },
      to: 'production',
    },
    {
      row: 'production → testing: outside the table',
      from: 'production',
      fields: publishable,
      patch: { status: 'testing' },
      refused: 'a production client cannot go back to testing; disable it instead',
    },
    {
      row: 'disabled → disabled: outside the table (no "no change" row)',
      from: 'disabled',
      fields: bare,
      patch: { status: 'disabled' },
      refused: 'the client is already disabled',
    },
    {
      row: 'disabled, a rename without a status: no move',
      from: 'disabled',
      fields: bare,
      patch: { name: 'Renamed while disabled' },
      to: 'disabled',
    },
  ];
  for (const { row, from, fields, patch, to, refused } of rows) {
    const { url, id } = await clientIn(from, fields);
    const before = (await owner.get(url)).body.data as Record<string, unknown>;
    const changesBefore = (await statusChanges(id)).length;
    const res = await owner.patch(url, patch);
    if (refused !== undefined) {
      t.same([res.status, res.body], [400, { success: false, message: refused }], row);
      t.same((await owner.get(url)).body.data, before, `${row}: nothing changed`);
      t.equal((await statusChanges(id)).length, changesBefore, `${row}: nothing audited`);
      continue;
    }
    t.same([res.status, res.body.data?.status ?? res.body.message], [200, to], row);
    const stored = (await owner.get(url)).body.data as { status: string; redirect_uris: string[] };
    t.equal(stored.status, to, `${row}: stored`);
    if (Array.isArray(patch.redirect_uris))
      t.same(stored.redirect_uris, patch.redirect_uris, `${row}: the rest of the PATCH applied`);
    const changes = await statusChanges(id);
    if (to === from) t.equal(changes.length, changesBefore, `${row}: no status_changed entry`);
    else t.match(changes[0], { metadata: { from, to } }, `${row}: audited`);
  }

  // any → disabled: archiving the project disables all its clients at once.
  const archivedPid = await project(owner, 'Archived Portal');
  const inArchived: string[] = [];
  for (const from of ['testing', 'production', 'disabled'] as const) {
    app.clock.advance('1h');
    const created = await owner.post(`/console/projects/${archivedPid}/clients`, { ...good, ...publishable });
    const url = `/console/projects/${archivedPid}/clients/${String(created.body.data.client.id)}`;
    if (from !== 'testing') await owner.patch(url, { status: from });
    inArchived.push(url);
  }
  t.same(
    await Promise.all(inArchived.map(async (url) => (await owner.get(url)).body.data.status as string)),
    ['testing', 'production', 'disabled'],
  );
  await owner.delete(`/console/projects/${archivedPid}`);
  t.same(
    await Promise.all(inArchived.map(async (url) => (await owner.get(url)).body.data.status as string)),
    ['disabled', 'disabled', 'disabled'],
    'any → disabled when the project is archived',
  );
});

async function audit(owner: Client, pid: string) {
  return (await owner.get(`/console/projects/${pid}/audit-logs`)).body.data as {
    action: string;
    target_type: string;
    target_id: string;
    metadata?: Record<string, unknown>;
    ip_address?: string;
  }[];
}

t.test('rotate-secret: the old secret dies at once; public clients have none to rotate', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'rot@example.com');
  const client = await consoleClient(owner);
  const check = (secret: string) =>
    tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: 'nope',
      client_id: client.clientId,
      client_secret: secret,
    });
  t.equal((await check(client.secret!)).body.error, 'invalid_grant', 'the secret authenticates');
  const rotated = await owner.post(
    `/console/projects/${client.projectId}/clients/${client.clientId}/rotate-secret`,
  );
  t.equal(rotated.status, 200);
  t.same(Object.keys(rotated.body.data).sort(), ['client', 'client_secret', 'note']);
  const fresh = rotated.body.data.client_secret as string;
  t.match(fresh, /^cask_[A-Za-z0-9_-]{43}$/);
  t.not(fresh, client.secret);
  t.equal((await check(client.secret!)).status, 401, 'old secret refused');
  t.equal((await check(fresh)).body.error, 'invalid_grant', 'new secret works');

  const pub = await consoleClient(owner, { type: 'public', name: 'Mobile' });
  const res = await owner.post(`/console/projects/${pub.projectId}/clients/${pub.clientId}/rotate-secret`);
  t.same(
    [res.status, res.body],
    [400, { success: false, message: 'public clients have no secret to rotate' }],
  );
  const trail = await audit(owner, client.projectId);
  t.equal(trail[0]?.action, 'client.secret_rotated');
  t.notMatch(JSON.stringify(trail), fresh.slice(5), 'no secret in the audit trail');
});

t.test('audit trail: every mutation, newest first, with target, metadata and IP', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'aud@example.com');
  const { projectId, clientId } = await consoleClient(owner);
  const url = `/console/projects/${projectId}/clients/${clientId}`;
  await owner.patch(url, { name: 'New name', status: 'disabled' });
  await owner.patch(`/console/projects/${projectId}`, { name: 'Renamed' });
  await owner.delete(url);
  await owner.delete(`/console/projects/${projectId}`);
  const trail = await audit(owner, projectId);
  t.same(
    trail.map((e) => e.action),
    [
      'project.archived',
      'client.deleted',
      'project.renamed',
      'client.status_changed',
      'client.updated',
      'client.created',
      'project.created',
    ],
  );
  t.match(
    trail.find((e) => e.action === 'client.created'),
    { target_type: 'client', target_id: clientId, metadata: { name: 'Partner App' }, ip_address: owner.ip },
  );
  t.match(
    trail.find((e) => e.action === 'client.status_changed'),
    { metadata: { from: 'testing', to: 'disabled' } },
  );
  t.match(
    trail.find((e) => e.action === 'client.updated'),
    { metadata: { fields: ['name'] } },
  );
  const raw = (await owner.get(`/console/projects/${projectId}/audit-logs`)).body.data[0] as Record<
    string,
    unknown
  >;
  t.same(Object.keys(raw).sort(), [
    'action',
    'created_at',
    'id',
    'ip_address',
    'metadata',
    'target_id',
    'target_type',
  ]);
});

t.test('audit trail: capped at the newest 100 entries', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'cap@example.com');
  const pid = await project(owner, 'Name 0');
  for (let i = 1; i <= 101; i++) {
    const res = await owner.patch(`/console/projects/${pid}`, { name: `Name ${String(i)}` });
    t.equal(res.status, 200);
  }
  const trail = await audit(owner, pid); // 102 entries were written: project.created and 101 renames
  t.equal(trail.length, 100);
  t.same(trail[0]?.metadata, { from: 'Name 100', to: 'Name 101' }, 'the newest first');
  t.same(trail.at(-1)?.metadata, { from: 'Name 1', to: 'Name 2' }, 'the 100th newest last');
  t.notOk(
    trail.some((e) => e.action === 'project.created'),
    'the two oldest (project.created, the first rename) are not shown',
  );
});

t.test(
  'console PATCH and create cannot set first_party: an ignored field, as on every identity route',
  async (t) => {
    const app = await startTestApp(t);
    const owner = await registered(app, 'fp@example.com');
    const pid = await project(owner);
    const created = await owner.post(`/console/projects/${pid}/clients`, { ...good, first_party: true });
    t.equal(created.status, 201);
    const id = created.body.data.client.id as string;
    const url = `/console/projects/${pid}/clients/${id}`;
    const patched = await owner.patch(url, { first_party: true, name: 'Still third-party' });
    t.same([patched.status, patched.body.data.name], [200, 'Still third-party']);
    t.notOk('first_party' in patched.body.data, 'the console view has no first_party');
    t.equal((await owner.patch(url, { first_party: 1 })).status, 200);
    t.equal((await owner.get(`/oauth/clients/${id}`)).body.data.first_party, false);
    const row = await app.app.deps.db
      .selectFrom('oauth_clients')
      .select('first_party')
      .where('id', '=', id)
      .executeTakeFirst();
    t.equal(row?.first_party, 0);
    t.match((await audit(owner, pid))[0], { action: 'client.updated', metadata: { fields: ['name'] } });

    const user = await verifiedUser(app, 'fpu@example.com');
    const { challenge } = pkcePair();
    const query = new URLSearchParams({
      client_id: id,
      redirect_uri: good.redirect_uris[0]!,
      response_type: 'code',
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    t.equal(
      (await user.get(`/oauth/authorize?${query}`)).headers.get('location'),
      `/consent?${query}`,
      'its users still see the consent screen',
    );
  },
);

t.test('stats count consents, live refresh families and live access tokens', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'stats@example.com');
  const client = await consoleClient(owner);
  const stats = async () =>
    (await owner.get(`/console/projects/${client.projectId}/clients/${client.clientId}/stats`)).body.data;
  t.same(await stats(), { connected_users: 0, active_grants: 0, live_access_tokens: 0 });
  const users = [await verifiedUser(app, 'u1@example.com'), await verifiedUser(app, 'u2@example.com')];
  for (const u of users) await codeFlowTokens(app, u, client);
  await codeFlowTokens(app, users[0]!, client);
  t.same(await stats(), { connected_users: 2, active_grants: 3, live_access_tokens: 3 });
  app.clock.advance('16m');
  t.same(
    await stats(),
    { connected_users: 2, active_grants: 3, live_access_tokens: 0 },
    'access tokens expire',
  );
});

t.test('hard delete: every consent, code and token of the client goes, live ones dead at once', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'del@example.com');
  const client = await consoleClient(owner);
  const bystander = await consoleClient(owner, { name: 'Bystander' });
  const users = [await verifiedUser(app, 'u1@example.com'), await verifiedUser(app, 'u2@example.com')];
  const tokens = [];
  for (const u of users) tokens.push((await codeFlowTokens(app, u, client)).body);
  const rotated = await tokenRequest(app, {
    grant_type: 'refresh_token',
    refresh_token: tokens[0].refresh_token as string,
    client_id: client.clientId,
    client_secret: client.secret!,
  });
  t.equal(rotated.status, 200);
  await authorizeCode(users[1]!, client.clientId, pkcePair().challenge); // a code never exchanged
  const other = (await codeFlowTokens(app, users[0]!, bystander)).body;
  const userinfo = async (token: string) =>
    (await fetch(`${app.base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${token}` } })).status;
  t.equal(await userinfo(rotated.body.access_token as string), 200, 'a live access token before the delete');

  const db = app.app.deps.db;
  const familyIds = (
    await db
      .selectFrom('oauth_refresh_families')
      .select('id')
      .where('client_id', '=', client.clientId)
      .execute()
  ).map((f) => f.id);
  const families = sql.join(familyIds.length > 0 ? familyIds : [null]); // `in (null)`: none
  const count = async (query: RawBuilder<{ n: number }>) => (await query.execute(db)).rows[0]?.n;
  const rows = async () => ({
    oauth_consents: await count(
      sql`select count(*) as n from oauth_consents where client_id = ${client.clientId}`,
    ),
    oauth_codes: await count(sql`select count(*) as n from oauth_codes where client_id = ${client.clientId}`),
    oauth_refresh_families: await count(
      sql`select count(*) as n from oauth_refresh_families where client_id = ${client.clientId}`,
    ),
    // by the family ids read before the delete, so orphans would count
    oauth_refresh_tokens: await count(
      sql`select count(*) as n from oauth_refresh_tokens where family_id in (${families})`,
    ),
    oauth_access_tokens: await count(
      sql`select count(*) as n from oauth_access_tokens where client_id = ${client.clientId}`,
    ),
  });
  t.same(await rows(), {
    oauth_consents: 2,
    oauth_codes: 3,
    oauth_refresh_families: 2,
    oauth_refresh_tokens: 3,
    oauth_access_tokens: 3,
  });

  const res = await owner.delete(`/console/projects/${client.projectId}/clients/${client.clientId}`);
  t.same(res.body, { success: true, message: 'client deleted — all its tokens and grants are revoked' });
  t.equal(await userinfo(rotated.body.access_token as string), 401, 'refused at once, clock unmoved');
  t.same(await rows(), {
    oauth_consents: 0,
    oauth_codes: 0,
    oauth_refresh_families: 0,
    oauth_refresh_tokens: 0,
    oauth_access_tokens: 0,
  });
  const refresh = await tokenRequest(app, {
    grant_type: 'refresh_token',
    refresh_token: rotated.body.refresh_token as string,
    client_id: client.clientId,
    client_secret: client.secret!,
  });
  t.equal(refresh.status, 401, 'the client is gone');
  t.same(
    ((await users[0]!.get('/connections')).body.data as { client_id: string }[]).map((c) => c.client_id),
    [bystander.clientId],
    'its consents are gone; the other client’s stay',
  );
  t.equal(await userinfo(other.access_token as string), 200, 'another client’s tokens are untouched');
  t.equal((await owner.get(`/console/projects/${client.projectId}/clients/${client.clientId}`)).status, 404);
});

t.test('GET /oauth/clients/{client_id}: public metadata only; first_party set by the operator', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'pub@example.com');
  const pid = await project(owner);
  const created = await owner.post(`/console/projects/${pid}/clients`, {
    ...good,
    client_type: 'confidential',
    homepage_url: 'https://acme.example',
  });
  const id = created.body.data.client.id as string;
  const res = await owner.get(`/oauth/clients/${id}`);
  t.same(res.body, {
    success: true,
    data: {
      client_id: id,
      name: 'Acme App',
      allowed_scopes: ['openid', 'email'],
      status: 'testing',
      first_party: false,
      homepage_url: 'https://acme.example',
    },
  });
  t.notMatch(JSON.stringify(res.body), /redirect|secret|cask_/);
  t.same((await owner.get('/oauth/clients/nope-123456')).body, {
    success: false,
    message: 'client not found',
  });
  t.equal((await owner.get('/oauth/clients/nope-123456')).status, 404);

  await app.app.close();
  await runCliFirstParty(t, app, id);
});

async function runCliFirstParty(t: Test, app: TestApp, id: string) {
  const env = cliEnv(app.dataDir);
  const on = await runCli(['clients', 'first-party', id, 'on', '--json'], env);
  t.equal(on.code, 0, on.stderr);
  t.match(JSON.parse(on.stdout), { client_id: id, first_party: true });
  const listed = JSON.parse((await runCli(['clients', 'list', '--json'], env)).stdout) as {
    client_id: string;
    first_party: boolean;
  }[];
  t.match(listed, [{ client_id: id, first_party: true }]);
  const bad = await runCli(['clients', 'first-party', id, 'maybe'], env);
  t.equal(bad.code, 2);
  const unknown = await runCli(['clients', 'first-party', 'nope-123456', 'on'], env);
  t.same([unknown.code, unknown.stderr], [1, 'error: client not found\n']);
}
