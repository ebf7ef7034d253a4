/**
 * The connector as an OAuth 2.1 authorization server and two protected
 * resources, on Cloudflare's `@cloudflare/workers-oauth-provider`: the MCP
 * endpoint (`/mcp`, agents) and the person's API (`/api/v1`, the desktop app).
 * Each token is bound to one of them (its audience), so an agent's token never
 * reaches the app's API and the other way round.
 */
import {
  OAuthAuthorizationServer,
  OAuthResourceServer,
  type OAuthResourceContext,
  type ValidatedAccessToken,
} from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env.js";
import { SCOPES } from "./scopes.js";
import { TokenCache } from "./token-cache.js";

/** What a grant stores for the routes: the user the token acts for. */
export interface AuthProps {
  user: string;
}

export type ResourceContext = OAuthResourceContext<AuthProps>;

/** A protected resource's handler: the app's fetch with the verified token in `ctx`. */
export interface ResourceHandler {
  fetch(request: Request, env: Env, ctx: ResourceContext): Response | Promise<Response>;
}

export interface OAuthSetup {
  issuer: string;
  tokens: TokenCache<ValidatedAccessToken<AuthProps>>;
  server: OAuthAuthorizationServer<Env>;
  mcp: OAuthResourceServer<Env, AuthProps>;
  api: OAuthResourceServer<Env, AuthProps>;
  /** Per resource: the scopes a token for it may carry, and those any access needs. */
  resources: Readonly<Record<string, { grantable: readonly string[]; required: readonly string[] }>>;
}

export const AUTHORIZE_PATH = "/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const MCP_PATH = "/mcp";
export const API_PATH = "/api/v1";

/**
 * What an MCP client asks for at first sign-in. Both scopes: a connector
 * exists to write, and clients that keep refresh tokens cannot step up from
 * read-only today (they refresh instead of re-authorizing). The consent page
 * lets the person untick write; a read-only token still steps up by 403.
 */
const MCP_REQUIRED = [SCOPES.read, SCOPES.write] as const;

/** How long an isolate trusts a token it validated: the most a revocation elsewhere can lag. */
const TOKEN_CACHE_MS = 10_000;

const setups = new Map<string, OAuthSetup>();

/**
 * The OAuth roles for this deployment's public origin (`PUBLIC_URL`, or the
 * request's own origin locally). Built once per origin and isolate: the
 * library fixes the issuer and the resources at construction.
 */
export function oauthFor(env: Env, request: Request, handlers: { mcp: ResourceHandler; api: ResourceHandler }): OAuthSetup {
  const issuer = (env.PUBLIC_URL ?? new URL(request.url).origin).replace(/\/+$/, "");
  const known = setups.get(issuer);
  if (known !== undefined) return known;

  const mcpResource = `${issuer}${MCP_PATH}`;
  const apiResource = `${issuer}${API_PATH}`;
  const ttl = Number(env.ACCESS_TOKEN_TTL_SECONDS);
  const server = new OAuthAuthorizationServer<Env>({
    issuer,
    resources: [mcpResource, apiResource],
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [SCOPES.read, SCOPES.write, SCOPES.app],
    clientIdMetadataDocumentEnabled: true,
    ...(Number.isInteger(ttl) && ttl > 0 ? { accessTokenTTL: ttl } : {}),
  });
  const tokens = new TokenCache<ValidatedAccessToken<AuthProps>>(TOKEN_CACHE_MS);
  const validateToken = (e: Env) => (resource: string, token: string) =>
    tokens.validate(resource, token, () => server.validateToken<AuthProps>(resource, token, e));
  const setup: OAuthSetup = {
    issuer,
    tokens,
    server,
    mcp: new OAuthResourceServer<Env, AuthProps>({
      resourceMetadata: {
        resource: mcpResource,
        authorization_servers: [issuer],
        resource_name: "osFoundry Notes connector (MCP)",
        bearer_methods_supported: ["header"],
      },
      requiredScopes: [...MCP_REQUIRED],
      validateToken,
      handler: handlers.mcp,
    }),
    api: new OAuthResourceServer<Env, AuthProps>({
      resourceMetadata: {
        resource: apiResource,
        authorization_servers: [issuer],
        resource_name: "osFoundry Notes app API",
        bearer_methods_supported: ["header"],
      },
      requiredScopes: [SCOPES.app],
      validateToken,
      handler: handlers.api,
    }),
    resources: {
      [mcpResource]: { grantable: [SCOPES.read, SCOPES.write], required: MCP_REQUIRED },
      [apiResource]: { grantable: [SCOPES.app], required: [SCOPES.app] },
    },
  };
  setups.set(issuer, setup);
  return setup;
}
