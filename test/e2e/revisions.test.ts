/**
 * End to end, MCP 2026-07-28: the official v2 client (`@modelcontextprotocol/client`)
 * against the real Worker under `wrangler dev`, given only the MCP URL. Pinned
 * to 2026-07-28 it connects with `server/discover`, lists the tools without a
 * token, signs in when its first tool call meets the 401 (this file plays the
 * browser on the consent page), then calls every tool once (the client checks
 * each structuredContent against the tool's output schema); with a read-only
 * grant it steps up on a write's 403; in auto mode it negotiates the same
 * revision. Every request it sends is recorded, to check that each carries
 * the revision's headers and `_meta` envelope.
 *
 * The v1 client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25) signs in the
 * same way in test/e2e/oauth.test.ts and test/e2e/oidc.test.ts; here it reads
 * the same Note beside the v2 client, with the token the v2 client got.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type CallToolResult, type Tool } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_NOTE_TITLE, seedDemoNote } from "../../scripts/local-server.js";
import { approve } from "../support/consent-page.js";
import { useSharedServer } from "../support/e2e-server.js";
import { MemoryOAuthProvider } from "../support/memory-oauth-provider.js";
import { exchangeLines, recordingFetch, signInStart, type Exchange, type RecordingFetch } from "../support/recording-fetch.js";

const MODERN = "2026-07-28";
const READ = "osfoundry:read";
const WRITE = "osfoundry:write";
const TOOL_NAMES = ["search", "fetch", "list_notes", "list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments", "list_note_changes", "revert_note_change"];
const CLIENT_INFO = { name: "notes-connector-e2e-v2", version: "0.1.0" };
const TAB_ID = /^slides-\d+-[0-9a-z]+$/;

// Its first list_notes must show the person the demo Note alone: on the shared server, a user of this file's own, with a demo Note of their own.
const TAG = crypto.randomUUID().slice(0, 8);
// Of this run: in watch mode the shared server outlives a run, and a rerun must find them new.
const USER = `demo-revisions-${TAG}`;
const NOTE_ID = `demo-revisions-${TAG}`;
const { running } = useSharedServer(async (server) => {
  const seeded = await seedDemoNote(server.url, { user: USER, noteId: NOTE_ID });
  expect(seeded).toMatchObject({ note_id: NOTE_ID, created: true });
});

type Mode = "auto" | { pin: string };

/** A v2 client over its own transport, recording every request it makes. */
interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  provider: MemoryOAuthProvider;
  recorder: RecordingFetch;
}

function newSession(mode: Mode, provider = new MemoryOAuthProvider()): Session {
  const recorder = recordingFetch();
  const transport = new StreamableHTTPClientTransport(new URL(running().mcpUrl), { authProvider: provider, fetch: recorder.fetch });
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode } });
  return { client, transport, provider, recorder };
}

/** Each request to /mcp as a line: its JSON-RPC method (and tool) and the HTTP status it got. */
function mcpLines(exchanges: readonly Exchange[]): string[] {
  return exchanges.filter((e) => e.url.pathname === "/mcp").map((e) => `${rpcOf(e).method}${rpcOf(e).params?.name === undefined ? "" : ` ${rpcOf(e).params?.name}`} ${e.status}`);
}

function rpcOf(exchange: Exchange): { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } } {
  return (exchange.body ?? {}) as { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } };
}

/**
 * Every request to /mcp was written in 2026-07-28: a POST whose headers name
 * the revision, the method and (for a tool call) the tool, and whose
 * `_meta` envelope carries the revision, this client and its capabilities.
 * Never an `initialize`.
 */
function expectModern(exchanges: readonly Exchange[]): void {
  const sent = exchanges.filter((e) => e.url.pathname === "/mcp");
  expect(sent.length).toBeGreaterThan(0);
  for (const exchange of sent) {
    const { method, params } = rpcOf(exchange);
    const meta = params?._meta ?? {};
    expect({
      http: exchange.method,
      version: exchange.headers.get("MCP-Protocol-Version"),
      method: exchange.headers.get("Mcp-Method"),
      name: exchange.headers.get("Mcp-Name"),
      envelope: meta["io.modelcontextprotocol/protocolVersion"],
      clientInfo: meta["io.modelcontextprotocol/clientInfo"],
      capabilities: typeof meta["io.modelcontextprotocol/clientCapabilities"],
    }).toEqual({
      http: "POST",
      version: MODERN,
      method,
      name: method === "tools/call" ? params?.name : null,
      envelope: MODERN,
      clientInfo: CLIENT_INFO,
      capabilities: "object",
    });
    expect(method).not.toBe("initialize");
  }
}

