/**
 * The tool contracts (docs/spec.md §2, §4) as an MCP client sees them: the official
 * SDK client linked in memory to the server of `createMcpServer`, with the real
 * domain behind it (Notes in in-memory stores). The client checks every
 * success's `structuredContent` against the tool's declared output schema.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { SCOPES } from "../../src/auth/scopes.js";
import { createMcpServer, type NoteGateway } from "../../src/mcp/server.js";
import type { Caller } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import { noteNotFound } from "../../src/note/errors.js";
import { fail, ok, type Result } from "../../src/note/result.js";
import type { FetchedItem, SearchHit, SearchPage } from "../../src/note/search/contract.js";

const USER = "alice";
const PERSON: Caller = { user: USER, channel: "app" };
const TOOL_NAMES = ["search", "fetch", "list_notes", "list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments", "list_note_changes", "revert_note_change"];
const WRITES = new Set(["create_note_tab", "edit_note_tab", "add_note_source", "revert_note_change"]);

/** Notes of the real domain, each in its own in-memory store: what the Durable Objects are in production. */
class MemoryNotes implements NoteGateway {
  readonly notes = new Map<string, Note>();
  #clock = Date.UTC(2026, 0, 5, 9, 0, 0);

  /** A Note the person created and approved for connectors; its ID and version. */
  create(noteId: string): { noteId: string; version: number } {
    const note = new Note(noteId, new MemoryNoteStore(), { now: () => this.#clock++ });
    this.notes.set(noteId, note);
    note.execute(PERSON, "create_note", { title: `Note ${noteId}` });
    const approved = note.execute(PERSON, "set_approval", { approved: true });
    if (!approved.ok) throw new Error(JSON.stringify(approved.error));
    return { noteId, version: approved.value.version };
  }

  execute: NoteGateway["execute"] = async (noteId, caller, name, input) => {
    const note = this.notes.get(noteId);
    return note === undefined ? fail(noteNotFound(noteId)) : note.execute(caller, name, input);
  };

  // The directory in production; here the same answer read from the Notes themselves.
  listNotes: NoteGateway["listNotes"] = async (user, _query) => {
    const notes: { note_id: string; title: string }[] = [];
    for (const note of this.notes.values()) {
      const whole = note.execute({ user, channel: "app" }, "read_note", {});
      if (whole.ok && whole.value.approved) notes.push({ note_id: whole.value.note_id, title: whole.value.title });
    }
    return ok({ notes, next_cursor: null });
  };

  // The directory ranks across Notes in production; here each Note's own search, one after another (enough for a contract).
  search: NoteGateway["search"] = async (caller, { note_id, ...query }) => {
    if (note_id !== undefined) {
      const page = await this.execute(note_id, caller, "search", query);
      return page.ok ? ok({ hits: (page.value as SearchPage).hits, next_cursor: (page.value as SearchPage).next_cursor }) : page;
    }
    const hits: SearchHit[] = [];
    for (const id of this.notes.keys()) {
      const page = await this.execute(id, caller, "search", query);
      if (page.ok) hits.push(...(page.value as SearchPage).hits);
    }
    return ok({ hits, next_cursor: null });
  };

  fetch: NoteGateway["fetch"] = async (caller, id) => (await this.execute(id.split("/")[0] as string, caller, "fetch_item", { id })) as Result<FetchedItem>;
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/** A connected client that has listed the tools, so it validates every structured result. */
async function connect(gateway: NoteGateway = new MemoryNotes()): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer({ principal: { user: USER, scopes: [SCOPES.read, SCOPES.write] }, gateway });
  const client = new Client({ name: "contract-test", version: "1.0.0" });
  await Promise.all([client.connect(clientSide), server.connect(serverSide)]);
  open.push(client);
  await client.listTools();
  return client;
}

async function setUp(): Promise<{ client: Client; notes: MemoryNotes; noteId: string; version: number }> {
  const notes = new MemoryNotes();
  const { noteId, version } = notes.create("n1");
  return { client: await connect(notes), notes, noteId, version };
}

/** A tool call's structured result; the SDK client has checked it against the output schema. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  expect(result.structuredContent).toBeDefined();
  expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
  return result.structuredContent as Record<string, any>;
}

/** A tool call that fails as a tool result: `{error: {code, message, ...}}` as its only text. */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  if (content?.type !== "text") throw new Error(`expected text content, got ${JSON.stringify(content)}`);
  const { error } = JSON.parse(content.text) as { error: Record<string, any> };
  expect(typeof error.code).toBe("string");
  expect(typeof error.message).toBe("string");
  return error;
}

/** Every nested object schema in a JSON Schema, the schema itself first. */
function objectSchemas(schema: unknown): Record<string, unknown>[] {
  if (typeof schema !== "object" || schema === null) return [];
  const nested = Object.values(schema).flatMap((value) => (Array.isArray(value) ? value.flatMap(objectSchemas) : objectSchemas(value)));
  return (schema as { type?: unknown }).type === "object" ? [schema as Record<string, unknown>, ...nested] : nested;
}

describe("tools/list through the SDK client", () => {
  it("lists the eleven tools, each with a closed input schema, an output schema, annotations and its OAuth scopes", async () => {
    const client = await connect();
    // As sent: the SDK client's own parse of a tool drops the top-level securitySchemes it does not know.
    const { tools } = await client.request({ method: "tools/list" }, z.object({ tools: z.array(z.looseObject({ name: z.string() })) }));
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools as (Tool & { securitySchemes?: unknown })[]) {
      const write = WRITES.has(tool.name);
      const inputObjects = objectSchemas(tool.inputSchema);
      expect(inputObjects.length, tool.name).toBeGreaterThan(0);
      // Closed: every object of named fields refuses others; a Sheet row's cells are a map of column names to values.
      for (const object of inputObjects) {
        if (object.properties === undefined) expect(object.propertyNames, tool.name).toBeDefined();
        else expect(object.additionalProperties, tool.name).toBe(false);
      }
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(!write);
      if (write) expect(tool.annotations?.destructiveHint, tool.name).toBe(true);
      const scopes = [{ type: "oauth2", scopes: [write ? SCOPES.write : SCOPES.read] }];
      expect(tool.securitySchemes, tool.name).toEqual(scopes);
      expect(tool._meta?.securitySchemes, tool.name).toEqual(scopes);
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
    }
  });

  it("the slides of an outline are closed objects too", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === "create_note_tab");
    const slides = (create?.inputSchema.properties as Record<string, any>).slides;
    expect(slides).toMatchObject({ type: "array", minItems: 1, maxItems: 20, items: { type: "object", additionalProperties: false } });
  });
});

