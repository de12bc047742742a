import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { lastCode, PASSWORD, registered, waitForSubject } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';
import { codeFlowTokens, consoleClient, type TestClient } from '../helpers/oauth.js';
import { connectProvider, socialLogin } from '../helpers/social.js';
import { ManualClock } from '../../src/lib/clock.js';
import { addStaffForSites } from '../../src/wifi/index.js';
import { addPasskey, SoftAuthenticator } from '../helpers/webauthn.js';
import { storeForeignKeys, storeRows, storeTables } from '../helpers/store.js';

type Row = Record<string, unknown>;
/** Every row of every table in the store (helpers/store.ts storeTables), as stored. */
type Snapshot = Record<string, Row[]>;

async function snapshot(app: TestApp): Promise<Snapshot> {
  const db = app.app.deps.db;
  const all: Snapshot = {};
  for (const table of await storeTables(db)) all[table] = await storeRows(db, table);
  return all;
}

/** The tables that point at users, directly or through other tables (from the schema's foreign keys). */
async function tablesReachingUsers(app: TestApp): Promise<string[]> {
  const parents = await storeForeignKeys(app.app.deps.db);
  const reaching = new Set(['users']);
  for (let grew = true; grew;) {
    grew = false;
    for (const [table, refs] of parents)
      if (!reaching.has(table) && refs.some((r) => reaching.has(r))) {
        reaching.add(table);
        grew = true;
      }
  }
  return [...reaching].sort();
}

/**
 * What deleting `userId` must do to each table, written out by hand rather than read from the
 * schema: `owned` rows go (the user's, their projects' and clients', and every grant to those
 * clients, whoever made it); `keep` rows stay, with the user's id cleared where a record outlives
 * its author (an SMS sent by a staff member, an audit entry on someone else's project).
 */
function expectedAfterDeleting(before: Snapshot, userId: string) {
  const rows = (table: string) => before[table] ?? [];
  const projects = new Set(
    rows('projects')
      .filter((p) => p.owner_id === userId)
      .map((p) => p.id),
  );
  const clients = new Set(
    rows('oauth_clients')
      .filter((c) => projects.has(c.project_id))
      .map((c) => c.id),
  );
  const byUserOrClient = (r: Row) => r.user_id === userId || clients.has(r.client_id);
  const families = new Set(
    rows('oauth_refresh_families')
      .filter(byUserOrClient)
      .map((f) => f.id),
  );
  const byUser = (r: Row) => r.user_id === userId;
  const owned: Record<string, (r: Row) => boolean> = {
    users: (r) => r.id === userId,
    sessions: byUser,
    admin_sessions: byUser,
    staff_sites: byUser,
    verification_codes: byUser,
    password_resets: byUser,
    mfa_challenges: byUser,
    mfa_recovery_codes: byUser,
    security_events: byUser,
    passkeys: byUser,
    passkey_challenges: byUser,
    social_identities: byUser,
    projects: (r) => projects.has(r.id),
    oauth_clients: (r) => projects.has(r.project_id),
    audit_logs: (r) => projects.has(r.project_id),
    oauth_consents: byUserOrClient,
    oauth_codes: byUserOrClient,
    oauth_refresh_families: byUserOrClient,
    oauth_access_tokens: byUserOrClient,
    oauth_refresh_tokens: (r) => families.has(r.family_id),
  };
  const cleared: Record<string, string[]> = {
    sms_messages: ['sent_by'],
    audit_logs: ['actor_id'],
  };
  const expected: Snapshot = {};
  for (const [table, list] of Object.entries(before)) {
    const isOwned = owned[table] ?? (() => false);
    expected[table] = list
      .filter((r) => !isOwned(r))
      .map((r) => {
        const copy = { ...r };
        for (const column of cleared[table] ?? []) if (copy[column] === userId) copy[column] = null;
        // The venue's audit trail names staff without a foreign key: kept, author gone.
        if (table === 'wifi_audit' && copy.actor_id === userId)
          Object.assign(copy, { actor_id: null, actor: 'deleted account' });
        return copy;
      });
  }
  return { expected, owned: Object.keys(owned), cleared: Object.keys(cleared) };
}

const sorted = (list: Row[]) => list.map((r) => JSON.stringify(r)).sort();
const rowCount = (s: Snapshot) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.length]));

