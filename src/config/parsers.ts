import { BlockList, isIP } from 'node:net';

/** A parser turns the raw string of one setting into its typed value or throws with a reason. */
export type Parser<T> = (raw: string) => T;

export class SettingError extends Error {}
const fail = (reason: string): never => {
  throw new SettingError(reason);
};

export const text: Parser<string> = (raw) => raw;

export const nonEmpty: Parser<string> = (raw) => (raw.trim() === '' ? fail('must not be empty') : raw.trim());

/** Empty means "not set". */
export const optional =
  <T>(parse: Parser<T>): Parser<T | null> =>
  (raw) =>
    raw.trim() === '' ? null : parse(raw);

export const port: Parser<number> = (raw) => {
  const n = Number(raw);
  return /^\d+$/.test(raw.trim()) && n >= 0 && n <= 65_535 ? n : fail('must be a port number 0-65535');
};

export const nonNegativeInt: Parser<number> = (raw) =>
  /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : fail('must be a whole number ≥ 0');

export const positiveInt: Parser<number> = (raw) =>
  /^\d{1,9}$/.test(raw.trim()) && Number(raw) > 0 ? Number(raw) : fail('must be a whole number > 0');

export const host: Parser<string> = (raw) => {
  const v = raw.trim();
  if (isIP(v)) return v;
  return /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}))*$/.test(v)
    ? v
    : fail('must be an IP address or a host name');
};

export const oneOf =
  <const T extends readonly string[]>(...values: T): Parser<T[number]> =>
  (raw) => {
    const v = raw.trim();
    return values.includes(v) ? v : fail(`must be one of ${values.join(', ')}`);
  };

/** A comma-separated choice among `values` (each once, given in any order), or `off` for none. */
export const someOf =
  <const T extends readonly string[]>(...values: T): Parser<readonly T[number][]> =>
  (raw) => {
    const v = raw.trim().toLowerCase();
    if (v === 'off') return [];
    const chosen = v.split(',').map((item) => item.trim());
    if (!chosen.every((item) => values.includes(item)) || new Set(chosen).size !== chosen.length)
      return fail(`must be off, or one or more of ${values.join(', ')} separated by commas`);
    return values.filter((value) => chosen.includes(value));
  };

/**
 * Comma-separated phone numbers, as people write them (at most 5); empty: none. Only their shape
 * is checked here: the loader checks each against DEFAULT_COUNTRY_CODE (lib/phone.ts) and turns
 * it into E.164.
 */
export const phoneList: Parser<readonly string[]> = (raw) => {
  if (raw.trim() === '') return [];
  const numbers = raw.split(',').map((item) => item.trim());
  if (numbers.length > 5 || !numbers.every((n) => /^\+?[\d\s\-.()]{6,24}$/.test(n)))
    return fail('must be up to 5 phone numbers separated by commas');
  return numbers;
};

export const onOff: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  return fail('must be on or off');
};

/** An absolute http(s) URL without query or fragment; the trailing slash is dropped. */
export const baseUrl: Parser<string> = (raw) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return fail('must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    fail('must be an absolute http:// or https:// URL');
  if (url.search || url.hash) fail('must not carry a query or fragment');
  if (url.username || url.password) fail('must not carry credentials');
  return url.href.replace(/\/+$/, '');
};

/** A URL with one of the given schemes, kept as written. */
export const urlWithScheme =
  (...schemes: string[]): Parser<string> =>
  (raw) => {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      return fail(`must be a ${schemes.join(' or ')} URL`);
    }
    return schemes.includes(url.protocol.replace(/:$/, ''))
      ? raw.trim()
      : fail(`must be a ${schemes.join(' or ')} URL`);
  };

/** A browser origin: scheme://host[:port], nothing after it. */
export const origin: Parser<string> = (raw) => {
  const v = raw.trim();
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return fail(`"${v}" is not an origin like https://admin.example.com`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== v.replace(/\/$/, '')) {
    fail(`"${v}" is not an origin like https://admin.example.com`);
  }
  return url.origin;
};

export const originList: Parser<readonly string[]> = (raw) =>
  Object.freeze(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(origin),
  );