describe("every tool's success matches its declared output schema", () => {
  it("the client checks structuredContent: a result off the schema is refused (control)", async () => {
    const notes = new MemoryNotes();
    notes.create("n1");
    const broken: NoteGateway = {
      execute: async (noteId, caller, name, input) => {
        const result = await notes.execute(noteId, caller, name, input);
        return result.ok ? { ok: true, value: { ...(result.value as object), version: "7" } } : result;
      },
      listNotes: (user, query) => notes.listNotes(user, query),
      search: notes.search,
      fetch: notes.fetch,
    };
    const client = await connect(broken);
    await expect(client.callTool({ name: "list_note_tabs", arguments: { note_id: "n1" } })).rejects.toThrow(/output schema/);
  });

  it("each of the eleven tools answers a structured result the client accepts", async () => {
    const { client, noteId, version } = await setUp();

    expect(await call(client, "list_notes", {})).toEqual({ notes: [{ note_id: noteId, title: "Note n1" }], next_cursor: null });
    const list = await call(client, "list_note_tabs", { note_id: noteId });
    expect(list).toMatchObject({ note_id: noteId, version });
    expect(list.tabs.map((t: { id: string }) => t.id)).toEqual(["markdown", "files", "sources"]);

    const created = await call(client, "create_note_tab", {
      note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Q3", slides: [{ title: "One" }],
    });
    expect(created).toMatchObject({ note_id: noteId, tab_type: "slides", label: "Q3", slide_count: 1, version: version + 1, replayed: false });
    const edited = await call(client, "edit_note_tab", {
      note_id: noteId, expected_version: created.version, idempotency_key: "more", tab_id: created.tab_id, operation: "slides_add_outline", slides: [{ title: "Two", body: "b", notes: "n" }],
    });
    expect(edited).toMatchObject({ tab_id: created.tab_id, slides_added: 1, slide_count: 2, version: version + 2 });
    const read = await call(client, "read_note_tab", { note_id: noteId, tab_id: created.tab_id });
    expect(read.slides.map((s: { title: string }) => s.title)).toEqual(["One", "Two"]);
    const markdown = await call(client, "read_note_tab", { note_id: noteId, tab_id: "markdown" });
    expect(markdown.text).toBe("");

    const source = await call(client, "add_note_source", {
      note_id: noteId, expected_version: edited.version, idempotency_key: "cite", title: "Report", url: "www.example.org/report/", description: "d",
    });
    expect(source).toMatchObject({ normalized_url: "https://example.org/report", already_attached: false, version: version + 3 });
    const again = await call(client, "add_note_source", {
      note_id: noteId, expected_version: source.version, idempotency_key: "cite-2", title: "Report", url: "https://example.org/report",
    });
    expect(again).toMatchObject({ source_id: source.source_id, already_attached: true, version: source.version });

    const sources = await call(client, "list_note_attachments", { note_id: noteId, kind: "sources", limit: 1 });
    expect(sources).toMatchObject({ kind: "sources", items: [{ id: source.source_id, url: "https://www.example.org/report/" }], next_cursor: null });
    const files = await call(client, "list_note_attachments", { note_id: noteId, kind: "files" });
    expect(files).toEqual({ note_id: noteId, kind: "files", items: [], next_cursor: null });

    const changes = await call(client, "list_note_changes", { note_id: noteId, since_version: version, limit: 2 });
    expect(changes).toMatchObject({ note_id: noteId, version: source.version, next_since_version: version + 2 });
    expect(changes.changes.map((c: { operation: string; tab_id?: string }) => [c.operation, c.tab_id])).toEqual([
      ["create_tab", created.tab_id],
      ["slides_add_outline", created.tab_id],
    ]);
    expect(changes.changes.map((c: { revertible?: boolean }) => c.revertible)).toEqual([false, true]);

    // The outline's slide goes; the entry says what it took back.
    const reverted = await call(client, "revert_note_change", { note_id: noteId, expected_version: source.version, idempotency_key: "undo-outline", version: version + 2 });
    expect(reverted).toMatchObject({ note_id: noteId, reverted_version: version + 2, version: source.version + 1, tab_id: created.tab_id, slide_ids: edited.slide_ids, replayed: false });
  });

  it("search and fetch answer ChatGPT's shapes as their one text, and the whole hits as structured content the client accepts", async () => {
    const { client, noteId, version } = await setUp();
    const deck = await call(client, "create_note_tab", {
      note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Pricing", slides: [{ title: "Intro" }, { title: "Pricing tiers", body: "Gold costs más" }],
    });
    const slideId = deck.slide_ids[1] as string;

    const found = (await client.callTool({ name: "search", arguments: { query: "MAS gold" } })) as CallToolResult;
    expect(found.isError).not.toBe(true);
    expect(found.content).toHaveLength(1);
    const [text] = found.content;
    if (text?.type !== "text") throw new Error(`expected one text content, got ${JSON.stringify(found.content)}`);
    const id = `${noteId}/${deck.tab_id}/${slideId}`;
    const url = `/notes/${noteId}?tab=${deck.tab_id}`;
    // Exactly ChatGPT's object: results, each with id, title and url and nothing else.
    expect(JSON.parse(text.text)).toEqual({ results: [{ id, title: "Pricing tiers", url }] });
    expect(found.structuredContent).toEqual({
      results: [{ id, title: "Pricing tiers", url }],
      hits: [{ id, kind: "slide", note_id: noteId, tab_id: deck.tab_id, slide_id: slideId, title: "Pricing tiers", note_title: "Note n1", snippet: "Pricing tiers Gold costs más", url }],
      next_cursor: null,
    });

    const fetched = (await client.callTool({ name: "fetch", arguments: { id } })) as CallToolResult;
    expect(fetched.content).toHaveLength(1);
    const [document] = fetched.content;
    if (document?.type !== "text") throw new Error(`expected one text content, got ${JSON.stringify(fetched.content)}`);
    const parsed = JSON.parse(document.text) as Record<string, any>;
    expect(Object.keys(parsed)).toEqual(["id", "title", "text", "url", "metadata"]);
    expect(parsed).toMatchObject({ id, title: "Pricing tiers", url, metadata: { note_id: noteId, tab_id: deck.tab_id, slide_id: slideId, kind: "slide", version: deck.version, truncated: false } });
    expect(parsed.text).toContain("Gold costs más");
    expect(fetched.structuredContent).toEqual(parsed);

    // Within one Note; a page of one with a cursor that gets the next.
    const one = (await client.callTool({ name: "search", arguments: { query: "pricing intro", note_id: noteId, limit: 1 } })) as CallToolResult;
    const first = one.structuredContent as { hits: { id: string }[]; next_cursor: string | null };
    expect(first.hits).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const rest = await client.callTool({ name: "search", arguments: { query: "pricing intro", note_id: noteId, cursor: first.next_cursor } });
    expect((rest.structuredContent as { hits: { id: string }[] }).hits.map((hit) => hit.id)).not.toContain(first.hits[0]?.id);
  });

  it("a replay is the first result, marked replayed, saying whether the resend's arguments differ and the Note's current_version, and still matches the schema", async () => {
    const { client, noteId, version } = await setUp();
    const args = { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides" };
    const first = await call(client, "create_note_tab", args);
    expect(first).toMatchObject({ replayed: false, arguments_differ: false });
    expect(first).not.toHaveProperty("current_version");
    expect(await call(client, "create_note_tab", args)).toEqual({ ...first, replayed: true, current_version: first.version });
    // The Note moves on: a replay still answers the first call's version, and says where the Note is now.
    const moved = await call(client, "create_note_tab", { ...args, expected_version: first.version, idempotency_key: "sheet", tab_type: "sheet" });
    const other = await call(client, "create_note_tab", { ...args, label: "Another deck" });
    expect(other).toEqual({ ...first, replayed: true, arguments_differ: true, current_version: moved.version });
    expect(moved.version).toBe(first.version + 1);
  });

  it("the write tools teach what arguments_differ means", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const tool of tools.filter((t) => WRITES.has(t.name))) {
      expect(tool.description, tool.name).toContain("arguments_differ: true means your resend did not match the first call: the first call's result stands; use a new key for a new intent");
      expect(tool.outputSchema?.required, tool.name).toContain("arguments_differ");
    }
  });
});

