/**
 * The MCP edge with input nobody planned for, through the Worker's /mcp: a
 * malformed request is a JSON-RPC error naming the problem, a bad argument an
 * `invalid_arguments` result naming the field, and neither writes anything.
 */
import { JSONRPCRequestSchema } from "@modelcontextprotocol/core";
import { beforeAll, describe, expect, it } from "vitest";
import { failure, fetchWorker, newNote, ok, rawMcp, rpc, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("agent"));

/** A JSON-RPC answer from /mcp: its HTTP status and message. */
async function answer(method: string, params: unknown): Promise<{ status: number; message: any }> {
  const response = await rpc(method, params);
  return { status: response.status, message: await response.json() };
}

async function tabCount(noteId: string): Promise<{ version: number; tabs: number }> {
  const list = await ok("list_note_tabs", { note_id: noteId });
  return { version: list.version, tabs: list.tabs.length };
}

describe("a malformed tools/call is a JSON-RPC error -32602, not -32603", () => {
  for (const args of [true, "note", [1], null, 5]) {
    it(`arguments ${JSON.stringify(args)} answers -32602 naming params.arguments`, async () => {
      const { status, message } = await answer("tools/call", { name: "list_notes", arguments: args });
      expect(status).toBe(200);
      expect(message.error).toEqual({ code: -32602, message: "Invalid params for tools/call: params.arguments: expected object" });
    });
  }

  it("a missing name, a name that is not a string, or no params at all answers -32602 naming what is wrong", async () => {
    expect((await answer("tools/call", { arguments: {} })).message.error).toEqual({ code: -32602, message: "Invalid params for tools/call: params.name: required" });
    expect((await answer("tools/call", { name: 5 })).message.error).toEqual({ code: -32602, message: "Invalid params for tools/call: params.name: expected string" });
    expect((await answer("tools/call", undefined)).message.error).toEqual({ code: -32602, message: "Invalid params for tools/call: params: required" });
  });

  it("an unknown tool answers -32602 naming it, as in the MCP specification's example", async () => {
    for (const name of ["delete_everything", "toString", "__proto__"]) {
      const { message } = await answer("tools/call", { name, arguments: {} });
      expect(message.error).toEqual({ code: -32602, message: `Unknown tool: ${JSON.stringify(name)}. Call tools/list for the tools.` });
    }
  });

  it("arguments omitted are taken as {}", async () => {
    const { message } = await answer("tools/call", { name: "list_notes" });
    expect(message.result.isError).toBeUndefined();
    expect(Array.isArray(message.result.structuredContent.notes)).toBe(true);
  });

  it("initialize and tools/list with malformed params answer -32602, naming each problem", async () => {
    expect((await answer("initialize", { protocolVersion: 5, capabilities: {}, clientInfo: { name: "x", version: "1" } })).message.error).toEqual({
      code: -32602,
      message: "Invalid params for initialize: params.protocolVersion: expected string",
    });
    expect((await answer("tools/list", { cursor: 5 })).message.error).toEqual({ code: -32602, message: "Invalid params for tools/list: params.cursor: expected string" });
  });

  it("a method named like an object's property is -32601 Method not found, not a 500", async () => {
    for (const method of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const { status, message } = await answer(method, {});
      expect(status, method).toBe(200);
      expect(message.error, method).toEqual({ code: -32601, message: "Method not found" });
    }
  });

  it("server/discover sent 2025-style (no 2026-07-28 headers or envelope) is -32601 saying what that revision's request needs", async () => {
    const { status, message } = await answer("server/discover", {});
    expect({ status, code: message.error.code }).toEqual({ status: 200, code: -32601 });
    expect(message.error.message).toContain("server/discover is 2026-07-28's");
    expect(message.error.message).toContain("MCP-Protocol-Version: 2026-07-28");
  });

  it("a task-augmented call runs as a plain call: this server declares no tasks capability, so it ignores task", async () => {
    const { noteId } = await newNote();
    const { message } = await answer("tools/call", { name: "list_note_tabs", arguments: { note_id: noteId }, task: { ttl: 60_000 } });
    expect(message.error).toBeUndefined();
    expect(message.result.structuredContent.note_id).toBe(noteId);
  });
});

/** What an unknown field of create_note_tab, and of a slide, is told: the fields it takes. */
const NOT_A_CREATE_FIELD = "unexpected field; the fields here are: note_id, expected_version, idempotency_key, tab_type, label, slides, columns, rows";
const NOT_A_SLIDE_FIELD = "unexpected field; the fields here are: title, body, notes";

