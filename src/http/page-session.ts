/**
 * The Notes page's session: the person signs in through this server's own
 * authorization server, as any MCP client does (authorization code, PKCE
 * S256), with the page as a public client the Worker registers for itself,
 * once per origin. The access token then lives in an HttpOnly cookie, and
 * `bridgeSession` turns it back into a Bearer header for same-origin requests
 * to the person's API: the resource server, scopes and audience checks stay
 * the only gate.
 *
 * @example
 * app.route("/notes", pageSession);
 * app.all("/api/v1/*", (c) => oauth.api.fetch(bridgeSession(c, oauth.issuer), env, ctx));
 */
import type { ClientInfo } from "@cloudflare/workers-oauth-provider";
import { Hono, type Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import { base64url, fromBase64url, randomBase64url, sha256 } from "../auth/base64url.js";
import { API_PATH, AUTHORIZE_PATH, mayBeIssued, TOKEN_PATH, type OAuthSetup } from "../auth/oauth.js";
import { SCOPES } from "../auth/scopes.js";
import { aroundTokenRequest } from "../auth/token-endpoint.js";
import type { Env } from "../env.js";
import { escape, pageHtml } from "./html.js";

type PageEnv = { Bindings: Env; Variables: { oauth: OAuthSetup } };

const PAGE_CLIENT_NAME = "osFoundry Notes page";
export const PAGES_PATH = "/notes";

/** The session's routes under PAGES_PATH: Note IDs that could never have a page, so no Note takes them. */
export const PAGE_ROUTE_NAMES: readonly string[] = ["sign-in", "callback", "sign-out"];
export const CALLBACK_PATH = `${PAGES_PATH}/callback`;
/** The access token for /api/v1. Strict: only this origin's own pages ever need it sent. On https it is `__Host-notes_session` (see `cookie`). */
const SESSION_COOKIE = "notes_session";
/** The refresh token: only /notes/sign-in and /notes/sign-out read it. */
const REFRESH_COOKIE = "notes_refresh";
/** The flow under way: state, PKCE verifier, client, where to go back. */
const FLOW_COOKIE = "notes_sign_in";

/** A sign-in left this long on the consent page starts again. */
const FLOW_SECONDS = 600;
/** The library's refresh-token lifetime (30 days, fixed from the first sign-in); a refresh past it just fails and signs in again. */
const REFRESH_SECONDS = 30 * 24 * 3600;

export const pageSession = new Hono<PageEnv>();

/**
 * Starts a sign-in and comes back to `return` (a path under /notes/). With a
 * refresh token from an earlier sign-in it first tries a refresh, so an
 * expired session does not mean the consent page again.
 */
pageSession.get("/sign-in", async (c) => {
  const oauth = c.get("oauth");
  const back = returnPath(c.req.query("return"), oauth.issuer);
  if (back === null) {
    return page(c, 400, "Sign-in failed", `<p>The <code>return</code> parameter must be a path on this server under ${PAGES_PATH}/, e.g. <code>${PAGES_PATH}/demo</code>.</p>`);
  }
  const refreshToken = readCookie(c, oauth.issuer, "refresh");
  if (refreshToken !== undefined) {
    const clientId = await storedPageClient(oauth, c.env);
    const tokens = clientId === null ? null : await tokenRequest(c, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
    if (tokens !== null) {
      keepSession(c, tokens);
      return c.redirect(back, 303);
    }
    // Expired, revoked or rotated out: sign in afresh.
    dropCookie(c, oauth.issuer, "refresh");
  }

  const clientId = await pageClient(oauth, c.env);
  const verifier = randomBase64url(32);
  const state = randomBase64url(16);
  const flow: Flow = { state, verifier, client_id: clientId, return: back };
  writeCookie(c, oauth.issuer, "flow", base64url(new TextEncoder().encode(JSON.stringify(flow))), FLOW_SECONDS);
  const url = new URL(`${oauth.issuer}${AUTHORIZE_PATH}`);
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: `${oauth.issuer}${CALLBACK_PATH}`,
    scope: SCOPES.app,
    state,
    code_challenge: base64url(await sha256(verifier)),
    code_challenge_method: "S256",
    resource: `${oauth.issuer}${API_PATH}`,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return c.redirect(url.href, 302);
});

/** The authorization server sends the browser back here: only the flow this browser started gets a session. */
pageSession.get("/callback", async (c) => {
  const oauth = c.get("oauth");
  const flow = readFlow(readCookie(c, oauth.issuer, "flow"));
  // The flow works once, whatever comes of it.
  dropCookie(c, oauth.issuer, "flow");
  const state = c.req.query("state");
  // The return path is checked again: a cookie is what a neighbouring site on the same domain could have set.
  if (flow === null || state === undefined || state !== flow.state || returnPath(flow.return, oauth.issuer) !== flow.return) {
    return page(c, 400, "Sign-in failed", "<p>This sign-in was not started in this browser, or it was started more than 10 minutes ago.</p><p>Open the Note again to sign in.</p>");
  }
  const again = `<p><a href="${escape(`${PAGES_PATH}/sign-in?return=${encodeURIComponent(flow.return)}`)}">Sign in again</a></p>`;
  // RFC 9207: the answer must come from this server's authorization server, not one the browser was sent to instead.
  const iss = c.req.query("iss");
  if (iss !== undefined && iss !== oauth.issuer) return page(c, 400, "Sign-in failed", `<p>The sign-in answer came from another server.</p>${again}`);
  const error = c.req.query("error");
  if (error !== undefined) {
    const denied = error === "access_denied";
    return page(c, denied ? 403 : 400, denied ? "Not signed in" : "Sign-in failed", `<p>${denied ? "You did not allow the Notes page." : `The sign-in failed: ${escape(error)}.`}</p>${again}`);
  }
  const code = c.req.query("code");
  if (code === undefined || !mayBeIssued(code)) return page(c, 400, "Sign-in failed", `<p>The sign-in answer carried no authorization code.</p>${again}`);
  const tokens = await tokenRequest(c, {
    grant_type: "authorization_code",
    code,
    redirect_uri: `${oauth.issuer}${CALLBACK_PATH}`,
    client_id: flow.client_id,
    code_verifier: flow.verifier,
    resource: `${oauth.issuer}${API_PATH}`,
  });
  if (tokens === null) return page(c, 400, "Sign-in failed", `<p>The authorization code was refused: it was used already, or it expired.</p>${again}`);
  keepSession(c, tokens);
  return c.redirect(flow.return, 303);
});

/**
 * Ends this browser's session: the grant is revoked (its access and refresh
 * tokens with it) and both cookies cleared. Same-origin only, so another site
 * cannot sign the person out.
 */
pageSession.post("/sign-out", async (c) => {
  const oauth = c.get("oauth");
  if (!sameOrigin(c.req.raw, oauth.issuer)) {
    return page(c, 403, "Not signed out", "<p>Sign out from the Notes page itself: this request did not come from it.</p>");
  }
  const refreshToken = readCookie(c, oauth.issuer, "refresh");
  const accessToken = readCookie(c, oauth.issuer, "session");
  const clientId = await storedPageClient(oauth, c.env);
  // A refresh token revokes its whole grant; an access token only itself.
  const token = refreshToken ?? accessToken;
  if (token !== undefined && clientId !== null) await tokenEndpoint(c, { token, client_id: clientId });
  if (accessToken !== undefined) oauth.tokens.forgetGrantOf(accessToken);
  dropCookie(c, oauth.issuer, "session");
  dropCookie(c, oauth.issuer, "refresh");
  const back = returnPath(c.req.query("return"), oauth.issuer);
  const again = back === null ? "" : `<p><a href="${escape(`${PAGES_PATH}/sign-in?return=${encodeURIComponent(back)}`)}">Sign in again</a></p>`;
  return page(c, 200, "Signed out", `<p>You are signed out of osFoundry Notes in this browser.</p>${again}`);
});

/**
 * The request to the person's API as the resource server should see it: with
 * the session cookie's token as its Bearer header when it has no
 * Authorization of its own and the browser says it comes from this origin.
 * Anything else goes through untouched, so a cross-site request carrying the
 * cookie meets the same 401 as one without it.
 */
export function bridgeSession(c: Context, issuer: string): Request {
  const request = c.req.raw;
  if (request.headers.has("Authorization")) return request;
  const token = readCookie(c, issuer, "session");
  if (token === undefined || token === "" || !sameOrigin(request, issuer)) return request;
  const headers = new Headers(request.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return new Request(request, { headers });
}

/**
 * Whether the browser says this request comes from a page of `issuer`'s own
 * origin: `Sec-Fetch-Site: same-origin`, or, from a browser that sends no
 * Sec-Fetch-Site, an `Origin` equal to it. A Sec-Fetch-Site that says
 * otherwise decides, whatever the Origin.
 */
function sameOrigin(request: Request, issuer: string): boolean {
  const site = request.headers.get("Sec-Fetch-Site");
  if (site !== null) return site === "same-origin";
  return request.headers.get("Origin") === new URL(issuer).origin;
}

/** Whether a registered client is the page (its one redirect URI is this origin's callback): its grants do not revoke each other. */
export function isPageClient(client: ClientInfo, issuer: string): boolean {
  return client.redirectUris.length === 1 && client.redirectUris[0] === `${issuer}${CALLBACK_PATH}`;
}

/** The page's client ID for this origin, registered on first use and kept in KV. */
async function pageClient(oauth: OAuthSetup, env: Env): Promise<string> {
  const known = await storedPageClient(oauth, env);
  if (known !== null) return known;
  const client = await oauth.server.getOAuthApi(env).createClient({
    clientName: PAGE_CLIENT_NAME,
    redirectUris: [`${oauth.issuer}${CALLBACK_PATH}`],
    tokenEndpointAuthMethod: "none",
    grantTypes: ["authorization_code", "refresh_token"],
    responseTypes: ["code"],
  });
  // Two first sign-ins at once register two clients; each flow carries its own ID, so both work.
  await env.OAUTH_KV.put(pageClientKey(oauth.issuer), client.clientId);
  return client.clientId;
}

/** The page's registered client ID, or null when there is none (or it was deleted). */
async function storedPageClient(oauth: OAuthSetup, env: Env): Promise<string | null> {
  const known = await env.OAUTH_KV.get(pageClientKey(oauth.issuer));
  if (known === null) return null;
  const client = await oauth.server.getOAuthApi(env).lookupClient(known);
  return client !== null && isPageClient(client, oauth.issuer) ? known : null;
}

/** Beside the library's own `client:`, `grant:` and `token:` records, one per origin. */
export const pageClientKey = (issuer: string) => `notes-page:client:${issuer}`;

interface Flow {
  state: string;
  verifier: string;
  client_id: string;
  return: string;
}

function readFlow(value: string | undefined): Flow | null {
  if (value === undefined) return null;
  try {
    const flow = JSON.parse(new TextDecoder().decode(fromBase64url(value))) as Partial<Flow>;
    const fields = [flow.state, flow.verifier, flow.client_id, flow.return];
    return fields.every((f) => typeof f === "string" && f !== "") ? (flow as Flow) : null;
  } catch {
    return null;
  }
}

interface Tokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
}

/**
 * A request to the token endpoint, in process, with what this Worker adds
 * to the library's (a replayed refresh token revokes its grant, while the
 * same token from two tabs at once gets one answer; a revoked token leaves
 * this isolate's cache): the tokens, or null when it refused.
 */
async function tokenRequest(c: Context<PageEnv>, form: Record<string, string>): Promise<Tokens | null> {
  const response = await tokenEndpoint(c, form);
  if (!response.ok) return null;
  const body = (await response.json()) as Partial<Tokens>;
  if (typeof body.access_token !== "string" || typeof body.expires_in !== "number") return null;
  return { access_token: body.access_token, expires_in: body.expires_in, ...(typeof body.refresh_token === "string" ? { refresh_token: body.refresh_token } : {}) };
}

/** Sets the session cookies: the access token for as long as it lasts (then the API's 401 sends the page to sign-in), the refresh token for its lifetime. */
function keepSession(c: Context<PageEnv>, tokens: Tokens): void {
  const { issuer } = c.get("oauth");
  writeCookie(c, issuer, "session", tokens.access_token, tokens.expires_in);
  if (tokens.refresh_token !== undefined) writeCookie(c, issuer, "refresh", tokens.refresh_token, REFRESH_SECONDS);
}

type PageCookie = "session" | "refresh" | "flow";

/**
 * Each cookie's name and attributes on this origin. On https each carries the
 * prefix browsers enforce, so a neighbouring subdomain cannot plant one:
 * `__Host-` on the session (this origin only, Path=/), `__Secure-` on the
 * two whose narrower paths `__Host-` does not allow.
 */
function cookie(issuer: string, which: PageCookie): { name: string; prefix?: "host" | "secure"; options: CookieOptions } {
  const secure = issuer.startsWith("https:");
  const base: CookieOptions = { httpOnly: true, sameSite: "Strict", secure };
  if (which === "session") return { name: SESSION_COOKIE, ...(secure ? { prefix: "host" as const } : {}), options: { ...base, path: "/", ...(secure ? { prefix: "host" } : {}) } };
  const path = which === "refresh" ? PAGES_PATH : CALLBACK_PATH;
  // The flow's cookie is Lax, not Strict: with an OpenID provider the way back to the callback starts on the provider's site.
  const sameSite = which === "flow" ? "Lax" : "Strict";
  const name = which === "refresh" ? REFRESH_COOKIE : FLOW_COOKIE;
  return { name, ...(secure ? { prefix: "secure" as const } : {}), options: { ...base, sameSite, path, ...(secure ? { prefix: "secure" } : {}) } };
}

function readCookie(c: Context, issuer: string, which: PageCookie): string | undefined {
  const { name, prefix } = cookie(issuer, which);
  return prefix === undefined ? getCookie(c, name) : getCookie(c, name, prefix);
}

function writeCookie(c: Context, issuer: string, which: PageCookie, value: string, maxAge: number): void {
  const { name, options } = cookie(issuer, which);
  setCookie(c, name, value, { ...options, maxAge });
}

function dropCookie(c: Context, issuer: string, which: PageCookie): void {
  const { name, options } = cookie(issuer, which);
  deleteCookie(c, name, options);
}

/**
 * `value` as a path to send the browser to after sign-in, or null: only a
 * path on this origin under /notes/ (normalized, so `/notes/../x` and
 * `//host` do not pass), never one of the sign-in routes themselves.
 */
function returnPath(value: string | undefined, issuer: string): string | null {
  if (value === undefined || !value.startsWith("/") || value.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(value, issuer);
  } catch {
    return null;
  }
  if (url.origin !== new URL(issuer).origin || !url.pathname.startsWith(`${PAGES_PATH}/`)) return null;
  if ([`${PAGES_PATH}/sign-in`, CALLBACK_PATH, `${PAGES_PATH}/sign-out`].includes(url.pathname)) return null;
  return `${url.pathname}${url.search}`;
}

async function tokenEndpoint(c: Context<PageEnv>, form: Record<string, string>): Promise<Response> {
  const oauth = c.get("oauth");
  const request = new Request(`${oauth.issuer}${TOKEN_PATH}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return aroundTokenRequest(oauth, c.env, request, () => oauth.server.fetch(request, c.env, executionContext(c)));
}

/** Hono's own ExecutionContext type lags the runtime's; this is the same object. */
const executionContext = (c: Context) => c.executionCtx as unknown as ExecutionContext;

/** A page, through the context so the cookies set or cleared go with it. */
function page(c: Context, status: 200 | 400 | 403, title: string, body: string): Response {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  return c.html(pageHtml(title, body), status);
}
