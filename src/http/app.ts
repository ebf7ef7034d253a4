/**
 * The Worker's HTTP surface. The two protected resources, /mcp for agents and
 * /api/v1 for the person's app, run behind their OAuth resource servers; the
 * authorization server answers discovery, registration and tokens; the
 * consent page is ours, and so is the Notes page's sign-in, whose session
 * cookie reaches /api/v1 as a Bearer token (src/http/page-session.ts).
 */
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { MCP_PATH, oauthFor, REGISTER_PATH, TOKEN_PATH, type OAuthSetup, type ResourceContext } from "../auth/oauth.js";
import { OIDC_CALLBACK_PATH } from "../auth/oidc.js";
import { aroundTokenRequest } from "../auth/token-endpoint.js";
import type { Env } from "../env.js";
import { SERVER_INFO } from "../mcp/server.js";
import { clip } from "../note/index.js";
import { homePage, page } from "../page/routes.js";
import { settingsOf, type Settings } from "../settings.js";
import { api } from "./api.js";
import { authorize, oidcCallback } from "./authorize.js";
import { answerError } from "./edge.js";
import { mcp, type PublicContext } from "./mcp.js";
import { bridgeSession, pageSession, PAGES_PATH } from "./page-session.js";
import { addressKey, limiterOf } from "./rate-limits.js";
import { logRequests } from "./request-log.js";

type RootEnv = { Bindings: Env; Variables: { oauth: OAuthSetup } };

export const app = new Hono<RootEnv>();

const handlers = {
  mcp: { fetch: (request: Request, env: Env, ctx: ResourceContext) => mcp.fetch(request, env, ctx) },
  api: { fetch: (request: Request, env: Env, ctx: ResourceContext) => api.fetch(request, env, ctx) },
};

// First: every answer, the refusals of the middleware below included, gets its log line.
app.use("*", logRequests);

app.use("*", async (c, next) => {
  const settings = settingsOf(c.env);
  if (settings.problems.length > 0) {
    // The operator's mistake, not the client's: say what to fix, and serve nothing with a setting that is not what was meant.
    return c.json({ error: { code: "misconfigured", message: `This deployment's settings are invalid: ${settings.problems.join("; ")}.` } }, 503);
  }
  const url = new URL(c.req.url);
  const oauth = oauthFor(settings, url, handlers);
  if (oauth === null) return misdirected(c, url, settings);
  c.set("oauth", oauth);
  await next();
});

/**
 * 421 Misdirected Request (RFC 9110 §15.5.20): the Host names an origin this
 * server is not configured to answer for, so it has no issuer, resource or
 * token for it. Nothing is wrong with the request's syntax (that is 400);
 * it reached the wrong server.
 */
function misdirected(c: Context<RootEnv>, url: URL, settings: Settings): Response {
  const serves = settings.publicUrl ?? "loopback origins only (127.0.0.1, localhost or [::1], any port); set PUBLIC_URL to serve another";
  const message = `This server does not serve ${clip(url.host, 100)}. It serves ${serves}.`;
  return c.json({ error: { code: "misdirected_request", message } }, 421);
}

/** Hono's own ExecutionContext type lags the runtime's; this is the same object. */
const executionContext = (c: Context<RootEnv>) => c.executionCtx as unknown as ExecutionContext;

const toMcp = (c: Context<RootEnv>) => {
  const { mcp: resource } = c.get("oauth");
  const ctx = executionContext(c);
  // POST for discovery; GET for the 405 it gets with a token (no SSE stream here): a challenge
  // there would send a client that tries the stream right after connecting to sign in.
  const withoutToken = (c.req.method === "POST" || c.req.method === "GET") && c.req.path === MCP_PATH && !c.req.raw.headers.has("Authorization");
  if (!withoutToken) return resource.fetch(c.req.raw, c.env, ctx);
  // No token: the routes serve discovery themselves, and answer anything else with the resource server's own 401 challenge.
  const challenge = () => resource.fetch(new Request(c.req.url), c.env, ctx);
  const open: PublicContext = { waitUntil: (promise) => ctx.waitUntil(promise), passThroughOnException: () => ctx.passThroughOnException(), props: {}, tracing: ctx.tracing, challenge };
  return mcp.fetch(c.req.raw, c.env, open);
};
const toApi = (c: Context<RootEnv>) => c.get("oauth").api.fetch(bridgeSession(c, c.get("oauth").issuer), c.env, executionContext(c));

/**
 * CORS for /mcp without a token, as the OAuth resource server gives every answer
 * with one: the Origin reflected (bearer tokens are not ambient credentials, and
 * the MCP routes refuse a foreign Origin themselves), WWW-Authenticate and
 * Retry-After exposed, so a browser client can read the tool list and start its
 * sign-in from the challenge. Preflights carry no token, so this answers them all.
 */
const publicCors = cors({ origin: (origin) => origin, exposeHeaders: ["WWW-Authenticate", "Retry-After"], maxAge: 86400 });
app.use(MCP_PATH, (c, next) => (c.req.raw.headers.has("Authorization") ? next() : publicCors(c, next)));
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
app.route(OIDC_CALLBACK_PATH, oidcCallback);
app.route(PAGES_PATH, pageSession);
// The person's page for a Note (its script reads and writes through /api/v1). Any other
// route under /notes (the page's sign-in, above) must be mounted before it: a Note ID could spell it.
app.get("/notes/", homePage);
app.route("/notes", page);

app.get("/", (c) => {
  const origin = c.get("oauth").issuer;
  return c.json({ name: SERVER_INFO.title, version: SERVER_INFO.version, mcp: `${origin}/mcp`, api: `${origin}/api/v1` });
});

// Registration is open to anyone and each one is a KV write: so many per client address a minute.
app.post(REGISTER_PATH, async (c, next) => {
  const wait = await limiterOf(c.env, "REGISTER_LIMIT")(addressKey(c.req.raw));
  if (wait === null) return next();
  // The OAuth endpoints' error shape (RFC 7591 §3.2.2).
  const body = { error: "rate_limited", error_description: `Too many client registrations from this address. Try again in ${wait} seconds.` };
  return Response.json(body, { status: 429, headers: { "Retry-After": String(wait), "Cache-Control": "no-store" } });
});

app.post(TOKEN_PATH, (c, next) =>
  aroundTokenRequest(c.get("oauth"), c.env, c.req.raw, async () => {
    await next();
    return c.res;
  }),
);

// Discovery, registration, token, revocation: the authorization server's own endpoints.
app.all("*", (c) => c.get("oauth").server.fetch(c.req.raw, c.env, executionContext(c)));

app.onError(answerError);
