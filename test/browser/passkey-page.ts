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
async function ceremony(beginPath, body, ask, finishPath) {
  const begin = await api('POST', beginPath, body);
  if (begin.status !== 200) return begin;
  const credential = await ask(begin.body.data);
  return api('POST', finishPath, credential.toJSON(), { [TOKEN]: begin.token });
}
const create = (options) =>
  navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
const get = (options) =>
  navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
// Function declarations, so the test can call them as globals.
function registerPasskey(name) {
  return ceremony('/auth/passkeys/begin-registration', { name }, create, '/auth/passkeys/finish-registration');
}
function passkeyLogin(identifier) {
  return ceremony('/auth/passkeys/login/begin', { identifier }, get, '/auth/passkeys/login/finish');
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
