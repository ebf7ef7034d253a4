/**
 * Sign-in through an OpenID Connect provider: the authorization code flow
 * with PKCE S256, after the person consented on this server's page.
 *
 * `begin` saves the approved request with the OAuth library's
 * `beginUpstream`, which gives the `state` and binds it to this browser by a
 * cookie; the PKCE verifier and the `nonce` travel in the same saved record,
 * so they too belong to this browser and to one sign-in. `finish`, at the
 * callback, recovers that record once (`finishUpstream` checks the cookie and
 * forgets the state), exchanges the code, verifies the ID token and answers
 * the user ID derived from the issuer and `sub` (src/auth/user-id.ts).
 */
import type { AuthRequest, OAuthHelpers, ResumedUpstream } from "@cloudflare/workers-oauth-provider";
import type { OidcSettings } from "../settings.js";
import { base64url, randomBase64url, sha256 } from "./base64url.js";
import { checkEmailDomain, verifyIdToken } from "./id-token.js";
import { discover, PROVIDER_TIMEOUT_MS, type ProviderMetadata } from "./oidc-discovery.js";
import { boundedJson } from "./provider-answer.js";
import { SignInFailure } from "./sign-in-failure.js";
import { oidcUserId } from "./user-id.js";

/** The connector's callback, on its own origin; the redirect URI registered at the provider. */
export const OIDC_CALLBACK_PATH = "/oidc/callback";

/** What the saved request carries to the callback. */
interface Pending {
  verifier: string;
  nonce: string;
}

export class OidcIdentity {
  constructor(readonly settings: OidcSettings) {}

  /** The provider's host, for the consent page ("you sign in at …"). */
  get providerHost(): string {
    return new URL(this.settings.issuer).host;
  }

  /** The provider's metadata; a `SignInFailure` (502) when it cannot be had. Called before consent is consumed. */
  provider(): Promise<ProviderMetadata> {
    return discover(this.settings.issuer);
  }

  /**
   * Saves `request` (its scope the one granted) and answers the redirect to
   * the provider's sign-in, with the binding cookie and `headers` (the
   * consent's cookies) on it.
   */
  async begin(helpers: OAuthHelpers, provider: ProviderMetadata, request: AuthRequest, redirectUri: string, headers: Headers): Promise<Response> {
    const pending: Pending = { verifier: randomBase64url(32), nonce: randomBase64url(32) };
    const { state } = await helpers.beginUpstream(request, { data: pending, headers });
    const url = new URL(provider.authorizationEndpoint);
    const params = {
      response_type: "code",
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: this.settings.allowedEmailDomains.length > 0 ? "openid email" : "openid",
      state,
      nonce: pending.nonce,
      code_challenge: await challenge(pending.verifier),
      code_challenge_method: "S256",
    };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    headers.set("Location", url.href);
    return new Response(null, { status: 302, headers });
  }

  /**
   * At the callback: the saved request and the user it is for. Throws the
   * library's `AuthorizationError` for a state that is forged, used or not
   * this browser's, and a `SignInFailure` for everything the provider got wrong.
   */
  async finish(helpers: OAuthHelpers, callback: Request, redirectUri: string): Promise<{ request: AuthRequest; user: string; headers: Headers }> {
    const resumed: ResumedUpstream<Pending> = await helpers.finishUpstream<Pending>(callback);
    const params = new URL(callback.url).searchParams;
    // RFC 9207: a provider that names itself must be ours (a mix-up with another provider otherwise).
    const iss = params.get("iss");
    if (iss !== null && iss !== this.settings.issuer) throw new SignInFailure(400, "The sign-in came back from another provider than this connector's. Start again from your app.");
    const error = params.get("error");
    if (error !== null) throw providerError(error);
    const code = params.get("code");
    if (code === null || code === "") throw new SignInFailure(400, "The sign-in provider sent no authorization code. Start again from your app.");
    const provider = await this.provider();
    const idToken = await this.exchange(provider, code, redirectUri, resumed.data.verifier);
    const claims = await verifyIdToken(idToken, provider, this.settings, resumed.data.nonce);
    checkEmailDomain(claims, this.settings.allowedEmailDomains);
    return { request: resumed.request, user: await oidcUserId(this.settings.issuer, claims.sub), headers: resumed.headers };
  }

  /** The token endpoint: the code and the PKCE verifier for an ID token. */
  private async exchange(provider: ProviderMetadata, code: string, redirectUri: string, verifier: string): Promise<string> {
    const body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier });
    const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" });
    const { clientId, clientSecret } = this.settings;
    if (provider.tokenAuth === "client_secret_basic") {
      // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
      headers.set("Authorization", `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`);
    } else {
      body.set("client_id", clientId);
      body.set("client_secret", clientSecret);
    }
    let response: Response;
    try {
      response = await fetch(provider.tokenEndpoint, { method: "POST", headers, body, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    } catch {
      throw new SignInFailure(502, "The sign-in provider could not be reached to finish the sign-in. Start again from your app.");
    }
    // Too large or cut off reads as no answer: refused below, as any answer without an ID token.
    const answer = (await boundedJson(response).catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok) {
      const code = typeof answer?.error === "string" && /^[a-z_]{1,64}$/.test(answer.error) ? ` (${answer.error})` : "";
      throw new SignInFailure(502, `The sign-in provider refused to finish the sign-in: HTTP ${response.status}${code}. Start again from your app.`);
    }
    if (typeof answer?.id_token !== "string") throw new SignInFailure(502, "The sign-in provider's answer carried no ID token. Start again from your app.");
    return answer.id_token;
  }
}

/** The provider sent the browser back with an error instead of a code (RFC 6749 §4.1.2.1). */
function providerError(error: string): SignInFailure {
  if (error === "access_denied") return new SignInFailure(403, "The sign-in was cancelled or refused at the sign-in provider. Nothing was granted. Start again from your app to retry.");
  const named = /^[a-z_]{1,64}$/.test(error) ? ` (${error})` : "";
  return new SignInFailure(502, `The sign-in provider could not sign you in${named}. Nothing was granted. Start again from your app.`);
}

async function challenge(verifier: string): Promise<string> {
  return base64url(await sha256(verifier));
}

function formEncode(text: string): string {
  return new URLSearchParams({ v: text }).toString().slice(2);
}
