/** What the deck preview shows for each tool result (src/mcp/app/deck.ts); the DOM and the host are test/browser/deck-preview.test.ts's. */
import { describe, expect, it } from "vitest";
import { previewOfInput, readDeck, stepOfResult, type ReadTab } from "../../src/mcp/app/deck.js";
import { LIMITS } from "../../src/note/limits.js";

function result(value: Record<string, unknown>) {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

const tab = (slide_count: number) => ({ id: "slides-4-x", type: "slides", label: "Plan", position: 3, slide_count });
const slide = (index: number) => ({ id: `slide-${index + 1}-x`, index, title: `T${index + 1}`, body: "", notes: "" });
const written = { note_id: "n", version: 8, replayed: false, arguments_differ: false, tab_id: "slides-4-x" };

describe("stepOfResult", () => {
  it("shows a page of a longer deck as that page, numbered where it sits, and reads the text when structuredContent is missing", () => {
    const page = { note_id: "n", version: 3, tab: tab(120), slides: [slide(50), slide(51)], next_cursor: "c" };
    expect(stepOfResult({ content: result(page).content }, undefined)).toEqual({
      show: { kind: "deck", label: "Plan", caption: "Slides 51–52 of 120", slides: [expect.objectContaining({ number: 51, id: "slide-51-x" }), expect.objectContaining({ number: 52 })] },
    });
  });

  it("answers one line for another kind of tab, a Sheet write, a failed call, and a result it cannot read", () => {
    const markdown = { note_id: "n", version: 3, tab: { id: "markdown", type: "markdown", label: "Notes", position: 0 }, text: "# hi" };
    expect(stepOfResult(result(markdown), undefined)).toEqual({ show: { kind: "message", text: "“Notes” is a Markdown tab, not a deck." } });
    expect(stepOfResult(result({ ...written, tab_type: "sheet", label: "Budget", columns: ["A"], row_count: 0, row_ids: [] }), undefined)).toEqual({
      show: { kind: "message", text: "“Budget” is a Sheet tab, not a deck." },
    });
    expect(stepOfResult(result({ ...written, operation: "rows_append", row_ids: ["r"], row_count: 1, columns: ["A"] }), undefined)).toEqual({
      show: { kind: "message", text: "This edit changed a Sheet tab, not a deck." },
    });
    // A result replayed from before edits named their operation: its row IDs tell a Sheet.
    expect(stepOfResult(result({ ...written, row_ids: ["r"], row_count: 1, columns: ["A"] }), undefined)).toMatchObject({ show: { kind: "message" } });
    const failed = { isError: true, content: [{ type: "text", text: JSON.stringify({ error: { code: "version_conflict", message: "The Note is at version 9." } }) }] };
    expect(stepOfResult(failed, undefined)).toEqual({ show: { kind: "message", text: "No deck to show: version_conflict: The Note is at version 9." } });
    expect(stepOfResult({ content: [{ type: "text", text: "not json" }] }, undefined)).toMatchObject({ show: { kind: "message" } });
    expect(stepOfResult("nonsense", undefined)).toMatchObject({ show: { kind: "message" } });
  });

  it("reads a deck back after a slides write; a create falls back on its outline with the Note's IDs, an edit on one line", () => {
    const outline = [{ title: "A", body: "a" }, { title: "B", notes: "b" }];
    const create = stepOfResult(result({ ...written, tab_type: "slides", label: "Plan", position: 3, slide_count: 2, slide_ids: ["s1", "s2"] }), { slides: outline });
    expect(create).toMatchObject({
      read: { note_id: "n", tab_id: "slides-4-x" },
      fallback: { kind: "deck", label: "Plan", slides: [{ id: "s1", number: 1, title: "A", body: "a", notes: "" }, { id: "s2", number: 2, title: "B", body: "", notes: "b" }] },
    });
    // IDs that do not pair one for one with the outline are not guessed.
    const unpaired = stepOfResult(result({ ...written, tab_type: "slides", label: "Plan", slide_ids: ["s1"] }), { slides: outline });
    expect("fallback" in unpaired && unpaired.fallback.kind === "deck" && unpaired.fallback.slides.map((s) => s.id)).toEqual([null, null]);
    expect(stepOfResult(result({ ...written, operation: "slide_delete", slides_added: 0, slide_ids: ["s1"], slide_count: 1 }), undefined)).toMatchObject({
      read: { note_id: "n", tab_id: "slides-4-x" },
      fallback: { kind: "message" },
    });
  });
});

describe("previewOfInput", () => {
  it("shows a slides create's outline as sent, without IDs, and nothing for other calls", () => {
    expect(previewOfInput({ tab_type: "slides", label: "", slides: [{ title: "<b>x</b>" }] })).toEqual({
      kind: "deck",
      label: "Untitled deck",
      caption: "The outline being written…",
      slides: [{ id: null, number: 1, title: "<b>x</b>", body: "", notes: "" }],
    });
    expect(previewOfInput({ tab_type: "sheet", columns: ["A"] })).toBeNull();
    expect(previewOfInput({ note_id: "n", tab_id: "t" })).toBeNull();
  });
});

describe("readDeck", () => {
  it("follows next_cursor to the last page and shows every slide in order", async () => {
    const calls: unknown[] = [];
    const readTab: ReadTab = async (args) => {
      calls.push(args);
      return args.cursor === undefined
        ? result({ note_id: "n", version: 3, tab: tab(3), slides: [slide(0), slide(1)], next_cursor: "p2" })
        : result({ note_id: "n", version: 3, tab: tab(3), slides: [slide(2)], next_cursor: null });
    };
    const preview = await readDeck(readTab, { note_id: "n", tab_id: "slides-4-x" });
    expect(calls).toEqual([{ note_id: "n", tab_id: "slides-4-x" }, { note_id: "n", tab_id: "slides-4-x", cursor: "p2" }]);
    expect(preview).toMatchObject({ kind: "deck", caption: "3 slides", slides: [{ title: "T1" }, { title: "T2" }, { title: "T3" }] });
  });

  it("throws on a refused or failed read, and stops after as many pages as the largest deck can take", async () => {
    await expect(readDeck(async () => ({ isError: true, content: [{ type: "text", text: "denied" }] }), { note_id: "n", tab_id: "t" })).rejects.toThrow("denied");
    await expect(readDeck(async () => result({ error: "x" }), { note_id: "n", tab_id: "t" })).rejects.toThrow("no tab");
    let calls = 0;
    const endless: ReadTab = async () => {
      calls += 1;
      return result({ note_id: "n", version: 3, tab: tab(LIMITS.slidesPerTab + 1), slides: [slide(calls - 1)], next_cursor: "again" });
    };
    const preview = await readDeck(endless, { note_id: "n", tab_id: "t" });
    expect(calls).toBe(LIMITS.slidesPerTab);
    expect(preview).toMatchObject({ caption: `Slides 1–${LIMITS.slidesPerTab} of ${LIMITS.slidesPerTab + 1}` });
  });
});
