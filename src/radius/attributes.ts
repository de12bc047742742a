import { hash } from 'node:crypto';
import radius from 'radius';
import { ensureDictionaries } from './dictionary.js';

/**
 * Attribute values: by name through the `radius` package's dictionaries (decoding), to bytes
 * through the same dictionaries' numbers and types (encoding, done here: the package's encoder
 * allocates 4 KiB per packet with the deprecated Buffer constructor and signs in its own order),
 * and User-Password hiding (RFC 2865 §5.2). codec.ts frames and signs packets around them.
 */

ensureDictionaries();

/** MD5 of the parts in order (one-shot: about half the cost of a Hash object per call). */
export const md5 = (...parts: (Buffer | string)[]): Buffer =>
  hash(
    'md5',
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))),
    'buffer',
  );

/** Attribute values by dictionary name, as the `radius` package decodes them. */
export type Attributes = Readonly<Record<string, unknown>>;

/**
 * Decodes the attributes by name. Returns null when the package cannot make sense of them (an
 * integer that is not 4 octets, a vendor attribute that overruns…): the packet is malformed.
 */
export function decodeAttributeList(packet: Buffer): Attributes | null {
  try {
    return radius.decode_without_secret({ packet }).attributes as Attributes;
  } catch {
    return null;
  }
}

/**
 * First value of a text attribute. Text holds no NUL (RFC 2865 §5): trailing NULs (a router that
 * terminates its strings) are dropped, and a value with one inside counts as absent. PostgreSQL
 * cannot store or compare a NUL in text at all, so such a value must not reach a query.
 */
export function text(attrs: Attributes, name: string): string | undefined {
  const v = attrs[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  if (typeof first !== 'string') return undefined;
  let end = first.length;
  while (end > 0 && first.charCodeAt(end - 1) === 0) end--;
  const value = first.slice(0, end);
  return value.includes('\u0000') ? undefined : value;
}

/** First value of an integer attribute (enumerated values come back by name: use `text`). */
export function integer(attrs: Attributes, name: string): number | undefined {
  const v = attrs[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return typeof first === 'number' ? first : undefined;
}

/**
 * User-Password (RFC 2865 §5.2): c(i) = p(i) xor MD5(S ‖ c(i-1)), c(0) = the request
 * authenticator. Null when the hidden value is not 16..128 octets in 16-octet blocks.
 */
export function revealPassword(hidden: Buffer, secret: string, authenticator: Buffer): Buffer | null {
  if (hidden.length < 16 || hidden.length > 128 || hidden.length % 16 !== 0) return null;
  const out = Buffer.alloc(hidden.length);
  let previous = authenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const b = md5(secret, previous);
    for (let j = 0; j < 16; j++) out[i + j] = (hidden[i + j] ?? 0) ^ (b[j] ?? 0);
    previous = hidden.subarray(i, i + 16);
  }
  let end = out.length;
  while (end > 0 && out[end - 1] === 0) end--;
  return out.subarray(0, end);
}

/** Hides a password the way a NAS does (RFC 2865 §5.2), for clients we write (tests, bench). */
export function hidePassword(password: string, secret: string, authenticator: Buffer): Buffer {
  const plain = Buffer.from(password, 'utf8');
  const out = Buffer.alloc(Math.max(16, Math.ceil(plain.length / 16) * 16));
  plain.copy(out);
  let previous = authenticator;
  for (let i = 0; i < out.length; i += 16) {
    const b = md5(secret, previous);
    for (let j = 0; j < 16; j++) out[i + j] = (out[i + j] ?? 0) ^ (b[j] ?? 0);
    previous = out.subarray(i, i + 16);
  }
  return out;
}

/** Attributes to encode: `[name, value]`, or `['Vendor-Specific', vendorId, [[name, value]…]]`. */
export type EncodeAttribute =
  | readonly [name: string | number, value: string | number | Buffer]
  | readonly ['Vendor-Specific', vendor: number, attributes: readonly EncodeAttribute[]];

interface Definition {
  id: number;
  type: string;
  /** Enumerated value names → numbers. */
  values: Readonly<Record<string, string>>;
  hidden: boolean;
}

// The package keeps its dictionary behind functions its types do not declare.
const dictionary = radius as unknown as {
  load_dictionaries(): void;
  _attr_to(name: string, vendor: number | undefined, field: number): unknown;
};
/** Definitions by vendor (-1: standard attributes), then name. */
const definitions = new Map<number, Map<string, Definition>>();

/** An attribute's number, type and enumerated values, from the package's loaded dictionaries. */
function definition(name: string, vendor: number | undefined): Definition {
  let ofVendor = definitions.get(vendor ?? -1);
  if (!ofVendor) definitions.set(vendor ?? -1, (ofVendor = new Map<string, Definition>()));
  let def = ofVendor.get(name);
  if (!def) {
    dictionary.load_dictionaries();
    const id = dictionary._attr_to(name, vendor, 0);
    if (id === undefined) throw new Error(`unknown RADIUS attribute ${name}`);
    const modifiers = (dictionary._attr_to(name, vendor, 5) ?? {}) as Record<string, boolean>;
    def = {
      id: Number(id),
      type: String(dictionary._attr_to(name, vendor, 2)),
      values: (dictionary._attr_to(name, vendor, 4) ?? {}) as Record<string, string>,
      hidden: modifiers['encrypt=1'] === true,
    };
    ofVendor.set(name, def);
  }
  return def;
}

export interface EncodeContext {
  secret: string;
  /** The authenticator User-Password is hidden with (requests we send). */
  authenticator: Buffer;
}

/** A value's octets, or an integer type's value (written as 4 octets). */
function valueOf(def: Definition, value: string | number | Buffer, ctx: EncodeContext): Buffer | number {
  if (Buffer.isBuffer(value)) return value;
  if (def.hidden) return hidePassword(String(value), ctx.secret, ctx.authenticator);
  switch (def.type) {
    case 'integer':
    case 'time':
    case 'date': {
      const n = typeof value === 'number' ? value : Number(def.values[value] ?? value);
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
        throw new Error(`bad integer value for attribute ${String(def.id)}`);
      return n;
    }
    case 'ipaddr': {
      const octets = String(value).split('.').map(Number);
      if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255)))
        throw new Error(`bad IPv4 address ${String(value)}`);
      return Buffer.from(octets);
    }
    default:
      return Buffer.from(String(value), 'utf8');
  }
}