/**
 * The tools as listed: all eight, in order, each with the OAuth scopes it
 * needs, in `_meta.securitySchemes` as the client hands them over and also in
 * the top-level `securitySchemes` of the answer on the wire (the SDK's Tool
 * type has no such field, so the client drops it).
 */
async function expectTools(tools: readonly Tool[], exchanges: readonly Exchange[]): Promise<void> {
  const answer = exchanges.find((e) => rpcOf(e).method === "tools/list");
  if (answer === undefined) throw new Error("no tools/list was sent");
  const wire = (JSON.parse(await answer.responseText()) as { result: { tools: { name: string; securitySchemes?: unknown }[] } }).result.tools;
  expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  expect(wire.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  for (const [i, tool] of tools.entries()) {
    const schemes = [{ type: "oauth2", scopes: [tool.annotations?.readOnlyHint === true ? READ : WRITE] }];
    expect({ name: tool.name, meta: tool._meta?.securitySchemes, wire: wire[i]?.securitySchemes }).toEqual({ name: tool.name, meta: schemes, wire: schemes });
  }
}

/** A successful tool result's structuredContent, checked against its text twin. */
function structured(result: CallToolResult): Record<string, any> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  const content = result.structuredContent;
  if (typeof content !== "object" || content === null) throw new Error(`no structuredContent: ${JSON.stringify(result)}`);
  expect(result.content[0]).toEqual({ type: "text", text: JSON.stringify(content) });
  return content as Record<string, any>;
}

/** search's or fetch's result: its structuredContent, after checking its one text is exactly the object ChatGPT reads. */
function asChatGpt(result: CallToolResult): Record<string, any> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  const content = result.structuredContent as Record<string, any>;
  expect(result.content).toHaveLength(1);
  const text = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
  if ("results" in text) expect(text).toEqual({ results: content.hits.map((h: Record<string, unknown>) => ({ id: h.id, title: h.title, url: h.url })) });
  else expect(Object.keys(text).sort()).toEqual(["id", "metadata", "text", "title", "url"]);
  return content;
}

/** The link a write's result carries to the Note's page, after its JSON text: opened on the tab it wrote (`?tab=`). */
function notePageLink(noteId: string, tabId: string): Record<string, unknown> {
  return { type: "resource_link", uri: `${running().url}/notes/${noteId}?tab=${encodeURIComponent(tabId)}`, name: noteId, title: "Open the Note", mimeType: "text/html" };
}

/** A write's result: its structuredContent, after checking it links to the Note's page on the tab it wrote (and only that). */
function written(result: CallToolResult, noteId: string): Record<string, any> {
  const content = structured(result);
  expect(result.content).toHaveLength(2);
  // Every write here concerns one tab: a deck's (tab_id), or the Sources tab for a source.
  const tabId = typeof content.tab_id === "string" ? content.tab_id : content.source_id !== undefined ? "sources" : "(none)";
  expect(result.content[1]).toMatchObject(notePageLink(noteId, tabId));
  return content;
}

/** A read's result: its structuredContent, and no link. */
function read(result: CallToolResult): Record<string, any> {
  const content = structured(result);
  expect(result.content).toHaveLength(1);
  return content;
}

/**
 * A tool call the way a client application makes it: on UnauthorizedError the
 * SDK has sent the user to the consent page, who approves read and write;
 * the app hands the callback to the SDK and calls again.
 */
async function callSigningIn({ client, transport, provider }: Session, call: { name: string; arguments: Record<string, unknown> }): Promise<CallToolResult> {
  try {
    return (await client.callTool(call)) as CallToolResult;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await transport.finishAuth((await approve(provider.lastRedirect(), USER, [READ, WRITE])).searchParams);
    return (await client.callTool(call)) as CallToolResult;
  }
}

