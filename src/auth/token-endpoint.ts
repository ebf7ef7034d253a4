/**
 * What this Worker adds to the OAuth library's token endpoint. A revocation
 * (RFC 7009) forgets every cached token of the grant in this isolate at once.
 * A refresh with a refresh token the grant has rotated out revokes the grant
 * (RFC 9700 §4.14.2): it means two parties hold the grant's refresh tokens.
 * And a credential longer than any this server issues is refused before the
 * library looks it up (see `mayBeIssued`).
 */
import type { OAuthErrorInternal } from "@cloudflare/workers-oauth-provider";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "../env.js";
import { mayBeIssued, type OAuthSetup } from "./oauth.js";
import { tokenGrant } from "./token-cache.js";

/**
 * The library says why a refresh failed only to its `onError` hook, which has
 * no handle on the request; this carries the request's own record to it.
 */
const refreshes = new AsyncLocalStorage<{ rotatedOut: boolean }>();

/** The authorization server's `onError` hook: remembers a rotated-out refresh token for the request under way. */
export function noteTokenError(internal: OAuthErrorInternal): void {
  if (internal.category !== "refresh-token-grant" || internal.reason !== "refresh_token_mismatch") return;
  const refresh = refreshes.getStore();
  if (refresh !== undefined) refresh.rotatedOut = true;
}

/** Runs the library's answer to a token request (`forward`), then what the answer obliges this Worker to do. */
export async function aroundTokenRequest(oauth: OAuthSetup, env: Env, request: Request, forward: () => Promise<void>): Promise<Response | void> {
  const form = await tokenForm(request);
  const oversized = CREDENTIALS.find((name) => {
    const value = name === "client_id" ? (form?.get(name) ?? basicClientId(request)) : form?.get(name);
    return typeof value === "string" && !mayBeIssued(value);
  });
  if (oversized !== undefined) {
    const body = { error: "invalid_request", error_description: `${oversized} is longer than any this server issues` };
    return Response.json(body, { status: 400, headers: { "Cache-Control": "no-store" } });
  }
  const grantType = form?.get("grant_type") ?? null;
  const token = form?.get(grantType === "refresh_token" ? "refresh_token" : "token");
  if (typeof token !== "string" || (grantType !== null && grantType !== "refresh_token")) return forward();

  if (grantType === null) {
    // A revocation: the library revokes an access token alone, a refresh token with its whole grant.
    await forward();
    oauth.tokens.forgetGrantOf(token);
    return;
  }
  const refresh = { rotatedOut: false };
  await refreshes.run(refresh, forward);
  if (!refresh.rotatedOut) return;
  // The library keeps the previous token usable until its successor is used (a lost response can be retried);
  // anything older is a replay. The library answers invalid_grant; the grant goes too.
  const grant = tokenGrant(token);
  if (grant === null) return;
  try {
    await oauth.server.getOAuthApi(env).revokeGrant(grant.grantId, grant.userId);
  } catch (error) {
    // The client already has its invalid_grant; the grant's tokens still expire on their own.
    console.error("revoking a grant whose rotated-out refresh token was replayed failed", error);
  }
  oauth.tokens.forgetGrantOf(token);
}

/** The token request's parameters the library looks up in storage by their value. */
const CREDENTIALS = ["client_id", "code", "refresh_token", "token", "subject_token"] as const;

/** The client ID of HTTP Basic client authentication (RFC 6749 §2.3.1), if that is what the request carries. */
function basicClientId(request: Request): string | null {
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("Authorization") ?? "");
  if (basic === null) return null;
  try {
    const decoded = atob(basic[1] as string);
    return decodeURIComponent(decoded.slice(0, Math.max(0, decoded.indexOf(":"))));
  } catch {
    return null;
  }
}

/** The token request's form, or null when it is not one (the library answers that request itself). */
async function tokenForm(request: Request): Promise<FormData | null> {
  if (!(request.headers.get("Content-Type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) return null;
  return request.clone().formData().catch(() => null);
}
