/**
 * For the abuse limits' tests (vitest.config.ts runs them with small limits):
 * requests from a chosen client address, sign-ins from a fresh one, and runs
 * that must see one limiter window.
 */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.js";
import { signIn, type LocalTokens } from "../../scripts/lib/sign-in.js";
import { useBindings, workerFetch } from "../support/workers.js";

const LIMITS = ["REGISTER_LIMIT", "AUTHORIZE_LIMIT", "TOOL_WRITE_LIMIT", "TOOL_READ_LIMIT", "PUBLIC_MCP_LIMIT"] as const;

/**
 * For the calling file's tests, the Worker with the abuse limits on and small: the
 * test project's SMALL_ limiters (vitest.config.ts) under the usual names. The rest
 * of the runtime's files keep them off.
 */
export function useSmallLimits(): void {
  useBindings(smallLimits());
}

/** The test's bindings with the abuse limits on and small. */
export function smallLimits(): Env {
  const small = env as unknown as Record<string, RateLimit>;
  return { ...env, RATE_LIMITS: "on", ...Object.fromEntries(LIMITS.map((name) => [name, small[`SMALL_${name}`]])) };
}

export const ORIGIN = "http://127.0.0.1:8787";

let last = 0;

/** A client address no other request of this runtime has used (documentation range, RFC 5737). */
export function freshAddress(): string {
  last += 1;
  return `198.51.${Math.floor(last / 250)}.${(last % 250) + 1}`;
}

/** The Worker's fetch, as Cloudflare's edge would hand it a request from `address` ("": without CF-Connecting-IP). */
export function fetchFrom(address: string): (request: Request) => Promise<Response> {
  return (request) => {
    const sent = new Request(request);
    if (address !== "") sent.headers.set("CF-Connecting-IP", address);
    return workerFetch(sent);
  };
}

/** Registers a client as an MCP client does; the raw answer. */
export function register(address: string): Promise<Response> {
  const body = { client_name: "limits test", redirect_uris: ["http://127.0.0.1:9/callback"], token_endpoint_auth_method: "none" };
  return fetchFrom(address)(new Request(`${ORIGIN}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }));
}

/** Signs `user` in from a fresh address (one registration, two requests to /authorize). */
export function signInFresh(user: string, resource: "mcp" | "api"): Promise<LocalTokens> {
  const scopes = resource === "mcp" ? ["osfoundry:read", "osfoundry:write"] : ["osfoundry:app"];
  return signIn({ origin: ORIGIN, user, scopes, resource, fetch: fetchFrom(freshAddress()) });
}

/**
 * Runs `attempt` again (once) when it failed and the clock's minute changed
 * while it ran: the local limiter counts in whole minutes of the clock, and a
 * run across a boundary sees two allowances. `attempt` must use fresh keys.
 */
export async function inOneWindow(attempt: () => Promise<void>): Promise<void> {
  const minute = Math.floor(Date.now() / 60_000);
  try {
    await attempt();
  } catch (error) {
    if (Math.floor(Date.now() / 60_000) === minute) throw error;
    await attempt();
  }
}

/** A user name no other test uses. */
export function freshUser(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}
