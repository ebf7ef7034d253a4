/**
 * The Worker's settings: the variables of `Env` read, checked and given their
 * defaults here, once per env object. Everything else reads `settingsOf(env)`.
 *
 * A variable that is set but invalid is not silently replaced by its default:
 * it becomes a `problem`, logged once, and the HTTP edge answers every request
 * 503 naming it (see docs/decisions.md, "Settings"). The values still hold the
 * defaults, so code that cannot answer (an alarm) keeps working.
 *
 * @example
 * const { publicUrl, accessTokenTtlSeconds } = settingsOf(env);
 */
import { DEFAULT_RETENTION_MS } from "./note/index.js";

export interface Settings {
  /** The deployment's public origin (`PUBLIC_URL`), e.g. `https://notes.example.com`; null: loopback origins only. */
  readonly publicUrl: string | null;
  /** Access-token lifetime (`ACCESS_TOKEN_TTL_SECONDS`), 60 to 86,400 s; default 3,600. */
  readonly accessTokenTtlSeconds: number;
  /** The local development sign-in (`LOCAL_SIGN_IN`, `LOCAL_USER`), or null when off (the default). */
  readonly localSignIn: { readonly defaultUser: string } | null;
  /** Sign-in through an OpenID Connect provider (`OIDC_ISSUER`, `OIDC_CLIENT_ID`, secret `OIDC_CLIENT_SECRET`), or null when off. */
  readonly oidc: OidcSettings | null;
  /** Browser origins besides the server's own allowed to call /mcp (`ALLOWED_ORIGINS`, comma-separated). */
  readonly allowedOrigins: readonly string[];
  /** How long an idempotency key is honoured (`IDEMPOTENCY_RETENTION_SECONDS`); default 7 days. */
  readonly idempotencyRetentionMs: number;
  /** Whether the abuse limits apply (`RATE_LIMITS`, "on" or "off"; default on). Off only on this machine: see `parseSettings`. */
  readonly rateLimits: boolean;
  /** Each variable that is set but invalid, named with what is wrong; empty when all are fine. */
  readonly problems: readonly string[];
}

export interface OidcSettings {
  /** The provider's issuer exactly as its metadata names it, e.g. `https://accounts.example.com`. */
  readonly issuer: string;
  readonly clientId: string;
  /** A secret: never logged, never shown on a page. */
  readonly clientSecret: string;
  /** `OIDC_ALLOWED_EMAIL_DOMAINS`, lower-case; empty: any account of the provider may sign in. */
  readonly allowedEmailDomains: readonly string[];
}

/** The raw variables this module reads. wrangler hands a `--var` that parses as JSON over as that JSON, so any type may arrive. */
interface SettingsVariables {
  PUBLIC_URL?: unknown;
  ACCESS_TOKEN_TTL_SECONDS?: unknown;
  LOCAL_SIGN_IN?: unknown;
  LOCAL_USER?: unknown;
  ALLOWED_ORIGINS?: unknown;
  OIDC_ISSUER?: unknown;
  OIDC_CLIENT_ID?: unknown;
  OIDC_CLIENT_SECRET?: unknown;
  OIDC_ALLOWED_EMAIL_DOMAINS?: unknown;
  IDEMPOTENCY_RETENTION_SECONDS?: unknown;
  RATE_LIMITS?: unknown;
}

const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
const DEFAULT_LOCAL_USER = "alice";
/** A local user name: what the consent page accepts and LOCAL_USER must be. */
export const USER_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const cache = new WeakMap<object, Settings>();
const logged = new Set<string>();

/** The settings of this env object, parsed on first use. */
export function settingsOf(env: SettingsVariables): Settings {
  let settings = cache.get(env);
  if (settings === undefined) {
    settings = parseSettings(env);
    cache.set(env, settings);
    for (const problem of settings.problems) {
      if (logged.has(problem)) continue;
      logged.add(problem);
      console.error(`settings: ${problem}`);
    }
  }
  return settings;
}

/** Whether a host name is loopback, exactly as the OAuth library decides where plain http is allowed. */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  const ipv4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return ipv4 !== null && ipv4.slice(1).every((octet) => Number(octet) <= 255);
}

