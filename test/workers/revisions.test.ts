/**
 * Both MCP revisions on one endpoint, and what anyone may read without a
 * token: 2026-07-28 (every request carries its version and capabilities) and
 * 2025-11-25 (initialize, then plain requests) answer from one tool table;
 * initialize, server/discover and tools/list need no token; anything else
 * without one is the resource server's 401 challenge.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { fetchWorker, MODERN, modernRpc, newNote, rpc, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("agent", "bobAgent", "bobApp"));

/** A client that renders MCP Apps says so in its capabilities. */
const UI = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const PREVIEWED = ["read_note_tab", "create_note_tab", "edit_note_tab"];
const PREVIEW_URI = "ui://notes/deck-preview.html";

const TOOL_NAMES = ["search", "fetch", "list_notes", "list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments", "list_note_changes", "revert_note_change"];

/** A request from its own client address, so the per-address limit of one test does not spend another's. */
let address = 0;
const fromAddress = () => ({ "CF-Connecting-IP": `198.51.100.${++address}` });

async function json(response: Response): Promise<any> {
  return response.json();
}

describe("2026-07-28", () => {
  it("server/discover names the revision, the server and its capabilities", async () => {
    const response = await modernRpc("server/discover");
    expect(response.status).toBe(200);
    const { result } = await json(response);
    expect(result.supportedVersions).toEqual([MODERN]);
    expect(result.capabilities.tools).toEqual({});
    // MCP Apps is negotiated by both sides' capabilities.
    expect(result.capabilities.extensions).toEqual({ "io.modelcontextprotocol/ui": {} });
    expect(result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "osfoundry-notes-connector", version: "0.1.0" });
    expect(result.instructions).toMatch(/list_note_tabs/);
  });

  it("tools/list and tools/call answer in the revision's shape, with the same tools and results as 2025-11-25", async () => {
    const modern = (await json(await modernRpc("tools/list", {}, TOKENS.agent, UI))).result;
    const legacy = (await json(await rpc("tools/list", {}))).result;
    expect(modern.resultType).toBe("complete");
    expect(modern.tools).toEqual(legacy.tools);
    expect(modern.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOL_NAMES);

    const { noteId, version } = await newNote();
    const call = (await json(await modernRpc("tools/call", { name: "list_note_tabs", arguments: { note_id: noteId } }))).result;
    expect(call.resultType).toBe("complete");
    expect(call.structuredContent).toMatchObject({ note_id: noteId, version });
    const again = (await json(await rpc("tools/call", { name: "list_note_tabs", arguments: { note_id: noteId } }))).result;
    expect(call.structuredContent).toEqual(again.structuredContent);
  });

  it("a write replayed with its key returns the first result, in either revision", async () => {
    const { noteId, version } = await newNote();
    const args = { note_id: noteId, expected_version: version, idempotency_key: "deck-1", tab_type: "slides", label: "Deck", slides: [{ title: "One" }] };
    const first = (await json(await modernRpc("tools/call", { name: "create_note_tab", arguments: args }))).result.structuredContent;
    const modernAgain = (await json(await modernRpc("tools/call", { name: "create_note_tab", arguments: args }))).result.structuredContent;
    const legacyAgain = (await json(await rpc("tools/call", { name: "create_note_tab", arguments: args }))).result.structuredContent;
    expect(first.replayed).toBe(false);
    expect(modernAgain).toEqual({ ...first, replayed: true, current_version: first.version });
    expect(legacyAgain).toEqual({ ...first, replayed: true, current_version: first.version });
  });

  it("an unsupported revision, a missing header or headers that disagree with the body are refused by code", async () => {
    const future = await fetchWorker("/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {} } } }),
    });
    const unsupported = await json(future);
    expect(unsupported.error.code).toBe(-32022);
    expect(unsupported.error.data.supported).toEqual([MODERN]);

    const noMethodHeader = await json(await fetchWithout("Mcp-Method"));
    expect(noMethodHeader.error.code).toBe(-32020);
    const wrongName = await fetchWorker("/mcp", {
      method: "POST",
      headers: { ...modernHeaders("tools/call"), "Mcp-Name": "list_notes" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_note_tabs", arguments: {}, _meta: modernMeta() } }),
    });
    expect((await json(wrongName)).error.code).toBe(-32020);
  });

  it("an unknown tool and malformed params are -32602; a batch may not carry this revision's requests", async () => {
    const unknown = await json(await modernRpc("tools/call", { name: "delete_everything", arguments: {} }));
    expect(unknown.error).toEqual({ code: -32602, message: 'Unknown tool: "delete_everything". Call tools/list for the tools.' });
    const malformed = await json(await modernRpc("tools/call", { name: "list_notes", arguments: [1] }));
    expect(malformed.error).toEqual({ code: -32602, message: "Invalid params for tools/call: params.arguments: expected object" });
    const batch = await fetchWorker("/mcp", {
      method: "POST",
      headers: modernHeaders("tools/list"),
      body: JSON.stringify([{ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: modernMeta() } }]),
    });
    expect(batch.status).toBe(400);
    expect((await json(batch)).error.code).toBe(-32600);
  });
});

