/**
 * End to end: the real Worker under `wrangler dev` on a loopback port, the
 * official MCP client over real HTTP, the demo session of `npm run demo`.
 * The agent's token comes from the local consent page, as `npm run token`'s.
 */
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connectClient, runDemoSession, type DemoTranscript } from "../../scripts/demo-session.js";
import { signIn } from "../../scripts/lib/sign-in.js";
import { seedDemoNote } from "../../scripts/local-server.js";
import { useSharedServer } from "../support/e2e-server.js";

const READ_TOOLS = ["search", "fetch", "list_notes", "list_note_tabs", "read_note_tab", "list_note_attachments", "list_note_changes"];
const WRITE_TOOLS = ["create_note_tab", "edit_note_tab", "add_note_source", "revert_note_change"];
const TAB_ID = /^slides-\d+-[0-9a-z]+$/;

/**
 * The demo session checks the demo Note as seeding leaves it (version 3, four tabs): on the shared
 * server, a demo Note of this file's own, for a user of its own, seeded as `npm start` seeds alice's.
 */
const TAG = crypto.randomUUID().slice(0, 8);
/** Of this run: in watch mode the shared server outlives a run, and a rerun must find them new. */
const USER = `demo-session-${TAG}`;
const NOTE_ID = `demo-session-${TAG}`;

/** The user's agent token: osfoundry:read and osfoundry:write, for /mcp. */
let agentToken = "";

