/** What the console needs from the OAuth provider: counts over a client's grants. */
export interface ClientGrantStats {
  clientStats(
    clientId: string,
  ): Promise<{ connected_users: number; active_grants: number; live_access_tokens: number }>;
}
