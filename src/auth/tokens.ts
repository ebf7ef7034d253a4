/**
 * Who is calling: bearer tokens carry a user and scopes. Verification sits
 * behind `TokenVerifier`, so the development tokens of wrangler.toml can be
 * replaced by an OAuth 2.1 verifier without touching the routes.
 */
export const SCOPES = {
  /** An agent reading Notes through MCP. */
  read: "osfoundry:read",
  /** An agent writing into Notes through MCP. */
  write: "osfoundry:write",
  /** The person's desktop app, on /api/v1. Never granted to a connector. */
  app: "osfoundry:app",
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

export interface Principal {
  user: string;
  scopes: readonly string[];
}

export interface TokenVerifier {
  /** The principal a token stands for, or null for a token that is unknown, expired or malformed. */
  verify(token: string): Promise<Principal | null>;
}

/**
 * Tokens listed in configuration, for local development and tests only:
 * `{"<token>": {"user": "alice", "scopes": ["osfoundry:read"]}}`.
 */
export class StaticTokenVerifier implements TokenVerifier {
  readonly #tokens: ReadonlyMap<string, Principal>;

  constructor(json: string | undefined) {
    this.#tokens = parseTokens(json);
  }

  async verify(token: string): Promise<Principal | null> {
    return this.#tokens.get(token) ?? null;
  }
}

function parseTokens(json: string | undefined): Map<string, Principal> {
  const tokens = new Map<string, Principal>();
  if (json === undefined || json.trim() === "") return tokens;
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== "object" || parsed === null) throw new Error("DEV_TOKENS must be a JSON object");
  for (const [token, value] of Object.entries(parsed)) {
    const entry = value as { user?: unknown; scopes?: unknown };
    if (typeof entry.user !== "string" || !Array.isArray(entry.scopes) || !entry.scopes.every((s) => typeof s === "string")) {
      throw new Error(`DEV_TOKENS["${token.slice(0, 8)}…"] must be {"user": string, "scopes": string[]}`);
    }
    tokens.set(token, { user: entry.user, scopes: entry.scopes as string[] });
  }
  return tokens;
}

/** The token of an `Authorization: Bearer …` header; never from the query string. */
export function bearerToken(header: string | undefined | null): string | null {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

export function hasScopes(principal: Principal, needed: readonly string[]): boolean {
  return needed.every((scope) => principal.scopes.includes(scope));
}
