/**
 * The authorization endpoint: sign-in and consent. The library validates the
 * request (client, redirect URI, PKCE S256, resource); this page says which
 * client asks for which scopes on which resource, lets the user approve or
 * deny, and grants only scopes that resource can carry.
 */
import {
  AuthorizationError,
  authorizationErrorRedirect,
  CimdFetchError,
  type AuthRequest,
  type ConsentDescription,
} from "@cloudflare/workers-oauth-provider";
import { Hono, type Context } from "hono";
import { identityFor, LocalIdentity } from "../auth/identity.js";
import { OIDC_CALLBACK_PATH, OidcIdentity } from "../auth/oidc.js";
import { mayBeIssued, type OAuthSetup } from "../auth/oauth.js";
import { SCOPES } from "../auth/scopes.js";
import { SignInFailure } from "../auth/sign-in-failure.js";
import type { Env } from "../env.js";
import { clip, invisible } from "../note/index.js";
import { settingsOf } from "../settings.js";
import { limitBody } from "./edge.js";
import { escape, pageHtml } from "./html.js";
import { CALLBACK_PATH, isPageClient } from "./page-session.js";
import { addressKey, limiterOf } from "./rate-limits.js";
import { noteRequest } from "./request-log.js";

type AuthorizeEnv = { Bindings: Env; Variables: { oauth: OAuthSetup } };

export const authorize = new Hono<AuthorizeEnv>();

// Each view and each decision counts for the client address: a sign-in is two requests.
authorize.use("*", async (c, next) => {
  const wait = await limiterOf(c.env, "AUTHORIZE_LIMIT")(addressKey(c.req.raw));
  if (wait === null) return next();
  const refused = page("Too many sign-in attempts", `<p>Too many sign-in requests came from your network.</p><p>Wait ${wait} seconds, then start again from your app.</p>`, 429);
  refused.headers.set("Retry-After", String(wait));
  return refused;
});

const SCOPE_TEXT: Record<string, string> = {
  [SCOPES.read]: "Read the Notes you approve for connectors: tabs, slides, Markdown, sources and file names",
  [SCOPES.write]: "Add tabs, slides and sources to those Notes",
  [SCOPES.app]: "Act as your osFoundry Notes app: create, approve and edit your Notes",
};

authorize.get("/", (c) =>
  guarded(c, async (oauth, helpers) => {
    const identity = identityFor(settingsOf(c.env));
    if (identity === null) return noIdentity();
    const request = await helpers.parseAuthRequest(c.req.raw);
    noteRequest({ client: request.clientId });
    const user = identity instanceof LocalIdentity ? await identity.identify(c.req.raw, null) : null;
    if (user instanceof Response) return user;
    const details = await helpers.describeConsent(request);
    const consent = await helpers.beginConsent(request);
    consent.headers.set("Content-Type", "text/html; charset=utf-8");
    consent.headers.set("Cache-Control", "no-store");
    const scopes = [...offeredScopes(oauth, request)];
    const signInAt = identity instanceof OidcIdentity ? identity.providerHost : null;
    const ownPage = request.redirectUri === `${oauth.issuer}${CALLBACK_PATH}`;
    return new Response(consentPage(details, request, scopes, consent.handle, user, signInAt, ownPage), { headers: consent.headers });
  }),
);

/** The consent form is a handle, a decision, a few scopes and a user name: far below this. */
const FORM_BYTES = 16 * 1024;

const formLimit = limitBody(
  FORM_BYTES,
  () => page("Sign-in failed", `<p>The consent form is larger than ${FORM_BYTES} bytes.</p><p>Start again from your app.</p>`, 413),
  () => unreadableForm(),
);

