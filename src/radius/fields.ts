import radius from 'radius';
import { ensureDictionaries } from './dictionary.js';
import { HEADER_LENGTH, type Frame } from './codec.js';

/**
 * The attributes a login or accounting request needs, read straight from the packet's bytes in
 * one walk, without the `radius` package's object per attribute (docs/decisions/0040).
 *
 * It answers exactly as the package would: a packet the package's decoder refuses is refused
 * here (null, "malformed"), and every field reads as `text()` / `integer()` (attributes.ts) read
 * the package's result. The package refuses a packet when, anywhere in it (inside
 * Vendor-Specific attributes too, with that vendor's dictionary):
 * - an integer or time attribute has fewer than 4 octets, a date fewer than 4;
 * - an attribute the dictionary marks `has_tag` is empty;
 * - a Vendor-Specific attribute has fewer than 4 octets or a vendor id whose first octet is not 0;
 * - the attributes inside a Vendor-Specific one leave one octet over or have a length below 2
 *   (a length past the end is cut short, not refused).
 * The rules are built from the package's own loaded dictionaries, and test/radius/fields.test.ts
 * checks the two readers against each other over random and malformed packets.
 */

ensureDictionaries();

// The package keeps its dictionary behind a function its types do not declare.
const dictionary = radius as unknown as {
  load_dictionaries(): void;
  _attr_to(attr: string | number, vendor: number | undefined, field: number): unknown;
};
const ATTR_NAME = 1;
const ATTR_TYPE = 2;
const ATTR_ENUM = 3;
const ATTR_MODIFIERS = 5;

/** What the package's decoder demands of one attribute's value. */
const Rule = {
  None: 0,
  /** At least 4 octets (integer, time, date). */
  Four: 1,
  /** At least one octet (a tag); a date after its tag needs 4 more. */
  Tag: 2,
  TagDate: 3,
  /** A Vendor-Specific attribute: vendor id, then that vendor's attributes. */
  Vendor: 4,
} as const;

/** The rule of each attribute number of one vendor (-1: the standard attributes). */
type Rules = Uint8Array;

function rulesOf(vendor: number | undefined): Rules {
  dictionary.load_dictionaries();
  const rules = new Uint8Array(256);
  for (let n = 0; n < 256; n++) {
    const type = dictionary._attr_to(n, vendor, ATTR_TYPE);
    if (typeof type !== 'string') continue;
    const modifiers = (dictionary._attr_to(n, vendor, ATTR_MODIFIERS) ?? {}) as Record<string, boolean>;
    const numeric = type === 'integer' || type === 'time' || type === 'date';
    if (dictionary._attr_to(n, vendor, ATTR_NAME) === 'Vendor-Specific') rules[n] = Rule.Vendor;
    else if (modifiers.has_tag === true) rules[n] = type === 'date' ? Rule.TagDate : Rule.Tag;
    else if (modifiers['encrypt=1'] === true)
      rules[n] = Rule.None; // not decrypted without a secret
    else rules[n] = numeric ? Rule.Four : Rule.None;
  }
  return rules;
}

let standardRules: Rules | undefined;
/** Rules by vendor id, for the vendors seen; bounded: made-up vendor ids only cost a rebuild. */
const vendorRules = new Map<number, Rules>();
const MAX_VENDORS = 256;

function rulesOfVendor(vendor: number): Rules {
  let rules = vendorRules.get(vendor);
  if (rules === undefined) {
    if (vendorRules.size >= MAX_VENDORS) vendorRules.clear();
    rules = rulesOf(vendor);
    vendorRules.set(vendor, rules);
  }
  return rules;
}

/** Whether the value at [start, end) passes `rule`, as the package's decoder would take it. */
function passes(bytes: Buffer, rule: number, start: number, end: number): boolean {
  switch (rule) {
    case Rule.Four:
      return end - start >= 4;
    case Rule.Tag:
      return end > start;
    case Rule.TagDate: {
      if (end <= start) return false;
      const from = (bytes[start] ?? 0) <= 0x1f ? start + 1 : start;
      return end - from >= 4;
    }
    case Rule.Vendor: {
      if (end - start < 4 || bytes[start] !== 0) return false;
      const rules = rulesOfVendor(bytes.readUInt32BE(start));
      for (let at = start + 4; at < end;) {
        if (end - at < 2) return false;
        const len = bytes[at + 1] ?? 0;
        if (len < 2) return false;
        if (!passes(bytes, rules[bytes[at] ?? 0] ?? Rule.None, at + 2, Math.min(at + len, end))) return false;
        at += len;
      }
      return true;
    }
    default:
      return true;
  }
}

/** The attributes read, by name. */
const FIELDS = [
  'User-Name',
  'NAS-Identifier',
  'Calling-Station-Id',
  'Framed-IP-Address',
  'Acct-Status-Type',
  'Acct-Session-Id',
  'Acct-Session-Time',
  'Acct-Delay-Time',
  'Acct-Input-Octets',
  'Acct-Output-Octets',
  'Acct-Input-Gigawords',
  'Acct-Output-Gigawords',
  'Acct-Terminate-Cause',
] as const;
export type FieldName = (typeof FIELDS)[number];