function modernMeta(): Record<string, unknown> {
  return { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
}

function modernHeaders(method: string): Record<string, string> {
  return { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": method };
}

function fetchWithout(header: string): Promise<Response> {
  const headers = modernHeaders("tools/list");
  delete headers[header];
  return fetchWorker("/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: modernMeta() } }) });
}

describe("batches, as each revision says", () => {
  const batch = (headers: Record<string, string>) =>
    fetchWorker("/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "ping" },
      ]),
    });

  it("2025-06-18 removed them: a batch naming that revision or a later one is -32600 Invalid Request, and nothing runs", async () => {
    for (const revision of ["2025-06-18", "2025-11-25"]) {
      const refused = await batch({ "MCP-Protocol-Version": revision });
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toEqual({
        code: -32600,
        message: `Invalid Request: a batch, which MCP 2025-06-18 removed: send one JSON-RPC message per request (MCP-Protocol-Version: ${revision})`,
      });
    }
  });

  it("a 2025-03-26 client (no header, or that revision's) may still batch", async () => {
    for (const headers of [{}, { "MCP-Protocol-Version": "2025-03-26" }] as Record<string, string>[]) {
      const answered = await batch(headers);
      expect(answered.status).toBe(200);
      expect((await json(answered)).map((m: { id: number }) => m.id)).toEqual([1, 2]);
    }
  });
});

describe("without a token", () => {
  it("initialize, server/discover and tools/list answer, listing every tool with its securitySchemes, exactly as with a token", async () => {
    const initialize = await rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "directory", version: "1" } }, null, fromAddress());
    expect(initialize.status).toBe(200);
    expect((await json(initialize)).result.serverInfo.name).toBe("osfoundry-notes-connector");
    expect((await modernRpc("server/discover", {}, null)).status).toBe(200);

    const open = (await json(await rpc("tools/list", {}, null, fromAddress()))).result.tools;
    const signedIn = (await json(await rpc("tools/list", {}))).result.tools;
    expect(open).toEqual(signedIn);
    expect(open.map((tool: { name: string }) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of open) {
      expect(tool.securitySchemes, tool.name).toEqual([{ type: "oauth2", scopes: tool.annotations.readOnlyHint ? ["osfoundry:read"] : ["osfoundry:write"] }]);
      expect(tool.annotations.readOnlyHint !== undefined && tool.annotations.openWorldHint === false, tool.name).toBe(true);
      if (!tool.annotations.readOnlyHint) expect({ name: tool.name, idempotent: tool.annotations.idempotentHint }).toEqual({ name: tool.name, idempotent: true });
    }
  });

  it("every tool call, in either revision, answers 401 with the challenge, and touches nothing", async () => {
    const { noteId, version } = await newNote();
    const args = { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides" };
    for (const name of TOOL_NAMES) {
      for (const response of [await rpc("tools/call", { name, arguments: args }, null, fromAddress()), await modernRpc("tools/call", { name, arguments: args }, null)]) {
        expect(response.status, name).toBe(401);
        const challenge = response.headers.get("WWW-Authenticate") ?? "";
        expect(challenge).toContain('resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp"');
        expect(challenge).toContain('scope="osfoundry:read osfoundry:write"');
      }
    }
    const after = (await json(await rpc("tools/call", { name: "list_note_tabs", arguments: { note_id: noteId } }))).result.structuredContent;
    expect(after.version).toBe(version);
  });

  it("a batch that mixes discovery and a call, or a method that is not discovery, needs a token", async () => {
    const batch = await fetchWorker("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...fromAddress() },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_notes", arguments: {} } },
      ]),
    });
    expect(batch.status).toBe(401);
    expect((await rpc("resources/templates/list", {}, null, fromAddress())).status).toBe(401);
  });
});

