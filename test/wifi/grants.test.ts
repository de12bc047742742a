import { createHash } from 'node:crypto';
import t from 'tap';
import { safeEqual, sha256Hex } from '../../src/lib/crypto.js';
import {
  authorize,
  expireDue,
  findLiveForPurchase,
  revoke,
  coaNotAvailable,
  type CoaClient,
  type SessionTarget,
} from '../../src/wifi/index.js';
import { startTestApp, waitFor, type TestApp } from '../helpers/app.js';
import { aDevice, aLiveSession, aPaidPurchase, aPlan } from '../helpers/wifi.js';

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
  const g = await paidGrant(app, { data_limit_bytes: 2_000_000_000, download_kbps: 4000, upload_kbps: 1000 });
  t.match(g.username, /^[a-z2-9]{8}$/);
  t.match(g.password, /^[a-z2-9]{10}$/);
  const accept = {
    decision: 'accept',
    grantId: g.grantId,
    username: g.username,
    expiresAt: '2026-01-15T10:00:00.000Z',
    secondsLeft: 3600,
    limits: {
      dataLimitBytes: 2_000_000_000,
      dataLeftBytes: 2_000_000_000,
      maxDevices: 1,
      downloadKbps: 4000,
      uploadKbps: 1000,
    },
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
  const calls: { target: SessionTarget; committed: unknown }[] = [];
  const coa: CoaClient = {
    ...coaNotAvailable,
    async disconnect(target) {
      const row = await app.app.deps.db
        .selectFrom('radius_sessions as s')
        .innerJoin('grants as g', 'g.id', 's.grant_id')
        .select(['g.revoked_at', 'g.revoke_reason', 'g.ended_at'])
        .where('s.id', '=', target.sessionId)
        .executeTakeFirstOrThrow();
      calls.push({ target, committed: row });
      return { answer: 'ack' };
    },
  };
  return { coa, calls };
}

/** A grant with one live session on a registered router. */
async function onlineGrant(app: TestApp, planOverrides = {}, acctSessionId = 'sess-1') {
  const g = await paidGrant(app, planOverrides);
  const device =
    (await app.app.deps.db.selectFrom('devices').select('id').executeTakeFirst()) ??
    (await aDevice(app.app)).device;
  await aLiveSession(app.app, { deviceId: device.id, username: g.username, acctSessionId });
  return g;
}

t.test('revoke commits first, then disconnects; a second revoke keeps the first reason', async (t) => {
  const app = await startTestApp(t);
  const g = await onlineGrant(app);
  const { coa, calls } = recordingCoa(app);
  const deps = { ...app.app.deps, coa };
  const first = await revoke(deps, g.grantId, 'abuse');
  t.match(first.disconnect, {
    status: 'disconnected',
    sessions: [{ nasId: 'lobby-01', acctSessionId: 'sess-1', answer: 'ack' }],
  });
  t.match(calls, [
    {
      target: {
        username: g.username,
        acctSessionId: 'sess-1',
        framedIp: '10.1.0.5',
        nasId: 'lobby-01',
        clientIp: '10.1.0.1',
        coaPort: 3799,
      },
      committed: { revoked_at: '2026-01-15T09:00:00.000Z', revoke_reason: 'abuse' },
    },
  ]);
  app.clock.advance('1m');
  const second = await revoke(deps, g.grantId, 'again');
  t.match(second.grant, { revoked_at: '2026-01-15T09:00:00.000Z', revoke_reason: 'abuse' });
  t.same(second.disconnect, { status: 'no_sessions', sessions: [] }, 'the acknowledged session was closed');
  const other = await onlineGrant(app, {}, 'sess-2');
  t.match(
    (await revoke({ ...app.app.deps, coa: coaNotAvailable }, other.grantId, 'x')).disconnect,
    { status: 'not_available', sessions: [{ answer: 'not_available' }] },
    'without a RADIUS CoA client the outcome says so',
  );
  await t.rejects(revoke(deps, '00000000-0000-4000-8000-000000000000', 'x'), {
    status: 404,
    message: 'access grant not found',
  });
});

t.test('expireDue handles each expired grant once, after committing, and leaves live ones', async (t) => {
  const app = await startTestApp(t);
  const short = await onlineGrant(app, { duration_seconds: 600 }, 's-short');
  const long = await paidGrant(app, { duration_seconds: 7200 });
  const revoked = await paidGrant(app, { duration_seconds: 600 });
  await revoke(app.app.deps, revoked.grantId, 'staff');
  const { coa, calls } = recordingCoa(app);
  const deps = { ...app.app.deps, coa };

  t.same(await expireDue(deps), [], 'nothing is due yet');
  app.clock.advance('10m');
  t.match(await expireDue(deps), [
    {
      grantId: short.grantId,
      username: short.username,
      disconnect: { status: 'disconnected', sessions: [{ acctSessionId: 's-short', answer: 'ack' }] },
    },
  ]);
  t.match(calls, [
    {
      target: { username: short.username, acctSessionId: 's-short' },
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

t.test('expireDue disconnects the expired grants side by side, not one after another', async (t) => {
  const app = await startTestApp(t);
  const first = await onlineGrant(app, { duration_seconds: 600 }, 's-1');
  const second = await onlineGrant(app, { duration_seconds: 600 }, 's-2');
  // Routers that answer only when told to: one at a time, the second would never be asked.
  const asked: string[] = [];
  let answerAll = (): void => undefined;
  const answered = new Promise<void>((resolve) => (answerAll = resolve));
  const coa: CoaClient = {
    ...coaNotAvailable,
    async disconnect(target) {
      asked.push(target.acctSessionId);
      await answered;
      return { answer: 'ack' };
    },
  };
  app.clock.advance('10m');
  const run = expireDue({ ...app.app.deps, coa });
  await waitFor(() => asked.length === 2, 'both disconnects to be under way');
  t.same([...asked].sort(), ['s-1', 's-2']);
  answerAll();
  const expired = await run;
  t.same(expired.map((e) => e.grantId).sort(), [first.grantId, second.grantId].sort());
  t.ok(expired.every((e) => e.disconnect.status === 'disconnected'));
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
