import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { registered } from '../helpers/identity.js';
import { consoleClient, tokenRequest } from '../helpers/oauth.js';

const PROJECT_KEYS = ['archived', 'created_at', 'id', 'name', 'slug'];

t.test('every console route answers 401 not authenticated without a session', async (t) => {
  const app = await startTestApp(t);
  const anon = new Client(app.base);
  const p = '/console/projects/00000000-0000-0000-0000-000000000000';
  const c = `${p}/clients/x-abcdef`;
  const routes: [string, string][] = [
    ['POST', '/console/projects'],
    ['GET', '/console/projects'],
    ['GET', p],
    ['PATCH', p],
    ['DELETE', p],
    ['GET', `${p}/audit-logs`],
    ['POST', `${p}/clients`],
    ['GET', `${p}/clients`],
    ['GET', c],
    ['PATCH', c],
    ['POST', `${c}/rotate-secret`],
    ['GET', `${c}/stats`],
    ['DELETE', c],
  ];
  for (const [method, path] of routes) {
    const res = await anon.request(method, path, method === 'POST' || method === 'PATCH' ? {} : undefined);
    t.same(
      [res.status, res.body],
      [401, { success: false, message: 'not authenticated' }],
      `${method} ${path}`,
    );
  }
});

t.test('projects: create (trimmed name, generated slug), list, get', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'dev@example.com');
  const res = await owner.post('/console/projects', { name: '  Café Büro — Staff App  ' });
  t.equal(res.status, 201);
  t.same(Object.keys(res.body.data).sort(), PROJECT_KEYS);
  t.match(res.body.data, { name: 'Café Büro — Staff App', slug: 'cafe-buro-staff-app', archived: false });
  const id = res.body.data.id as string;
  t.same((await owner.get(`/console/projects/${id}`)).body.data, res.body.data);
  t.same((await owner.get('/console/projects')).body.data, [res.body.data]);
});

t.test('project names: 1-100 characters after trimming', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'names@example.com');
  for (const name of ['', '   ', 'x'.repeat(101)]) {
    const res = await owner.post('/console/projects', { name });
    t.same(
      [res.status, res.body],
      [400, { success: false, message: 'name must be between 1 and 100 characters' }],
      JSON.stringify(name),
    );
  }
  t.equal((await owner.post('/console/projects', { name: 'ü'.repeat(100) })).status, 201);
  t.equal((await owner.post('/console/projects', { name: 42 })).status, 400);
  app.clock.advance('1h');
  t.equal((await owner.get('/console/projects')).body.data.length, 1, 'only the valid one exists');
});

t.test('slugs: at most 40 characters, -2, -3 … on collision (across owners)', async (t) => {
  const app = await startTestApp(t);
  const a = await registered(app, 'a@example.com');
  const b = await registered(app, 'b@example.com');
  const slugs = [];
  for (const owner of [a, b, a])
    slugs.push((await owner.post('/console/projects', { name: 'Guest Wi-Fi' })).body.data.slug);
  t.same(slugs, ['guest-wi-fi', 'guest-wi-fi-2', 'guest-wi-fi-3']);
  const long = 'A very long project name that goes well beyond forty characters';
  const first = (await a.post('/console/projects', { name: long })).body.data.slug as string;
  const second = (await b.post('/console/projects', { name: long })).body.data.slug as string;
  t.equal(first, 'a-very-long-project-name-that-goes-well');
  t.ok(first.length <= 40);
  t.equal(second, 'a-very-long-project-name-that-goes-wel-2');
  t.equal(second.length, 40);
  t.equal(
    (await b.post('/console/projects', { name: '日本語' })).body.data.slug,
    'project',
    'a name without Latin letters',
  );
});

t.test('rename, archive (clients disabled atomically), repeat archive, 403 once archived', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'arch@example.com');
  const { projectId, clientId } = await consoleClient(owner);
  const second = await owner.post(`/console/projects/${projectId}/clients`, {
    name: 'Second',
    client_type: 'public',
    redirect_uris: ['https://x.example/cb'],
    allowed_scopes: ['openid'],
  });
  t.same((await owner.patch(`/console/projects/${projectId}`, { name: ' Renamed ' })).body, {
    success: true,
    message: 'project renamed',
  });
  t.equal((await owner.get(`/console/projects/${projectId}`)).body.data.name, 'Renamed');
  t.same(
    (await owner.patch(`/console/projects/${projectId}`, { name: '' })).body.message,
    'name must be between 1 and 100 characters',
  );

  const archived = await owner.delete(`/console/projects/${projectId}`);
  t.same(
    [archived.status, archived.body],
    [200, { success: true, message: 'project archived — all its clients are disabled' }],
  );
  const statuses = (
    (await owner.get(`/console/projects/${projectId}/clients`)).body.data as { id: string; status: string }[]
  ).map((c) => [c.id, c.status]);
  t.same(
    statuses.sort(),
    [
      [clientId, 'disabled'],
      [second.body.data.client.id, 'disabled'],
    ].sort(),
  );
  t.same((await owner.delete(`/console/projects/${projectId}`)).body, {
    success: true,
    message: 'project already archived',
  });
  t.same((await owner.patch(`/console/projects/${projectId}`, { name: 'Again' })).body, {
    success: false,
    message: 'this project is archived',
  });
  t.equal((await owner.patch(`/console/projects/${projectId}`, { name: 'Again' })).status, 403);
  t.equal((await owner.get(`/console/projects/${projectId}`)).body.data.archived, true);
  t.equal(
    (await owner.get('/console/projects')).body.data[0].archived,
    true,
    'archived projects stay listed',
  );
  const blocked = await owner.post(`/console/projects/${projectId}/clients`, {
    name: 'Third',
    redirect_uris: ['https://x.example/cb'],
    allowed_scopes: ['openid'],
  });
  t.same([blocked.status, blocked.body.message], [403, 'this project is archived']);
  const patch = await owner.patch(`/console/projects/${projectId}/clients/${clientId}`, {
    status: 'testing',
  });
  t.same([patch.status, patch.body.message], [403, 'this project is archived']);
});

