/** What identity needs from the OAuth provider: is this bearer token a live access token, and whose? */
export type BearerVerifier = (token: string) => Promise<{ userId: string } | null>;
