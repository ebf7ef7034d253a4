/**
 * An MCP client's OAuth state for the end-to-end tests, in memory, as the
 * official SDK's `OAuthClientProvider`.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** Where the client says the browser comes back; nothing listens there, the tests read the Location instead. */
export const REDIRECT_URL = "http://127.0.0.1:9/oauth/callback";

/**
 * An MCP client's OAuth state, in memory: what a desktop client keeps in its
 * store. `redirectToAuthorization` records the URL it would open in the
 * browser. Refresh tokens are not kept unless asked (see test/e2e/oauth.test.ts).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  /** Every URL the SDK sent the browser to, in order. */
  readonly redirects: URL[] = [];
  /** Every token response the SDK saved, as the server sent it (refresh tokens included). */
  readonly received: OAuthTokens[] = [];
  /** The states this client generated, in order. */
  readonly states: string[] = [];
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  /** `keepRefreshToken`: keep the refresh token with the rest, as a client normally does. */
  constructor(private readonly options: { keepRefreshToken?: boolean } = {}) {}

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Notes connector e2e client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    const state = crypto.randomUUID();
    this.states.push(state);
    return state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.received.push(tokens);
    const { refresh_token: _kept, ...withoutRefresh } = tokens;
    this.saved = this.options.keepRefreshToken === true ? tokens : withoutRefresh;
  }

  redirectToAuthorization(url: URL): void {
    this.redirects.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no code verifier saved");
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  /** The URL the SDK last sent the browser to. */
  lastRedirect(): URL {
    const url = this.redirects.at(-1);
    if (url === undefined) throw new Error("the SDK never redirected to authorization");
    return url;
  }
}
