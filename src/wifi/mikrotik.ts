import { hash } from 'node:crypto';

/**
 * The MikroTik hotspot login encodings (DESIGN.md §4.7, research radius-hotspot.md §2.1). Pure:
 * tested against the worked example and an independent computation.
 *
 * RouterOS writes `$(chap-id)` (one octet) and `$(chap-challenge)` (16 octets) into its login
 * pages as the text of a JavaScript string literal, every octet an octal escape (`\371`), and its
 * own login.html feeds them to `hexMD5('$(chap-id)' + password + '$(chap-challenge)')`. So they
 * are read here with JavaScript's rules for such a literal: `\` and one to three octal digits
 * whose value is at most 255 (`\477` is `\47` and then `7`), and any other printable ASCII
 * character as itself. Anything else (another escape, a lone `\`, a character outside ASCII) is
 * not RouterOS's and is refused.
 */
export function parseOctalEscapes(text: string): Buffer | null {
  const out: number[] = [];
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c) {
      if (c < 0x20 || c > 0x7e) return null;
      out.push(c);
      i++;
      continue;
    }
    let value = 0;
    let digits = 0;
    while (digits < 3 && i + 1 + digits < text.length) {
      const d = text.charCodeAt(i + 1 + digits) - 0x30;
      if (d < 0 || d > 7 || value * 8 + d > 0xff) break;
      value = value * 8 + d;
      digits++;
    }
    if (digits === 0) return null;
    out.push(value);
    i += 1 + digits;
  }
  return Buffer.from(out);
}

/** HTTP-CHAP: hex MD5(chap-id octet ‖ password ‖ challenge octets), what RouterOS's page computes. */
export function hotspotChapResponse(chapId: Buffer, password: string, challenge: Buffer): string {
  return hash('md5', Buffer.concat([chapId, Buffer.from(password, 'utf8'), challenge]), 'hex');
}

/**
 * `<link_login_only>?username=…&password=…[&dst=…]`: RouterOS logs the guest in when the browser
 * opens it (HTTP-CHAP when `chap` is given: the password is the response; else HTTP-PAP, the
 * password itself).
 */
export function hotspotLoginUrl(input: {
  linkLoginOnly: URL;
  username: string;
  password: string;
  chap: { id: Buffer; challenge: Buffer } | null;
  dst: string | undefined;
}): string {
  const url = new URL(input.linkLoginOnly.href);
  url.searchParams.set('username', input.username);
  url.searchParams.set(
    'password',
    input.chap ? hotspotChapResponse(input.chap.id, input.password, input.chap.challenge) : input.password,
  );
  if (input.dst !== undefined) url.searchParams.set('dst', input.dst);
  return url.href;
}

/*
 * The login.html of the router's hotspot directory (router-config-routeros.ts writes it there).
 */

const htmlAttr = (value: string): string =>
  value.replace(/[&"'<>$]/g, (c) => `&#${String(c.charCodeAt(0))};`);

/** The fields the portal receives (GET), each a RouterOS servlet variable ("Hotspot customisation"). */
export const MIKROTIK_LOGIN_FIELDS = [
  ['res', '$(if error)failed$(else)notyet$(endif)'],
  ['nasid', '$(identity)'],
  ['mac', '$(mac)'],
  ['ip', '$(ip)'],
  ['link_login_only', '$(link-login-only)'],
  ['chap_id', '$(chap-id)'],
  ['chap_challenge', '$(chap-challenge)'],
  ['dst', '$(link-orig)'],
  ['error', '$(error)'],
] as const;

/**
 * RouterOS serves this as login.html to a guest who is not logged in: it sends the browser
 * straight on to the portal with a GET form (a query string in `portalUrl` becomes hidden
 * inputs, since a GET form replaces the action's query). `$` in the URL is written as an
 * entity so RouterOS's $(…) substitution cannot touch it.
 */
export function mikrotikLoginHtml(portalUrl: string): string {
  const withoutFragment = portalUrl.split('#')[0] ?? '';
  const q = withoutFragment.indexOf('?');
  const action = q < 0 ? withoutFragment : withoutFragment.slice(0, q);
  const ours = new Set<string>(MIKROTIK_LOGIN_FIELDS.map(([name]) => name));
  const carried = q < 0 ? [] : [...new URLSearchParams(withoutFragment.slice(q + 1))];
  const hidden = (name: string, value: string): string =>
    `<input type="hidden" name="${name}" value="${value}">`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta http-equiv="pragma" content="no-cache">',
    '<meta http-equiv="expires" content="-1">',
    '<title>Wi-Fi sign-in</title>',
    '</head>',
    '<body>',
    `<form name="portal" action="${htmlAttr(action)}" method="get">`,
    ...carried
      .filter(([name]) => !ours.has(name))
      .map(([name, value]) => hidden(htmlAttr(name), htmlAttr(value))),
    ...MIKROTIK_LOGIN_FIELDS.map(([name, value]) => hidden(name, value)),
    '<noscript><p>Continue to sign in to the Wi-Fi.</p><input type="submit" value="Continue"></noscript>',
    '</form>',
    '<script>document.forms[0].submit();</script>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