export function parseSettings(env: SettingsVariables): Settings {
  const problems: string[] = [];
  /** The variable's value, its default when unset, or its default and a problem when invalid. */
  function read<T>(name: keyof SettingsVariables, parse: (text: string) => T | Invalid, fallback: T): T {
    const text = textOf(env[name]);
    if (text === undefined) return fallback;
    const parsed = parse(text);
    if (!(parsed instanceof Invalid)) return parsed;
    problems.push(`${name} ${parsed.reason} (it is ${JSON.stringify(text.slice(0, 200))})`);
    return fallback;
  }

  const publicUrl = read<string | null>("PUBLIC_URL", publicOrigin, null);
  const accessTokenTtlSeconds = read("ACCESS_TOKEN_TTL_SECONDS", (text) => integerIn(text, 60, 86_400), DEFAULT_ACCESS_TOKEN_TTL_SECONDS);
  const signIn = read("LOCAL_SIGN_IN", flag, false);
  const defaultUser = read("LOCAL_USER", (text) => (USER_NAME.test(text) ? text : new Invalid("must be 1 to 64 of a-z, 0-9, '.', '_' or '-'")), DEFAULT_LOCAL_USER);
  const allowedOrigins = read("ALLOWED_ORIGINS", origins, []);
  const retentionSeconds = read<number | null>("IDEMPOTENCY_RETENTION_SECONDS", (text) => integerIn(text, 1, MAX_RETENTION_SECONDS), null);
  const rateLimits = read("RATE_LIMITS", onOff, true);

  const oidc = readOidc(env, problems);

  if (signIn && oidc !== null) {
    problems.push("LOCAL_SIGN_IN must not be true with OIDC_ISSUER set: the local sign-in trusts any typed user name");
  }
  const isPublic = publicUrl !== null && !isLoopbackHostname(new URL(publicUrl).hostname);
  if (signIn && isPublic) {
    problems.push("LOCAL_SIGN_IN must not be true with a public PUBLIC_URL: the local sign-in trusts any typed user name");
  }
  if (!rateLimits && isPublic) {
    problems.push("RATE_LIMITS must not be off with a public PUBLIC_URL: the abuse limits are off only on this machine (the benchmark, the simulation)");
  }
  return {
    publicUrl,
    accessTokenTtlSeconds,
    localSignIn: signIn ? { defaultUser } : null,
    oidc,
    allowedOrigins,
    idempotencyRetentionMs: retentionSeconds === null ? DEFAULT_RETENTION_MS : retentionSeconds * 1000,
    rateLimits,
    problems,
  };
}

/**
 * The OpenID Connect settings: all three of issuer, client ID and secret, or
 * none of them. The secret's value never enters a problem's text.
 */
function readOidc(env: SettingsVariables, problems: string[]): OidcSettings | null {
  const issuerText = textOf(env.OIDC_ISSUER);
  const clientId = textOf(env.OIDC_CLIENT_ID);
  const clientSecret = textOf(env.OIDC_CLIENT_SECRET);
  const domainsText = textOf(env.OIDC_ALLOWED_EMAIL_DOMAINS);
  if (issuerText === undefined) {
    const stray = (["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_ALLOWED_EMAIL_DOMAINS"] as const).filter((name) => textOf(env[name]) !== undefined);
    for (const name of stray) problems.push(`${name} is set but OIDC_ISSUER is not: set the issuer too, or remove it`);
    return null;
  }
  const before = problems.length;
  const issuer = issuerUrl(issuerText);
  if (issuer instanceof Invalid) problems.push(`OIDC_ISSUER ${issuer.reason} (it is ${JSON.stringify(issuerText.slice(0, 200))})`);
  if (clientId === undefined) problems.push("OIDC_CLIENT_ID must be set with OIDC_ISSUER: the client ID the provider gave this connector");
  else if (!PRINTABLE.test(clientId) || clientId.length > 255) problems.push("OIDC_CLIENT_ID must be 1 to 255 printable ASCII characters");
  if (clientSecret === undefined) problems.push("OIDC_CLIENT_SECRET must be set with OIDC_ISSUER (wrangler secret put OIDC_CLIENT_SECRET)");
  else if (!PRINTABLE.test(clientSecret)) problems.push("OIDC_CLIENT_SECRET must be printable ASCII (its value is not shown)");
  const domains = domainsText === undefined ? [] : emailDomains(domainsText);
  if (domains instanceof Invalid) problems.push(`OIDC_ALLOWED_EMAIL_DOMAINS ${domains.reason}`);
  if (problems.length > before || issuer instanceof Invalid || domains instanceof Invalid) return null;
  return { issuer, clientId: clientId as string, clientSecret: clientSecret as string, allowedEmailDomains: domains };
}

