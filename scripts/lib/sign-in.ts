/**
 * A script's way to a token on a local connector: the whole OAuth 2.1 flow a
 * real MCP client runs (dynamic registration, authorization code with PKCE
 * S256, the consent page, the token endpoint), with the local development
 * sign-in answering the consent page. Web APIs only, so it runs in Node (the
 * scripts, the end-to-end tests) and inside workerd (the Worker tests).
 */

export interface SignInOptions {
  /** The connector's origin, e.g. http://127.0.0.1:8787. */
  origin: string;
  /** The local user to sign in as. */
  user: string;
  /** Scopes to ask for and approve. */
  scopes: readonly string[];
  /** Which resource the token is for: the MCP endpoint or the person's API. */
  resource?: "mcp" | "api";
  /** The name the client registers with (what the person's page shows for its changes); "Local script" by default. */
  clientName?: string;
  /** How to reach the connector; the global fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface LocalTokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
  client_id: string;
}

const REDIRECT_URI = "http://127.0.0.1:9/callback";

/** Signs in and returns the token response. Throws with the server's words if any step fails. */
export async function signIn(options: SignInOptions): Promise<LocalTokens> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const origin = options.origin.replace(/\/+$/, "");
  const resource = `${origin}${options.resource === "api" ? "/api/v1" : "/mcp"}`;

  const registered = await expectOk(
    send(jsonRequest(`${origin}/oauth/register`, { client_name: options.clientName ?? "Local script", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" })),
    "register a client",
  );
  const clientId = String(registered.client_id);

  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  const state = base64url(crypto.getRandomValues(new Uint8Array(12)));
  const authorizeUrl = new URL(`${origin}/authorize`);
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: options.scopes.join(" "),
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource,
    login_hint: options.user,
  })) {
    authorizeUrl.searchParams.set(key, value);
  }

  const page = await send(new Request(authorizeUrl));
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const handle = /name=handle value="([^"]+)"/.exec(html)?.[1];
  if (handle === undefined) throw new Error("the consent page has no consent handle");

  const form = new URLSearchParams({ handle, decision: "approve", user: options.user });
  for (const scope of options.scopes) form.append("scope", scope);
  const approved = await send(
    new Request(authorizeUrl, {
      method: "POST",
      body: form,
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies(page.headers) },
    }),
  );
  const location = approved.headers.get("Location");
  if (approved.status !== 302 || location === null) throw new Error(`approving consent answered ${approved.status}: ${await approved.text()}`);
  const callback = new URL(location);
  const code = callback.searchParams.get("code");
  if (code === null || callback.searchParams.get("state") !== state) throw new Error(`the redirect carried no code: ${location}`);

  const tokens = await expectOk(
    send(
      new Request(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource }),
      }),
    ),
    "exchange the code",
  );
  return { ...(tokens as unknown as Omit<LocalTokens, "client_id">), client_id: clientId };
}

/** Trades a refresh token for new tokens (the old refresh token is rotated out). */
export async function refresh(origin: string, clientId: string, refreshToken: string, send: (r: Request) => Promise<Response> = (r) => fetch(r)): Promise<Response> {
  return send(
    new Request(`${origin.replace(/\/+$/, "")}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }),
    }),
  );
}

function jsonRequest(url: string, body: unknown): Request {
  return new Request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

async function expectOk(pending: Promise<Response>, what: string): Promise<Record<string, unknown>> {
  const response = await pending;
  const text = await response.text();
  if (!response.ok) throw new Error(`could not ${what}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The cookies a response set, as a Cookie header (name=value pairs only). */
function cookies(headers: Headers): string {
  const withList = headers as Headers & { getSetCookie?: () => string[] };
  const all: string[] = withList.getSetCookie?.() ?? [headers.get("Set-Cookie") ?? ""];
  return all
    .map((line) => line.split(";", 1)[0]?.trim() ?? "")
    .filter((pair) => pair !== "")
    .join("; ");
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
