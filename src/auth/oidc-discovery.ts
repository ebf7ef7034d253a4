/**
 * The provider's metadata, from `{issuer}/.well-known/openid-configuration`
 * (OpenID Connect Discovery 1.0 §4): checked once, kept for a few minutes per
 * isolate so that a sign-in costs no extra round trip, and refetched after.
 * A failed fetch is not kept: the next sign-in tries again.
 */
import { isLoopbackHostname } from "../settings.js";
import { AnswerTooLarge, boundedJson, MAX_PROVIDER_ANSWER_BYTES } from "./provider-answer.js";
import { SignInFailure } from "./sign-in-failure.js";

export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** How this connector authenticates at the token endpoint. */
  tokenAuth: "client_secret_basic" | "client_secret_post";
  /** ID token signature algorithms to accept: the provider's asymmetric ones. */
  algorithms: string[];
}

/** How long an isolate trusts fetched metadata. */
const CACHE_MS = 5 * 60_000;
/** How long the provider may take to answer any request. */
export const PROVIDER_TIMEOUT_MS = 10_000;

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

const cache = new Map<string, { metadata: ProviderMetadata; until: number }>();

export async function discover(issuer: string): Promise<ProviderMetadata> {
  const known = cache.get(issuer);
  if (known !== undefined && known.until > Date.now()) return known.metadata;
  const metadata = parseMetadata(issuer, await fetchMetadata(issuer));
  cache.set(issuer, { metadata, until: Date.now() + CACHE_MS });
  return metadata;
}

async function fetchMetadata(issuer: string): Promise<unknown> {
  const url = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" }, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch {
    throw unavailable("could not be reached");
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw unavailable(`answered HTTP ${response.status} for its metadata`);
  }
  try {
    return await boundedJson(response);
  } catch (error) {
    throw unavailable(error instanceof AnswerTooLarge ? `sent metadata larger than ${MAX_PROVIDER_ANSWER_BYTES} bytes` : "broke off while sending its metadata");
  }
}

function parseMetadata(issuer: string, raw: unknown): ProviderMetadata {
  const doc = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  // Discovery §4.3: the metadata's issuer is exactly the one asked for, or an impostor could send its own.
  if (doc.issuer !== issuer) throw unavailable("names another issuer in its metadata than the one configured");
  const authorizationEndpoint = endpoint(doc.authorization_endpoint, "authorization_endpoint");
  const tokenEndpoint = endpoint(doc.token_endpoint, "token_endpoint");
  const jwksUri = endpoint(doc.jwks_uri, "jwks_uri");
  const methods = stringList(doc.code_challenge_methods_supported);
  if (methods !== null && !methods.includes("S256")) throw unavailable("does not support PKCE with S256");
  // Discovery §3: without the list, client_secret_basic is the default.
  const auth = stringList(doc.token_endpoint_auth_methods_supported) ?? ["client_secret_basic"];
  const tokenAuth = auth.includes("client_secret_basic") ? "client_secret_basic" : auth.includes("client_secret_post") ? "client_secret_post" : null;
  if (tokenAuth === null) throw unavailable("accepts neither client_secret_basic nor client_secret_post at its token endpoint");
  const offered = stringList(doc.id_token_signing_alg_values_supported) ?? ["RS256"];
  const algorithms = offered.filter((alg) => ASYMMETRIC.includes(alg));
  if (algorithms.length === 0) throw unavailable("signs ID tokens with no public-key algorithm this connector accepts");
  return { issuer, authorizationEndpoint, tokenEndpoint, jwksUri, tokenAuth, algorithms };
}

/** An https URL (plain http only on loopback, for local tests). */
function endpoint(value: unknown, name: string): string {
  try {
    const url = new URL(String(value));
    if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHostname(url.hostname))) return url.href;
  } catch {
    // Falls through to the failure below.
  }
  throw unavailable(`gives no usable ${name} in its metadata`);
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : null;
}

function unavailable(what: string): SignInFailure {
  return new SignInFailure(502, `The sign-in provider ${what}. Try again later; if it persists, tell this connector's operator.`);
}
