/**
 * End to end, OAuth 2.1: the official MCP SDK client (v1, 1.32.2), given only
 * the MCP URL of the real Worker under `wrangler dev`, connects and lists the
 * tools without a token; its first tool call meets the 401 challenge, and it
 * discovers the server's metadata, registers, and signs in with the
 * authorization code and PKCE; this file plays the browser on the consent
 * page. (test/e2e/revisions.test.ts does the same with the v2 client.)
 *
 * About refresh tokens and step-up: SDK 1.32.2, holding a refresh token,
 * answers a 403 `insufficient_scope` by refreshing, which cannot widen the
 * grant, and then gives up ("Server returned 403 after trying upscoping",
 * modelcontextprotocol/typescript-sdk#2255). Only without a refresh token does
 * it re-authorize with the scopes the 403 named. The client here therefore
 * keeps no refresh token (`MemoryOAuthProvider`), so that the SDK's own
 * step-up runs; the server's side (refresh never widens a grant) is asserted
 * with raw requests. The v2 client steps up while holding a refresh token
 * (test/e2e/revisions.test.ts).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { DEMO_NOTE_ID, DEMO_USER } from "../../scripts/local-server.js";
import { approve, codeOf, openConsentPage, submitConsent } from "../support/consent-page.js";
import { useSharedServer } from "../support/e2e-server.js";
import { MemoryOAuthProvider, REDIRECT_URL } from "../support/memory-oauth-provider.js";
import { exchangeLines, recordingFetch, signInStart, type RecordingFetch } from "../support/recording-fetch.js";

const READ = "osfoundry:read";
const WRITE = "osfoundry:write";
const TAB_ID = /^slides-\d+-[0-9a-z]+$/;
const TOOL_NAMES = ["list_notes", "list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments", "list_note_changes", "revert_note_change", "search", "fetch"];

// The shared server's demo Note, seeded on it fresh (test/support/e2e-global.ts).
const { running, seeded } = useSharedServer(async () => {
  expect(seeded()).toMatchObject({ note_id: DEMO_NOTE_ID, created: true });
});

function newTransport(provider: MemoryOAuthProvider, recorder: RecordingFetch = recordingFetch()): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(running().mcpUrl), { authProvider: provider, fetch: recorder.fetch });
}

function newClient(): Client {
  return new Client({ name: "notes-connector-e2e-oauth", version: "0.1.0" });
}

/**
 * A tool call the way a client application makes it: when the SDK answers
 * UnauthorizedError it has sent the user to the consent page; the user
 * approves `scopes` there, the app finishes the flow and calls again.
 */
async function callSigningIn(
  client: Client,
  transport: StreamableHTTPClientTransport,
  provider: MemoryOAuthProvider,
  call: { name: string; arguments: Record<string, unknown> },
  approveScopes: (offered: string[]) => string[],
): Promise<Awaited<ReturnType<Client["callTool"]>>> {
  try {
    return await client.callTool(call);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    const url = provider.lastRedirect();
    const page = await openConsentPage(url);
    const chosen = approveScopes(page.scopes.map((s) => s.value));
    const answer = await submitConsent(page, "approve", { user: DEMO_USER, scopes: chosen });
    const code = answer.location?.searchParams.get("code");
    if (code === null || code === undefined) throw new Error(`approving gave no code: ${answer.status} ${answer.body}`);
    await transport.finishAuth(code);
    return client.callTool(call);
  }
}

function structured(result: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  const content = result.structuredContent;
  if (typeof content !== "object" || content === null) throw new Error(`no structuredContent: ${JSON.stringify(result)}`);
  return content as Record<string, unknown>;
}

