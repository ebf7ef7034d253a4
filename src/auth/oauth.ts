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
import { isLoopbackHostname, type Settings } from "../settings.js";
import { SCOPES } from "./scopes.js";
import { TokenCache } from "./token-cache.js";
import { noteTokenError } from "./token-endpoint.js";

/** What a grant stores for the routes: the user the token acts for, and the client's registered name. */
interface AuthProps {
  user: string;
  /** Absent on grants made before names were kept; null when the client registered none. */
  client_name?: string | null;
}

export type ResourceContext = OAuthResourceContext<AuthProps>;

/** A protected resource's handler: the app's fetch with the verified token in `ctx`. */
interface ResourceHandler {
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

/**
 * Whether a credential (client ID, token, authorization code) is short enough
 * to be one this server issued. The library looks each up in KV as part of a
 * key, and KV throws for a key over 512 bytes: the client sending an absurdly
 * long one would get a 500 (or a 503 from a resource server). What we issue is
 * far shorter: a token is `{userId}:{16-character grant ID}:{32-character secret}`
 * with a user ID of at most 128 characters, a registered client ID 16 characters.
 */
export function mayBeIssued(credential: string): boolean {
  return new TextEncoder().encode(credential).byteLength <= MAX_CREDENTIAL_BYTES;
}

const MAX_CREDENTIAL_BYTES = 400;

/** How long an isolate trusts a token it validated: the most a revocation elsewhere can lag. */
const TOKEN_CACHE_MS = 10_000;

/**
 * Setups built in this isolate, by issuer, most recently used last. With
 * PUBLIC_URL there is one; locally one per loopback origin in use, and a
 * request to yet another port evicts the least recently used.
 */
const setups = new Map<string, OAuthSetup>();
const MAX_SETUPS = 8;

/** How many setups this isolate holds (the bound above is what keeps a flood of Host values from growing it). */
export function cachedSetupCount(): number {
  return setups.size;
}

/**
 * The issuer for a request: `PUBLIC_URL` when the request is for its host,
 * else (no PUBLIC_URL) the request's own origin when it is a loopback one.
 * Null for an origin this deployment does not serve: the request is misdirected.
 */
function issuerFor(settings: Settings, url: URL): string | null {
  if (settings.publicUrl !== null) return new URL(settings.publicUrl).host === url.host ? settings.publicUrl : null;
  return isLoopbackHostname(url.hostname) ? url.origin : null;
}

/**
 * The OAuth roles for the origin a request is for, or null when this
 * deployment does not serve it (see `issuerFor`). Built once per origin and
 * isolate: the library fixes the issuer and the resources at construction.
 */
export function oauthFor(settings: Settings, url: URL, handlers: { mcp: ResourceHandler; api: ResourceHandler }): OAuthSetup | null {
  const issuer = issuerFor(settings, url);
  if (issuer === null) return null;
  const known = setups.get(issuer);
  if (known !== undefined) {
    setups.delete(issuer);
    setups.set(issuer, known);
    return known;
  }
  const setup = buildSetup(issuer, settings, handlers);
  if (setups.size >= MAX_SETUPS) setups.delete(setups.keys().next().value as string);
  setups.set(issuer, setup);
  return setup;
}

function buildSetup(issuer: string, settings: Settings, handlers: { mcp: ResourceHandler; api: ResourceHandler }): OAuthSetup {
  const mcpResource = `${issuer}${MCP_PATH}`;
  const apiResource = `${issuer}${API_PATH}`;
  const server = new OAuthAuthorizationServer<Env>({
    issuer,
    resources: [mcpResource, apiResource],
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [SCOPES.read, SCOPES.write, SCOPES.app],
    clientIdMetadataDocumentEnabled: true,
    accessTokenTTL: settings.accessTokenTtlSeconds,
    onError: ({ internal }) => noteTokenError(internal),
  });
  const tokens = new TokenCache<ValidatedAccessToken<AuthProps>>(TOKEN_CACHE_MS);
  const validateToken = (e: Env) => async (resource: string, token: string) =>
    mayBeIssued(token) ? tokens.validate(resource, token, () => server.validateToken<AuthProps>(resource, token, e)) : null;
  return {
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
}
