/**
 * Who is calling and what they may do. Tokens are OAuth 2.1 access tokens
 * (src/auth/oauth.ts); by the time a route runs, the token was verified and
 * bound to this resource, and what remains is its user and scopes.
 */
export const SCOPES = {
  /** An agent reading Notes through MCP. */
  read: "osfoundry:read",
  /** An agent writing into Notes through MCP; implies read. */
  write: "osfoundry:write",
  /** The person's desktop app, on /api/v1. Never granted for the MCP resource. */
  app: "osfoundry:app",
} as const;

export interface Principal {
  user: string;
  scopes: readonly string[];
  /** The OAuth client the token was issued to. */
  client?: string | undefined;
  /** That client's registered name, as the grant recorded it (null: none, or a token from before names were kept). */
  clientName?: string | null | undefined;
}

/** Scopes a scope implies: write includes read (MCP asks servers to honour such hierarchies). */
const IMPLIES: Readonly<Record<string, readonly string[]>> = { [SCOPES.write]: [SCOPES.read] };

export function hasScopes(granted: readonly string[], needed: readonly string[]): boolean {
  const held = new Set(granted.flatMap((scope) => [scope, ...(IMPLIES[scope] ?? [])]));
  return needed.every((scope) => held.has(scope));
}