describe("the schema table of docs/spec.md §2.1, through the SDK client", () => {
  it("accepts slide_add with a title and body", async () => {
    const { client, noteId, version } = await setUp();
    const deck = await call(client, "create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides" });
    const added = await call(client, "edit_note_tab", {
      note_id: noteId, expected_version: deck.version, idempotency_key: "k1", tab_id: deck.tab_id, operation: "slide_add", title: "Sources", body: "3 links",
    });
    expect(added).toMatchObject({ slides_added: 1, slide_count: 1, version: deck.version + 1 });
  });

  const rejected: { tool: string; args: Record<string, unknown>; path: string; problem: RegExp }[] = [
    { tool: "edit_note_tab", args: { operation: "slide_add", title: "Sources", index: 0 }, path: "index", problem: /^unexpected field; the fields here are: note_id, expected_version, idempotency_key, tab_id, operation, title, body, notes, slides, slide_id, rows, row_id, cells, columns$/ },
    { tool: "edit_note_tab", args: { operation: "slides_add", slides: [{ title: "a" }] }, path: "operation", problem: /one of "slide_add", "slides_add_outline"/ },
    { tool: "edit_note_tab", args: { operation: "slides_add_outline", slides: [{ title: "a", bullets: ["x"] }] }, path: "slides[0].bullets", problem: /^unexpected field; the fields here are: title, body, notes$/ },
    { tool: "create_note_tab", args: { tab_type: "slides", slides: Array.from({ length: 21 }, (_, i) => ({ title: `s${i}` })) }, path: "slides", problem: /at most 20/ },
    { tool: "create_note_tab", args: { tab_type: "markdown" }, path: "tab_type", problem: /one of "slides", "sheet"/ },
    { tool: "add_note_source", args: { url: "https://example.org/report" }, path: "title", problem: /^required$/ },
    { tool: "list_note_attachments", args: { kind: "sources", limit: 100 }, path: "limit", problem: /at most 50/ },
  ];

  for (const row of rejected) {
    it(`${row.tool} ${JSON.stringify(row.args).slice(0, 70)} is invalid_arguments naming ${row.path}, and writes nothing`, async () => {
      const { client, notes, noteId, version } = await setUp();
      const deck = await call(client, "create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides" });
      const common =
        row.tool === "list_note_attachments"
          ? { note_id: noteId }
          : { note_id: noteId, expected_version: deck.version, idempotency_key: "k1", ...(row.tool === "edit_note_tab" ? { tab_id: deck.tab_id } : {}) };
      const before = await notes.execute(noteId, PERSON, "read_note", {});
      const error = await toolError(client, row.tool, { ...common, ...row.args });
      expect(error.code).toBe("invalid_arguments");
      const issue = (error.issues as { path: string; problem: string }[]).find((i) => i.path === row.path);
      expect(issue, JSON.stringify(error.issues)).toBeDefined();
      expect(issue?.problem).toMatch(row.problem);
      expect(error.message).toContain(`${row.path}: `);
      expect(await notes.execute(noteId, PERSON, "read_note", {})).toEqual(before);
    });
  }
});

