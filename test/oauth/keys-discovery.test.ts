import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import t from 'tap';
import { ManualClock } from '../../src/lib/clock.js';
import { Keyring, makeKeyPair } from '../../src/oauth/index.js';
import { startTestApp } from '../helpers/app.js';
import { boxEnv, cliEnv, runCli } from '../helpers/cli.js';
import { registered, verifiedUser } from '../helpers/identity.js';
import { codeFlowTokens, consoleClient } from '../helpers/oauth.js';

t.test('discovery: exactly the spec fields with absolute URLs, plus RFC 9207', async (t) => {
  const app = await startTestApp(t, { env: { PUBLIC_BASE_URL: 'https://id.venue.example' } });
  const res = await fetch(`${app.base}/.well-known/openid-configuration`);
  t.equal(res.headers.get('cache-control'), 'public, max-age=3600');
  t.same(await res.json(), {
    issuer: 'https://id.venue.example',
    authorization_endpoint: 'https://id.venue.example/oauth/authorize',
    token_endpoint: 'https://id.venue.example/oauth/token',
    jwks_uri: 'https://id.venue.example/oauth/jwks',
    userinfo_endpoint: 'https://id.venue.example/oauth/userinfo',
    response_types_supported: ['code'],
    scopes_supported: ['openid', 'profile', 'email', 'phone'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
  });
});

t.test('JWKS: RSA signing keys with kid, cache header; private keys on disk with mode 0600', async (t) => {
  const app = await startTestApp(t);
  const res = await fetch(`${app.base}/oauth/jwks`);
  t.equal(res.headers.get('cache-control'), 'public, max-age=300');
  const { keys } = (await res.json()) as { keys: Record<string, string>[] };
  t.equal(keys.length, 1);
  t.same(Object.keys(keys[0]!).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
  t.match(keys[0], { kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
  t.equal(Buffer.from(keys[0]!.n!, 'base64url').length, 256, 'RSA-2048');
  const file = path.join(app.dataDir, 'keys', `${keys[0]!.kid!}.pem`);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
});

t.test(
  'rotation: published first, signing 5 minutes later, the old key kept 16 minutes after it last signed',
  async (t) => {
    const app = await startTestApp(t);
    const owner = await registered(app, 'owner@example.com');
    const client = await consoleClient(owner);
    const user = await verifiedUser(app, 'rot@example.com');
    const jwksDocument = async () =>
      (await (await fetch(`${app.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const kids = async () => (await jwksDocument()).keys.map((k) => k.kid);
    const userinfo = async (token: string) =>
      (await fetch(`${app.base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${token}` } })).status;
    const [oldKid] = await kids();

    const rotated = await app.app.deps.keys.rotate({ now: false }); // what `hotspot-ctl keys rotate` does
    t.same((await kids()).sort(), [oldKid, rotated.kid].sort(), 'the new key is published at once');
    const stillOld = (await codeFlowTokens(app, user, client)).body.access_token as string;
    t.equal(decodeProtectedHeader(stillOld).kid, oldKid, 'but does not sign yet');

    app.clock.advance('299s'); // 4m59s: the last second of the old key
    const lastOld = (await codeFlowTokens(app, user, client)).body.access_token as string;
    const lastOldIssued = app.clock.now();
    t.equal(decodeProtectedHeader(lastOld).kid, oldKid, 'the old key still signs at 4m59s');
    app.clock.advance('1s'); // 5m: handover
    const newToken = (await codeFlowTokens(app, user, client)).body.access_token as string;
    t.equal(decodeProtectedHeader(newToken).kid, rotated.kid, 'the new key signs from 5 minutes');

    app.clock.advance('14m'); // 14 minutes past the handover; lastOld has 59 s to live
    const jwks = createLocalJWKSet(await jwksDocument());
    const verified = await jwtVerify(lastOld, jwks, {
      issuer: app.config.publicBaseUrl,
      currentDate: app.clock.now(),
    });
    t.equal(verified.protectedHeader.kid, oldKid, 'a relying party verifies it against the published JWKS');
    t.equal(await userinfo(lastOld), 200, 'and userinfo accepts it: verifiers pick the key by kid');
    t.equal(await userinfo(newToken), 200);

    app.clock.advance('1m'); // 15 minutes after the old key stopped signing
    t.same(
      (await kids()).sort(),
      [oldKid, rotated.kid].sort(),
      '15 minutes after it last signed: still published',
    );
    app.clock.advance('1m');
    await app.app.deps.keys.refresh();
    t.same(await kids(), [rotated.kid], 'dropped after the overlap');
    const after = createLocalJWKSet(await jwksDocument());
    await t.rejects(
      jwtVerify(lastOld, after, { issuer: app.config.publicBaseUrl, currentDate: lastOldIssued }),
      { code: 'ERR_JWKS_NO_MATCHING_KEY' },
      'its tokens no longer verify against the JWKS, whatever the time',
    );
    t.same(await app.app.deps.keys.dropUnpublished(), [oldKid], 'the scheduled job forgets it');
  },
);

t.test('app.ts schedules the signing-key retirement job every minute, and it forgets old keys', async (t) => {
  const app = await startTestApp(t, { timeJobs: true });
  const { scheduler, deps } = app.app;
  t.ok(scheduler.names.includes('oauth.keys'), 'registered with the scheduler');
  const next = scheduler.nextRun('oauth.keys');
  t.ok(next !== null && next.getTime() - Date.now() <= 60_000, 'node-schedule runs it within a minute');
  const [old] = await deps.keys.list();
  const fresh = await deps.keys.rotate({ now: true });
  const pem = path.join(app.dataDir, 'keys', `${old!.kid}.pem`);
  const kids = async () => (await deps.keys.list()).map((k) => k.kid);

  app.clock.advance('15m');
  await scheduler.trigger('oauth.keys');
  t.same(await kids(), [old!.kid, fresh.kid], 'kept while published');
  t.ok(existsSync(pem));
  app.clock.advance('1m');
  await scheduler.trigger('oauth.keys');
  t.same(await kids(), [fresh.kid], 'the scheduled job dropped the key 16 minutes after it stopped signing');
  t.notOk(existsSync(pem), 'and its private key file');
  t.same(app.logs.events('job.failed'), []);
});

t.test('hotspot-ctl keys list and keys rotate --now', async (t) => {
  const dataDir = path.join(t.testdir(), 'data');
  const env = await boxEnv(dataDir);
  const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as {
    kid: string;
    state: string;
  }[];
  t.equal(listed.length, 1);
  t.equal(listed[0]?.state, 'active');
  const rotated = await runCli(['keys', 'rotate', '--now', '--json'], env);
  t.equal(rotated.code, 0, rotated.stderr);
  const { kid } = JSON.parse(rotated.stdout) as { kid: string };
  const after = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as {
    kid: string;
    state: string;
    unpublish_at: string | null;
  }[];
  t.match(after, [
    { kid: listed[0]!.kid, state: 'retired' },
    { kid, state: 'active' },
  ]);
  t.type(after[0]?.unpublish_at, 'string');
  const pending = JSON.parse((await runCli(['keys', 'rotate', '--json'], env)).stdout) as { kid: string };
  t.match(JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout), [
    {},
    { kid, state: 'active' },
    { kid: pending.kid, state: 'pending' },
  ]);
  t.match((await runCli(['keys', 'list'], env)).stdout, /KID\s+STATE/);
});

t.test(
  'keys rotate from the CLI shows at the running daemon at once; --retire-old ends the old key',
  async (t) => {
    const app = await startTestApp(t, { clock: new ManualClock(new Date()) });
    const owner = await registered(app, 'owner@example.com');
    const client = await consoleClient(owner);
    const user = await verifiedUser(app, 'leak@example.com');
    const env = cliEnv(app.dataDir);
    const kids = async () =>
      ((await (await fetch(`${app.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
        (k) => k.kid,
      );
    const userinfo = async (token: string) =>
      (await fetch(`${app.base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${token}` } })).status;
    const [first] = await kids();
    const oldToken = (await codeFlowTokens(app, user, client)).body.access_token as string;
    t.equal(decodeProtectedHeader(oldToken).kid, first);
    t.equal(await userinfo(oldToken), 200);

    const rotated = await runCli(['keys', 'rotate', '--json'], env);
    t.equal(rotated.code, 0, rotated.stderr);
    const pending = (JSON.parse(rotated.stdout) as { kid: string }).kid;
    t.same((await kids()).sort(), [first, pending].sort(), 'the JWKS shows the new key right away');
    t.equal(await userinfo(oldToken), 200, 'a plain rotation leaves the old key verifying');

    const refused = await runCli(['keys', 'rotate', '--retire-old'], env);
    t.same(
      [refused.code, refused.stderr],
      [
        1,
        'error: --retire-old needs --now: without a key that signs at once there would be none to sign with\n',
      ],
    );
    t.same((await kids()).sort(), [first, pending].sort(), 'and changes nothing');

    const urgent = await runCli(['keys', 'rotate', '--now', '--retire-old'], env);
    t.equal(urgent.code, 0, urgent.stderr);
    const fresh = /^new key (\S+): published now/.exec(urgent.stdout)?.[1] ?? '';
    const ended = [first, pending]; // in the order they signed
    t.equal(
      urgent.stdout.split('\n').slice(1).join('\n'),
      `no longer published: ${ended.join(', ')}\n` +
        'access and ID tokens signed with them are refused from now on; clients need new ones\n',
      'the command says what it ended',
    );
    t.same(await kids(), [fresh], 'only the new key is published, at once');
    t.equal(await userinfo(oldToken), 401, 'a token signed with the old key is refused');
    t.notOk(existsSync(path.join(app.dataDir, 'keys', `${first ?? ''}.pem`)), 'its private key is gone');

    app.clock.advance('1m'); // past the CLI's "now", which the daemon's frozen clock started before
    const newToken = (await codeFlowTokens(app, user, client)).body.access_token as string;
    t.equal(decodeProtectedHeader(newToken).kid, fresh, 'the new key signs');
    t.equal(await userinfo(newToken), 200);

    const json = await runCli(['keys', 'rotate', '--now', '--retire-old', '--json'], env);
    t.match(JSON.parse(json.stdout), { unpublished: [fresh] }, '--json lists the unpublished kids');
  },
);

t.test(
  'first start: the first key is made while the listeners open; uses of the keyring wait for it',
  async (t) => {
    const app = await startTestApp(t);
    const { deps } = app.app;
    await deps.db.deleteFrom('signing_keys').execute(); // a new box's database
    let deliver: (pair: Awaited<ReturnType<typeof makeKeyPair>>) => void = () => undefined;
    const spare = new Promise<Awaited<ReturnType<typeof makeKeyPair>>>((resolve) => (deliver = resolve));
    const keys = new Keyring(deps, { spare });
    const made = keys.firstKeyInBackground();
    const settled: string[] = [];
    const jwks = keys.published().then((k) => (settled.push('jwks'), k));
    const signing = keys.signingKey().then((k) => (settled.push('signing'), k));
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    t.same(settled, [], 'nothing answers while the key pair is still being made');
    deliver(await makeKeyPair());
    await made;
    const [published, key] = await Promise.all([jwks, signing]);
    t.equal(published.length, 1, 'the JWKS has the new key, not an empty list');
    t.equal(published[0]?.kid, key.kid, 'and it is the key that signs');
    t.equal((await deps.db.selectFrom('signing_keys').select('kid').execute()).length, 1, 'one key row');
  },
);
