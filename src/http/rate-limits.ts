/**
 * Abuse limits, on Cloudflare's rate limiting bindings (`[[ratelimits]]` in
 * wrangler.toml, which holds each limit's number): registrations and the
 * authorization page per client address, tool calls per user and client,
 * writes apart from reads, discovery without a token per client address. One
 * binding call per limited request; the counters live at Cloudflare's edge (in
 * memory under `wrangler dev` and the tests).
 *
 * A deployment without one of the bindings refuses to serve what it limits
 * (503), and `RATE_LIMITS=off` is refused with a public `PUBLIC_URL`
 * (src/settings.ts): the limits cannot go missing by accident.
 */
import type { Env } from "../env.js";
import { settingsOf } from "../settings.js";
import { failWith } from "./edge.js";

/** The binding of each limit (wrangler.toml). */
type LimitName = "REGISTER_LIMIT" | "AUTHORIZE_LIMIT" | "TOOL_WRITE_LIMIT" | "TOOL_READ_LIMIT" | "PUBLIC_MCP_LIMIT";

/**
 * Every limit counts over a minute (`period = 60` in wrangler.toml). The binding
 * does not tell when its window ends, so a refusal says to wait one whole period:
 * by then the window that refused has certainly passed.
 */
const RETRY_AFTER_SECONDS = 60;

/** Asks a limit about one key: null when the request may go on, else the seconds to wait before trying again. */
type Limiter = (key: string) => Promise<number | null>;

const unlimited: Limiter = async () => null;

/** The limiter of `name` for this deployment; throws a 503 when the deployment lacks its binding. */
export function limiterOf(env: Env, name: LimitName): Limiter {
  if (!settingsOf(env).rateLimits) return unlimited;
  const binding = env[name];
  if (binding === undefined) {
    const message = `This deployment has no ${name} binding (a [[ratelimits]] entry in wrangler.toml); see the README, "Abuse limits".`;
    throw failWith(Response.json({ error: { code: "misconfigured", message } }, { status: 503 }));
  }
  return async (key) => ((await binding.limit({ key })).success ? null : RETRY_AFTER_SECONDS);
}

/**
 * The key of the address a request came from. Cloudflare's edge sets
 * `CF-Connecting-IP` on every request (`wrangler dev` sets 127.0.0.1); one
 * without it came from inside this machine (a test's in-process fetch) and all
 * such requests share one key. An IPv6 address counts by its /64: one host
 * usually holds a whole /64, and would otherwise get 2^64 allowances.
 */
export function addressKey(request: Request): string {
  const address = request.headers.get("CF-Connecting-IP")?.trim().toLowerCase() ?? "";
  if (address === "") return "no-address";
  // IPv4, or IPv4 written as IPv6 (::ffff:192.0.2.1): the IPv4 address.
  if (!address.includes(":") || address.includes(".")) return address.slice(address.lastIndexOf(":") + 1, address.lastIndexOf(":") + 65);
  return `${ipv6Prefix(address) ?? address.slice(0, 64)}/64`;
}

/** The first four groups of an IPv6 address, each without leading zeros; null when it is not one. */
function ipv6Prefix(address: string): string | null {
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string | undefined): string[] => (part === undefined || part === "" ? [] : part.split(":"));
  const front = groups(halves[0]);
  const back = groups(halves[1]);
  const missing = 8 - front.length - back.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...front, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...back];
  if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return all.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "")).join(":");
}

/** The key of a user's client: a user's agents each get their own allowance, and one user's calls never use up another's. */
export function callerKey(user: string, clientId: string | undefined): string {
  return JSON.stringify([user, clientId ?? null]);
}