authorize.post("/", formLimit, (c) =>
  guarded(c, async (oauth, helpers) => {
    const identity = identityFor(settingsOf(c.env));
    if (identity === null) return noIdentity();
    // Not a form at all (JSON, multipart without a boundary, nothing) is the client's mistake, not ours.
    const form = await c.req.raw.formData().catch(() => null);
    if (form === null) return unreadableForm();
    const handle = String(form.get("handle") ?? "");
    if (form.get("decision") !== "approve") {
      const denied = await helpers.denyConsent(c.req.raw, handle);
      denied.headers.set("Location", denied.redirectTo);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    // Before the handle is used up: a refused name or an unreachable provider leaves the page usable.
    const user = identity instanceof LocalIdentity ? await identity.identify(c.req.raw, form) : null;
    if (user instanceof Response) return user;
    const provider = identity instanceof OidcIdentity ? await identity.provider() : null;
    // The request comes back from storage, not from the form: grant what was offered and ticked.
    const approved = await helpers.approveConsent(c.req.raw, handle);
    noteRequest({ user: user ?? undefined, client: approved.request.clientId });
    const offered = offeredScopes(oauth, approved.request);
    const scope = form.getAll("scope").map(String).filter((s) => offered.includes(s));
    if (scope.length === 0) {
      approved.headers.set("Location", authorizationErrorRedirect(approved.request, "access_denied", "No scope was approved"));
      return new Response(null, { status: 302, headers: approved.headers });
    }
    const granted = { ...approved.request, scope };
    if (identity instanceof OidcIdentity && provider !== null) {
      return identity.begin(helpers, provider, granted, `${oauth.issuer}${OIDC_CALLBACK_PATH}`, approved.headers);
    }
    return grant(oauth, helpers, granted, user as string, approved.headers);
  }),
);

/**
 * The OpenID provider sends the browser back here. Every failure is a page;
 * only a verified ID token for the request this browser started makes a grant.
 */
export const oidcCallback = new Hono<AuthorizeEnv>();

oidcCallback.get("/", (c) =>
  guarded(c, async (oauth, helpers) => {
    const identity = identityFor(settingsOf(c.env));
    if (!(identity instanceof OidcIdentity)) return page("Not found", "<p>This connector does not sign in through an OpenID provider.</p>", 404);
    const done = await identity.finish(helpers, c.req.raw, `${oauth.issuer}${OIDC_CALLBACK_PATH}`);
    noteRequest({ user: done.user, client: done.request.clientId });
    return grant(oauth, helpers, done.request, done.user, done.headers);
  }),
);

/** Issues the grant for `user` with the request's scope and sends the browser back to the client with the code. */
async function grant(oauth: OAuthSetup, helpers: Helpers, request: AuthRequest, user: string, headers: Headers): Promise<Response> {
  // The client's registered name goes with the grant, so the change log names the agent without a lookup per write.
  const client = await helpers.lookupClient(request.clientId);
  const name = client?.clientName;
  const client_name = name === undefined || invisible(name) ? null : clip(name, 100);
  // The Notes page signs in once per browser: a sign-in on the phone must not end the session on the laptop.
  const revokeExistingGrants = client === null || !isPageClient(client, oauth.issuer);
  const { redirectTo } = await helpers.completeAuthorization({
    request,
    userId: user,
    metadata: {},
    scope: request.scope,
    props: { user, client_name },
    revokeExistingGrants,
  });
  // A new grant revokes the user's earlier grants for this client and resource: stop trusting their cached tokens.
  if (revokeExistingGrants) oauth.tokens.forgetUser(user);
  headers.set("Location", redirectTo);
  return new Response(null, { status: 302, headers });
}

type Helpers = ReturnType<OAuthSetup["server"]["getOAuthApi"]>;

/** Runs a step of the page, turning the library's expected failures into safe answers. */
async function guarded(c: Context<AuthorizeEnv>, step: (oauth: OAuthSetup, helpers: Helpers) => Promise<Response>): Promise<Response> {
  const oauth = c.get("oauth");
  if (!mayBeIssued(c.req.query("client_id") ?? "")) {
    return page("Sign-in failed", "<p>The app's client_id is longer than any this server issues.</p><p>Start again from your app.</p>", 400);
  }
  try {
    return await step(oauth, oauth.server.getOAuthApi(c.env));
  } catch (error) {
    // Only a request the library validated may send the browser back to the client.
    if (error instanceof AuthorizationError && error.redirectTo !== undefined) return Response.redirect(error.redirectTo, 302);
    if (error instanceof SignInFailure) return page("Sign-in failed", `<p>${escape(error.explanation)}</p>`, error.status);
    if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
      const message = error instanceof AuthorizationError ? error.description : "This app could not be verified.";
      return page("Sign-in failed", `<p>${escape(message)}</p><p>Start again from your app.</p>`, 400);
    }
    throw error;
  }
}

