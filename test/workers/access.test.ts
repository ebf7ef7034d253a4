/** docs/spec.md §4 and §8 at the edge: tokens, scopes, membership, approval, and the protocol's own failures. */
import { beforeAll, describe, expect, it } from "vitest";
import { api, failure, fetchWorker, newNote, ok, rpc, signInEveryone, TOKENS, uniqueNoteId } from "../support/workers.js";

beforeAll(signInEveryone);

describe("access", () => {
  it("another user's Note reads exactly like a Note that does not exist", async () => {
    const { noteId, version } = await newNote();
    const missing = uniqueNoteId();
    for (const id of [noteId, missing]) {
      const error = await failure("list_note_tabs", { note_id: id }, TOKENS.bobAgent);
      expect(error).toEqual({ code: "note_not_found", note_id: id, message: error.message.replace(id, id) });
      expect(error.message).not.toContain("approved");
      const write = await failure("create_note_tab", { note_id: id, expected_version: version, idempotency_key: "k", tab_type: "slides" }, TOKENS.bobAgent);
      expect(write.code).toBe("note_not_found");
      expect((await api("GET", `/notes/${id}`, undefined, TOKENS.bobApp)).status).toBe(404);
    }
  });

  it("an unapproved Note gets note_not_approved; the owner's app still works", async () => {
    const { noteId, version } = await newNote({ approved: false });
    expect((await failure("list_note_tabs", { note_id: noteId })).code).toBe("note_not_approved");
    expect((await failure("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides" })).code).toBe("note_not_approved");
    expect((await api("GET", `/notes/${noteId}`)).status).toBe(200);
    await api("PUT", `/notes/${noteId}/approval`, { approved: true });
    expect((await ok("list_note_tabs", { note_id: noteId })).note_id).toBe(noteId);
    await api("PUT", `/notes/${noteId}/approval`, { approved: false });
    expect((await failure("list_note_tabs", { note_id: noteId })).code).toBe("note_not_approved");
  });

  it("list_notes shows the approved Notes a user is a member of, and only theirs", async () => {
    const approved = await newNote({ title: "Visible" });
    const hidden = await newNote({ approved: false });
    const notes = (await ok("list_notes", {})).notes.map((n: { note_id: string }) => n.note_id);
    expect(notes).toContain(approved.noteId);
    expect(notes).not.toContain(hidden.noteId);
    const bobs = (await ok("list_notes", {}, TOKENS.bobAgent)).notes.map((n: { note_id: string }) => n.note_id);
    expect(bobs).not.toContain(approved.noteId);
    await api("POST", `/notes/${approved.noteId}/members`, { user: "bob" });
    expect((await ok("list_notes", {}, TOKENS.bobAgent)).notes.map((n: { note_id: string }) => n.note_id)).toContain(approved.noteId);
    expect((await ok("list_note_tabs", { note_id: approved.noteId }, TOKENS.bobAgent)).note_id).toBe(approved.noteId);
  });

  it("a read-only token reads but cannot write: 403 insufficient_scope naming the scope", async () => {
    const { noteId, version } = await newNote();
    expect((await ok("list_note_tabs", { note_id: noteId }, TOKENS.reader)).note_id).toBe(noteId);
    const response = await rpc("tools/call", { name: "create_note_tab", arguments: { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides" } }, TOKENS.reader);
    expect(response.status).toBe(403);
    const challenge = response.headers.get("WWW-Authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    // Every scope the call needs, so the client steps up in one round trip.
    expect(challenge).toContain('scope="osfoundry:read osfoundry:write"');
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });

  it("a tool call without a token, or any request with an unknown one, gets 401 with a WWW-Authenticate challenge", async () => {
    for (const [method, params, token] of [["tools/call", { name: "list_notes", arguments: {} }, null], ["tools/list", {}, "not-a-real-token"]] as const) {
      const response = await rpc(method, params, token);
      expect(response.status).toBe(401);
      const challenge = response.headers.get("WWW-Authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp"');
      expect(challenge).toContain('scope="osfoundry:read osfoundry:write"');
    }
    // A token in the query is no token (RFC 6750 §2.3 is not supported).
    const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } });
    const inQuery = await fetchWorker(`/mcp?access_token=${TOKENS.agent}`, { method: "POST", body: call, headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" } });
    expect(inQuery.status).toBe(401);
  });

  it("a token is bound to its resource: an agent's is refused by the person's API, the app's by MCP", async () => {
    const denied = await api("POST", "/notes", { title: "x" }, TOKENS.agent);
    expect(denied.status).toBe(401);
    const refused = await rpc("tools/list", {}, TOKENS.app);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });
});

describe("the protocol's own failures", () => {
  it("/mcp answers every method but POST with 405, Allow: POST and a JSON-RPC error", async () => {
    for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
      const response = await fetchWorker("/mcp", { method, headers: { Authorization: `Bearer ${TOKENS.agent}`, Accept: "text/event-stream" } });
      expect({ method, status: response.status, allow: response.headers.get("Allow") }).toEqual({ method, status: 405, allow: "POST" });
      expect(((await response.json()) as any).error.code).toBe(-32000);
    }
  });

  it("GET /mcp without a token is 405 too, not a challenge: a client opening the optional SSE stream at connect is not sent to sign in", async () => {
    const response = await fetchWorker("/mcp", { method: "GET", headers: { Accept: "text/event-stream" } });
    expect({ status: response.status, allow: response.headers.get("Allow"), challenge: response.headers.get("WWW-Authenticate") }).toEqual({ status: 405, allow: "POST", challenge: null });
    expect(((await response.json()) as any).error.code).toBe(-32000);
  });

  it("a path under /mcp that is not the endpoint answers 404 with a JSON-RPC error", async () => {
    const response = await fetchWorker("/mcp/tools", { method: "POST", headers: { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json" }, body: "{}" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.message).toContain("POST /mcp");
  });

  it("a foreign Origin gets 403; an allowed one passes", async () => {
    expect((await rpc("tools/list", {}, TOKENS.agent, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await rpc("tools/list", {}, TOKENS.agent, { Origin: "http://127.0.0.1:8787" })).status).toBe(200);
    expect((await rpc("tools/list", {}, TOKENS.agent, { Origin: "http://localhost:6274" })).status).toBe(200);
  });

  it("an oversized body gets 413 and a broken one a JSON-RPC parse error", async () => {
    const headers = { Authorization: `Bearer ${TOKENS.agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const big = await fetchWorker("/mcp", { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(300_000) } }) });
    expect(big.status).toBe(413);
    const broken = await fetchWorker("/mcp", { method: "POST", headers, body: "{not json" });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).error.code).toBe(-32700);
  });

  it("a body not sent as application/json is 415 before it is read, whether or not it is JSON", async () => {
    const base = { Authorization: `Bearer ${TOKENS.agent}`, Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    for (const [type, body] of [
      ["text/plain", "{not json"],
      ["text/plain", ping],
      [undefined, ping],
    ] as const) {
      const headers: Record<string, string> = type === undefined ? { ...base } : { ...base, "Content-Type": type };
      // A string body without a type would get text/plain from Request: a Blob of no type sends none.
      const response = await fetchWorker("/mcp", { method: "POST", headers, body: type === undefined ? new Blob([body]) : body });
      expect({ type, body, status: response.status }).toEqual({ type, body, status: 415 });
      expect(((await response.json()) as any).error).toEqual({ code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" });
    }
    const charset = await fetchWorker("/mcp", { method: "POST", headers: { ...base, "Content-Type": "application/json; charset=UTF-8" }, body: ping });
    expect(charset.status).toBe(200);
  });

  it("the person's API refuses a body over 1 MiB with 413 and writes nothing", async () => {
    const { noteId, version } = await newNote();
    const big = await api("PUT", `/notes/${noteId}/markdown`, { text: "x".repeat(1_100_000) });
    expect(big.status).toBe(413);
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
  });

  it("an unknown method is a JSON-RPC method error, an unknown tool an invalid-params error naming it", async () => {
    const response = await rpc("no/such/method", {});
    expect(((await response.json()) as any).error.code).toBe(-32601);
    const unknown = (await (await rpc("tools/call", { name: "delete_everything", arguments: {} })).json()) as any;
    expect(unknown.error).toEqual({ code: -32602, message: 'Unknown tool: "delete_everything". Call tools/list for the tools.' });
  });

  it("a malformed note_id is refused at the edge, naming the field", async () => {
    for (const noteId of ["", "../x", "a".repeat(65), "note id"]) {
      const error = await failure("list_note_tabs", { note_id: noteId });
      expect(error.code).toBe("invalid_arguments");
      expect(error.issues[0].path).toBe("note_id");
    }
  });
});
