/**
 * What this Worker adds to the OAuth library's token endpoint. A revocation
 * (RFC 7009) forgets every cached token of the grant in this isolate at once.
 * A refresh with a refresh token the grant has rotated out revokes the grant
 * (RFC 9700 §4.14.2): it means two parties hold the grant's refresh tokens.
 * But one browser's tabs refreshing at once are one party: a refresh token
 * presented again within REFRESH_REUSE_SECONDS of its first use, while the
 * token that use issued is still unused, gets that same answer again rather
 * than a second pair (docs/decisions.md, "Concurrent refreshes"). And a
 * credential longer than any this server issues is refused before the
 * library looks it up (see `mayBeIssued`).
 */
import type { Grant, OAuthErrorInternal } from "@cloudflare/workers-oauth-provider";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "../env.js";
import { base64url, fromBase64url } from "./base64url.js";
import { mayBeIssued, type OAuthSetup } from "./oauth.js";
import { tokenGrant } from "./token-cache.js";

/**
 * How long a refresh token's first answer is kept for the same token presented
 * again: the tabs of one browser that found their session over at the same
 * moment. KV's shortest expiry, and far longer than such a race.
 */
const REFRESH_REUSE_SECONDS = 60;

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

/** Runs the library's answer to a token request (`forward`), then what the answer obliges this Worker to do; the answer to send. */
export async function aroundTokenRequest(oauth: OAuthSetup, env: Env, request: Request, forward: () => Promise<Response>): Promise<Response> {
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
    const answer = await forward();
    oauth.tokens.forgetGrantOf(token);
    return answer;
  }
  const grant = tokenGrant(token);
  if (grant === null || form === null) return forward();
  // One refresh of a grant at a time in this isolate: a second tab's waits, then finds the first one's answer.
  return oneAtATime(`${grant.userId}:${grant.grantId}`, () => refresh(oauth, env, { token, grant, form, request }, forward));
}

interface RefreshRequest {
  token: string;
  grant: { userId: string; grantId: string };
  form: FormData;
  request: Request;
}

async function refresh(oauth: OAuthSetup, env: Env, asked: RefreshRequest, forward: () => Promise<Response>): Promise<Response> {
  const id = await tokenId(asked.token);
  const again = await earlierAnswer(oauth, env, asked, id);
  if (again !== null) return again;
  const record = { rotatedOut: false };
  const answer = await refreshes.run(record, forward);
  if (answer.ok) {
    await keepAnswer(env, asked, id, answer.clone());
    return answer;
  }
  if (!record.rotatedOut) return answer;
  // The library keeps the previous token usable until its successor is used (a lost response can be retried);
  // anything older is a replay. The library answers invalid_grant; the grant goes too.
  try {
    await oauth.server.getOAuthApi(env).revokeGrant(asked.grant.grantId, asked.grant.userId);
  } catch (error) {
    // The client already has its invalid_grant; the grant's tokens still expire on their own.
    console.error("revoking a grant whose rotated-out refresh token was replayed failed", error);
  }
  oauth.tokens.forgetGrantOf(asked.token);
  return answer;
}

/**
 * A refresh's answer as kept for the same token presented again: encrypted
 * with a key only that token derives, so what KV holds opens for no one else.
 * `next` is the hash of the refresh token it issued (the library's token ID).
 */
interface KeptAnswer {
  at: number;
  next: string;
  /** The request's own scope and resource: a request asking otherwise is not the same request. */
  asked: string;
  iv: string;
  data: string;
}

const answerKey = (grant: { userId: string; grantId: string }, id: string) => `notes-refresh:${grant.userId}:${grant.grantId}:${id}`;

/** What the request asked for beyond the token: a replay answers only the same question. */
const askedOf = (form: FormData) => JSON.stringify([form.get("scope"), form.get("resource"), form.get("client_id")]);

