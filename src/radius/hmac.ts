import { hash } from 'node:crypto';

/**
 * HMAC-MD5 (RFC 2104) with the key's pad blocks computed once per shared secret. HMAC(K, m) =
 * MD5((K' ⊕ opad) ‖ MD5((K' ⊕ ipad) ‖ m)), K' the key (or MD5 of a key longer than the 64-octet
 * block) padded with zeros to a block. K' ⊕ ipad and K' ⊕ opad depend on the key alone: they are
 * made once per secret, and each message costs two calls of node:crypto's one-shot MD5, with no
 * key setup and no Hash or Hmac object. Only the construction is here; MD5 itself is node:crypto's.
 *
 * The pad *states* (each block hashed once into a createHash('md5') state, every message starting
 * from Hash.copy()) were measured too, and cost more than createHmac itself: every copy is a new
 * Hash stream object, which outweighs the two block compressions it saves. bench/radius/hmac.ts
 * prints the three side by side (docs/decisions/0040-radius-hot-path.md).
 * Pinned by RFC 2202's HMAC-MD5 vectors and a differential test against createHmac
 * (test/radius/hmac.test.ts).
 */

const BLOCK = 64;
const IPAD = 0x36;
const OPAD = 0x5c;
const DIGEST = 16;

export class HmacMd5 {
  readonly #ipad: Buffer;
  readonly #opad: Buffer;

  constructor(key: Buffer | string) {
    let k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
    if (k.length > BLOCK) k = hash('md5', k, 'buffer');
    this.#ipad = Buffer.alloc(BLOCK, IPAD);
    this.#opad = Buffer.alloc(BLOCK, OPAD);
    for (let i = 0; i < k.length; i++) {
      const b = k[i] ?? 0;
      this.#ipad[i] = b ^ IPAD;
      this.#opad[i] = b ^ OPAD;
    }
  }

  /** HMAC-MD5 of the parts, in order, as one message. */
  digest(...parts: readonly Buffer[]): Buffer {
    let length = BLOCK;
    for (const p of parts) length += p.length;
    const inner = Buffer.allocUnsafe(length);
    this.#ipad.copy(inner, 0);
    let at = BLOCK;
    for (const p of parts) at += p.copy(inner, at);
    const outer = Buffer.allocUnsafe(BLOCK + DIGEST);
    this.#opad.copy(outer, 0);
    hash('md5', inner, 'buffer').copy(outer, BLOCK);
    return hash('md5', outer, 'buffer');
  }
}

/** Keys by secret; routers are few, but a bound keeps a spray of secrets from growing it. */
const keys = new Map<string, HmacMd5>();
const MAX_KEYS = 4096;

/** The HMAC-MD5 key of a shared secret, made once and kept (bounded: the oldest goes first). */
export function hmacMd5Key(secret: string): HmacMd5 {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) {
      const oldest = keys.keys().next();
      if (!oldest.done) keys.delete(oldest.value);
    }
    key = new HmacMd5(secret);
    keys.set(secret, key);
  }
  return key;
}

/** HMAC-MD5 keyed with `secret` over `data`. */
export const hmacMd5 = (secret: string, data: Buffer): Buffer => hmacMd5Key(secret).digest(data);
