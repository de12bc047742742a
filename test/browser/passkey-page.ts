import { defineRoute, type Route } from '../../src/http/route.js';

/**
 * The small page the browser test loads from the daemon's own origin (mounted by the test
 * through buildApp's extraRoutes; the product has no passkey page until the web pages land).
 * It does what a real page does: fetch the begin options, hand them to navigator.credentials
 * through the browser's own JSON parsers, and post `credential.toJSON()` back with the token.
 */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>passkeys</title>
<script>
const TOKEN = 'X-Passkey-Token';
async function api(method, path, body, headers = {}) {
  const res = await fetch(path, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, token: res.headers.get(TOKEN), body: text ? JSON.parse(text) : null };
}
async function registerPasskey(name) {
  const begin = await api('POST', '/auth/passkeys/begin-registration', { name });
  if (begin.status !== 200) return begin;
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(begin.body.data);
  const credential = await navigator.credentials.create({ publicKey });
  return api('POST', '/auth/passkeys/finish-registration', credential.toJSON(), { [TOKEN]: begin.token });
}
async function passkeyLogin(identifier) {
  const begin = await api('POST', '/auth/passkeys/login/begin', { identifier });
  if (begin.status !== 200) return begin;
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(begin.body.data);
  const credential = await navigator.credentials.get({ publicKey });
  return api('POST', '/auth/passkeys/login/finish', credential.toJSON(), { [TOKEN]: begin.token });
}
</script>
<p>passkey test page</p>
`;

export const PASSKEY_PAGE_PATH = '/test/passkeys';

export const passkeyPage = (): Route =>
  defineRoute({ method: 'GET', path: PASSKEY_PAGE_PATH, api: 'identity', handler: () => ({ html: PAGE }) });

/** What the page's functions resolve to. */
export interface PageResult {
  status: number;
  token: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of any route, pinned by t.same/t.match
  body: any;
}