/** Whose X-Forwarded-For header is believed. */
export type TrustProxy =
  | { readonly kind: 'none' | 'all' | 'loopback' }
  | { readonly kind: 'cidrs'; readonly list: BlockList; readonly text: string };

export const trustProxy: Parser<TrustProxy> = (raw) => {
  const v = raw.trim();
  if (v === 'none' || v === 'all' || v === 'loopback') return { kind: v };
  const list = new BlockList();
  for (const entry of v.split(',').map((s) => s.trim())) {
    const [addr = '', bitsText] = entry.split('/');
    const family = isIP(addr);
    if (!family) fail(`"${entry}" is not loopback, all, none or a CIDR like 10.0.0.0/8`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) {
      fail(`"${entry}" has an invalid prefix length`);
    }
    list.addSubnet(addr, bits, type);
  }
  return { kind: 'cidrs', list, text: v };
};

/** INVOICE_PREFIX: 1-10 upper-case letters and digits. */
export const invoicePrefix: Parser<string> = (raw) =>
  /^[A-Z0-9]{1,10}$/.test(raw.trim()) ? raw.trim() : fail('must be 1-10 upper-case letters or digits');

/** A bare e-mail address or `Name <address>`. */
export const mailAddress: Parser<string> = (raw) =>
  /^([^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/.test(raw.trim()) ? raw.trim() : fail('must be an e-mail address');

/** A country calling code such as 255. */
export const countryCode: Parser<string> = (raw) =>
  /^\+?[1-9]\d{0,2}$/.test(raw.trim())
    ? raw.trim().replace(/^\+/, '')
    : fail('must be a country calling code such as 255');

/**
 * ICU's list of zone names: a look-up there costs ~2 ms at start, where building a zoned
 * formatter (the full check, below) costs ~15-20 ms (bench/footprint.ts). The list leaves out
 * some names a formatter takes (UTC, Asia/Kolkata), which get the full check.
 */
let knownZones: Set<string> | undefined;

/** An IANA time zone name the runtime knows (Africa/Dar_es_Salaam, UTC). */
export const timeZone: Parser<string> = (raw) => {
  const v = raw.trim();
  knownZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (knownZones.has(v)) return v;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return v;
  } catch {
    return fail('must be an IANA time zone such as Africa/Dar_es_Salaam');
  }
};

/** A PostgreSQL connection URL (`postgres://` or `postgresql://`), optionally with our `schema=` parameter. */
export const postgresUrl: Parser<string> = (raw) => {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('must be a postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') fail('must be a postgres:// URL');
  const schema = url.searchParams.get('schema');
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    fail('schema must be lower-case letters, digits and _ (at most 63)');
  return value;
};

/** `host:port`: an IPv4 address or DNS name (or a bracketed IPv6 address) and a port 1-65535. */
export const hostPort: Parser<string> = (raw) => {
  const v = raw.trim();
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(v);
  const name = m?.[1] ?? '';
  const portNumber = Number(m?.[2] ?? '0');
  const hostOk = name.startsWith('[')
    ? isIP(name.slice(1, -1)) === 6
    : (() => {
        try {
          return host(name) === name;
        } catch {
          return false;
        }
      })();
  return m && hostOk && portNumber >= 1 && portNumber <= 65_535
    ? v
    : fail('must be host:port, e.g. vpn.example.com:51820');
};

/** A WireGuard key: 32 bytes in base64 (44 characters ending in =). */
export const wireguardKey: Parser<string> = (raw) => {
  const v = raw.trim();
  return /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(v)
    ? v
    : fail('must be a WireGuard key (44 base64 characters)');
};

/** An IPv4 address with its prefix length, e.g. 10.99.0.1/24 (an interface address, not a network). */
export const ipv4Interface: Parser<string> = (raw) => {
  const v = raw.trim();
  const [address = '', bits = ''] = v.split('/');
  const prefix = Number(bits);
  return isIP(address) === 4 && /^\d{1,2}$/.test(bits) && prefix >= 8 && prefix <= 30
    ? v
    : fail('must be an IPv4 address with a prefix length from /8 to /30, e.g. 10.99.0.1/24');
};