/** The scopes this request may be granted: what it asked for, within what its resource carries. */
function offeredScopes(oauth: OAuthSetup, request: AuthRequest): readonly string[] {
  const resource = oauth.resources[request.resource ?? ""];
  if (resource === undefined) return [];
  const asked = request.scope.filter((s) => resource.grantable.includes(s));
  // A client that asked for nothing (or nothing this resource carries) is offered the baseline.
  return asked.length > 0 ? asked : resource.required;
}

function unreadableForm(): Response {
  return page("Sign-in failed", "<p>The consent form could not be read: it must be sent from the consent page, as a form.</p><p>Start again from your app.</p>", 400);
}

function noIdentity(): Response {
  return page(
    "Sign-in is not configured",
    "<p>This deployment has no identity provider. See the README, “Identity”: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.</p>",
    501,
  );
}

/**
 * `ownPage`: the redirect URI is this server's own /notes/callback, which
 * takes only a sign-in its own /notes/sign-in started in this browser: the
 * access stays here whoever registered the client, so the page says so
 * instead of warning about an unverified app.
 */
function consentPage(details: ConsentDescription, request: AuthRequest, scopes: string[], handle: string, user: string | null, signInAt: string | null, ownPage: boolean): string {
  const name = shownName(details);
  const origin = ownPage
    ? "This is this server's own Notes page, in your browser."
    : details.clientDomain === undefined
      ? "This app registered itself; its name is not verified."
      : `Published by <strong>${isolated(details.clientDomain)}</strong>.`;
  const target = request.resource?.endsWith("/api/v1") === true ? "your osFoundry Notes app API" : "osFoundry Notes through this connector";
  const loopback = details.redirectIsLoopback && !ownPage
    ? "<p class=warn><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>"
    : "";
  const scopeList = scopes
    .map((s) => `<label><input type=checkbox name=scope value="${escape(s)}" checked> <code>${escape(s)}</code> — ${escape(SCOPE_TEXT[s] ?? s)}</label>`)
    .join("<br>");
  const who = user === null
    ? ""
    : `<p><label>Local user (development sign-in) <input name=user value="${escape(user)}" required pattern="[a-z0-9][a-z0-9._\\-]{0,63}"></label></p>`;
  const next = signInAt === null ? "" : `<p>After you allow, you sign in at <strong>${escape(signInAt)}</strong>.</p>`;
  return pageHtml(
    `Allow ${isolatedText(name)}?`,
    `<p><strong>${isolated(name)}</strong> asks to use ${escape(target)} on your behalf.</p>
<p>${origin} Access will be sent to <strong>${isolated(details.redirectHost)}</strong>.</p>
${loopback}${next}
<form method=post>
<input type=hidden name=handle value="${escape(handle)}">
${who}
<fieldset><legend>It asks to</legend>${scopeList}</fieldset>
<p><button name=decision value=approve>Allow</button> <button name=decision value=deny>Deny</button></p>
</form>`,
    `Allow ${isolated(name)}?`,
  );
}

/**
 * The client's name, or "(no name)": the library falls back to the client ID
 * when the name is empty, and a name of invisible characters is no name
 * either (the heading would read "Allow ?").
 */
function shownName(details: ConsentDescription): string {
  const named = details.clientName !== details.clientId && !invisible(details.clientName);
  return named ? details.clientName : "(no name)";
}

/**
 * A client's string in the page's markup, in `<bdi>`: a right-to-left
 * override or an RTL name cannot reorder the page's own words around it.
 */
function isolated(value: string): string {
  return `<bdi>${escape(balancedIsolates(value))}</bdi>`;
}

/** The same in plain text (the `<title>`), where only the characters FSI and PDI can isolate. */
function isolatedText(value: string): string {
  return `${FSI}${escape(balancedIsolates(value))}${PDI}`;
}

const FSI = "\u2068";
const PDI = "\u2069";

/**
 * The text with each PDI that closes no isolate the text itself opened
 * dropped, and each isolate it leaves open closed: either would end the
 * page's isolate around it in the wrong place (UBA rule X6a pairs a PDI with
 * the nearest open isolate).
 */
function balancedIsolates(value: string): string {
  let open = 0;
  const kept = value.replace(/[\u2066-\u2069]/g, (char) => {
    if (char !== PDI) open++;
    else if (open === 0) return "";
    else open--;
    return char;
  });
  return kept + PDI.repeat(open);
}

function page(title: string, body: string, status: number): Response {
  return new Response(pageHtml(title, body), {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'" },
  });
}