const { running } = useSharedServer(async (server) => {
  const seeded = await seedDemoNote(server.url, { user: USER, noteId: NOTE_ID });
  expect(seeded).toMatchObject({ note_id: NOTE_ID, created: true });
  const tokens = await signIn({ origin: server.url, user: USER, scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" });
  expect(tokens.scope.split(" ").sort()).toEqual(["osfoundry:read", "osfoundry:write"]);
  agentToken = tokens.access_token;
});

describe("the connector over real HTTP", () => {
  it("lists exactly the eleven tools, each closed, typed, annotated and scoped", async () => {
    const client: Client = await connectClient(running().mcpUrl, agentToken);
    // The demo's client is the current one (the v2 client); the v1 client stays in the tests that prove v1 clients still work.
    expect(client).toBeInstanceOf(Client);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
      for (const tool of tools) {
        const reads = READ_TOOLS.includes(tool.name);
        expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
        expect(tool.outputSchema?.type, tool.name).toBe("object");
        if (reads) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true });
        else expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
        expect(tool._meta?.securitySchemes, tool.name).toEqual([{ type: "oauth2", scopes: [reads ? "osfoundry:read" : "osfoundry:write"] }]);
      }
    } finally {
      await client.close();
    }
  });

  it("runs the demo session: one call per deck, a slide corrected in place by its ID, deduped sources, a resend that gets the first result", async () => {
    const lines: string[] = [];
    const t: DemoTranscript = await runDemoSession(running().mcpUrl, agentToken, (line) => lines.push(line), { noteId: NOTE_ID });

    expect(t.tools).toHaveLength(11);
    expect(t.notes.notes.map((n) => n.note_id)).toEqual([NOTE_ID]);
    // Seeded: created (1), approved (2), a Slides tab added (3).
    expect(t.tabsBefore.version).toBe(3);
    expect(t.tabsBefore.tabs.map((tab) => tab.type)).toEqual(["markdown", "files", "sources", "slides"]);

    // The whole outline in one call, under a fresh exact tab ID.
    expect(t.deck).toMatchObject({ slide_count: 12, tab_type: "slides", replayed: false, version: t.tabsBefore.version + 1 });
    expect(t.deck.tab_id).toMatch(TAB_ID);
    expect(t.tabsBefore.tabs.map((tab) => tab.id)).not.toContain(t.deck.tab_id);

    // A wrong slide corrected in place by its exact ID: the same 12 IDs in the same order, one body changed, no slide added.
    const ids = t.deck.slide_ids ?? [];
    expect(ids).toHaveLength(12);
    expect(t.deckBefore.slides?.map((slide) => slide.id)).toEqual(ids);
    expect(t.slideCorrected).toMatchObject({ tab_id: t.deck.tab_id, operation: "slide_update", slides_added: 0, slide_ids: [ids[4]], slide_count: 12, replayed: false, version: t.deck.version + 1 });
    expect(t.deckAfter.slides?.map((slide) => slide.id)).toEqual(ids);
    const changed = (t.deckAfter.slides ?? []).filter((slide, i) => JSON.stringify(slide) !== JSON.stringify(t.deckBefore.slides?.[i]));
    expect(changed).toEqual([{ ...t.deckBefore.slides?.[4], body: "Beta in week 1, GA in week 6: the security review moved it." }]);

    // Two new pages, then the first page spelled differently: the same source, nothing written.
    const { first, second, respelled } = t.sources;
    expect(first).toMatchObject({ already_attached: false, replayed: false, version: t.slideCorrected.version + 1 });
    expect(second).toMatchObject({ already_attached: false, replayed: false, version: first.version + 1 });
    expect(second.source_id).not.toBe(first.source_id);
    expect(respelled).toMatchObject({ already_attached: true, source_id: first.source_id, normalized_url: first.normalized_url, version: second.version });

    // The lost response: the resend carries the stale version and still gets the first tab back.
    const { dropped, resend } = t.lostResponse;
    expect(dropped).toMatchObject({ replayed: false, version: respelled.version + 1 });
    expect(dropped.tab_id).toMatch(TAB_ID);
    expect(resend).toEqual({ ...dropped, replayed: true, current_version: dropped.version });

    // The strip: the resent deck once, the 12-slide deck, and no extra bump.
    expect(t.tabsAfter.version).toBe(resend.version);
    expect(t.tabsAfter.tabs.filter((tab) => tab.id === resend.tab_id)).toHaveLength(1);
    expect(t.tabsAfter.tabs.find((tab) => tab.id === t.deck.tab_id)?.slide_count).toBe(12);
    expect(t.tabsAfter.tabs).toHaveLength(t.tabsBefore.tabs.length + 2);

    expect(t.checks.filter((c) => !c.ok)).toEqual([]);
    expect(lines.filter((line) => line.startsWith("→ "))).toHaveLength(12);
    // The deck shown before and after, a line a slide, the corrected one starred after.
    expect(lines.filter((line) => /^ {3}[ *][ \d]\d slide-/.test(line))).toHaveLength(24);
    expect(lines.filter((line) => line.startsWith("   * 5 "))).toEqual([expect.stringContaining(`${ids[4]}  Timeline: Beta in week 1, GA in week 6`)]);
  });

  it("runs the demo session again against the same Note without colliding with the first run", async () => {
    const before = await runDemoSession(running().mcpUrl, agentToken, () => {}, { noteId: NOTE_ID });
    const again = await runDemoSession(running().mcpUrl, agentToken, () => {}, { noteId: NOTE_ID });
    expect(again.runId).not.toBe(before.runId);
    expect(again.tabsBefore.version).toBe(before.tabsAfter.version);
    expect(again.deck.tab_id).not.toBe(before.deck.tab_id);
    expect(again.sources.first.already_attached).toBe(false);
    expect(again.checks.filter((c) => !c.ok)).toEqual([]);
  });

  it("without a token, lists the tools but answers a tool call with 401 and a Bearer challenge", async () => {
    const post = (body: unknown) =>
      fetch(running().mcpUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      });
    const listed = await post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(listed.status).toBe(200);
    const { result } = (await listed.json()) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());

    const response = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_notes", arguments: {} } });
    await response.body?.cancel();
    expect(response.status).toBe(401);
    const challenge = response.headers.get("WWW-Authenticate") ?? "";
    expect(challenge.startsWith("Bearer")).toBe(true);
    expect(challenge).toContain(`resource_metadata="${running().url}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="osfoundry:read osfoundry:write"');
  });
});
