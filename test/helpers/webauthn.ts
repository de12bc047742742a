import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { Client } from './client.js';

/**
 * A software WebAuthn authenticator written from the WebAuthn Level 3 and CTAP2 texts (CBOR,
 * COSE ES256 keys, "none" attestation, ECDSA P-256 assertions), independent of the server
 * library, so API tests can run every ceremony without a browser. The browser tests check the
 * same routes against Chromium's own authenticator.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(n < 0x10000 ? 3 : 5);
  b[0] = (major << 5) | (n < 0x10000 ? 25 : 26);
  if (n < 0x10000) b.writeUInt16BE(n, 1);
  else b.writeUInt32BE(n, 1);
  return b;
}

/** RFC 8949 encoding of the few types attestation objects and COSE keys use. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([cborHead(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: string | Buffer): Buffer => createHash('sha256').update(data).digest();
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const b64u = (b: Buffer): string => b.toString('base64url');

/** Authenticator data flags (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  cosePublicKey: Buffer;
  counter: number;
}

/** What a test can bend in a ceremony to make it fail in one specific way. */
export interface Tweaks {
  origin?: string;
  challenge?: string;
  rpId?: string;
  /** The signature counter to report (default: the last one plus `step`). */
  counter?: number;
  /** Sign with this credential instead of the first one the options allow. */
  credential?: SoftCredential;
  /** Corrupt the signature. */
  badSignature?: boolean;
  /** Claim this user handle instead of the credential's own. */
  userHandle?: string;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  readonly origin: string;
  /** How much the counter moves per assertion; 0 is an authenticator that does not count. */
  step: number;

  constructor(origin: string, options: { step?: number } = {}) {
    this.origin = origin;
    this.step = options.step ?? 1;
  }

  #clientData(type: string, challenge: string, tweaks: Tweaks): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: tweaks.challenge ?? challenge,
        origin: tweaks.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }

  /** navigator.credentials.create(): a new ES256 credential, or `reuse` an existing one. */
  create(options: CreationOptions, tweaks: Tweaks & { reuse?: SoftCredential } = {}) {
    let credential = tweaks.reuse;
    if (!credential) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const coordinate = (c: string | undefined) => Buffer.from(c ?? '', 'base64url');
      credential = {
        id: b64u(randomBytes(32)),
        rpId: tweaks.rpId ?? options.rp.id ?? new URL(this.origin).hostname,
        userHandle: options.user.id,
        privateKey,
        // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
        cosePublicKey: cbor(
          new Map<Cbor, Cbor>([
            [1, 2],
            [3, -7],
            [-1, 1],
            [-2, coordinate(jwk.x)],
            [-3, coordinate(jwk.y)],
          ]),
        ),
        counter: 0,
      };
      this.credentials.push(credential);
    }
    const rawId = Buffer.from(credential.id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([
      sha256(credential.rpId),
      Buffer.from([UP | UV | AT]),
      u32(credential.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      rawId,
      credential.cosePublicKey,
    ]);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(this.#clientData('webauthn.create', options.challenge, tweaks)),
        attestationObject: b64u(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by the first allowed credential. */
  get(options: RequestOptions, tweaks: Tweaks = {}) {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const credential = tweaks.credential ?? this.credentials.find((c) => !allowed || allowed.includes(c.id));
    if (!credential) throw new Error('the soft authenticator holds no allowed credential');
    credential.counter = tweaks.counter ?? credential.counter + this.step;
    const authData = Buffer.concat([
      sha256(credential.rpId),
      Buffer.from([UP | UV]),
      u32(credential.counter),
    ]);
    const clientData = this.#clientData('webauthn.get', options.challenge, tweaks);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    if (tweaks.badSignature)
      signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0x01, signature.length - 1);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: tweaks.userHandle ?? credential.userHandle,
      },
    };
  }
}

const TOKEN = 'X-Passkey-Token';

/** begin-registration: the options and the token. */
export async function beginRegistration(c: Client, name = 'Laptop') {
  const res = await c.post('/auth/passkeys/begin-registration', { name });
  if (res.status !== 200)
    throw new Error(`begin-registration: ${String(res.status)} ${JSON.stringify(res.body)}`);
  return { options: res.body.data as CreationOptions, token: res.headers.get(TOKEN) ?? '' };
}

export const finishRegistration = (c: Client, token: string, credential: unknown) =>
  c.post('/auth/passkeys/finish-registration', credential, token === '' ? {} : { [TOKEN]: token });

/** A whole registration ceremony; returns the new passkey's id. */
export async function addPasskey(c: Client, auth: SoftAuthenticator, name = 'Laptop'): Promise<string> {
  const { options, token } = await beginRegistration(c, name);
  const res = await finishRegistration(c, token, auth.create(options));
  if (res.status !== 201)
    throw new Error(`finish-registration: ${String(res.status)} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** login/begin: the options and the token (throws unless 200). */
export async function beginLogin(c: Client, identifier: string) {
  const res = await c.post('/auth/passkeys/login/begin', { identifier });
  if (res.status !== 200) throw new Error(`login/begin: ${String(res.status)} ${JSON.stringify(res.body)}`);
  return { options: res.body.data as RequestOptions, token: res.headers.get(TOKEN) ?? '' };
}

export const finishLogin = (c: Client, token: string, assertion: unknown) =>
  c.post('/auth/passkeys/login/finish', assertion, token === '' ? {} : { [TOKEN]: token });

/** A whole login ceremony. */
export async function passkeyLogin(
  c: Client,
  auth: SoftAuthenticator,
  identifier: string,
  tweaks: Tweaks = {},
) {
  const { options, token } = await beginLogin(c, identifier);
  return finishLogin(c, token, auth.get(options, tweaks));
}
