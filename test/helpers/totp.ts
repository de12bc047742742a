import { createHmac } from 'node:crypto';

/**
 * RFC 6238 TOTP written from the RFC, independent of otplib, so tests check the product
 * against the standard rather than against the library it uses.
 */
export function hotp(key: Buffer, counter: number, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const totpAt = (key: Buffer, unixSeconds: number, digits = 6): string =>
  hotp(key, Math.floor(unixSeconds / 30), digits);

/** RFC 4648 base32 (no padding needed), as authenticator apps read it. */
export function base32Decode(input: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of input.replace(/=+$/, '').toUpperCase()) {
    const idx = alphabet.indexOf(ch);
    if (idx < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export const totpForSecret = (base32Secret: string, at: Date): string =>
  totpAt(base32Decode(base32Secret), Math.floor(at.getTime() / 1000));
