/**
 * The ID token's checks (OpenID Connect Core 1.0 §3.1.3.7), with `jose`
 * against the provider's published keys: the signature, `iss`, `aud` (and
 * `azp` when it names several audiences), `exp` and `iat`, the `nonce` this
 * browser's sign-in sent, and a `sub`. Then, when the deployment limits
 * email domains, a verified email in one of them.
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from "jose";
import type { OidcSettings } from "../settings.js";
import { PROVIDER_TIMEOUT_MS, type ProviderMetadata } from "./oidc-discovery.js";
import { boundedFetch } from "./provider-answer.js";
import { SignInFailure } from "./sign-in-failure.js";

/** How far the provider's clock may be from ours, in seconds. */
const CLOCK_TOLERANCE_S = 60;
/** An ID token fresh from the token endpoint was issued moments ago. */
const MAX_TOKEN_AGE_S = 10 * 60;

/** The key sets, one per `jwks_uri`, kept by the isolate: jose refetches on an unknown `kid` (a key rotation). */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(uri: string): ReturnType<typeof createRemoteJWKSet> {
  let keys = keySets.get(uri);
  if (keys === undefined) {
    keys = createRemoteJWKSet(new URL(uri), { timeoutDuration: PROVIDER_TIMEOUT_MS, [customFetch]: boundedFetch });
    keySets.set(uri, keys);
  }
  return keys;
}

/** The verified claims; throws a `SignInFailure` naming the check that failed. */
export async function verifyIdToken(idToken: string, provider: ProviderMetadata, settings: OidcSettings, nonce: string): Promise<JWTPayload & { sub: string }> {
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(idToken, keySet(provider.jwksUri), {
      issuer: settings.issuer,
      audience: settings.clientId,
      algorithms: provider.algorithms,
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ["sub", "iat", "exp"],
    }));
  } catch (error) {
    throw rejected(error);
  }
  if (claims.nonce !== nonce) throw invalid("its nonce is not the one this sign-in sent");
  const several = Array.isArray(claims.aud) && claims.aud.length > 1;
  if ((several || claims.azp !== undefined) && claims.azp !== settings.clientId) throw invalid("it was issued to another client (azp)");
  if (typeof claims.sub !== "string" || claims.sub === "" || claims.sub.length > 255) throw invalid("its subject (sub) is missing or longer than 255 characters");
  return claims as JWTPayload & { sub: string };
}

/**
 * Whether the account may sign in here: with `OIDC_ALLOWED_EMAIL_DOMAINS`
 * set, the ID token must carry `email_verified: true` and an `email` whose
 * domain is one of them exactly (a subdomain is another domain).
 */
export function checkEmailDomain(claims: JWTPayload, allowed: readonly string[]): void {
  if (allowed.length === 0) return;
  const email = typeof claims.email === "string" ? claims.email : "";
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  if (claims.email_verified === true && email.includes("@") && allowed.includes(domain)) return;
  throw new SignInFailure(403, `This connector accepts only accounts with a verified email address at ${allowed.join(", ")}. Sign in at the provider with such an account.`);
}

function rejected(error: unknown): SignInFailure {
  if (error instanceof errors.JWTExpired) return invalid("it has expired");
  if (error instanceof errors.JWTClaimValidationFailed) return invalid(`its ${error.claim} claim is ${error.reason === "missing" ? "missing" : "not what this connector expects"}`);
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) return invalid("its signature does not match the provider's published keys");
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid("it is signed with an algorithm the provider does not publish");
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return invalid("it is not a well-formed signed JWT");
  // Anything else is fetching the keys: unreachable, too slow, or not a key set.
  return new SignInFailure(502, "The sign-in provider's signing keys could not be fetched. Try again later.");
}

function invalid(why: string): SignInFailure {
  return new SignInFailure(502, `The sign-in provider's ID token was refused: ${why}. Start again from your app; if it persists, tell this connector's operator.`);
}
