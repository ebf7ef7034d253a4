/** docs/spec.md §8 with OAuth 2.1: tokens are verified, bound to one resource, scoped, rotated, and reach only their user's Notes. */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { refresh, signIn } from "../../scripts/lib/sign-in.js";
import { api, fetchWorker, newNote, rpc, signInAs, TOKENS, tool, uniqueNoteId, workerFetch } from "../support/workers.js";

beforeAll(() => signInAs("agent", "app", "bobApp"));

const ORIGIN = "http://127.0.0.1:8787";
const send = (request: Request) => workerFetch(request);
const agent = () => signIn({ origin: ORIGIN, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], fetch: send });

afterEach(() => {
  vi.useRealTimers();
});

describe("discovery", () => {
  it("publishes protected resource metadata for the MCP endpoint and the app API, and the authorization server's", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const metadata = (await (await fetchWorker(path)).json()) as any;
      expect(metadata).toMatchObject({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN], scopes_supported: ["osfoundry:read", "osfoundry:write"] });
    }
    const app = (await (await fetchWorker("/.well-known/oauth-protected-resource/api/v1")).json()) as any;
    expect(app).toMatchObject({ resource: `${ORIGIN}/api/v1`, scopes_supported: ["osfoundry:app"] });
    const server = (await (await fetchWorker("/.well-known/oauth-authorization-server")).json()) as any;
    expect(server).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
    expect(server.scopes_supported).toEqual(expect.arrayContaining(["osfoundry:read", "osfoundry:write", "osfoundry:app"]));
  });
});

describe("tokens that are refused", () => {
  async function status(token: string | null, path = "/mcp"): Promise<{ status: number; challenge: string }> {
    const response = path === "/mcp" ? await rpc("tools/list", {}, token) : await fetchWorker(path, { method: "POST", body: "{}" });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get("WWW-Authenticate") ?? "" };
  }

  it("an expired token gets 401", async () => {
    const { access_token, expires_in } = await agent();
    expect((await status(access_token)).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (expires_in + 60) * 1000);
    const expired = await status(access_token);
    expect(expired.status).toBe(401);
    expect(expired.challenge).toContain('error="invalid_token"');
  });

  it("a revoked token gets 401", async () => {
    const { access_token, client_id } = await agent();
    expect((await status(access_token)).status).toBe(200);
    const revoked = await send(
      new Request(`${ORIGIN}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: access_token, client_id }) }),
    );
    expect(revoked.status).toBe(200);
    expect((await status(access_token)).status).toBe(401);
  });

  it("malformed tokens get 401", async () => {
    const { access_token } = await agent();
    for (const token of ["x", "a:b:c", `${access_token}x`, access_token.split(":").reverse().join(":"), "%%%"]) {
      expect((await status(token)).status, token).toBe(401);
    }
  });

  it("a token for the other resource gets 401, in both directions", async () => {
    expect((await status(TOKENS.app)).status).toBe(401);
    const denied = await api("GET", "/notes", undefined, TOKENS.agent);
    expect(denied.status).toBe(401);
  });

  it("a token is never taken from the query string", async () => {
    const { access_token } = await agent();
    for (const param of ["access_token", "token"]) {
      const response = await fetchWorker(`/mcp?${param}=${encodeURIComponent(access_token)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } }),
      });
      expect(response.status).toBe(401);
    }
  });
});

