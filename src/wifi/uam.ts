import { createHash } from 'node:crypto';

/**
 * The CoovaChilli UAM logon encodings (DESIGN.md §4.3, CoovaChilli's hotspotlogin.cgi). Pure:
 * tested against the worked example and an independent computation.
 */

const md5 = (...parts: Buffer[]): Buffer => {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** newchal = MD5(challenge bytes ‖ uam secret), or the raw challenge bytes without a secret. */
export function uamChallenge(challengeHex: string, uamSecret: string | null): Buffer {
  const challenge = Buffer.from(challengeHex, 'hex');
  return uamSecret ? md5(challenge, Buffer.from(uamSecret, 'utf8')) : challenge;
}

/** CHAP: hex MD5(0x00 ‖ password ‖ newchal). */
export function chapResponse(password: string, newchal: Buffer): string {
  return md5(Buffer.of(0), Buffer.from(password, 'utf8'), newchal).toString('hex');
}

/** PAP: the password XOR newchal repeated, cut to the password's length, as hex. */
export function papPassword(password: string, newchal: Buffer): string {
  const plain = Buffer.from(password, 'utf8');
  return Buffer.from(plain.map((byte, i) => byte ^ (newchal[i % newchal.length] ?? 0))).toString('hex');
}

export type UamCredential = { response: string } | { password: string };

/** The credential parameter for a router using CHAP (the default) or PAP. */
export function uamCredential(
  mode: 'chap' | 'pap',
  password: string,
  challengeHex: string,
  uamSecret: string | null,
): UamCredential {
  const newchal = uamChallenge(challengeHex, uamSecret);
  return mode === 'pap'
    ? { password: papPassword(password, newchal) }
    : { response: chapResponse(password, newchal) };
}

/**
 * `http://<uamip>:<uamport>/logon?username=…&response=…|password=…[&userurl=…]`, every value
 * URL-encoded (the reference script forgets userurl; we send it).
 */
export function logonUrl(input: {
  uamip: string;
  uamport: number;
  username: string;
  credential: UamCredential;
  userurl?: string | undefined;
}): string {
  const params: [string, string][] = [
    ['username', input.username],
    'response' in input.credential
      ? ['response', input.credential.response]
      : ['password', input.credential.password],
    ...(input.userurl === undefined ? [] : [['userurl', input.userurl] as [string, string]]),
  ];
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `http://${input.uamip}:${String(input.uamport)}/logon?${query}`;
}