/** A raw MCP tools/call with a bearer token: the HTTP answer the SDK saw. */
async function rawToolCall(token: string, name: string, args: Record<string, unknown>): Promise<Response> {
  return fetch(running().mcpUrl, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
}

/** A challenge's auth-params (RFC 9110 §11.2), for one Bearer challenge. */
function challengeParams(header: string): Record<string, string> {
  expect(header).toMatch(/^Bearer\b/);
  return Object.fromEntries([...header.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

function createDeckArgs(version: number, key: string): Record<string, unknown> {
  return {
    note_id: DEMO_NOTE_ID,
    expected_version: version,
    idempotency_key: key,
    tab_type: "slides",
    label: "Signed-in deck",
    slides: [{ title: "Hello from an OAuth client" }],
  };
}

describe("OAuth 2.1 with the official MCP client over real HTTP", () => {
  it("publishes protected-resource and authorization-server metadata: both resource paths, PKCE S256 only", async () => {
    const { url: origin, mcpUrl } = running();
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata.resource, path).toBe(mcpUrl);
      expect(metadata.authorization_servers, path).toEqual([origin]);
      expect(metadata.bearer_methods_supported, path).toEqual(["header"]);
    }

    const response = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const as = (await response.json()) as Record<string, unknown>;
    expect(as.issuer).toBe(origin);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.authorization_endpoint).toBe(`${origin}/authorize`);
    expect(as.token_endpoint).toBe(`${origin}/oauth/token`);
    expect(as.registration_endpoint).toBe(`${origin}/oauth/register`);
    expect(as.response_types_supported).toContain("code");
    expect(as.scopes_supported).toEqual(expect.arrayContaining([READ, WRITE]));
  });

  it("given only the MCP URL, the SDK connects and lists tools without a token; the first tool call signs in with PKCE, and the same call then succeeds", async () => {
    const { url: origin, mcpUrl } = running();
    const provider = new MemoryOAuthProvider();
    const recorder = recordingFetch();
    const transport = newTransport(provider, recorder);
    const client = newClient();
    try {
      // First contact: connect and list the tools, no token asked for, none sent, no sign-in started.
      await client.connect(transport);
      const { tools } = await client.listTools();
      await recorder.idle();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
      expect(recorder.exchanges.map((e) => e.url.pathname), recorder.lines().join("\n")).toEqual(recorder.exchanges.map(() => "/mcp"));
      expect(recorder.exchanges.filter((e) => e.headers.has("Authorization"))).toEqual([]);
      // initialize, notifications/initialized and tools/list answered; the SSE stream the SDK then tries is refused with 405, not a challenge.
      expect(recorder.exchanges.filter((e) => e.method === "POST").map((e) => e.status)).toEqual([200, 202, 200]);
      expect(recorder.exchanges.filter((e) => e.method === "GET").map((e) => e.status)).toEqual([405]);
      expect({ redirects: provider.redirects.length, client: provider.clientInformation(), tokens: provider.tokens() }).toEqual({ redirects: 0, client: undefined, tokens: undefined });

      // The first tool call: 401 with the challenge; the SDK discovers, registers and hands the browser an authorization URL.
      const call = { name: "list_note_tabs", arguments: { note_id: DEMO_NOTE_ID } };
      const before = recorder.exchanges.length;
      await expect(client.callTool(call)).rejects.toBeInstanceOf(UnauthorizedError);
      const signingIn = recorder.exchanges.slice(before);
      expect(exchangeLines(signingIn)).toEqual(signInStart(mcpUrl, origin));
      const challenge = challengeParams(signingIn[0]?.responseHeaders.get("WWW-Authenticate") ?? "");
      expect(challenge.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
      expect(challenge.scope?.split(" ").sort()).toEqual([READ, WRITE]);
      expect(provider.discoveryState()).toMatchObject({ authorizationServerUrl: origin, resourceMetadata: { resource: mcpUrl } });

      const registered = provider.clientInformation();
      expect(typeof registered?.client_id).toBe("string");
      expect(registered?.client_id).not.toBe("");
      expect(provider.tokens()).toBeUndefined();

      expect(provider.redirects).toHaveLength(1);
      const authorizeUrl = provider.lastRedirect();
      expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${origin}/authorize`);
      const params = authorizeUrl.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get("client_id")).toBe(registered?.client_id);
      expect(params.get("redirect_uri")).toBe(REDIRECT_URL);
      expect(params.get("code_challenge_method")).toBe("S256");
      expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get("resource")).toBe(mcpUrl);
      expect(params.get("state")).toBe(provider.states.at(-1));
      expect(params.get("scope")?.split(" ")).toContain(READ);

      // The browser: the page names the client and the local user; the user allows what it offers.
      const page = await openConsentPage(authorizeUrl);
      expect(page.html).toContain("Notes connector e2e client");
      expect(page.user).toBe(DEMO_USER);
      expect(page.scopes.map((s) => s.value)).toContain(READ);
      expect(page.scopes.every((s) => s.checked)).toBe(true);
      expect(page.scopes.map((s) => s.value)).not.toContain("osfoundry:app");
      const answer = await submitConsent(page, "approve", { user: DEMO_USER, scopes: page.scopes.map((s) => s.value) });
      expect(answer.status).toBe(302);
      const code = answer.location?.searchParams.get("code");
      expect(answer.location?.searchParams.get("state")).toBe(params.get("state"));
      if (code === null || code === undefined) throw new Error(`no code in ${String(answer.location)}`);

      await transport.finishAuth(code);
      const tokens = provider.tokens();
      expect(tokens?.token_type.toLowerCase()).toBe("bearer");
      expect(tokens?.access_token).toBeTruthy();
      expect(tokens?.scope?.split(" ")).toContain(READ);

      // The very same call on the same client: signed in now.
      const tabs = structured(await client.callTool(call));
      expect(tabs.note_id).toBe(DEMO_NOTE_ID);
      expect(typeof tabs.version).toBe("number");
      expect(recorder.exchanges.at(-1)?.headers.get("Authorization")).toBe(`Bearer ${tokens?.access_token}`);
      const version = tabs.version as number;

      // A write: if the first grant was read only, the SDK steps up through the consent page (callSigningIn).
      const created = structured(
        await callSigningIn(client, transport, provider, { name: "create_note_tab", arguments: createDeckArgs(version, `oauth-e2e-a-${Date.now()}`) }, (offered) => offered),
      );
      expect(created.tab_id).toMatch(TAB_ID);
      expect(created).toMatchObject({ tab_type: "slides", slide_count: 1, replayed: false, version: version + 1 });

      const after = structured(await client.callTool({ name: "list_note_tabs", arguments: { note_id: DEMO_NOTE_ID } }));
      expect((after.tabs as { id: string }[]).map((t) => t.id)).toContain(created.tab_id);
      // Every authorization URL the SDK built was for this resource with S256.
      for (const url of provider.redirects) {
        expect(url.searchParams.get("resource")).toBe(mcpUrl);
        expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      }
    } finally {
      await client.close();
    }
  });

  it("a read-only grant reads; a write gets 403 insufficient_scope; the SDK steps up and the same call succeeds", async () => {
    const { url: origin, mcpUrl } = running();
    const provider = new MemoryOAuthProvider();

    const transport = newTransport(provider);
    const client = newClient();
    await client.connect(transport);
    try {
      // The first call asks the user to sign in, who ticks only osfoundry:read (whatever else the page offers).
      const read = { name: "list_note_tabs", arguments: { note_id: DEMO_NOTE_ID } };
      await expect(client.callTool(read)).rejects.toBeInstanceOf(UnauthorizedError);
      await transport.finishAuth(codeOf(await approve(provider.lastRedirect(), DEMO_USER, [READ])));
      const readOnly = provider.tokens();
      expect(readOnly?.scope?.split(" ")).toEqual([READ]);
      const readToken = readOnly?.access_token ?? "";

      // Reads work: the same call, on the same client.
      const tabs = structured(await client.callTool(read));
      const version = tabs.version as number;
      const args = createDeckArgs(version, `oauth-e2e-b-${Date.now()}`);

      // The write, raw: 403 with a Bearer challenge naming what it needs, and nothing written.
      const denied = await rawToolCall(readToken, "create_note_tab", args);
      expect(denied.status).toBe(403);
      const challenge = challengeParams(denied.headers.get("WWW-Authenticate") ?? "");
      expect(challenge.error).toBe("insufficient_scope");
      expect(challenge.scope?.split(" ")).toContain(WRITE);
      expect(challenge.resource_metadata).toBe(`${origin}/.well-known/oauth-protected-resource/mcp`);
      expect(((await denied.json()) as { error?: unknown }).error).toBe("insufficient_scope");

      // Refreshing the read-only grant, even asking for write, never widens it.
      const refreshToken = provider.received.at(-1)?.refresh_token;
      expect(refreshToken).toBeTruthy();
      const refreshed = await fetch(`${origin}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken ?? "",
          client_id: provider.clientInformation()?.client_id ?? "",
          scope: `${READ} ${WRITE}`,
          resource: mcpUrl,
        }),
      });
      if (refreshed.ok) {
        const body = (await refreshed.json()) as { access_token: string; scope: string };
        expect(body.scope.split(" ")).not.toContain(WRITE);
        expect((await rawToolCall(body.access_token, "create_note_tab", args)).status).toBe(403);
      } else {
        expect(refreshed.status).toBe(400);
        expect(((await refreshed.json()) as { error?: unknown }).error).toBe("invalid_scope");
      }

      // The same call through the SDK: it meets the 403, and re-authorizes for the scopes the challenge named.
      const redirectsBefore = provider.redirects.length;
      await expect(client.callTool({ name: "create_note_tab", arguments: args })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.redirects).toHaveLength(redirectsBefore + 1);
      const stepUp = provider.lastRedirect();
      expect(`${stepUp.origin}${stepUp.pathname}`).toBe(`${origin}/authorize`);
      expect(stepUp.searchParams.get("scope")?.split(" ").sort()).toEqual(challenge.scope?.split(" ").sort());
      expect(stepUp.searchParams.get("resource")).toBe(mcpUrl);
      expect(stepUp.searchParams.get("code_challenge_method")).toBe("S256");

      // The page now offers write; the user allows read and write.
      const page = await openConsentPage(stepUp);
      expect(page.scopes.map((s) => s.value).sort()).toEqual([READ, WRITE]);
      const answer = await submitConsent(page, "approve", { user: DEMO_USER, scopes: [READ, WRITE] });
      const code = answer.location?.searchParams.get("code");
      if (code === null || code === undefined) throw new Error(`no code: ${answer.status} ${answer.body}`);
      await transport.finishAuth(code);
      expect(provider.tokens()?.scope?.split(" ").sort()).toEqual([READ, WRITE]);

      // The very same call now succeeds, and it is the first write of that key (the 403s wrote nothing).
      const created = structured(await client.callTool({ name: "create_note_tab", arguments: args }));
      expect(created.tab_id).toMatch(TAB_ID);
      expect(created).toMatchObject({ replayed: false, version: version + 1 });

      // The step-up grant replaced the read-only one (same user, client and resource): its token is revoked.
      const stale = await rawToolCall(readToken, "list_note_tabs", { note_id: DEMO_NOTE_ID });
      expect(stale.status).toBe(401);
      expect(challengeParams(stale.headers.get("WWW-Authenticate") ?? "").error).toBe("invalid_token");
    } finally {
      await client.close();
    }
  });

  it("denying on the consent page sends the browser back with access_denied and the state, and yields no token", async () => {
    const provider = new MemoryOAuthProvider();
    const transport = newTransport(provider);
    const client = newClient();
    await client.connect(transport);
    const call = { name: "list_notes", arguments: {} };
    await expect(client.callTool(call)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizeUrl = provider.lastRedirect();
    const state = authorizeUrl.searchParams.get("state");
    expect(state).toBeTruthy();

    const page = await openConsentPage(authorizeUrl);
    const denied = await submitConsent(page, "deny");
    expect(denied.status).toBe(302);
    const location = denied.location;
    if (location === null) throw new Error("denying gave no Location");
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URL);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe(state);
    expect(location.searchParams.get("iss")).toBe(running().url);
    expect(location.searchParams.has("code")).toBe(false);

    // The same consent, approved after the denial, gives no code.
    const late = await submitConsent(page, "approve", { user: DEMO_USER, scopes: page.scopes.map((s) => s.value) });
    expect(late.location?.searchParams.has("code") ?? false).toBe(false);
    expect(late.status === 400 || (late.status === 302 && late.location?.searchParams.has("error") === true), `${late.status} ${late.body}`).toBe(true);

    // No token: the same call sends the user to sign in again, with a new state.
    expect(provider.tokens()).toBeUndefined();
    await expect(client.callTool(call)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.tokens()).toBeUndefined();
    expect(provider.redirects).toHaveLength(2);
    expect(provider.lastRedirect().searchParams.get("state")).not.toBe(state);
    await client.close();
  });
});
