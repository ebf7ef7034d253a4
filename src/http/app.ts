/**
 * The Worker's HTTP surface. The two protected resources, /mcp for agents and
 * /api/v1 for the person's app, run behind their OAuth resource servers; the
 * authorization server answers discovery, registration and tokens; the
 * consent page is ours.
 */
import { Hono, type Context } from "hono";
import { MCP_PATH, oauthFor, type OAuthSetup, type ResourceContext } from "../auth/oauth.js";
import type { Env } from "../env.js";
import { SERVER_INFO } from "../mcp/server.js";
import { api } from "./api.js";
import { authorize } from "./authorize.js";
import { mcp } from "./mcp.js";

type RootEnv = { Bindings: Env; Variables: { oauth: OAuthSetup } };

export const app = new Hono<RootEnv>();

const handlers = {
  mcp: { fetch: (request: Request, env: Env, ctx: ResourceContext) => mcp.fetch(request, env, ctx) },
  api: { fetch: (request: Request, env: Env, ctx: ResourceContext) => api.fetch(request, env, ctx) },
};

app.use("*", async (c, next) => {
  c.set("oauth", oauthFor(c.env, c.req.raw, handlers));
  await next();
});

/** Hono's own ExecutionContext type lags the runtime's; this is the same object. */
const executionContext = (c: Context<RootEnv>) => c.executionCtx as unknown as ExecutionContext;

const toMcp = (c: Context<RootEnv>) => c.get("oauth").mcp.fetch(c.req.raw, c.env, executionContext(c));
const toApi = (c: Context<RootEnv>) => c.get("oauth").api.fetch(c.req.raw, c.env, executionContext(c));

app.all("/mcp", toMcp);
app.all("/mcp/*", toMcp);
app.get("/.well-known/oauth-protected-resource/mcp", toMcp);
app.all("/api/v1/*", toApi);
app.get("/.well-known/oauth-protected-resource/api/v1", toApi);

// The resource at the root of this origin is the MCP endpoint (RFC 9728 §3.1 lets a client ask here first).
app.get("/.well-known/oauth-protected-resource", (c) => {
  const url = new URL(c.req.url);
  url.pathname = `/.well-known/oauth-protected-resource${MCP_PATH}`;
  return c.get("oauth").mcp.fetch(new Request(url, c.req.raw), c.env, executionContext(c));
});

app.route("/authorize", authorize);

app.get("/", (c) => {
  const origin = c.get("oauth").issuer;
  return c.json({ name: SERVER_INFO.title, version: SERVER_INFO.version, mcp: `${origin}/mcp`, api: `${origin}/api/v1` });
});

// A revocation (RFC 7009: a token and no grant type) also drops the token from this isolate's cache.
app.post("/oauth/token", async (c, next) => {
  const form = await c.req.raw.clone().formData().catch(() => null);
  const token = form?.get("token");
  if (typeof token === "string" && !form?.has("grant_type")) c.get("oauth").tokens.forgetToken(token);
  await next();
});

// Discovery, registration, token, revocation: the authorization server's own endpoints.
app.all("*", (c) => c.get("oauth").server.fetch(c.req.raw, c.env, executionContext(c)));

app.onError((error, c) => {
  // Every expected failure is answered before here; reaching this is a bug.
  console.error("unhandled error", error);
  return c.json({ error: { code: "internal_error", message: "Internal error" } }, 500);
});