const Kind = { Text: 0, Address: 1, Integer: 2 } as const;

interface Field {
  kind: (typeof Kind)[keyof typeof Kind];
  /** Enumerated values: number → name. */
  names: Readonly<Record<string, string>>;
}

interface Layout {
  rules: Rules;
  /** Field index + 1 of each attribute number; 0: not a field. */
  slotOf: Uint8Array;
  fields: readonly Field[];
}

let layout: Layout | undefined;

/** Field slots and how to read them, from the dictionary (the first time a packet is read). */
function layoutOf(): Layout {
  if (layout) return layout;
  dictionary.load_dictionaries();
  standardRules ??= rulesOf(undefined);
  const slotOf = new Uint8Array(256);
  const fields: Field[] = [];
  const numbers = new Map<string, number[]>();
  for (let n = 0; n < 256; n++) {
    const name = dictionary._attr_to(n, undefined, ATTR_NAME);
    if (typeof name === 'string') numbers.set(name, [...(numbers.get(name) ?? []), n]);
  }
  for (const [i, name] of FIELDS.entries()) {
    const found = numbers.get(name) ?? [];
    const first = found[0];
    if (first === undefined) throw new Error(`RADIUS dictionary has no ${name}`);
    const type = String(dictionary._attr_to(first, undefined, ATTR_TYPE));
    const modifiers = (dictionary._attr_to(first, undefined, ATTR_MODIFIERS) ?? {}) as Record<
      string,
      boolean
    >;
    const kind =
      type === 'string' || type === 'text'
        ? Kind.Text
        : type === 'ipaddr'
          ? Kind.Address
          : type === 'integer' || type === 'time'
            ? Kind.Integer
            : null;
    // Another type, a tag or encryption would change what the package decodes: say so at start.
    if (kind === null || Object.keys(modifiers).length > 0 || found.length > 1)
      throw new Error(`RADIUS dictionary: ${name} is not a plain attribute`);
    slotOf[first] = i + 1;
    fields.push({
      kind,
      names: (dictionary._attr_to(first, undefined, ATTR_ENUM) ?? {}) as Record<string, string>,
    });
  }
  layout = { rules: standardRules, slotOf, fields };
  return layout;
}

/** Every field absent: each packet starts from a copy. */
const ABSENT: readonly number[] = FIELDS.map(() => -1);

const SLOT: Readonly<Record<FieldName, number>> = Object.fromEntries(
  FIELDS.map((name, i) => [name, i]),
) as Record<FieldName, number>;

/**
 * A request's fields: where each one's first value sits in the packet. Values are decoded when
 * asked, with the semantics of attributes.ts `text` and `integer` over the package's decoding.
 */
export class RequestFields {
  constructor(
    private readonly bytes: Buffer,
    /** Offset of each field's first attribute, -1 when absent. */
    private readonly at: readonly number[],
    private readonly fields: readonly Field[],
  ) {}

  /** The value as the package decodes it: text, dotted address, integer or enumerated name. */
  #value(name: FieldName): string | number | undefined {
    const slot = SLOT[name];
    const at = this.at[slot] ?? -1;
    const field = this.fields[slot];
    if (at < 0 || !field) return undefined;
    const start = at + 2;
    const end = at + (this.bytes[at + 1] ?? 2);
    switch (field.kind) {
      case Kind.Text:
        return this.bytes.toString('utf8', start, end);
      case Kind.Address: {
        const octets: number[] = [];
        for (let i = start; i < end; i++) octets.push(this.bytes[i] ?? 0);
        return octets.join('.');
      }
      default: {
        const n = this.bytes.readUInt32BE(start);
        return field.names[String(n)] ?? n;
      }
    }
  }

  /**
   * A text value (also an enumerated value by name). Text holds no NUL (RFC 2865 §5): trailing
   * NULs are dropped, and a value with one inside counts as absent (attributes.ts `text`).
   */
  text(name: FieldName): string | undefined {
    const v = this.#value(name);
    if (typeof v !== 'string') return undefined;
    let end = v.length;
    while (end > 0 && v.charCodeAt(end - 1) === 0) end--;
    const value = v.slice(0, end);
    return value.includes('\u0000') ? undefined : value;
  }

  /** An integer value (one whose number the dictionary names reads by `text` instead). */
  integer(name: FieldName): number | undefined {
    const v = this.#value(name);
    return typeof v === 'number' ? v : undefined;
  }
}

/**
 * Reads the fields of a framed request; null when the `radius` package would refuse its
 * attributes (the packet is malformed).
 */
export function readFields(f: Frame): RequestFields | null {
  const { rules, slotOf, fields } = layoutOf();
  const { bytes } = f;
  const at = ABSENT.slice();
  for (let i = HEADER_LENGTH; i < bytes.length;) {
    const type = bytes[i] ?? 0;
    const len = bytes[i + 1] ?? 2;
    const rule = rules[type] ?? Rule.None;
    if (rule !== Rule.None && !passes(bytes, rule, i + 2, i + len)) return null;
    const slot = (slotOf[type] ?? 0) - 1;
    if (slot >= 0 && (at[slot] ?? 0) < 0) at[slot] = i;
    i += len;
  }
  return new RequestFields(bytes, at, fields);
}
