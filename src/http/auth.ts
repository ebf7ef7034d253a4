/**
 * Bearer-token middleware: 401 with a `WWW-Authenticate` challenge for a
 * missing or unknown token, 403 `insufficient_scope` (with the scopes needed,
 * so a client can step up) for a token that may not do this.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bearerToken, hasScopes, StaticTokenVerifier, type Principal, type TokenVerifier } from "../auth/tokens.js";
import type { Env } from "../env.js";

export type AppEnv = { Bindings: Env; Variables: { principal: Principal } };

let cached: { source: string | undefined; verifier: TokenVerifier } | undefined;

/** The verifier this deployment uses; parsed once per isolate. */
function verifierFor(env: Env): TokenVerifier {
  if (cached === undefined || cached.source !== env.DEV_TOKENS) {
    cached = { source: env.DEV_TOKENS, verifier: new StaticTokenVerifier(env.DEV_TOKENS) };
  }
  return cached.verifier;
}

export function resourceMetadataUrl(c: Context): string {
  return `${new URL(c.req.url).origin}/.well-known/oauth-protected-resource/mcp`;
}

/** Requires a valid bearer token; `scopes` lists what the route's default challenge asks for. */
export function requireToken(scopes: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("Authorization");
    const token = bearerToken(header);
    const principal = token === null ? null : await verifierFor(c.env).verify(token);
    if (principal === null) {
      const error = header === undefined ? "" : `error="invalid_token", error_description="The bearer token is malformed, unknown or expired", `;
      c.header("WWW-Authenticate", `Bearer ${error}resource_metadata="${resourceMetadataUrl(c)}", scope="${scopes.join(" ")}"`);
      return c.json({ error: { code: header === undefined ? "unauthorized" : "invalid_token", message: "A valid bearer token is required." } }, 401);
    }
    c.set("principal", principal);
    await next();
  };
}

/** 403 `insufficient_scope` unless the caller holds every scope in `needed`. */
export function insufficientScope(c: Context<AppEnv>, needed: readonly string[]): Response | null {
  if (hasScopes(c.get("principal"), needed)) return null;
  const scope = needed.join(" ");
  c.header(
    "WWW-Authenticate",
    `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(c)}", error_description="This call needs ${scope}"`,
  );
  return c.json({ error: { code: "insufficient_scope", message: `This call needs the scope ${scope}.`, scopes: needed } }, 403);
}