async function keepAnswer(env: Env, asked: RefreshRequest, id: string, answer: Response): Promise<void> {
  try {
    const text = await answer.text();
    const body = JSON.parse(text) as { refresh_token?: unknown };
    if (typeof body.refresh_token !== "string") return;
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await answerCipher(asked.token), new TextEncoder().encode(text));
    const kept: KeptAnswer = { at: nowSeconds(), next: await tokenId(body.refresh_token), asked: askedOf(asked.form), iv: base64url(iv), data: base64url(new Uint8Array(data)) };
    await env.OAUTH_KV.put(answerKey(asked.grant, id), JSON.stringify(kept), { expirationTtl: REFRESH_REUSE_SECONDS });
  } catch (error) {
    // The refresh stands; a second tab then gets a pair of its own, as the library gives one.
    console.error("keeping a refresh's answer for its concurrent requests failed", error);
  }
}

/**
 * The answer this refresh token's first use got, when the same request comes
 * again within REFRESH_REUSE_SECONDS, by a public client (a confidential one
 * is authenticated by the library, and a second tab is no server's case), and
 * the grant still stands where that answer left it: the token presented is its
 * previous one and the token it issued its current one, unused. Else null.
 */
async function earlierAnswer(oauth: OAuthSetup, env: Env, asked: RefreshRequest, id: string): Promise<Response | null> {
  const kept = await env.OAUTH_KV.get<KeptAnswer>(answerKey(asked.grant, id), "json");
  if (kept === null) return null;
  const elapsed = nowSeconds() - kept.at;
  if (elapsed < 0 || elapsed >= REFRESH_REUSE_SECONDS || kept.asked !== askedOf(asked.form)) return null;
  const grant = await env.OAUTH_KV.get<Grant>(`grant:${asked.grant.userId}:${asked.grant.grantId}`, "json");
  if (grant === null || grant.previousRefreshTokenId !== id || grant.refreshTokenId !== kept.next) return null;
  const clientId = asked.form.get("client_id") ?? basicClientId(asked.request);
  if (typeof clientId !== "string" || clientId !== grant.clientId) return null;
  const client = await oauth.server.getOAuthApi(env).lookupClient(clientId);
  if (client === null || client.tokenEndpointAuthMethod !== "none") return null;
  let body: { expires_in?: unknown };
  try {
    const text = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64url(kept.iv) }, await answerCipher(asked.token), fromBase64url(kept.data));
    body = JSON.parse(new TextDecoder().decode(text)) as { expires_in?: unknown };
  } catch {
    return null;
  }
  if (typeof body.expires_in === "number") body.expires_in = Math.max(1, body.expires_in - elapsed);
  return Response.json(body, { headers: { ...NO_STORE, ...corsHeaders(asked.request) } });
}

/** The CORS headers the library puts on its token endpoint's answers to a request with an `Origin`: a browser-based client reads a repeat as it read the first. */
function corsHeaders(request: Request): Record<string, string> {
  const origin = request.headers.get("Origin");
  if (origin === null) return {};
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "*",
    "Access-Control-Allow-Headers": "Authorization, *",
    "Access-Control-Max-Age": "86400",
    Vary: "Origin",
    "Access-Control-Expose-Headers": "WWW-Authenticate, Retry-After",
  };
}

/** The AES-GCM key a refresh token's kept answer is sealed with: derived from the token, which KV never holds. */
async function answerCipher(token: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`notes refresh answer\n${token}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A token's ID as the library stores it: the hex SHA-256 of the token. */
async function tokenId(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** The refresh under way per grant in this isolate (the tail of its queue). */
const running = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier call for the same `key` in this isolate has settled. */
function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = running.get(key) ?? Promise.resolve();
  const mine = before.then(work, work);
  const tail = mine.catch(() => undefined);
  running.set(key, tail);
  void tail.then(() => {
    if (running.get(key) === tail) running.delete(key);
  });
  return mine;
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