describe("credentials longer than any this server issues", () => {
  const long = "x".repeat(600);
  const tokenRequest = (params: Record<string, string>, headers: Record<string, string> = {}) =>
    send(new Request(`${ORIGIN}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(params) }));

  it("are refused at the token endpoint with 400 invalid_request naming the parameter, not a 500", async () => {
    const { client_id } = await agent();
    const cases: [string, Record<string, string>, Record<string, string>?][] = [
      ["client_id", { grant_type: "refresh_token", refresh_token: "a:b:c", client_id: long }],
      ["client_id", { grant_type: "refresh_token", refresh_token: "a:b:c" }, { Authorization: `Basic ${btoa(`${long}:secret`)}` }],
      ["refresh_token", { grant_type: "refresh_token", refresh_token: `${long}:grant:secret`, client_id }],
      ["code", { grant_type: "authorization_code", code: `${long}:grant:secret`, client_id, redirect_uri: "http://127.0.0.1:9/callback", code_verifier: "v".repeat(43) }],
      ["token", { token: `${long}:grant:secret`, client_id }],
    ];
    for (const [name, params, headers] of cases) {
      const response = await tokenRequest(params, headers);
      const body = (await response.json()) as any;
      expect({ name, status: response.status, error: body.error }).toEqual({ name, status: 400, error: "invalid_request" });
      expect(body.error_description).toContain(name);
    }
  });

  it("are refused at the consent page with a 400 page, and as a bearer token with 401", async () => {
    const page = await fetchWorker(`/authorize?client_id=${long}&response_type=code`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("client_id is longer than any this server issues");
    for (const path of ["/mcp", "/api/v1/notes"]) {
      const response = await fetchWorker(path, { method: "POST", headers: { Authorization: `Bearer ${long}:grant:secret`, "Content-Type": "application/json" }, body: "{}" });
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
  });
});

describe("refresh tokens", () => {
  it("rotate: the old refresh token stops working once the new one is used", async () => {
    const first = await agent();
    expect(first.refresh_token).toBeDefined();
    const second = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await tool("list_notes", {}, second.access_token)).isError).toBe(false);

    // Using the new one retires the old one.
    const third = await refresh(ORIGIN, first.client_id, second.refresh_token, send);
    expect(third.status).toBe(200);
    const replayed = await refresh(ORIGIN, first.client_id, first.refresh_token as string, send);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as any).error).toBe("invalid_grant");
  });

  it("a refresh whose answer was lost can be retried with the same token", async () => {
    const first = await agent();
    const lost = await refresh(ORIGIN, first.client_id, first.refresh_token as string, send);
    expect(lost.status).toBe(200);
    const retried = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    expect((await tool("list_notes", {}, retried.access_token)).isError).toBe(false);
    expect((await refresh(ORIGIN, first.client_id, retried.refresh_token, send)).status).toBe(200);
  });

  it("the same refresh token sent twice at once (two tabs) gets one answer, twice: no second pair, and the grant stays", async () => {
    const first = await agent();
    const answers = await Promise.all([0, 1, 2].map(() => refresh(ORIGIN, first.client_id, first.refresh_token as string, send)));
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as any[];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // One rotation: every request holds the token the grant now expects, so whichever a client keeps works.
    expect(new Set(bodies.map((body) => body.refresh_token)).size).toBe(1);
    expect(new Set(bodies.map((body) => body.access_token)).size).toBe(1);
    expect(bodies[0].refresh_token).not.toBe(first.refresh_token);
    expect((await tool("list_notes", {}, bodies[2].access_token)).isError).toBe(false);
    const next = await refresh(ORIGIN, first.client_id, bodies[1].refresh_token, send);
    expect(next.status).toBe(200);
    const after = (await next.json()) as any;
    expect((await tool("list_notes", {}, after.access_token)).isError).toBe(false);
    // Its successor used, the first token is a replay again: the grant goes (RFC 9700 §4.14.2).
    expect((await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).status).toBe(400);
    expect((await rpc("tools/list", {}, after.access_token)).status).toBe(401);
  });

  it("a repeated refresh answers a browser-based client with the same headers as the first (CORS, no-store)", async () => {
    const first = await agent();
    const fromBrowser = () =>
      send(
        new Request(`${ORIGIN}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://inspector.example" },
          body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: first.refresh_token as string, client_id: first.client_id }),
        }),
      );
    const [one, two] = [await fromBrowser(), await fromBrowser()];
    expect(((await two.json()) as any).refresh_token).toBe(((await one.json()) as any).refresh_token);
    const headers = (response: Response) => Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-") || ["cache-control", "pragma", "vary", "content-type"].includes(name)));
    expect(headers(two)).toEqual(headers(one));
    expect(headers(two)["access-control-allow-origin"]).toBe("https://inspector.example");
  });

  it("the same refresh token again after the reuse interval gets a pair of its own (a lost answer's retry), not the kept one", async () => {
    const first = await agent();
    const lost = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const retried = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    expect(retried.refresh_token).not.toBe(lost.refresh_token);
    expect((await refresh(ORIGIN, first.client_id, retried.refresh_token, send)).status).toBe(200);
  });

  it("a refresh asking for other scopes than the first use of its token is no repeat of it: the library answers it", async () => {
    const first = await agent();
    const plain = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    const narrowed = await send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: first.refresh_token as string, client_id: first.client_id, scope: "osfoundry:read" }),
      }),
    );
    const body = (await narrowed.json()) as any;
    expect(narrowed.status).toBe(200);
    expect(body.scope).toBe("osfoundry:read");
    expect(body.refresh_token).not.toBe(plain.refresh_token);
  });

  it("a replayed rotated-out refresh token revokes the grant: its newest tokens stop working at once (RFC 9700 §4.14.2)", async () => {
    const first = await agent();
    const second = (await (await refresh(ORIGIN, first.client_id, first.refresh_token as string, send)).json()) as any;
    const third = (await (await refresh(ORIGIN, first.client_id, second.refresh_token, send)).json()) as any;
    expect((await tool("list_notes", {}, third.access_token)).isError).toBe(false);

    // Whoever replays the first token, thief or client, the grant can no longer be trusted.
    const replayed = await refresh(ORIGIN, first.client_id, first.refresh_token as string, send);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as any).error).toBe("invalid_grant");
    const refused = await rpc("tools/list", {}, third.access_token);
    expect(refused.status).toBe(401);
    expect((await refresh(ORIGIN, first.client_id, third.refresh_token, send)).status).toBe(400);
  });

  it("a refresh token of a stolen pair used by the thief first locks out the grant when the client uses its own", async () => {
    const client = await agent();
    const thief = (await (await refresh(ORIGIN, client.client_id, client.refresh_token as string, send)).json()) as any;
    const thiefNext = (await (await refresh(ORIGIN, client.client_id, thief.refresh_token, send)).json()) as any;
    // The client's token was rotated out by the thief's use: its refresh fails, and takes the thief's grant with it.
    expect((await refresh(ORIGIN, client.client_id, client.refresh_token as string, send)).status).toBe(400);
    expect((await rpc("tools/list", {}, thiefNext.access_token)).status).toBe(401);
    expect((await refresh(ORIGIN, client.client_id, thiefNext.refresh_token, send)).status).toBe(400);
  });
});

