import { createHmac, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import t from 'tap';
import { rememberedTokens, signJwt, verifyJwt, type VerifyOptions } from '../../src/oauth/jwt.js';
import { publicJwk } from '../../src/oauth/keys.js';

/*
 * The hot path's own RS256 (src/oauth/jwt.ts: node:crypto with a held KeyObject, the compact JWS
 * built from base64url parts) against jose, both ways, and the refusals that keep verification
 * as strict as jose's with alg, kid, typ and issuer pinned.
 */

const ISSUER = 'https://accounts.example';
const NOW = 1_800_000_000;

function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey };
}
const a = keyPair('key-a');
const b = keyPair('key-b');

async function jwks(...keys: { kid: string; publicKey: KeyObject }[]) {
  const list: JWK[] = [];
  for (const k of keys)
    list.push({ ...(await exportJWK(k.publicKey)), kid: k.kid, alg: 'RS256', use: 'sig' });
  return createLocalJWKSet({ keys: list });
}

const options = (over: Partial<VerifyOptions> = {}): VerifyOptions => ({
  keyFor: (kid) => (kid === a.kid ? a.publicKey : kid === b.kid ? b.publicKey : undefined),
  typ: 'at+jwt',
  issuer: ISSUER,
  now: NOW,
  ...over,
});

/** Claims of various shapes: unicode, long strings, nested values, numbers. */
function randomClaims(i: number): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: `user-${randomBytes(8).toString('hex')}`,
    aud: `client-${String(i)}`,
    client_id: `client-${String(i)}`,
    scope: ['openid', 'profile', 'email', 'phone'].slice(0, 1 + (i % 4)).join(' '),
    iat: NOW - (i % 50),
    exp: NOW + 900 - (i % 50),
    jti: randomBytes(16).toString('base64url'),
    ...(i % 3 === 0 ? { name: `Zoë ${'ü'.repeat(i % 7)} 名前 ${String(i)}` } : {}),
    ...(i % 5 === 0 ? { nested: { list: [1, 'two', null, true], deep: { x: i } } } : {}),
  };
}

t.test('every token signJwt makes verifies with jose against the JWKS, with the same claims', async (t) => {
  const keySet = await jwks(a, b);
  for (let i = 0; i < 60; i++) {
    const claims = randomClaims(i);
    const key = i % 2 === 0 ? a : b;
    const typ = i % 4 === 0 ? 'JWT' : 'at+jwt';
    const token = await signJwt(claims, { kid: key.kid, privateKey: key.privateKey }, typ);
    const { payload, protectedHeader } = await jwtVerify(token, keySet, {
      issuer: ISSUER,
      algorithms: ['RS256'],
      typ,
      currentDate: new Date(NOW * 1000),
    });
    t.same(protectedHeader, { alg: 'RS256', typ, kid: key.kid });
    t.same(payload, claims);
    // …and our own verifier agrees.
    t.same(verifyJwt(token, options({ typ })), claims);
  }
});

t.test('every token jose signs (RS256, our header) verifies with verifyJwt', async (t) => {
  for (let i = 0; i < 60; i++) {
    const claims = randomClaims(i);
    const key = i % 2 === 0 ? a : b;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid })
      .sign(key.privateKey);
    t.same(verifyJwt(token, options()), claims);
  }
});

