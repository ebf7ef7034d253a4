/**
 * End to end, issue 12's acceptance 1 and 2: the real Worker under `wrangler
 * dev`, the official MCP client over real HTTP (checking every result against
 * the tool's output schema). An agent corrects a deck in place by exact slide
 * IDs, fills a Sheet and corrects one row, and reads both back; a write whose
 * answer was lost is resent and gets its first result.
 */
import { describe, expect, it } from "vitest";
import { useAgentAndPerson } from "../support/e2e-agent.js";

const { call, refusal, people } = useAgentAndPerson();

/** A new Note alice approved for connectors; its ID and version. */
async function newNote(): Promise<{ noteId: string; version: number }> {
  const noteId = `content-${crypto.randomUUID()}`;
  return { noteId, version: await people().createApprovedNote(noteId, "Content e2e") };
}

describe("an agent corrects content in place, by exact IDs", () => {
  it("acceptance 1: a 5-slide deck, slide 3's body updated and slide 4 deleted by their IDs, reads back as expected with the IDs unchanged", async () => {
    const { noteId, version } = await newNote();
    const outline = [1, 2, 3, 4, 5].map((n) => ({ title: `Slide ${n}`, body: `Body ${n}`, notes: `Notes ${n}` }));
    const deck = await call("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Plan", slides: outline });
    expect(deck).toMatchObject({ tab_type: "slides", slide_count: 5, version: version + 1 });
    const ids: string[] = deck.slide_ids;
    expect(new Set(ids).size).toBe(5);

    const updated = await call("edit_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: "fix slide 3", tab_id: deck.tab_id, operation: "slide_update", slide_id: ids[2], body: "Body 3, corrected" });
    expect(updated).toMatchObject({ operation: "slide_update", slide_ids: [ids[2]], slide_count: 5, slides_added: 0, version: deck.version + 1 });
    const deleted = await call("edit_note_tab", { note_id: noteId, expected_version: updated.version, idempotency_key: "drop slide 4", tab_id: deck.tab_id, operation: "slide_delete", slide_id: ids[3] });
    expect(deleted).toMatchObject({ operation: "slide_delete", slide_ids: [ids[3]], slide_count: 4, version: updated.version + 1 });

    const expected = [
      { id: ids[0], index: 0, title: "Slide 1", body: "Body 1", notes: "Notes 1" },
      { id: ids[1], index: 1, title: "Slide 2", body: "Body 2", notes: "Notes 2" },
      { id: ids[2], index: 2, title: "Slide 3", body: "Body 3, corrected", notes: "Notes 3" },
      { id: ids[4], index: 3, title: "Slide 5", body: "Body 5", notes: "Notes 5" },
    ];
    const read = await call("read_note_tab", { note_id: noteId, tab_id: deck.tab_id });
    expect(read).toMatchObject({ version: deleted.version, tab: { id: deck.tab_id, type: "slides", slide_count: 4 }, next_cursor: null });
    expect(read.slides).toEqual(expected);

    // A slide's index or its title is not its ID: refused, naming what was given, and nothing changes.
    for (const [slideId, what] of [
      ["3", "is a slide index, not a slide ID"],
      ["Slide 3", "is a slide title, not a slide ID"],
    ]) {
      const error = await refusal("edit_note_tab", { note_id: noteId, expected_version: deleted.version, idempotency_key: `by ${slideId}`, tab_id: deck.tab_id, operation: "slide_update", slide_id: slideId, body: "wrong" });
      expect(error).toMatchObject({ code: "slide_not_found", tab_id: deck.tab_id, slide_id: slideId });
      expect(error.message).toContain(what);
      expect(error.hint).toContain("read_note_tab lists each slide's id");
    }
    const again = await call("read_note_tab", { note_id: noteId, tab_id: deck.tab_id });
    expect(again).toMatchObject({ version: deleted.version });
    expect(again.slides).toEqual(expected);
  });

  it("acceptance 2: a Sheet of 3 columns and 10 rows, 100 rows appended, one updated and one deleted, read back in pages: every row once, cells as written, IDs stable", async () => {
    const { noteId, version } = await newNote();
    const columns = ["Item", "Qty", "Price"];
    const rowOf = (n: number) => ({ Item: `Item ${n}`, Qty: n, Price: n % 3 === 0 ? `${n}.50` : n * 1.25 });
    const sheet = await call("create_note_tab", {
      note_id: noteId,
      expected_version: version,
      idempotency_key: "sheet",
      tab_type: "sheet",
      label: "Stock",
      columns,
      rows: Array.from({ length: 10 }, (_, i) => rowOf(i)),
    });
    expect(sheet).toMatchObject({ tab_type: "sheet", columns, row_count: 10, version: version + 1 });
    const appended = await call("edit_note_tab", {
      note_id: noteId,
      expected_version: sheet.version,
      idempotency_key: "100 more",
      tab_id: sheet.tab_id,
      operation: "rows_append",
      rows: Array.from({ length: 100 }, (_, i) => rowOf(10 + i)),
    });
    expect(appended).toMatchObject({ row_count: 110, columns, version: sheet.version + 1 });
    expect(appended.row_ids).toHaveLength(100);

    // What the Sheet should hold: each row by ID, in order.
    const model = new Map<string, Record<string, string | number>>([...sheet.row_ids, ...appended.row_ids].map((id: string, n: number) => [id, rowOf(n)]));
    expect(model.size).toBe(110);
    const target = appended.row_ids[41] as string;
    const updated = await call("edit_note_tab", { note_id: noteId, expected_version: appended.version, idempotency_key: "fix row 51", tab_id: sheet.tab_id, operation: "row_update", row_id: target, cells: { Qty: 0, Price: null } });
    expect(updated).toMatchObject({ row_ids: [target], row_count: 110, version: appended.version + 1 });
    model.set(target, { Item: "Item 51", Qty: 0 });
    const gone = sheet.row_ids[7] as string;
    const deleted = await call("edit_note_tab", { note_id: noteId, expected_version: updated.version, idempotency_key: "drop row 7", tab_id: sheet.tab_id, operation: "row_delete", row_id: gone });
    expect(deleted).toMatchObject({ row_ids: [gone], row_count: 109, version: updated.version + 1 });
    model.delete(gone);

    const rows: { id: string; index: number; cells: Record<string, unknown> }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call("read_note_tab", { note_id: noteId, tab_id: sheet.tab_id, limit: 25, cursor });
      expect(page.columns).toEqual(columns);
      rows.push(...page.rows);
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(5);
    expect(rows.map((row) => row.id)).toEqual([...model.keys()]);
    expect(rows.map((row) => row.index)).toEqual(rows.map((_, i) => i));
    expect(rows.map((row) => row.cells)).toEqual([...model.values()]);
    const tabs = await call("list_note_tabs", { note_id: noteId });
    expect(tabs.tabs.find((tab: { id: string }) => tab.id === sheet.tab_id)).toMatchObject({ row_count: 109, column_count: 3 });
  });

  it("a rows_append whose answer was lost, resent after the Note moved on, gets the first result: the rows are there once", async () => {
    const { noteId, version } = await newNote();
    const sheet = await call("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "sheet", tab_type: "sheet", columns: ["Name"] });
    const append = { note_id: noteId, expected_version: sheet.version, idempotency_key: "names: Ada, Grace", tab_id: sheet.tab_id, operation: "rows_append", rows: [{ Name: "Ada" }, { Name: "Grace" }] };
    const dropped = await call("edit_note_tab", append); // the client never sees this answer
    // Meanwhile someone else writes: the resend's expected_version is stale now.
    const other = await call("create_note_tab", { note_id: noteId, expected_version: dropped.version, idempotency_key: "another deck", tab_type: "slides" });
    const resent = await call("edit_note_tab", append);
    expect(resent).toEqual({ ...dropped, replayed: true, current_version: other.version });
    expect(dropped.replayed).toBe(false);
    const read = await call("read_note_tab", { note_id: noteId, tab_id: sheet.tab_id });
    expect(read.version).toBe(other.version);
    expect(read.rows).toEqual([
      { id: dropped.row_ids[0], index: 0, cells: { Name: "Ada" } },
      { id: dropped.row_ids[1], index: 1, cells: { Name: "Grace" } },
    ]);
  });
});