/** An account with rows in every table that belongs to a user (MFA turned on last). */
async function busyAccount(
  app: TestApp,
  email: string,
  phone: string,
): Promise<{ c: Client; id: string; own: TestClient }> {
  const c = await registered(app, email);
  await c.post('/auth/verify-email/check', { code: await lastCode(app.dataDir, email) });
  await c.post('/auth/verify-phone/send', { phone });
  const { secret } = (await c.post('/auth/mfa/setup')).body.data as { secret: string };
  await c.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
  // Staff limited to a site (a staff_sites row), with an admin session (MFA on, so the admin
  // login needs the next TOTP step), who sent an SMS from the admin API.
  await addStaffForSites(app.app.deps, { email, role: 'operator', sites: ['default'] });
  app.clock.advance('30s');
  const admin = await c.post('/api/v1/admin/auth/login', {
    email,
    password: PASSWORD,
    code: totpForSecret(secret, app.clock.now()),
  });
  if (admin.status !== 200) throw new Error(`admin login: ${JSON.stringify(admin.body)}`);
  const sms = await c.post('/api/v1/admin/messages', {
    recipient: '+255712345678',
    message: `from ${email}`,
  });
  if (sms.status !== 202) throw new Error(`sms: ${JSON.stringify(sms.body)}`);
  // A project and client of their own (with its audit trail), and a grant to another owner's client.
  const own = await consoleClient(c, { name: `App of ${email}` });
  const appOwner = await registered(app, `owner-of-${email}`);
  const partner = await consoleClient(appOwner, { name: `Partner for ${email}` });
  const tokens = await codeFlowTokens(app, c, partner);
  if (tokens.status !== 200) throw new Error(JSON.stringify(tokens.body));
  await addPasskey(c, new SoftAuthenticator(app.config.webauthnOrigin)); // passkeys, passkey_challenges
  // A social identity: the daemon is its own upstream OpenID provider here.
  const provider = `self-${email.split('@')[0] ?? 'x'}`;
  await connectProvider(app, c, app, provider);
  const social = await socialLogin(app, c, provider);
  if (social.done.headers.get('location') !== '/account') throw new Error('social login failed');
  await new Client(app.base).post('/auth/forgot-password', { identifier: email });
  await waitForSubject(app, email, 'reset your password'); // the reset row is written in the background
  await new Client(app.base).post('/auth/login', { identifier: email, password: PASSWORD }); // MFA challenge
  return { c, id: (await c.get('/auth/me')).body.data.id as string, own };
}

t.test(
  'DELETE /auth/account removes every row the user owns, in every table, and clears the cookie',
  async (t) => {
    // Real time: the social login's relying party (openid-client) checks token times itself.
    const app = await startTestApp(t, { selfIssuer: true, clock: new ManualClock(new Date()) });
    const doomed = await busyAccount(app, 'gone@example.com', '+255711000001');
    const kept = await busyAccount(app, 'kept@example.com', '+255711000002');
    // The kept user also uses the doomed user's app: that grant goes with the app.
    t.equal((await codeFlowTokens(app, kept.c, doomed.own)).status, 200);
    const connections = async () =>
      ((await kept.c.get('/connections')).body.data as { client_id: string }[])
        .map((c) => c.client_id)
        .sort();
    const keptConnections = await connections();
    t.ok(keptConnections.includes(doomed.own.clientId));

    const before = await snapshot(app);
    const { expected, owned, cleared } = expectedAfterDeleting(before, doomed.id);
    t.same(
      await tablesReachingUsers(app),
      [...new Set([...owned, ...cleared])].sort(),
      'every table that points at users has a rule above (a new one needs its own)',
    );
    for (const userId of [doomed.id, kept.id]) {
      const mine = expectedAfterDeleting(before, userId).expected;
      for (const table of owned)
        t.ok(
          (before[table]?.length ?? 0) > (mine[table]?.length ?? 0),
          `${table} has rows of ${userId === doomed.id ? 'the doomed' : 'the kept'} account`,
        );
      t.ok(
        before.sms_messages?.some((m) => m.sent_by === userId),
        'an SMS the account sent as staff',
      );
    }

    const res = await doomed.c.delete('/auth/account');
    t.same([res.status, res.body], [200, { success: true, message: 'account deleted' }]);
    t.match(doomed.c.setCookies[0], /^svc_session=; Max-Age=0/);

    const after = await snapshot(app);
    t.same(Object.keys(after).sort(), Object.keys(before).sort(), 'the same tables');
    t.same(rowCount(after), rowCount(expected), 'count(*) of every table');
    for (const table of Object.keys(before))
      t.same(
        sorted(after[table] ?? []),
        sorted(expected[table] ?? []),
        `${table}: exactly the expected rows`,
      );
    const trace = Object.entries(after).filter(([, list]) =>
      list.some((r) => Object.values(r).some((v) => v === doomed.id || v === 'gone@example.com')),
    );
    t.same(
      trace.map(([table]) => table),
      [],
      'the account id and email are nowhere in the database',
    );

    // The records that outlive their author.
    t.match(
      after.sms_messages?.filter((m) => m.message === 'from gone@example.com'),
      [{ sent_by: null }],
      "the doomed user's SMS stays in the venue's log, author cleared",
    );
    t.match(
      after.sms_messages?.filter((m) => m.message === 'from kept@example.com'),
      [{ sent_by: kept.id }],
    );
    t.match(
      after.wifi_audit
        ?.filter((a) => a.action === 'sms.send')
        .map((a) => [a.actor_id, a.actor])
        .sort(),
      [
        [null, 'deleted account'], // ',deleted account' sorts first
        [kept.id, 'kept@example.com'],
      ],
      "the venue's audit trail keeps what the doomed user did as staff, not who they were",
    );
    t.ok(
      after.audit_logs?.some((a) => a.actor_id === kept.id),
      "the kept user's audit trail keeps its author",
    );
    t.same(
      await connections(),
      keptConnections.filter((id) => id !== doomed.own.clientId),
      "only the kept user's connection to the deleted app went",
    );
    t.equal((await kept.c.get('/auth/me')).status, 200, 'the kept user is still signed in');

    t.equal(
      (await new Client(app.base).post('/auth/login', { identifier: 'gone@example.com', password: PASSWORD }))
        .status,
      401,
    );
    t.equal(
      (await new Client(app.base).post('/auth/register', { email: 'gone@example.com', password: PASSWORD }))
        .status,
      201,
      'the email is free again',
    );
  },
);
