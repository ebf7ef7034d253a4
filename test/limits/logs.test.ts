/**
 * Logs an operator can use (issue 11, acceptance 4): one structured line per
 * request, with the route, the tool, the outcome, the status, the duration,
 * the user and client IDs and the Note, and never a token, a key or content.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import type { RequestLine } from "../../src/http/request-log.js";
import { personApi, rpc } from "../support/workers.js";
import { freshUser, signInFresh, useSmallLimits } from "./support.js";

useSmallLimits();

let spy: MockInstance<typeof console.log>;

beforeEach(() => {
  spy = vi.spyOn(console, "log");
});

afterEach(() => {
  spy.mockRestore();
});

/** Every line logged since the spy started: each call is one plain object. */
function lines(): RequestLine[] {
  return spy.mock.calls.map((args) => {
    expect(args).toHaveLength(1);
    expect(Object.getPrototypeOf(args[0])).toBe(Object.prototype);
    return args[0] as RequestLine;
  });
}

async function callTool(token: string, name: string, args: Record<string, unknown>): Promise<any> {
  const response = await rpc("tools/call", { name, arguments: args }, token);
  return ((await response.json()) as { result: unknown }).result;
}

describe("one log line per request", () => {
  it("a tool call's line names route, method, tool, outcome, status, duration, user, client and Note, and no token, key or content", async () => {
    const user = freshUser("logged");
    const app = await signInFresh(user, "api");
    const agent = await signInFresh(user, "mcp");
    const noteId = `logs-${crypto.randomUUID()}`;
    const version = await personApi(app.access_token).createApprovedNote(noteId, "Logged");

    // The sign-ins were logged too: registration, both steps of /authorize, the token; the client is named once known.
    const signIn = lines();
    const registered = expect.objectContaining({ method: "POST", status: 201, outcome: "ok" });
    expect(signIn.filter((l) => l.route === "/oauth/register")).toEqual([registered, registered]);
    expect(signIn).toContainEqual(expect.objectContaining({ route: "/authorize", method: "GET", status: 200, outcome: "ok", client: agent.client_id }));
    expect(signIn).toContainEqual(expect.objectContaining({ route: "/authorize", method: "POST", status: 302, user, client: agent.client_id }));
    expect(signIn).toContainEqual(expect.objectContaining({ route: "/oauth/token", method: "POST", status: 200 }));
    expect(signIn).toContainEqual(expect.objectContaining({ route: `/api/v1/notes/${noteId}/approval`, method: "PUT", status: 200, user, client: app.client_id }));
    spy.mockClear();

    const content = `CONTENT-${crypto.randomUUID()}`;
    const key = `KEY-${crypto.randomUUID()}`;
    const args = { note_id: noteId, expected_version: version, idempotency_key: key, tab_type: "slides", label: content, slides: [{ title: content, body: content, notes: content }] };
    expect((await callTool(agent.access_token, "create_note_tab", args)).isError).toBeUndefined();
    const [written, ...more] = lines();
    expect(more).toEqual([]);
    expect(written).toEqual({
      route: "/mcp",
      method: "POST",
      status: 200,
      outcome: "ok",
      duration_ms: expect.any(Number),
      user,
      client: agent.client_id,
      tool: "create_note_tab",
      note_id: noteId,
    });
    expect(written?.duration_ms).toBeGreaterThanOrEqual(0);

    // A refused call: the Note's error code is the outcome.
    spy.mockClear();
    expect((await callTool(agent.access_token, "create_note_tab", { ...args, idempotency_key: `${key}-2` })).isError).toBe(true);
    const conflict = lines();
    expect(conflict).toEqual([expect.objectContaining({ tool: "create_note_tab", note_id: noteId, outcome: "version_conflict", status: 200 })]);

    // Arguments that do not validate: the outcome, and the Note only because its ID is valid.
    spy.mockClear();
    await callTool(agent.access_token, "read_note_tab", { note_id: noteId, tab_id: 42, extra: content });
    const invalid = lines();
    expect(invalid).toEqual([expect.objectContaining({ tool: "read_note_tab", note_id: noteId, outcome: "invalid_arguments" })]);
    // An ID that is none names no Note.
    spy.mockClear();
    await callTool(agent.access_token, "read_note_tab", { note_id: "not an id!", tab_id: "markdown" });
    const unnamed = lines();
    expect(unnamed).toEqual([expect.objectContaining({ tool: "read_note_tab", outcome: "invalid_arguments" })]);
    expect(unnamed[0]).not.toHaveProperty("note_id");

    // No token: no user, and the status's outcome.
    spy.mockClear();
    await rpc("tools/call", { name: "list_notes", arguments: {} }, null);
    expect(lines()).toEqual([{ route: "/mcp", method: "POST", status: 401, outcome: "unauthorized", duration_ms: expect.any(Number) }]);

    const all = [...signIn, written, ...conflict, ...invalid, ...unnamed];
    const everything = JSON.stringify(all);
    for (const secret of [agent.access_token, agent.refresh_token, app.access_token, app.refresh_token, content, key]) {
      expect(secret).toBeTruthy();
      expect(everything).not.toContain(secret as string);
    }
    // Only these fields, ever.
    const fields = new Set(["route", "method", "status", "outcome", "duration_ms", "user", "client", "tool", "note_id", "tool_calls"]);
    for (const line of all) for (const name of Object.keys(line ?? {})) expect(fields).toContain(name);
  });

  it("a search's and a fetch's lines name the Note read (fetch's from its hit ID), never the words searched", async () => {
    const user = freshUser("searched");
    const app = await signInFresh(user, "api");
    const agent = await signInFresh(user, "mcp");
    const noteId = `logs-${crypto.randomUUID()}`;
    await personApi(app.access_token).createApprovedNote(noteId, "Searched");
    const words = `secret${crypto.randomUUID().replaceAll("-", "")}`;
    spy.mockClear();
    expect((await callTool(agent.access_token, "search", { query: words })).isError).toBeUndefined();
    expect((await callTool(agent.access_token, "search", { query: words, note_id: noteId })).isError).toBeUndefined();
    expect((await callTool(agent.access_token, "fetch", { id: `${noteId}/markdown/section-0` })).isError).toBe(true);
    expect((await callTool(agent.access_token, "fetch", { id: `${words}//x` })).isError).toBe(true);
    const logged = lines();
    expect(logged).toEqual([
      expect.objectContaining({ tool: "search", outcome: "ok", status: 200 }),
      expect.objectContaining({ tool: "search", note_id: noteId, outcome: "ok" }),
      expect.objectContaining({ tool: "fetch", note_id: noteId, outcome: "item_not_found" }),
      expect.objectContaining({ tool: "fetch", outcome: "invalid_arguments" }),
    ]);
    expect(logged[0]).not.toHaveProperty("note_id");
    expect(logged[3]).not.toHaveProperty("note_id");
    expect(JSON.stringify(logged)).not.toContain(words);
  });

  it("a call refused by its rate limit is logged as rate_limited, with its Note", async () => {
    const agent = await signInFresh(freshUser("limited"), "mcp");
    for (let i = 0; i < 6; i++) await callTool(agent.access_token, "list_note_tabs", { note_id: "some-note" });
    spy.mockClear();
    expect((await callTool(agent.access_token, "list_note_tabs", { note_id: "some-note" })).isError).toBe(true);
    expect(lines()).toEqual([expect.objectContaining({ tool: "list_note_tabs", note_id: "some-note", outcome: "rate_limited", client: agent.client_id })]);
  });
});