const PRINTABLE = /^[\x21-\x7e]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * An issuer: https (plain http only on a loopback host), no query or fragment.
 * Kept as written, trailing slash included: the provider's metadata must name
 * exactly this issuer, and its ID tokens carry it as `iss`.
 */
function issuerUrl(text: string): string | Invalid {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return new Invalid("must be the provider's issuer URL, such as https://accounts.example.com");
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHostname(url.hostname));
  if (!secure) return new Invalid("must be an https URL (plain http only on a loopback host)");
  if (url.username !== "" || url.password !== "" || /[?#]/.test(text)) return new Invalid("must have no user, query or fragment");
  return text;
}

function emailDomains(text: string): string[] | Invalid {
  const entries = text.split(",").map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== "");
  const bad = entries.filter((entry) => !DOMAIN.test(entry));
  if (entries.length === 0) return new Invalid("must list at least one domain, such as example.com, when set");
  if (bad.length === 0) return entries;
  return new Invalid(`must list domains such as example.com, separated by commas; ${bad.map((b) => JSON.stringify(b.slice(0, 100))).join(", ")} is not one`);
}

/** Why a set variable cannot be used. */
class Invalid {
  constructor(readonly reason: string) {}
}

/** Far beyond any sensible window, and still exact in milliseconds. */
const MAX_RETENTION_SECONDS = 10 * 365 * 24 * 60 * 60;

/** A variable as text: unset and empty are "not set"; wrangler may hand numbers and booleans over as such. */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === "string" ? value.trim() : typeof value === "object" ? JSON.stringify(value) : String(value);
  return text === "" ? undefined : text;
}

function integerIn(text: string, min: number, max: number): number | Invalid {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return value >= min && value <= max ? value : new Invalid(`must be a whole number of seconds from ${min} to ${max}`);
}

function flag(text: string): boolean | Invalid {
  if (text === "true") return true;
  if (text === "false") return false;
  return new Invalid('must be "true" or "false"');
}

function onOff(text: string): boolean | Invalid {
  if (text === "on") return true;
  if (text === "off") return false;
  return new Invalid('must be "on" or "off"');
}

/** An http(s) URL with nothing but an origin, as that origin; null for anything else. */
function bareOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const bare = url.username === "" && url.password === "" && url.pathname === "/" && url.search === "" && url.hash === "" && !/[?#]/.test(text);
  return bare && (url.protocol === "http:" || url.protocol === "https:") ? url.origin : null;
}

/** PUBLIC_URL as the issuer the OAuth library accepts: an https origin, or http on a loopback host. */
function publicOrigin(text: string): string | Invalid {
  const origin = bareOrigin(text);
  if (origin !== null && (origin.startsWith("https:") || isLoopbackHostname(new URL(origin).hostname))) return origin;
  return new Invalid("must be an https origin such as https://notes.example.com (no path; plain http only on a loopback host)");
}

function origins(text: string): string[] | Invalid {
  const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  const bad = entries.filter((entry) => bareOrigin(entry) === null);
  if (bad.length === 0) return entries.map((entry) => bareOrigin(entry) as string);
  return new Invalid(`must list origins such as https://app.example.com (scheme, host, optional port, no path), separated by commas; ${bad.map((b) => JSON.stringify(b)).join(", ")} is not one`);
}
