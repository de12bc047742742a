import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/client.js';
import { lastCode, PASSWORD, registered } from '../helpers/identity.js';
import { totpForSecret } from '../helpers/totp.js';
import { codeFlowTokens, consoleClient } from '../helpers/oauth.js';
import { connectProvider, socialLogin } from '../helpers/social.js';
import { ManualClock } from '../../src/lib/clock.js';
import { addStaff } from '../../src/identity/index.js';
import { addPasskey, SoftAuthenticator } from '../helpers/webauthn.js';

/** Rows per table that reference `userId` (through user_id or owner_id, or users.id itself). */
function rowsOwnedBy(app: TestApp, userId: string): Record<string, number> {
  const db = new Database(path.join(app.dataDir, 'hotspot.db'), { readonly: true });
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .pluck()
      .all() as string[];
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const columns = (db.prepare(`pragma table_info("${table}")`).all() as { name: string }[]).map(
        (c) => c.name,
      );
      const column =
        table === 'users'
          ? 'id'
          : columns.includes('user_id')
            ? 'user_id'
            : columns.includes('owner_id')
              ? 'owner_id'
              : null;
      if (column)
        counts[table] = db
          .prepare(`select count(*) from "${table}" where "${column}" = ?`)
          .pluck()
          .get(userId) as number;
    }
    return counts;
  } finally {
    db.close();
  }
}

/** An account with a row in every table that belongs to a user (MFA turned on last). */
async function busyAccount(
  app: TestApp,
  email: string,
): Promise<{ c: Client; id: string; clientId: string }> {
  const c = await registered(app, email);
  await c.post('/auth/verify-email/check', { code: await lastCode(app.dataDir, email) });
  await c.post('/auth/verify-phone/send', {
    phone: `+2557${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
  });
  const { secret } = (await c.post('/auth/mfa/setup')).body.data as { secret: string };
  await c.post('/auth/mfa/enable', { code: totpForSecret(secret, app.clock.now()) });
  // Staff with an admin session (MFA on, so the admin login needs the next TOTP step).
  await addStaff(app.app.deps, { email, role: 'viewer' });
  app.clock.advance('30s');
  const admin = await c.post('/api/v1/admin/auth/login', {
    email,
    password: PASSWORD,
    code: totpForSecret(secret, app.clock.now()),
  });
  if (admin.status !== 200) throw new Error(`admin login: ${JSON.stringify(admin.body)}`);
  // A project and client of their own, and a grant to another owner's client.
  const own = await consoleClient(c, { name: `App of ${email}` });
  const appOwner = await registered(app, `owner-of-${email}`);
  const partner = await consoleClient(appOwner, { name: `Partner for ${email}` });
  const tokens = await codeFlowTokens(app, c, partner);
  if (tokens.status !== 200) throw new Error(JSON.stringify(tokens.body));
  await c.get(`/console/projects/${own.projectId}`);
  await addPasskey(c, new SoftAuthenticator(app.config.webauthnOrigin)); // passkeys, passkey_challenges
  // A social identity: the daemon is its own upstream OpenID provider here.
  const provider = `self-${email.split('@')[0] ?? 'x'}`;
  await connectProvider(app, c, app, provider);
  const social = await socialLogin(app, c, provider);
  if (social.done.headers.get('location') !== '/account') throw new Error('social login failed');
  await new Client(app.base).post('/auth/forgot-password', { identifier: email });
  await new Client(app.base).post('/auth/login', { identifier: email, password: PASSWORD }); // MFA challenge
  return { c, id: (await c.get('/auth/me')).body.data.id as string, clientId: own.clientId };
}

t.test('DELETE /auth/account removes every row the user owns and clears the cookie', async (t) => {
  // Real time: the social login's relying party (openid-client) checks token times itself.
  const app = await startTestApp(t, { selfIssuer: true, clock: new ManualClock(new Date()) });
  const doomed = await busyAccount(app, 'gone@example.com');
  const kept = await busyAccount(app, 'kept@example.com');
  const before = rowsOwnedBy(app, doomed.id);
  for (const [table, n] of Object.entries(before))
    t.ok(n > 0, `${table} has rows for the account before deletion`);
  const keptBefore = rowsOwnedBy(app, kept.id);

  const res = await doomed.c.delete('/auth/account');
  t.same([res.status, res.body], [200, { success: true, message: 'account deleted' }]);
  t.match(doomed.c.setCookies[0], /^svc_session=; Max-Age=0/);

  const after = rowsOwnedBy(app, doomed.id);
  t.same(after, Object.fromEntries(Object.keys(before).map((k) => [k, 0])), 'nothing left in any table');
  t.same(rowsOwnedBy(app, kept.id), keptBefore, 'the other account is untouched');
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
});