t.test("another owner's project behaves exactly like a missing one", async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'mine@example.com');
  const intruder = await registered(app, 'theirs@example.com');
  const { projectId, clientId } = await consoleClient(owner);
  const p = `/console/projects/${projectId}`;
  const c = `${p}/clients/${clientId}`;
  const missing = { success: false, message: 'project not found' };
  const checks: [string, string, unknown?][] = [
    ['GET', p],
    ['PATCH', p, { name: 'mine now' }],
    ['DELETE', p],
    ['GET', `${p}/audit-logs`],
    [
      'POST',
      `${p}/clients`,
      { name: 'x', redirect_uris: ['https://x.example/cb'], allowed_scopes: ['openid'] },
    ],
    ['GET', `${p}/clients`],
    ['GET', c],
    ['PATCH', c, { name: 'stolen' }],
    ['POST', `${c}/rotate-secret`],
    ['GET', `${c}/stats`],
    ['DELETE', c],
  ];
  for (const [method, path, body] of checks) {
    const res = await intruder.request(method, path, body);
    t.same([res.status, res.body], [404, missing], `${method} ${path}`);
    const none = await intruder.request(
      method,
      path.replace(projectId, '11111111-1111-1111-1111-111111111111'),
      body,
    );
    t.same([none.status, none.body], [404, missing], `${method} on a missing project`);
  }
  t.same((await intruder.get('/console/projects')).body.data, []);
  const mine = await owner.get(c);
  t.match(mine.body.data, { name: 'Partner App', status: 'testing' }, 'nothing changed');
  t.equal((await owner.get(`${p}/clients/${projectId}-zzzzzz`)).body.message, 'client not found');
});

t.test("another owner's client reached through one's own project id is 404", async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'mine@example.com');
  const intruder = await registered(app, 'theirs@example.com');
  const victim = await consoleClient(owner);
  const own = await consoleClient(intruder, { name: 'Intruder App' });
  const c = `/console/projects/${own.projectId}/clients/${victim.clientId}`;
  const missing = { success: false, message: 'client not found' };
  const checks: [string, string, unknown?][] = [
    ['GET', c],
    ['PATCH', c, { name: 'stolen', status: 'disabled' }],
    ['POST', `${c}/rotate-secret`],
    ['GET', `${c}/stats`],
    ['DELETE', c],
  ];
  for (const [method, path, body] of checks) {
    const res = await intruder.request(method, path, body);
    t.same([res.status, res.body], [404, missing], `${method} ${path}`);
  }
  const listed = (await intruder.get(`/console/projects/${own.projectId}/clients`)).body.data as {
    id: string;
  }[];
  t.same(
    listed.map((l) => l.id),
    [own.clientId],
    'not listed in the intruder’s project',
  );
  const mine = await owner.get(`/console/projects/${victim.projectId}/clients/${victim.clientId}`);
  t.match(mine.body.data, { name: 'Partner App', status: 'testing' }, 'nothing changed');
  const secretStillWorks = await tokenRequest(app, {
    grant_type: 'refresh_token',
    refresh_token: 'nope',
    client_id: victim.clientId,
    client_secret: victim.secret!,
  });
  t.equal(secretStillWorks.body.error, 'invalid_grant', 'its secret was not rotated');
  const actions = async (who: Client, projectId: string) =>
    ((await who.get(`/console/projects/${projectId}/audit-logs`)).body.data as { action: string }[]).map(
      (e) => e.action,
    );
  t.same(await actions(owner, victim.projectId), ['client.created', 'project.created'], 'nothing audited');
  t.same(await actions(intruder, own.projectId), ['client.created', 'project.created'], 'on either side');
});

t.test('quota: 25 active projects per owner; the create limiter: 5 per hour per IP', async (t) => {
  const app = await startTestApp(t);
  const owner = await registered(app, 'quota@example.com');
  for (let i = 1; i <= 25; i++) {
    if (i > 1 && (i - 1) % 5 === 0) app.clock.advance('1h');
    t.equal((await owner.post('/console/projects', { name: `P${String(i)}` })).status, 201);
  }
  app.clock.advance('1h');
  const over = await owner.post('/console/projects', { name: 'P26' });
  t.same(
    [over.status, over.body],
    [400, { success: false, message: 'quota exceeded: project limit of 25 reached' }],
  );
  const first = (await owner.get('/console/projects')).body.data.at(-1).id as string;
  await owner.delete(`/console/projects/${first}`);
  t.equal(
    (await owner.post('/console/projects', { name: 'P26' })).status,
    201,
    'an archived project frees a place',
  );

  const other = await registered(app, 'limit@example.com');
  app.clock.advance('1h');
  for (let i = 0; i < 5; i++)
    t.equal((await other.post('/console/projects', { name: `L${String(i)}` })).status, 201);
  const limited = await other.post('/console/projects', { name: 'L5' });
  t.same(
    [limited.status, limited.body],
    [429, { success: false, message: 'too many requests, try again later' }],
  );
});
