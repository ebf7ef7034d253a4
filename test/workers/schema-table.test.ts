/** docs/spec.md §2.1's table of payloads and outcomes, through the real MCP endpoint. */
import { describe, expect, it } from "vitest";
import { newNote, ok, tool } from "../support/workers.js";

async function deck(): Promise<{ noteId: string; version: number; tabId: string }> {
  const { noteId, version } = await newNote();
  const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides" });
  return { noteId, version: created.version, tabId: created.tab_id };
}

describe("the schema table of docs/spec.md §2.1", () => {
  it("accepts slide_add with a title and body", async () => {
    const { noteId, version, tabId } = await deck();
    const answer = await tool("edit_note_tab", {
      note_id: noteId, expected_version: version, idempotency_key: "k1", tab_id: tabId,
      operation: "slide_add", title: "Sources", body: "3 links",
    });
    expect(answer.isError).toBe(false);
    expect(answer.data).toMatchObject({ slide_count: 1, slides_added: 1, version: version + 1, replayed: false });
  });

  const rejected: { name: string; tool: string; args: Record<string, unknown>; path: string; problem: RegExp }[] = [
    { name: "slide_add with an index", tool: "edit_note_tab", args: { operation: "slide_add", title: "Sources", index: 0 }, path: "index", problem: /unexpected field/ },
    { name: "an unknown operation", tool: "edit_note_tab", args: { operation: "slides_add", slides: [{ title: "a" }] }, path: "operation", problem: /one of "slide_add", "slides_add_outline"/ },
    { name: "a slide with bullets", tool: "edit_note_tab", args: { operation: "slides_add_outline", slides: [{ title: "a", bullets: ["x"] }] }, path: "slides[0].bullets", problem: /unexpected field/ },
    { name: "21 slides in one create", tool: "create_note_tab", args: { tab_type: "slides", slides: Array.from({ length: 21 }, (_, i) => ({ title: `s${i}` })) }, path: "slides", problem: /at most 20/ },
    { name: "a markdown tab", tool: "create_note_tab", args: { tab_type: "markdown" }, path: "tab_type", problem: /one of "slides", "sheet"/ },
    { name: "a source without a title", tool: "add_note_source", args: { url: "https://example.org/report" }, path: "title", problem: /required/ },
    { name: "a page of 100", tool: "list_note_attachments", args: { kind: "sources", limit: 100 }, path: "limit", problem: /at most 50/ },
  ];

  for (const c of rejected) {
    it(`rejects ${c.name}, naming ${c.path}, and writes nothing`, async () => {
      const { noteId, version, tabId } = await deck();
      const common =
        c.tool === "list_note_attachments"
          ? { note_id: noteId }
          : c.tool === "edit_note_tab"
            ? { note_id: noteId, expected_version: version, idempotency_key: "k1", tab_id: tabId }
            : { note_id: noteId, expected_version: version, idempotency_key: "k1" };
      const answer = await tool(c.tool, { ...common, ...c.args });
      expect(answer.isError).toBe(true);
      expect(answer.data.code).toBe("invalid_arguments");
      const issue = answer.data.issues.find((i: { path: string }) => i.path === c.path);
      expect(issue, JSON.stringify(answer.data.issues)).toBeDefined();
      expect(issue.problem).toMatch(c.problem);
      expect(answer.data.message).toContain(c.path);
      const after = await ok("list_note_tabs", { note_id: noteId });
      expect(after.version).toBe(version);
      expect(after.tabs).toHaveLength(4);
    });
  }
});