describe("revocation through this Worker", () => {
  const revoke = (token: string, clientId: string) =>
    send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      }),
    );

  it("revoking the refresh token refuses the grant's access tokens at once, though this isolate had just validated them", async () => {
    const tokens = await agent();
    expect((await rpc("tools/list", {}, tokens.access_token)).status).toBe(200);
    expect((await revoke(tokens.refresh_token as string, tokens.client_id)).status).toBe(200);
    const refused = await rpc("tools/list", {}, tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("revoking one access token leaves the grant's refresh token working", async () => {
    const tokens = await agent();
    expect((await revoke(tokens.access_token, tokens.client_id)).status).toBe(200);
    expect((await rpc("tools/list", {}, tokens.access_token)).status).toBe(401);
    const renewed = (await (await refresh(ORIGIN, tokens.client_id, tokens.refresh_token as string, send)).json()) as any;
    expect((await rpc("tools/list", {}, renewed.access_token)).status).toBe(200);
  });
});

describe("users reach only their own Notes", () => {
  it("alice's tokens cannot see or change bob's Notes through any tool or API route", async () => {
    const bobs: string[] = [];
    for (let i = 0; i < 6; i++) bobs.push((await newNote({ token: TOKENS.bobApp, title: `Bob ${i}` })).noteId);
    const ids = [...bobs, ...Array.from({ length: 14 }, () => uniqueNoteId("never"))];

    const listed = await tool("list_notes", {}, TOKENS.agent);
    expect(listed.data.notes.map((n: { note_id: string }) => n.note_id)).not.toEqual(expect.arrayContaining([bobs[0]]));

    // The Notes side by side (each Note's calls in turn): a call's wait on storage overlaps another's.
    await Promise.all(ids.map(async (noteId) => {
      const toolCalls: [string, Record<string, unknown>][] = [
        ["list_note_tabs", {}],
        ["read_note_tab", { tab_id: "markdown" }],
        ["create_note_tab", { expected_version: 2, idempotency_key: "steal", tab_type: "slides" }],
        ["edit_note_tab", { expected_version: 2, idempotency_key: "steal-edit", tab_id: "markdown", operation: "slide_add", title: "x" }],
        ["add_note_source", { expected_version: 2, idempotency_key: "steal-src", title: "x", url: "https://example.org" }],
        ["list_note_attachments", { kind: "sources" }],
      ];
      for (const [name, args] of toolCalls) {
        const answer = await tool(name, { note_id: noteId, ...args }, TOKENS.agent);
        expect({ noteId, name, code: answer.data.code }).toEqual({ noteId, name, code: "note_not_found" });
      }
      const routes: [string, string, unknown][] = [
        ["GET", "", undefined],
        ["GET", "/attachments?kind=files", undefined],
        ["PUT", "/approval", { approved: true }],
        ["POST", "/members", { user: "alice" }],
        ["POST", "/tabs", { tab_type: "slides" }],
        ["PATCH", "/tabs/markdown", { position: 1 }],
        ["DELETE", "/tabs/slides-1-x", undefined],
        ["PUT", "/tabs/slides-1-x/slides", { slides: [] }],
        ["PUT", "/markdown", { text: "mine" }],
        ["POST", "/files", { name: "a", media_type: "text/plain", size_bytes: 1 }],
        ["PATCH", "", { title: "Mine now" }],
        ["DELETE", "", undefined],
      ];
      for (const [method, path, body] of routes) {
        const answer = await api(method, `/notes/${noteId}${path}`, body, TOKENS.app);
        expect({ noteId, method, path, status: answer.status, code: answer.body.error?.code }).toEqual({ noteId, method, path, status: 404, code: "note_not_found" });
      }
    }));
    // And bob's Notes are untouched.
    for (const noteId of bobs) {
      const whole = await api("GET", `/notes/${noteId}`, undefined, TOKENS.bobApp);
      expect(whole.body).toMatchObject({ version: 2, members: ["bob"], markdown: "" });
      expect(whole.body.tabs).toHaveLength(3);
    }
  }, 120_000);
});

describe("an OpenID provider that cannot be reached", () => {
  it("approving on the consent page answers a page (502), not a redirect: no code reaches the client", async () => {
    // The connector signing in through a provider at a port that refuses at once; an origin of its own, so no setup of
    // the test's local sign-in is reused for it. (workerd prints the refused fetch as an "uncaught exception ... Network
    // connection lost" though the connector catches it: the runtime's line for any failed subrequest.)
    const origin = "http://127.0.0.1:8791";
    const bindings = { ...env, LOCAL_SIGN_IN: "false", OIDC_ISSUER: "http://127.0.0.1:9", OIDC_CLIENT_ID: "connector", OIDC_CLIENT_SECRET: "s3cret-value" };
    const call = (request: Request) => workerFetch(request, bindings);
    const redirectUri = "http://127.0.0.1:9/callback";
    const registered = await call(new Request(`${origin}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "down", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }) }));
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const authorize = new URL(`${origin}/authorize`);
    const scope = "osfoundry:read osfoundry:write";
    for (const [key, value] of Object.entries({ response_type: "code", client_id, redirect_uri: redirectUri, scope, state: "s", code_challenge: "c".repeat(43), code_challenge_method: "S256", resource: `${origin}/mcp` })) {
      authorize.searchParams.set(key, value);
    }

    const consent = await call(new Request(authorize));
    const html = await consent.text();
    expect(consent.status, html.slice(0, 300)).toBe(200);
    const form = new URLSearchParams({ handle: /name=handle value="([^"]+)"/.exec(html)?.[1] ?? "", decision: "approve" });
    for (const one of scope.split(" ")) form.append("scope", one);
    const cookie = (consent.headers.get("Set-Cookie") ?? "").split(";", 1)[0] ?? "";
    const answer = await call(new Request(authorize, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie }, body: form }));
    const body = await answer.text();
    expect({ status: answer.status, location: answer.headers.get("Location") }, body.slice(0, 300)).toEqual({ status: 502, location: null });
    expect(body).toMatch(/^<!doctype html>/);
    expect(body).toMatch(/could not be reached/);
    expect(body).not.toContain("s3cret-value");
  });
});