describe("every unknown key is refused, __proto__ too", () => {
  it("an extra __proto__ key at the top of the arguments is an unexpected field, and no tab is created", async () => {
    const { noteId, version } = await newNote();
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note_tab","arguments":{"note_id":"${noteId}","expected_version":${version},"idempotency_key":"k","tab_type":"slides","__proto__":{"label":"x"}}}}`;
    const message = await rawMcp(body);
    expect(message.result.isError).toBe(true);
    const { error } = JSON.parse(message.result.content[0].text);
    expect(error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "__proto__", problem: NOT_A_CREATE_FIELD }] });
    expect(error.message).toContain(`__proto__: ${NOT_A_CREATE_FIELD}`);
    expect(await tabCount(noteId)).toEqual({ version, tabs: 3 });
  });

  it("__proto__ inside a slide, and constructor anywhere, are unexpected fields too", async () => {
    const { noteId, version } = await newNote();
    const common = `"note_id":"${noteId}","expected_version":${version},"idempotency_key":"k","tab_type":"slides"`;
    for (const [extra, path, problem] of [
      [`"slides":[{"title":"a","__proto__":{"x":1}}]`, "slides[0].__proto__", NOT_A_SLIDE_FIELD],
      [`"constructor":{"x":1}`, "constructor", NOT_A_CREATE_FIELD],
      [`"slides":[{"title":"a","constructor":1}]`, "slides[0].constructor", NOT_A_SLIDE_FIELD],
    ] as const) {
      const message = await rawMcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note_tab","arguments":{${common},${extra}}}}`);
      expect(JSON.parse(message.result.content[0].text).error.issues, extra).toEqual([{ path, problem }]);
    }
    expect(await tabCount(noteId)).toEqual({ version, tabs: 3 });
  });
});

describe("text must be well-formed Unicode", () => {
  const lone = "a\ud800b";

  it("a lone surrogate in any text argument is invalid_arguments naming the field and the index, and nothing is written", async () => {
    const { noteId, version } = await newNote();
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides" });
    const write = { note_id: noteId, expected_version: deck.version, idempotency_key: "k" };
    const cases: [string, Record<string, unknown>, string][] = [
      ["create_note_tab", { ...write, tab_type: "slides", label: lone }, "label"],
      ["create_note_tab", { ...write, tab_type: "slides", slides: [{ title: lone }] }, "slides[0].title"],
      ["create_note_tab", { ...write, tab_type: "slides", slides: [{ title: "t", body: lone }] }, "slides[0].body"],
      ["create_note_tab", { ...write, tab_type: "slides", slides: [{ title: "t", notes: lone }] }, "slides[0].notes"],
      ["edit_note_tab", { ...write, tab_id: deck.tab_id, operation: "slide_add", title: lone }, "title"],
      ["edit_note_tab", { ...write, tab_id: deck.tab_id, operation: "slide_add", title: "t", body: lone }, "body"],
      ["edit_note_tab", { ...write, tab_id: deck.tab_id, operation: "slide_add", title: "t", notes: lone }, "notes"],
      ["edit_note_tab", { ...write, tab_id: lone, operation: "slide_add", title: "t" }, "tab_id"],
      ["add_note_source", { ...write, title: lone, url: "https://example.org/" }, "title"],
      ["add_note_source", { ...write, title: "t", url: "https://example.org/", description: lone }, "description"],
      ["read_note_tab", { note_id: noteId, tab_id: lone }, "tab_id"],
      ["list_note_attachments", { note_id: noteId, kind: "sources", cursor: lone }, "cursor"],
    ];
    for (const [name, args, path] of cases) {
      const error = await failure(name, args);
      expect(error.code, `${name} ${path}`).toBe("invalid_arguments");
      expect(error.issues, `${name} ${path}`).toContainEqual({ path, problem: "must be well-formed Unicode (a lone surrogate at index 1)" });
    }
    expect(await tabCount(noteId)).toEqual({ version: deck.version, tabs: 4 });
  });

  it("a label of 100 lone surrogates is refused rather than stored as 300 replacement characters", async () => {
    const { noteId, version } = await newNote();
    const error = await failure("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides", label: "\udc00".repeat(100) });
    expect(error.issues).toEqual([{ path: "label", problem: "must be well-formed Unicode (a lone surrogate at index 0)" }]);
    expect(await tabCount(noteId)).toEqual({ version, tabs: 3 });
  });

  it("a cut emoji in a URL is invalid_url; a whole emoji is kept exactly", async () => {
    const { noteId, version } = await newNote();
    const cut = await failure("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "k", title: "T", url: "https://example.org/\ud83d" });
    expect(cut).toMatchObject({ code: "invalid_url", reason: "the URL is not well-formed Unicode (a lone surrogate at index 20)" });
    const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides", label: "Deck 😀" });
    expect((await ok("list_note_tabs", { note_id: noteId })).tabs.find((t: { id: string }) => t.id === created.tab_id).label).toBe("Deck 😀");
  });
});