t.test('refused: tampering, other algorithms, unknown kid, wrong typ or issuer, expiry', async (t) => {
  const claims = randomClaims(1);
  const good = await signJwt(claims, { kid: a.kid, privateKey: a.privateKey }, 'at+jwt');
  t.ok(verifyJwt(good, options()), 'the untouched token passes');
  const [header = '', payload = '', signature = ''] = good.split('.');
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  // Each byte position of the signature, and a changed claim, break it.
  for (let i = 0; i < 40; i++) {
    const sig = Buffer.from(signature, 'base64url');
    const at = (i * 37) % sig.length;
    sig[at] = (sig[at] ?? 0) ^ (1 << (i % 8));
    t.equal(verifyJwt(`${header}.${payload}.${sig.toString('base64url')}`, options()), null);
  }
  const forged = part({ ...claims, sub: 'someone-else' });
  t.equal(verifyJwt(`${header}.${forged}.${signature}`, options()), null, 'a changed payload');
  t.equal(
    verifyJwt(`${part({ alg: 'RS256', typ: 'at+jwt', kid: b.kid })}.${payload}.${signature}`, options()),
    null,
    'a header naming another known key',
  );

  // alg "none", and HS256 keyed with the public key (the classic confusion), are refused.
  const none = `${part({ alg: 'none', typ: 'at+jwt', kid: a.kid })}.${payload}.`;
  t.equal(verifyJwt(none, options()), null, 'alg none, empty signature');
  const noneSigned = `${part({ alg: 'none', typ: 'at+jwt', kid: a.kid })}.${payload}.${signature}`;
  t.equal(verifyJwt(noneSigned, options()), null, 'alg none with a signature');
  const hsHeader = part({ alg: 'HS256', typ: 'at+jwt', kid: a.kid });
  const pem = a.publicKey.export({ type: 'spki', format: 'pem' });
  const hs = createHmac('sha256', pem).update(`${hsHeader}.${payload}`).digest('base64url');
  t.equal(verifyJwt(`${hsHeader}.${payload}.${hs}`, options()), null, 'HS256 keyed with the public key');
  const ps = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: a.kid })
    .sign(a.privateKey);
  t.equal(verifyJwt(ps, options()), null, 'PS256 with the right key');

  // Keys, types, issuers and times.
  t.equal(verifyJwt(good, options({ keyFor: () => undefined })), null, 'kid no longer published');
  const noKid = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
    .sign(a.privateKey);
  t.equal(verifyJwt(noKid, options()), null, 'no kid');
  const unknownKid = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'nobody' })
    .sign(a.privateKey);
  t.equal(verifyJwt(unknownKid, options()), null, 'unknown kid');
  t.equal(verifyJwt(good, options({ typ: 'JWT' })), null, 'an access token where an ID token is wanted');
  t.equal(verifyJwt(good, options({ issuer: 'https://evil.example' })), null, 'another issuer');
  t.equal(verifyJwt(good, options({ now: claims.exp as number })), null, 'expired at exp');
  t.ok(verifyJwt(good, options({ now: (claims.exp as number) - 1 })), 'valid the second before');
  const noExp = { ...claims };
  delete noExp.exp;
  const noExpToken = await signJwt(noExp, { kid: a.kid, privateKey: a.privateKey }, 'at+jwt');
  t.equal(verifyJwt(noExpToken, options()), null, 'no exp at all');
  const future = await signJwt(
    { ...claims, nbf: NOW + 120 },
    { kid: a.kid, privateKey: a.privateKey },
    'at+jwt',
  );
  t.equal(verifyJwt(future, options()), null, 'not before a time two minutes ahead');

  // Malformed compact forms.
  for (const bad of [
    '',
    'a.b',
    `${good}.x`,
    `${header}.${payload}`,
    `${header}.${payload}.${signature}=`,
    `${header}.${payload}.+/${signature}`,
    ` ${good}`,
  ])
    t.equal(verifyJwt(bad, options()), null, `malformed: ${JSON.stringify(bad.slice(0, 12))}…`);
  t.equal(
    verifyJwt(`${part(['RS256'])}.${payload}.${signature}`, options()),
    null,
    'a header that is not an object',
  );
});

t.test(
  'a verified token is remembered only with the key that verified it, and its claims checked each time',
  async (t) => {
    const claims = randomClaims(7);
    const token = await signJwt(claims, { kid: a.kid, privateKey: a.privateKey }, 'at+jwt');
    t.same(verifyJwt(token, options()), claims, 'verified, and now remembered');
    t.same(verifyJwt(token, options()), claims, 'again');
    // The kid now names another key (a key replaced under the same kid): checked anew, and refused.
    const swapped = options({ keyFor: (kid) => (kid === a.kid ? b.publicKey : undefined) });
    t.equal(verifyJwt(token, swapped), null, 'another key for the kid refuses it');
    // An equal key in another object (another keyring of the same database) verifies it anew.
    const copy = createPublicKey(a.publicKey.export({ type: 'spki', format: 'pem' }));
    t.same(verifyJwt(token, options({ keyFor: (kid) => (kid === a.kid ? copy : undefined) })), claims);
    t.equal(verifyJwt(token, options({ keyFor: () => undefined })), null, 'unpublished: refused');
    t.equal(verifyJwt(token, options({ now: claims.exp as number })), null, 'expired: refused');
    t.equal(verifyJwt(token, options({ typ: 'JWT' })), null, 'wrong typ: refused');
    t.equal(verifyJwt(token, options({ issuer: 'https://evil.example' })), null, 'another issuer: refused');
    const payload = verifyJwt(token, options());
    t.ok(payload && Object.isFrozen(payload), 'the remembered claims cannot be changed by a caller');
    // Past the bound the oldest are forgotten: memory stays bounded.
    for (let i = 0; i < 2100; i++) {
      const other = await signJwt(
        { ...claims, jti: `j-${String(i)}` },
        { kid: a.kid, privateKey: a.privateKey },
        'at+jwt',
      );
      t.ok(verifyJwt(other, options()));
    }
    t.equal(rememberedTokens(), 2048, 'at most 2048 remembered');
    t.same(verifyJwt(token, options()), claims, 'still verifies after being forgotten');
  },
);

t.test(
  "a signing key's public JWK and kid (RFC 7638 thumbprint) are jose's, from node:crypto alone",
  async (t) => {
    for (const { publicKey } of [a, b, keyPair('key-c')]) {
      const { jwk, kid } = publicJwk(publicKey);
      const theirs = await exportJWK(publicKey);
      t.same(
        jwk,
        { kty: theirs.kty, n: theirs.n, e: theirs.e },
        'the same members and values as jose exports',
      );
      t.equal(kid, await calculateJwkThumbprint(theirs, 'sha256'), 'the same thumbprint as jose computes');
    }
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    t.throws(() => publicJwk(ec), /RSA/, 'only RSA keys sign here');
  },
);
