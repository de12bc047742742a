import { createHash } from 'node:crypto';
import t from 'tap';
import { safeEqual, sha256Hex } from '../../src/lib/crypto.js';
import {
  authorize,
  expireDue,
  findLiveForPurchase,
  revoke,
  type CoaClient,
  type DisconnectTarget,
} from '../../src/wifi/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { aPaidPurchase, aPlan } from '../helpers/wifi.js';

/** The credentials of a paid purchase, read back through the access-grant service itself. */
async function paidGrant(t: TestApp, planOverrides = {}) {
  const purchase = await aPaidPurchase(t, await aPlan(t.app, planOverrides));
  const live = await findLiveForPurchase(t.app.deps, purchase.invoiceId, sha256Hex(purchase.key));
  if (live.kind !== 'live') throw new Error(`expected a live grant, got ${live.kind}`);
  return { ...purchase, username: live.grant.username, password: live.password, grantId: live.grant.id };
}

const pap = (password: string) => (stored: string) => safeEqual(password, stored);

/** RADIUS CHAP (RFC 1994): MD5(ident ‖ password ‖ challenge), as radius/access.ts will check it. */
const chap = (ident: number, response: Buffer, challenge: Buffer) => (stored: string) =>
  createHash('md5').update(Buffer.of(ident)).update(stored).update(challenge).digest().equals(response);

t.test('authorize accepts the grant with PAP or CHAP and reports seconds left and limits', async (t) => {
  const app = await startTestApp(t);
  const g = await paidGrant(app, { data_limit_bytes: 2_000_000_000 });
  t.match(g.username, /^[a-z2-9]{8}$/);
  t.match(g.password, /^[a-z2-9]{10}$/);
  const accept = {
    decision: 'accept',
    grantId: g.grantId,
    username: g.username,
    expiresAt: '2026-01-15T10:00:00.000Z',
    secondsLeft: 3600,
    limits: { dataLimitBytes: 2_000_000_000 },
  };
  t.same(await authorize(app.app.deps, { username: g.username, check: pap(g.password) }), accept);

  app.clock.advance('10m');
  const challenge = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const response = createHash('md5').update(Buffer.of(7)).update(g.password).update(challenge).digest();
  t.same(await authorize(app.app.deps, { username: g.username, check: chap(7, response, challenge) }), {
    ...accept,
    secondsLeft: 3000,
  });
  t.equal(
    (await authorize(app.app.deps, { username: ` ${g.username.toUpperCase()}`, check: pap(g.password) }))
      .decision,
    'accept',
    'typed with a capital letter and a stray space',
  );
});

t.test('authorize rejects unknown users, wrong passwords, revoked and expired grants', async (t) => {
  const app = await startTestApp(t);
  const g = await paidGrant(app);
  const deps = app.app.deps;
  t.same(await authorize(deps, { username: 'nobody00', check: () => true }), {
    decision: 'reject',
    reason: 'unknown',
  });
  t.same(await authorize(deps, { username: g.username, check: pap(`${g.password}x`) }), {
    decision: 'reject',
    reason: 'bad_password',
  });
  app.clock.advance(3599_000);
  t.equal((await authorize(deps, { username: g.username, check: pap(g.password) })).decision, 'accept');
  app.clock.advance('1s');
  t.same(
    await authorize(deps, { username: g.username, check: pap(g.password) }),
    { decision: 'reject', reason: 'expired' },
    'at expires_at the grant is over',
  );

  const other = await paidGrant(app);
  await revoke(deps, other.grantId, 'staff disconnect');
  t.same(await authorize(deps, { username: other.username, check: pap(other.password) }), {
    decision: 'reject',
    reason: 'revoked',
  });
  t.same(
    await authorize(deps, { username: other.username, check: pap('wrong') }),
    { decision: 'reject', reason: 'bad_password' },
    'a wrong password learns nothing about the grant state',
  );
});

/** A CoA client standing in for the RADIUS side: records what it was asked and what was committed then. */
function recordingCoa(app: TestApp) {
  const calls: { target: DisconnectTarget; committed: unknown }[] = [];
  const coa: CoaClient = {
    async disconnect(target) {
      const row = await app.app.deps.db
        .selectFrom('grants')
        .select(['revoked_at', 'revoke_reason', 'ended_at'])
        .where('id', '=', target.grantId)
        .executeTakeFirstOrThrow();
      calls.push({ target, committed: row });
      return { status: 'disconnected', sessions: 1 };
    },
  };
  return { coa, calls };
}

t.test('revoke commits first, then disconnects; a second revoke keeps the first reason', async (t) => {
  const app = await startTestApp(t);
  const g = await paidGrant(app);
  const { coa, calls } = recordingCoa(app);
  const deps = { ...app.app.deps, coa };
  const first = await revoke(deps, g.grantId, 'abuse');
  t.same(first.disconnect, { status: 'disconnected', sessions: 1 });
  t.match(calls, [
    {
      target: { grantId: g.grantId, username: g.username, reason: 'abuse' },
      committed: { revoked_at: '2026-01-15T09:00:00.000Z', revoke_reason: 'abuse' },
    },
  ]);
  app.clock.advance('1m');
  const second = await revoke(deps, g.grantId, 'again');
  t.match(second.grant, { revoked_at: '2026-01-15T09:00:00.000Z', revoke_reason: 'abuse' });
  t.same(
    (await revoke(app.app.deps, g.grantId, 'x')).disconnect,
    { status: 'not_available' },
    'without a RADIUS CoA client the outcome says so',
  );
  await t.rejects(revoke(deps, '00000000-0000-4000-8000-000000000000', 'x'), {
    status: 404,
    message: 'access grant not found',
  });
});

t.test('expireDue handles each expired grant once, after committing, and leaves live ones', async (t) => {
  const app = await startTestApp(t);
  const short = await paidGrant(app, { duration_seconds: 600 });
  const long = await paidGrant(app, { duration_seconds: 7200 });
  const revoked = await paidGrant(app, { duration_seconds: 600 });
  await revoke(app.app.deps, revoked.grantId, 'staff');
  const { coa, calls } = recordingCoa(app);
  const deps = { ...app.app.deps, coa };

  t.same(await expireDue(deps), [], 'nothing is due yet');
  app.clock.advance('10m');
  t.same(await expireDue(deps), [
    { grantId: short.grantId, username: short.username, disconnect: { status: 'disconnected', sessions: 1 } },
  ]);
  t.match(calls, [
    {
      target: { grantId: short.grantId, reason: 'expired' },
      committed: { ended_at: '2026-01-15T09:10:00.000Z' },
    },
  ]);
  t.same(await expireDue(deps), [], 'handled once');
  app.clock.advance('2h');
  t.same(
    (await expireDue(deps)).map((e) => e.grantId),
    [long.grantId],
    'a revoked grant was disconnected when it was revoked',
  );
});

t.test('findLiveForPurchase tells why there are no credentials', async (t) => {
  const app = await startTestApp(t);
  const g = await paidGrant(app);
  const deps = app.app.deps;
  const find = (key: string, id = g.invoiceId) => findLiveForPurchase(deps, id, sha256Hex(key));
  t.equal((await find(g.key)).kind, 'live');
  t.same(await find('some-other-key-123456'), { kind: 'key_mismatch' });
  t.same(await find(g.key, '00000000-0000-4000-8000-000000000000'), { kind: 'unknown_invoice' });
  app.clock.advance('1h');
  t.same(await find(g.key), { kind: 'expired' });
});