describe("an outline has at least one slide", () => {
  it("create_note_tab with slides: [] is refused naming slides; omitting slides makes an empty deck", async () => {
    const { noteId, version } = await newNote();
    const error = await failure("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides", slides: [] });
    expect(error.issues).toEqual([{ path: "slides", problem: "at least 1 item" }]);
    expect(await tabCount(noteId)).toEqual({ version, tabs: 3 });
    const empty = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides" });
    expect(empty.slide_count).toBe(0);
  });
});

describe("a problem is named for what it is", () => {
  it("10,000 unexpected keys answer the first 50 and a count of the rest, not a 300 KB echo", async () => {
    const args: Record<string, unknown> = { note_id: "n1" };
    for (let i = 0; i < 10_000; i++) args[`k${i}`] = 0;
    const error = await failure("list_note_tabs", args);
    expect(error.issues).toHaveLength(51);
    expect(error.issues[0]).toEqual({ path: "k0", problem: "unexpected field; the fields here are: note_id" });
    expect(error.issues[50]).toEqual({ path: "(arguments)", problem: "and 9950 more problems" });
    expect(JSON.stringify(error).length).toBeLessThan(5_000);
  });

  it("a value of the wrong type is 'expected string', not 'required'", async () => {
    const error = await failure("list_note_tabs", { note_id: 5 });
    expect(error.issues).toEqual([{ path: "note_id", problem: "expected string" }]);
    const missing = await failure("list_note_tabs", {});
    expect(missing.issues).toEqual([{ path: "note_id", problem: "required" }]);
  });
});