describe("links back to the Note", () => {
  it("a write's result links to the Note's page opened on the tab it wrote, in either revision; a read's and a failure's do not", async () => {
    const { noteId, version } = await newNote({ title: "Links" });
    const args = { note_id: noteId, expected_version: version, idempotency_key: "link", tab_type: "slides", slides: [{ title: "One" }] };
    const legacy = (await json(await rpc("tools/call", { name: "create_note_tab", arguments: args }))).result;
    const modern = (await json(await modernRpc("tools/call", { name: "create_note_tab", arguments: args }))).result;
    const tabId = legacy.structuredContent.tab_id;
    expect(tabId).toMatch(/^slides-/);
    const link = { type: "resource_link", uri: `http://127.0.0.1:8787/notes/${noteId}?tab=${tabId}`, name: noteId, title: "Open the Note", mimeType: "text/html" };
    expect(legacy.content[1]).toMatchObject(link);
    expect(modern.content[1]).toMatchObject(link);
    expect(legacy.content[0]).toEqual({ type: "text", text: JSON.stringify(legacy.structuredContent) });
    // The link is the person's page for that Note.
    const page = await fetchWorker(new URL(link.uri).pathname);
    expect({ status: page.status, type: page.headers.get("Content-Type")?.toLowerCase() }).toEqual({ status: 200, type: "text/html; charset=utf-8" });

    const read = (await json(await rpc("tools/call", { name: "list_note_tabs", arguments: { note_id: noteId } }))).result;
    expect(read.content).toHaveLength(1);
    const refused = (await json(await rpc("tools/call", { name: "create_note_tab", arguments: { ...args, idempotency_key: "stale" } }))).result;
    expect(refused.isError).toBe(true);
    expect(refused.content).toHaveLength(1);
  });
});

