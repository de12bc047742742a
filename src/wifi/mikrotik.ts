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