/**
 * One attribute ready to be written: its value octets, a 4-octet integer, or a Vendor-Specific
 * attribute around its vendor's attributes. `size` counts the type and length octets. Packets
 * are written in one buffer from these, without a buffer per attribute.
 */
export type Tlv =
  | { type: number; size: number; value: Buffer | number }
  | { type: number; size: number; vendor: number; inner: readonly Tlv[] };

function tlv(type: number, value: Buffer | number): Tlv {
  const length = typeof value === 'number' ? 4 : value.length;
  if (length > 253) throw new Error(`attribute ${String(type)} is longer than 253 octets`);
  return { type, size: 2 + length, value };
}

/** The octets `list` takes. */
export const encodedLength = (list: readonly Tlv[]): number => list.reduce((n, t) => n + t.size, 0);

/** Writes `list` into `out` from `at`; returns where it ended. */
export function writeList(out: Buffer, at: number, list: readonly Tlv[]): number {
  for (const t of list) {
    out[at] = t.type;
    out[at + 1] = t.size;
    if ('inner' in t) {
      out.writeUInt32BE(t.vendor, at + 2);
      writeList(out, at + 6, t.inner);
    } else if (typeof t.value === 'number') out.writeUInt32BE(t.value, at + 2);
    else t.value.copy(out, at + 2);
    at += t.size;
  }
  return at;
}

/** Attributes → TLVs, names resolved through the dictionaries (vendor attributes in a VSA, RFC 2865 §5.26). */
export function encodeList(
  attributes: readonly EncodeAttribute[],
  ctx: EncodeContext,
  vendor?: number,
): Tlv[] {
  const out: Tlv[] = [];
  for (const a of attributes) {
    if (a[0] === 'Vendor-Specific') {
      const [, vendorId, attrs] = a as readonly ['Vendor-Specific', number, readonly EncodeAttribute[]];
      const inner = encodeList(attrs, ctx, vendorId);
      const size = 2 + 4 + encodedLength(inner);
      if (size > 255) throw new Error('attribute 26 is longer than 253 octets');
      out.push({ type: 26, size, vendor: vendorId, inner });
      continue;
    }
    const [name, value] = a as readonly [string | number, string | number | Buffer];
    if (typeof name === 'number') {
      out.push(tlv(name, Buffer.isBuffer(value) ? value : Buffer.from(String(value))));
      continue;
    }
    const def = definition(name, vendor);
    const encoded = valueOf(def, value, ctx);
    // RADIUS has no empty attributes
    if (typeof encoded === 'number' || encoded.length > 0) out.push(tlv(def.id, encoded));
  }
  return out;
}
