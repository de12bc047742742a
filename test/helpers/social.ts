import { addSocialProvider } from '../../src/identity/index.js';
import type { TestApp } from './app.js';
import { Client } from './client.js';

/** Registers `venue` as a client of `upstream` (both hotspot-ctl) and configures it as provider `name`. */
export async function connectProvider(
  upstream: TestApp,
  owner: Client,
  venue: TestApp,
  name: string,
  options: { displayName?: string } = {},
): Promise<void> {
  const project = await owner.post('/console/projects', { name: `Login for ${name}` });
  const client = await owner.post(`/console/projects/${String(project.body.data.id)}/clients`, {
    name: 'Venue',
    client_type: 'confidential',
    redirect_uris: [`${venue.base}/auth/social/${name}/callback`],
    allowed_scopes: ['openid', 'email', 'profile'],
  });
  await addSocialProvider(venue.app.deps, {
    name,
    ...options,
    issuer: upstream.base,
    clientId: client.body.data.client.id as string,
    clientSecret: client.body.data.client_secret as string,
  });
}

/** A browser signed in at the upstream (`upstreamUser`) doing the social login at the venue. */
export const socialLogin = (venue: TestApp, upstreamUser: Client, name: string, next = '/account') =>
  socialLoginFrom(venue, upstreamUser, `/auth/social/${name}/begin?next=${encodeURIComponent(next)}`);

/** The same, starting from a begin URL as a page links to it. */
export async function socialLoginFrom(venue: TestApp, upstreamUser: Client, beginPath: string) {
  const { browser, begin, callback } = await toCallback(venue, upstreamUser, beginPath);
  const done = await browser.get(`${callback.pathname}${callback.search}`);
  return { browser, begin, done };
}

/** Begin at the venue, sign in and consent at the upstream: the callback URL, not yet visited. */
export async function toCallback(venue: TestApp, upstreamUser: Client, beginPath: string) {
  const browser = new Client(venue.base);
  const begin = await browser.get(beginPath);
  if (begin.status !== 302) throw new Error(`begin: ${String(begin.status)} ${JSON.stringify(begin.body)}`);
  const authorize = new URL(begin.headers.get('location')!);
  let location = (await upstreamUser.get(`${authorize.pathname}${authorize.search}`)).headers.get(
    'location',
  )!;
  if (location.startsWith('/consent?')) {
    const params = Object.fromEntries(new URLSearchParams(location.slice('/consent?'.length)));
    location = (await upstreamUser.post('/oauth/consent', { ...params, approve: true })).body.data
      .redirect_uri as string;
  }
  return { browser, begin, callback: new URL(location) };
}
