import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import type { Client } from './client.js';

export const REDIRECT = 'https://app.partner.example/callback';

export interface TestClient {
  projectId: string;
  clientId: string;
  secret: string | null;
}

/** A project with one client, created through the console API by `owner`. */
export async function consoleClient(
  owner: Client,
  options: {
    type?: 'public' | 'confidential';
    scopes?: string[];
    redirectUris?: string[];
    name?: string;
    logoUrl?: string;
  } = {},
): Promise<TestClient> {
  const project = await owner.post('/console/projects', { name: options.name ?? 'Partner App' });
  if (project.status !== 201) throw new Error(`project: ${JSON.stringify(project.body)}`);
  const projectId = project.body.data.id as string;
  const created = await owner.post(`/console/projects/${projectId}/clients`, {
    name: options.name ?? 'Partner App',
    client_type: options.type ?? 'confidential',
    redirect_uris: options.redirectUris ?? [REDIRECT],
    allowed_scopes: options.scopes ?? ['openid', 'profile', 'email', 'phone'],
    homepage_url: 'https://partner.example',
    ...(options.logoUrl === undefined ? {} : { logo_url: options.logoUrl }),
  });
  if (created.status !== 201) throw new Error(`client: ${JSON.stringify(created.body)}`);
  return {
    projectId,
    clientId: created.body.data.client.id as string,
    secret: created.body.data.client_secret as string | null,
  };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeQuery(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
): string {
  return new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid profile email',
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
}

/** Runs authorize (+ consent when asked for) as the signed-in `user`; returns the code. */
export async function authorizeCode(
  user: Client,
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const query = authorizeQuery(clientId, challenge, extra);
  let res = await user.get(`/oauth/authorize?${query}`);
  let location = res.headers.get('location') ?? '';
  if (location.startsWith('/consent?')) {
    const p = Object.fromEntries(new URLSearchParams(location.slice('/consent?'.length)));
    res = await user.post('/oauth/consent', { ...p, approve: true });
    location = res.body.data.redirect_uri as string;
  }
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code: ${res.status} ${location} ${JSON.stringify(res.body)}`);
  return code;
}

/** POST /oauth/token with a form body. */
export async function tokenRequest(
  app: TestApp,
  form: Record<string, string>,
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- token endpoint JSON; tests pin its shape with t.same/t.match
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${app.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Forwarded-For': '10.99.0.1',
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** A full code flow for `user`: the token response. */
export async function codeFlowTokens(
  app: TestApp,
  user: Client,
  client: TestClient,
  extra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkcePair();
  const code = await authorizeCode(user, client.clientId, challenge, extra);
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.clientId,
    code_verifier: verifier,
    ...(client.secret ? { client_secret: client.secret } : {}),
  });
}