describe("the deck preview, an MCP App", () => {
  it("is declared on create_note_tab, edit_note_tab and read_note_tab to a client that announces MCP Apps, and to no other 2026-07-28 client", async () => {
    const withUi = (await json(await modernRpc("tools/list", {}, TOKENS.agent, UI))).result.tools;
    const without = (await json(await modernRpc("tools/list", {}, TOKENS.agent, {}))).result.tools;
    const otherApp = (await json(await modernRpc("tools/list", {}, TOKENS.agent, { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/plain"] } } }))).result.tools;
    for (const tool of withUi) {
      const declared = tool._meta?.ui?.resourceUri;
      expect({ name: tool.name, declared }).toEqual({ name: tool.name, declared: PREVIEWED.includes(tool.name) ? PREVIEW_URI : undefined });
    }
    for (const tool of [...without, ...otherApp]) expect(tool._meta?.ui, tool.name).toBeUndefined();
    // Nothing else differs.
    const bare = (tool: any) => ({ ...tool, _meta: { securitySchemes: tool._meta.securitySchemes } });
    expect(withUi.map(bare)).toEqual(without.map(bare));
    // A 2025-11-25 request cannot say (its initialize is gone): it is declared, and ignored by a client without MCP Apps.
    const legacy = (await json(await rpc("tools/list", {}))).result.tools;
    expect(legacy.filter((tool: any) => tool._meta.ui?.resourceUri === PREVIEW_URI).map((tool: any) => tool.name)).toEqual(PREVIEWED);
  });

  it("results are the same whether the client announces MCP Apps or not", async () => {
    const { noteId, version } = await newNote();
    const args = { note_id: noteId, expected_version: version, idempotency_key: "same", tab_type: "slides", slides: [{ title: "One" }] };
    const first = (await json(await modernRpc("tools/call", { name: "create_note_tab", arguments: args }, TOKENS.agent, UI))).result;
    const tabId = first.structuredContent.tab_id;
    const read = async (capabilities: Record<string, unknown>) =>
      (await json(await modernRpc("tools/call", { name: "read_note_tab", arguments: { note_id: noteId, tab_id: tabId } }, TOKENS.agent, capabilities))).result;
    const [withUi, without] = [await read(UI), await read({})];
    expect(withUi).toEqual(without);
    expect(withUi.content).toEqual([{ type: "text", text: JSON.stringify(withUi.structuredContent) }]);
  });

  it("resources/list and resources/read serve the page without a token; another URI is not found", async () => {
    const listed = (await json(await rpc("resources/list", {}, null))).result.resources;
    expect(listed).toEqual([expect.objectContaining({ uri: PREVIEW_URI, mimeType: "text/html;profile=mcp-app", name: "deck-preview" })]);
    const read = (await json(await modernRpc("resources/read", { uri: PREVIEW_URI }, null))).result;
    const [page] = read.contents;
    expect(page).toMatchObject({ uri: PREVIEW_URI, mimeType: "text/html;profile=mcp-app" });
    expect(page.text).toMatch(/^<!doctype html>/i);
    expect(page.text).toMatch(/Content-Security-Policy/);
    // Self-contained: nothing to fetch from anywhere.
    expect(page.text).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//i);
    expect(page._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });

    const missing = await json(await rpc("resources/read", { uri: "ui://notes/other.html" }));
    expect(missing.error.code).toBe(-32602);
    const note = await json(await rpc("resources/read", { uri: "notes://anything" }, null));
    expect(note.error.code).toBe(-32602);
  });
});

describe("a browser client without a token", () => {
  const ORIGIN = "http://localhost:6274";

  it("reads the tool list and the challenge across origins, as it reads answers with a token", async () => {
    const listed = await rpc("tools/list", {}, null, { Origin: ORIGIN });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    const challenged = await rpc("tools/call", { name: "list_notes", arguments: {} }, null, { Origin: ORIGIN });
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    expect(challenged.headers.get("Access-Control-Expose-Headers")).toMatch(/WWW-Authenticate/i);
    const badToken = await rpc("tools/list", {}, "not-a-token", { Origin: ORIGIN });
    expect(badToken.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);

    const preflight = await fetchWorker("/mcp", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version" },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toMatch(/authorization/);
  });

  it("from an origin that is not allowed is refused as before", async () => {
    const refused = await rpc("tools/list", {}, null, { Origin: "https://evil.example" });
    expect(refused.status).toBe(403);
  });
});

describe("one per-isolate handler, many callers", () => {
  it("2026-07-28 calls of two users at once each see only their own Notes", async () => {
    const alice = await newNote({ title: "Alice only" });
    const bob = await newNote({ title: "Bob only", token: TOKENS.bobApp });
    const calls = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? TOKENS.agent : TOKENS.bobAgent));
    const answers = await Promise.all(calls.map(async (token) => (await json(await modernRpc("tools/call", { name: "list_notes", arguments: {} }, token))).result.structuredContent));
    answers.forEach((answer, i) => {
      const ids = answer.notes.map((note: { note_id: string }) => note.note_id);
      const [own, other] = i % 2 === 0 ? [alice.noteId, bob.noteId] : [bob.noteId, alice.noteId];
      expect({ i, own: ids.includes(own), other: ids.includes(other) }).toEqual({ i, own: true, other: false });
    });
  });

  it("answers JSON, not an event stream, in both revisions", async () => {
    for (const response of [await modernRpc("tools/list"), await rpc("tools/list", {}), await modernRpc("tools/call", { name: "list_notes", arguments: {} })]) {
      expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    }
  });
});

describe("a batch without a token", () => {
  it("is refused whole: one request, one count against the address's limit", async () => {
    const response = await fetchWorker("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }))),
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toEqual({ code: -32600, message: "Invalid Request: a batch needs a token; without one, send one message per request." });
  });
});