describe("a body that is JSON but not a JSON-RPC message is -32600 Invalid Request", () => {
  /** What /mcp answers to a body sent exactly as written. */
  async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; message: any }> {
    const response = await fetchWorker("/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", ...headers },
      body,
    });
    return { status: response.status, message: response.status === 202 ? null : await response.json() };
  }

  const bodies = {
    "an empty batch": "[]",
    "a batch of a number": "[1]",
    "an object without jsonrpc": '{"id":1,"method":"ping"}',
    "another JSON-RPC version": '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    "a progress token that is an object": '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":{}}}}',
    "a number": "42",
    "a string": '"ping"',
  };
  for (const [what, body] of Object.entries(bodies)) {
    it(`${what} answers 400 with -32600 naming the problem`, async () => {
      const { status, message } = await post(body);
      expect({ status, code: message?.error?.code }).toEqual({ status: 400, code: -32600 });
      expect(message.error.message).toMatch(/^Invalid Request: /);
    });
  }

  it("names the member that is wrong, and echoes the request's ID when it is a valid one", async () => {
    const cases: [string, unknown, string][] = [
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}', 1, "params: expected object"],
      ['{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', null, "id: expected a string or an integer"],
      ['{"jsonrpc":"2.0","id":null,"method":"tools/list"}', null, "id: expected a string or an integer"],
      ['{"jsonrpc":"2.0","id":"a","method":5}', "a", "method: expected string"],
      ['{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":5}}', 2, "params._meta: expected object"],
      ['{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"x"}}', 3, "expected method (a request or notification), or one of result and error (a response)"],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":7}]', null, "batch item 1: method: expected string"],
    ];
    for (const [body, id, problem] of cases) {
      // A batch as a 2025-03-26 client may still send one.
      const { status, message } = await post(body, body.startsWith("[") ? { "MCP-Protocol-Version": "2025-03-26" } : {});
      expect({ body, status, id: message.id, error: message.error }).toEqual({ body, status: 400, id, error: { code: -32600, message: `Invalid Request: ${problem}` } });
    }
  });

  it("a request's members past id, method and params are checked by hand exactly as the SDK's request schema checks them", async () => {
    // src/http/mcp.ts checks a request's shape itself (the SDK parses it again behind it): each refusal here
    // must be one the SDK's own JSONRPCRequestSchema makes too, and what it accepts must pass, so the copy cannot drift.
    const task = "io.modelcontextprotocol/related-task";
    const refusedCases: [Record<string, unknown>, string][] = [
      [{ jsonrpc: "2.0", id: 4, method: "ping", extra: 1 }, '"extra": not a member of a JSON-RPC request'],
      [{ jsonrpc: "2.0", id: 5, method: "ping", params: { _meta: { progressToken: 1.5 } } }, "params._meta.progressToken: expected a string or an integer"],
      [{ jsonrpc: "2.0", id: 6, method: "ping", params: { _meta: { [task]: { taskId: 5 } } } }, `params._meta["${task}"].taskId: expected string`],
    ];
    for (const [request, problem] of refusedCases) {
      expect({ request, sdk: JSONRPCRequestSchema.safeParse(request).success }).toEqual({ request, sdk: false });
      const { status, message } = await post(JSON.stringify(request));
      expect({ status, error: message.error }).toEqual({ status: 400, error: { code: -32600, message: `Invalid Request: ${problem}` } });
    }
    const accepted = { jsonrpc: "2.0", id: 7, method: "ping", params: { _meta: { progressToken: "p", [task]: { taskId: "t" } } } };
    expect(JSONRPCRequestSchema.safeParse(accepted).success).toBe(true);
    const { status, message } = await post(JSON.stringify(accepted));
    expect({ status, id: message.id, result: message.result }).toEqual({ status: 200, id: 7, result: {} });
  });

  it("a body nested thousands of levels deep is refused by its depth, in either revision, not a 500", async () => {
    const deep = `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`;
    const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":${deep}},"clientInfo":{"name":"c","version":"1"}}}`;
    const { status, message } = await post(initialize);
    expect({ status, error: message.error }).toEqual({ status: 400, error: { code: -32600, message: "Invalid Request: the body nests deeper than 64 levels of arrays and objects" } });
    const modern = await fetchWorker("/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":${deep}}}}}`,
    });
    expect(modern.status).toBe(400);
    expect(((await modern.json()) as any).error.code).toBe(-32600);
    // Deep enough for any real message: a Sheet's cells in a tool's arguments are 6 levels down.
    const fine = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${'{"a":'.repeat(40)}1${"}".repeat(40)}}}`;
    expect((await post(fine)).status).toBe(200);
  });

  it("a batch under a header that is no revision at all is the SDK's unsupported version, not a batch problem", async () => {
    const { status, message } = await post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', { "MCP-Protocol-Version": "zzz" });
    expect(status).toBe(400);
    expect(message.error.message).toMatch(/Unsupported protocol version: zzz/);
  });

  it("a revision the server does not speak is told with every one it does, 2026-07-28 too; initialize still negotiates in its params", async () => {
    const { status, message } = await post('{"jsonrpc":"2.0","id":3,"method":"tools/list"}', { "MCP-Protocol-Version": "1999-01-01" });
    expect({ status, id: message.id, code: message.error.code }).toEqual({ status: 400, id: 3, code: -32000 });
    expect(message.error.message).toMatch(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: 2026-07-28, 2025-11-25, /);
    const initialize = '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';
    const negotiated = await post(initialize, { "MCP-Protocol-Version": "1999-01-01" });
    expect({ status: negotiated.status, version: negotiated.message.result?.protocolVersion }).toEqual({ status: 200, version: "2025-11-25" });
  });

  it("a well-formed request still passes", async () => {
    const { status, message } = await post('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    expect({ status, id: message.id, result: message.result }).toEqual({ status: 200, id: 7, result: {} });
  });
});

describe("an answer never echoes a huge argument back", () => {
  it("an unknown tool's name and an invalid URL are named in at most a couple of hundred characters", async () => {
    const { status, message } = await answer("tools/call", { name: "x".repeat(100_000), arguments: {} });
    expect(status).toBe(200);
    expect(message.error.code).toBe(-32602);
    expect(message.error.message.length).toBeLessThan(400);
    expect(message.error.message).toContain("(100000 characters)");
    const { noteId, version } = await newNote();
    const error = await failure("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "k", title: "T", url: `javascript:${"a".repeat(200_000)}` });
    expect(error.code).toBe("invalid_url");
    expect(JSON.stringify(error).length).toBeLessThan(600);
  });
});

describe("one problem per field", () => {
  it("a list given for a name is the wrong type, not also too short; of a number's bounds only the tightest is named", async () => {
    const { noteId } = await newNote();
    const list = await failure("list_note_tabs", { note_id: [] });
    expect(list.issues).toEqual([{ path: "note_id", problem: "expected string" }]);
    const low = await failure("create_note_tab", { note_id: noteId, expected_version: -(2 ** 53), idempotency_key: "k", tab_type: "slides" });
    expect(low.issues).toEqual([{ path: "expected_version", problem: "at least 1" }]);
    const outline = await failure("create_note_tab", { note_id: noteId, expected_version: 1, idempotency_key: "k", tab_type: "slides", slides: "" });
    expect(outline.issues).toEqual([{ path: "slides", problem: "expected array" }]);
  });
});