describe("the v2 client pinned to 2026-07-28", () => {
  let session: Session | undefined;
  const signedIn = (): Session => {
    if (session === undefined) throw new Error("the sign-in test did not get this far: see its failure");
    return session;
  };
  afterAll(async () => {
    await session?.client.close();
  });

  it("connects with server/discover and lists the tools without a token; its first tool call signs in, and the same call then succeeds", async () => {
    const { url: origin, mcpUrl } = running();
    const started = newSession({ pin: MODERN });
    const { client, transport, provider, recorder } = started;

    await client.connect(transport);
    expect({ era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() }).toEqual({ era: "modern", version: MODERN });
    expect(client.getServerVersion()).toMatchObject({ name: "osfoundry-notes-connector" });
    expect(client.getDiscoverResult()?.supportedVersions).toContain(MODERN);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    await recorder.idle();
    await expectTools(tools, recorder.exchanges);
    // Two requests, both to /mcp, no token asked for or sent, no sign-in started.
    expect(recorder.exchanges.map((e) => `${e.method} ${e.url.pathname}`)).toEqual(["POST /mcp", "POST /mcp"]);
    expect(mcpLines(recorder.exchanges)).toEqual(["server/discover 200", "tools/list 200"]);
    expect(recorder.exchanges.filter((e) => e.headers.has("Authorization"))).toEqual([]);
    expect({ redirects: provider.redirects.length, client: provider.clientInformation(), tokens: provider.tokens() }).toEqual({ redirects: 0, client: undefined, tokens: undefined });

    // The first tool call: the 401 challenge; the SDK discovers, registers and sends the browser to the consent page.
    const call = { name: "list_notes", arguments: {} };
    const before = recorder.exchanges.length;
    await expect(client.callTool(call)).rejects.toBeInstanceOf(UnauthorizedError);
    const signingIn = recorder.exchanges.slice(before);
    expect(exchangeLines(signingIn)).toEqual(signInStart(mcpUrl, origin));
    const challenge = signingIn[0]?.responseHeaders.get("WWW-Authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain(`scope="${READ} ${WRITE}"`);
    expect(provider.redirects).toHaveLength(1);
    const authorizeUrl = provider.lastRedirect();
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${origin}/authorize`);
    expect(Object.fromEntries(["client_id", "code_challenge_method", "resource", "state", "scope"].map((key) => [key, authorizeUrl.searchParams.get(key)]))).toEqual({
      client_id: provider.clientInformation()?.client_id,
      code_challenge_method: "S256",
      resource: mcpUrl,
      state: provider.states.at(-1),
      scope: `${READ} ${WRITE}`,
    });

    // The browser: the user approves both scopes; the client takes the callback (code and iss) and redeems the code.
    const callback = await approve(authorizeUrl, USER, [READ, WRITE]);
    expect(callback.searchParams.get("iss")).toBe(origin);
    await transport.finishAuth(callback.searchParams);
    expect(provider.tokens()?.scope?.split(" ").sort()).toEqual([READ, WRITE]);

    // The very same call, on the same client: signed in now, still 2026-07-28.
    const notes = read((await client.callTool(call)) as CallToolResult);
    expect(notes).toEqual({ notes: [{ note_id: NOTE_ID, title: DEMO_NOTE_TITLE }], next_cursor: null });
    expect(recorder.exchanges.at(-1)?.headers.get("Authorization")).toBe(`Bearer ${provider.tokens()?.access_token}`);
    expect(mcpLines(recorder.exchanges)).toEqual(["server/discover 200", "tools/list 200", "tools/call list_notes 401", "tools/call list_notes 200"]);
    expectModern(recorder.exchanges);
    session = started;
  });

  it("calls every tool once on the demo Note, each result as its output schema says; a write resent with its key returns the first result", async () => {
    const { client, provider, recorder } = signedIn();
    const before = recorder.exchanges.length;
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const note_id = NOTE_ID;

    const listed = read(await call("list_notes", { title_contains: "DEMO" }));
    expect(listed).toEqual({ notes: [{ note_id, title: DEMO_NOTE_TITLE }], next_cursor: null });

    const tabs = read(await call("list_note_tabs", { note_id }));
    expect(tabs).toMatchObject({ note_id, title: DEMO_NOTE_TITLE });
    expect(tabs.tabs.slice(0, 4).map((tab: { type: string }) => tab.type)).toEqual(["markdown", "files", "sources", "slides"]);
    const v0 = tabs.version as number;

    const createArgs = {
      note_id,
      expected_version: v0,
      idempotency_key: "modern-deck",
      tab_type: "slides",
      label: "From the v2 client",
      slides: [{ title: "Why", body: "One endpoint, two revisions." }, { title: "How", notes: "Say it slowly." }],
    };
    const creation = await call("create_note_tab", createArgs);
    const created = written(creation, note_id);
    // The link opens the person's page of that Note.
    const page = await fetch((creation.content[1] as { uri: string }).uri);
    await page.body?.cancel();
    expect({ status: page.status, type: page.headers.get("Content-Type")?.toLowerCase() }).toEqual({ status: 200, type: "text/html; charset=utf-8" });
    expect(created).toMatchObject({ note_id, version: v0 + 1, replayed: false, arguments_differ: false, tab_type: "slides", label: "From the v2 client", slide_count: 2 });
    expect(created.tab_id).toMatch(TAB_ID);
    const tabId = created.tab_id as string;
    const [first, second] = created.slide_ids as string[];
    expect(created.slide_ids).toHaveLength(2);

    const edited = written(
      await call("edit_note_tab", { note_id, expected_version: v0 + 1, idempotency_key: "modern-edit", tab_id: tabId, operation: "slide_update", slide_id: second, body: "Step by step." }),
      note_id,
    );
    expect(edited).toMatchObject({ note_id, version: v0 + 2, replayed: false, tab_id: tabId, operation: "slide_update", slide_ids: [second], slide_count: 2 });

    const deck = read(await call("read_note_tab", { note_id, tab_id: tabId }));
    expect(deck).toMatchObject({ note_id, version: v0 + 2, tab: { id: tabId, type: "slides", label: "From the v2 client", slide_count: 2 }, next_cursor: null });
    expect(deck.slides).toEqual([
      { id: first, index: 0, title: "Why", body: "One endpoint, two revisions.", notes: "" },
      { id: second, index: 1, title: "How", body: "Step by step.", notes: "Say it slowly." },
    ]);

    const source = written(
      await call("add_note_source", {
        note_id,
        expected_version: v0 + 2,
        idempotency_key: "modern-source",
        title: "MCP 2026-07-28",
        url: "modelcontextprotocol.io/specification/2026-07-28",
        description: "The revision this client speaks.",
      }),
      note_id,
    );
    expect(source).toMatchObject({ note_id, version: v0 + 3, replayed: false, already_attached: false, title: "MCP 2026-07-28", normalized_url: "https://modelcontextprotocol.io/specification/2026-07-28" });

    const sources = read(await call("list_note_attachments", { note_id, kind: "sources" }));
    expect(sources).toMatchObject({ note_id, kind: "sources", next_cursor: null });
    expect(sources.items).toContainEqual(expect.objectContaining({ id: source.source_id, title: "MCP 2026-07-28", description: "The revision this client speaks." }));

    const changes = read(await call("list_note_changes", { note_id, since_version: v0 }));
    expect(changes).toMatchObject({ note_id, version: v0 + 3, next_since_version: null });
    const agent = { kind: "agent", user: USER, client_id: provider.clientInformation()?.client_id, client_name: "Notes connector e2e client" };
    expect(changes.changes.map((c: { version: number; operation: string; actor: unknown }) => [c.version, c.operation, c.actor])).toEqual([
      [v0 + 1, "create_tab", agent],
      [v0 + 2, "slide_update", agent],
      [v0 + 3, "add_source", agent],
    ]);

    // The deck resent unchanged (same key, same stale version): the first result, marked replayed, and nothing written.
    const again = await call("create_note_tab", createArgs);
    expect(written(again, note_id)).toEqual({ ...created, replayed: true, current_version: v0 + 3 });
    expect(read(await call("list_note_tabs", { note_id })).version).toBe(v0 + 3);

    // The citation taken back: a new change that names what it took back (docs/spec.md §10).
    const reverted = written(await call("revert_note_change", { note_id, expected_version: v0 + 3, idempotency_key: "modern-undo", version: v0 + 3 }), note_id);
    expect(reverted).toMatchObject({ note_id, reverted_version: v0 + 3, version: v0 + 4, source_id: source.source_id, replayed: false });

    // The slide just written is found at once, with the IDs to edit it, and fetched whole (docs/spec.md §11).
    // Their one text is ChatGPT's shape, not the structured content (src/mcp/results.ts).
    const found = asChatGpt(await call("search", { query: "step by step", note_id }));
    expect(found.hits[0]).toMatchObject({ kind: "slide", note_id, tab_id: tabId, slide_id: second, title: "How" });
    const fetched = asChatGpt(await call("fetch", { id: found.hits[0].id }));
    expect(fetched).toMatchObject({ id: found.hits[0].id, title: "How", metadata: { kind: "slide", note_id, tab_id: tabId, slide_id: second } });
    expect(fetched.text).toContain("Step by step.");

    // Each tool went over the wire once at least, every request in 2026-07-28, all answered 200.
    const calls = recorder.exchanges.slice(before);
    expectModern(calls);
    expect(new Set(calls.map((e) => e.headers.get("Mcp-Name")))).toEqual(new Set(TOOL_NAMES));
    expect(calls.map((e) => e.status)).toEqual(calls.map(() => 200));
  });

  it("the v1 client (2025-11-25) reads the same Note with the same token: initialize, then plain requests, the same result", async () => {
    const { client: modern, provider } = signedIn();
    const recorder = recordingFetch();
    const legacy = new V1Client({ name: "notes-connector-e2e-v1", version: "0.1.0" });
    await legacy.connect(new V1Transport(new URL(running().mcpUrl), { authProvider: provider, fetch: recorder.fetch }));
    try {
      const call = { name: "list_note_tabs", arguments: { note_id: NOTE_ID } };
      const old = await legacy.callTool(call);
      const now = (await modern.callTool(call)) as CallToolResult;
      expect(old.structuredContent).toEqual(now.structuredContent);
      await recorder.idle();
      const posts = recorder.exchanges.filter((e) => e.method === "POST");
      expect(posts.map((e) => rpcOf(e).method)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
      expect(posts.at(-1)?.headers.get("MCP-Protocol-Version")).toBe("2025-11-25");
      expect(posts.every((e) => rpcOf(e).params?._meta?.["io.modelcontextprotocol/protocolVersion"] === undefined)).toBe(true);
    } finally {
      await legacy.close();
    }
  });
});

describe("the v2 client and a read-only grant", () => {
  it("holding a refresh token, it meets 403 insufficient_scope on a write, re-authorizes for read and write (no refresh), and the same write succeeds", async () => {
    const { url: origin } = running();
    const started = newSession({ pin: MODERN }, new MemoryOAuthProvider({ keepRefreshToken: true }));
    const { client, transport, provider, recorder } = started;
    try {
      await client.connect(transport);
      const read = { name: "list_note_tabs", arguments: { note_id: NOTE_ID } };
      await expect(client.callTool(read)).rejects.toBeInstanceOf(UnauthorizedError);
      await transport.finishAuth((await approve(provider.lastRedirect(), USER, [READ])).searchParams);
      expect(provider.tokens()).toMatchObject({ scope: READ, refresh_token: expect.any(String) });
      const version = structured((await client.callTool(read)) as CallToolResult).version as number;

      const write = {
        name: "add_note_source",
        arguments: { note_id: NOTE_ID, expected_version: version, idempotency_key: "step-up-source", title: "Step-up", url: "https://example.com/step-up" },
      };
      const before = recorder.exchanges.length;
      await expect(client.callTool(write)).rejects.toBeInstanceOf(UnauthorizedError);
      await recorder.idle();
      // One 403 naming both scopes, then straight to the consent page: no refresh (it cannot widen a grant), no second discovery.
      const refused = recorder.exchanges.slice(before);
      expect(refused.map((e) => `${e.method} ${e.url.pathname} ${e.status}`)).toEqual(["POST /mcp 403"]);
      expect(refused[0]?.responseHeaders.get("WWW-Authenticate")).toContain('error="insufficient_scope"');
      expect(provider.redirects).toHaveLength(2);
      const stepUp = provider.lastRedirect();
      expect(`${stepUp.origin}${stepUp.pathname}`).toBe(`${origin}/authorize`);
      expect(stepUp.searchParams.get("scope")?.split(" ").sort()).toEqual([READ, WRITE]);

      await transport.finishAuth((await approve(stepUp, USER, [READ, WRITE])).searchParams);
      expect(provider.tokens()?.scope?.split(" ").sort()).toEqual([READ, WRITE]);
      // The same write, the first of its key: the 403 wrote nothing.
      expect(written((await client.callTool(write)) as CallToolResult, NOTE_ID)).toMatchObject({ version: version + 1, replayed: false });
      expectModern(recorder.exchanges);
    } finally {
      await client.close();
    }
  });
});

describe("the v2 client in auto mode", () => {
  it("negotiates 2026-07-28 with server/discover, lists the tools, signs in at its first call, reads and writes", async () => {
    const started = newSession("auto");
    const { client, transport, recorder } = started;
    try {
      await client.connect(transport);
      expect({ era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() }).toEqual({ era: "modern", version: MODERN });
      await expectTools((await client.listTools()).tools, recorder.exchanges);

      const tabs = read(await callSigningIn(started, { name: "list_note_tabs", arguments: { note_id: NOTE_ID } }));
      const version = tabs.version as number;
      const added = written(
        await client.callTool({
          name: "add_note_source",
          arguments: { note_id: NOTE_ID, expected_version: version, idempotency_key: "auto-source", title: "Streamable HTTP", url: "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports" },
        }) as CallToolResult,
        NOTE_ID,
      );
      expect(added).toMatchObject({ version: version + 1, replayed: false, already_attached: false });

      await recorder.idle();
      expect(mcpLines(recorder.exchanges)).toEqual([
        "server/discover 200",
        "tools/list 200",
        "tools/call list_note_tabs 401",
        "tools/call list_note_tabs 200",
        "tools/call add_note_source 200",
      ]);
      expectModern(recorder.exchanges);
    } finally {
      await client.close();
    }
  });
});