describe("failures a model can act on", () => {
  it("domain failures are isError results with the code and its details, never structured content", async () => {
    const { client, noteId, version } = await setUp();
    const stale = await toolError(client, "create_note_tab", { note_id: noteId, expected_version: version + 5, idempotency_key: "k", tab_type: "sheet" });
    expect(stale).toMatchObject({ code: "version_conflict", expected_version: version + 5, current_version: version });
    const byType = await toolError(client, "read_note_tab", { note_id: noteId, tab_id: "slides" });
    expect(byType).toMatchObject({ code: "tab_not_found", tab_id: "slides" });
    expect(byType.hint).toMatch(/list_note_tabs/);
    const missing = await toolError(client, "list_note_tabs", { note_id: "nowhere" });
    expect(missing).toMatchObject({ code: "note_not_found", note_id: "nowhere" });
    const badUrl = await toolError(client, "add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "k", title: "T", url: "javascript:alert(1)" });
    expect(badUrl).toMatchObject({ code: "invalid_url", url: "javascript:alert(1)" });
  });

  it("an unknown tool is a JSON-RPC error -32602 naming it, as in the MCP specification's tools/call example", async () => {
    const client = await connect();
    const error = await client.callTool({ name: "delete_everything", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toMatch(/Unknown tool: "delete_everything"/);
  });

  it("arguments that are not an object are a JSON-RPC error -32602 naming params.arguments", async () => {
    const client = await connect();
    for (const args of [true, "note", [1], null, 5]) {
      const error = await client.request({ method: "tools/call", params: { name: "list_notes", arguments: args as never } }, CallToolResultSchema).catch((e: unknown) => e);
      expect(error, JSON.stringify(args)).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toMatch(/params\.arguments: expected object/);
    }
  });
});
