/**
 * Content an agent can correct (issue 12), through the MCP endpoint and the
 * real Durable Object: slides updated and deleted by exact ID, Sheets with
 * columns and rows, read back in pages. Every refused call leaves the Note
 * byte-identical; every write resent after a lost answer gets its first result.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";
import { dumpDatabase } from "../support/dump.js";
import { failure, newNote, ok, rawMcp } from "../support/workers.js";

const SLIDE_ID = /^slide-\d+-[0-9a-z]+$/;
const ROW_ID = /^row-\d+-[0-9a-z]+$/;
const SLIDE_HINT = /read_note_tab lists each slide's id.*A slide's index or title is not its ID/;
const ROW_HINT = /read_note_tab lists each row's id.*A row's index is not its ID/;

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));

/** A tool call that must fail and leave every table of the Note as it was; its error. */
async function refused(noteId: string, name: string, args: Record<string, unknown>): Promise<any> {
  const before = await dump(noteId);
  const error = await failure(name, { note_id: noteId, ...args });
  expect(await dump(noteId), `${name} ${JSON.stringify(error)}`).toBe(before);
  return error;
}

/** tools/call with `args` as raw JSON text (rawMcp): the tool's error, or its structured result. */
async function rawTool(name: string, args: string): Promise<{ isError: boolean; data: any }> {
  const { result } = await rawMcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`);
  return result.isError === true ? { isError: true, data: JSON.parse(result.content[0].text).error } : { isError: false, data: result.structuredContent };
}

/** The Note's current version. */
async function versionOf(noteId: string): Promise<number> {
  return (await ok("list_note_tabs", { note_id: noteId })).version;
}

/** A new Note with a deck of `count` slides "Slide 1".. (bodies "Body n", notes "Notes n"); the Note, the deck and its slide IDs. */
async function newDeck(count: number): Promise<{ noteId: string; tabId: string; ids: string[]; version: number }> {
  const { noteId, version } = await newNote();
  const slide = (n: number) => ({ title: `Slide ${n}`, body: `Body ${n}`, notes: `Notes ${n}` });
  const first = Array.from({ length: Math.min(count, LIMITS.slidesPerCall) }, (_, i) => slide(i + 1));
  const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides: first });
  const ids: string[] = [...deck.slide_ids];
  let current = deck.version;
  for (let start = first.length; start < count; start += LIMITS.slidesPerCall) {
    const slides = Array.from({ length: Math.min(LIMITS.slidesPerCall, count - start) }, (_, i) => slide(start + i + 1));
    const more = await ok("edit_note_tab", { note_id: noteId, expected_version: current, idempotency_key: `more-${start}`, tab_id: deck.tab_id, operation: "slides_add_outline", slides });
    ids.push(...more.slide_ids);
    current = more.version;
  }
  return { noteId, tabId: deck.tab_id, ids, version: current };
}

/** A Sheet in a Note (a new one unless given): its tab, row IDs and the Note's version after it. */
async function newSheet(columns?: string[], rows?: Record<string, unknown>[], on?: { noteId: string; version: number }): Promise<{ noteId: string; tabId: string; ids: string[]; version: number }> {
  const { noteId, version } = on ?? (await newNote());
  const sheet = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: `sheet-${crypto.randomUUID()}`, tab_type: "sheet", columns, rows });
  return { noteId, tabId: sheet.tab_id, ids: sheet.row_ids, version: sheet.version };
}

/** Every slide of a deck (up to 50), as read_note_tab answers them. */
async function slidesOf(noteId: string, tabId: string): Promise<any[]> {
  const page = await ok("read_note_tab", { note_id: noteId, tab_id: tabId });
  expect(page.next_cursor).toBeNull();
  return page.slides;
}

/** Every row of a Sheet, page by page (`limit` each), checking that each page continues the indexes of the last. */
async function rowsOf(noteId: string, tabId: string, limit?: number): Promise<{ rows: any[]; pages: number; columns: string[] }> {
  const rows: any[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let columns: string[] = [];
  do {
    const page = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit, cursor });
    expect(page.rows.map((row: { index: number }) => row.index)).toEqual(page.rows.map((_: unknown, i: number) => rows.length + i));
    rows.push(...page.rows);
    columns = page.columns;
    cursor = page.next_cursor ?? undefined;
    pages++;
  } while (cursor !== undefined);
  return { rows, pages, columns };
}

const write = (noteId: string, version: number, key: string) => ({ note_id: noteId, expected_version: version, idempotency_key: key });

describe("slides, corrected by exact ID", () => {
  it("slide_update replaces only the fields given; the slide keeps its ID and place", async () => {
    const { noteId, tabId, ids, version } = await newDeck(5);
    const updated = await ok("edit_note_tab", { ...write(noteId, version, "fix-3"), tab_id: tabId, operation: "slide_update", slide_id: ids[2], body: "Corrected body" });
    expect(updated).toEqual({ note_id: noteId, tab_id: tabId, operation: "slide_update", slides_added: 0, slide_ids: [ids[2]], slide_count: 5, version: version + 1, replayed: false, arguments_differ: false });

    const retitled = await ok("edit_note_tab", { ...write(noteId, updated.version, "retitle-3"), tab_id: tabId, operation: "slide_update", slide_id: ids[2], title: "  Third, fixed  ", notes: "" });
    expect(retitled).toMatchObject({ slide_ids: [ids[2]], slide_count: 5, version: version + 2 });

    const slides = await slidesOf(noteId, tabId);
    expect(slides.map((s) => s.id)).toEqual(ids);
    expect(slides.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    expect(slides[2]).toEqual({ id: ids[2], index: 2, title: "Third, fixed", body: "Corrected body", notes: "" });
    expect(slides[1]).toEqual({ id: ids[1], index: 1, title: "Slide 2", body: "Body 2", notes: "Notes 2" });
    expect(slides[3]).toEqual({ id: ids[3], index: 3, title: "Slide 4", body: "Body 4", notes: "Notes 4" });
  });

  it("slide_delete removes exactly that slide; the others keep their IDs, and its ID is never given again", async () => {
    const { noteId, tabId, ids, version } = await newDeck(5);
    const deleted = await ok("edit_note_tab", { ...write(noteId, version, "drop-4"), tab_id: tabId, operation: "slide_delete", slide_id: ids[3] });
    expect(deleted).toEqual({ note_id: noteId, tab_id: tabId, operation: "slide_delete", slides_added: 0, slide_ids: [ids[3]], slide_count: 4, version: version + 1, replayed: false, arguments_differ: false });

    const slides = await slidesOf(noteId, tabId);
    expect(slides.map((s) => [s.id, s.index, s.title])).toEqual([
      [ids[0], 0, "Slide 1"],
      [ids[1], 1, "Slide 2"],
      [ids[2], 2, "Slide 3"],
      [ids[4], 3, "Slide 5"],
    ]);
    const tabs = await ok("list_note_tabs", { note_id: noteId });
    expect(tabs.tabs.find((t: { id: string }) => t.id === tabId)).toMatchObject({ slide_count: 4 });

    // The deleted ID names nothing now: a second delete and an update are refused, and a new slide gets a new ID.
    const again = await refused(noteId, "edit_note_tab", { ...write(noteId, deleted.version, "drop-4-again"), tab_id: tabId, operation: "slide_delete", slide_id: ids[3] });
    expect(again).toMatchObject({ code: "slide_not_found", tab_id: tabId, slide_id: ids[3] });
    expect(again.message).toContain(`is no slide of tab "${tabId}"`);
    const added = await ok("edit_note_tab", { ...write(noteId, deleted.version, "add"), tab_id: tabId, operation: "slide_add", title: "Slide 4" });
    expect(added.slide_ids[0]).toMatch(SLIDE_ID);
    expect(ids).not.toContain(added.slide_ids[0]);
    expect((await slidesOf(noteId, tabId)).map((s) => s.id)).toEqual([ids[0], ids[1], ids[2], ids[4], added.slide_ids[0]]);
  });

  it("a slide index, a slide title or another deck's slide passed as slide_id is slide_not_found, naming what it is, with the hint", async () => {
    const { noteId, tabId, ids, version } = await newDeck(5);
    const other = await ok("create_note_tab", { ...write(noteId, version, "other"), tab_type: "slides", slides: [{ title: "Elsewhere" }] });
    const base = { ...write(noteId, other.version, "by-what"), tab_id: tabId };
    const cases: [string, string][] = [
      ["3", "is a slide index, not a slide ID"],
      [" 2 ", "is a slide index, not a slide ID"],
      ["Slide 3", "is a slide title, not a slide ID"],
      [other.slide_ids[0], `is a slide of tab "${other.tab_id}", not of tab "${tabId}"`],
      ["slide-999-zzzz", `is no slide of tab "${tabId}" (deleted, or never one)`],
      [(ids[0] as string).toUpperCase(), `is no slide of tab "${tabId}" (deleted, or never one)`],
    ];
    for (const [slideId, what] of cases) {
      for (const edit of [{ operation: "slide_update", body: "x" }, { operation: "slide_delete" }]) {
        const error = await refused(noteId, "edit_note_tab", { ...base, ...edit, slide_id: slideId });
        expect(error, `${edit.operation} ${slideId}`).toMatchObject({ code: "slide_not_found", tab_id: tabId, slide_id: slideId });
        expect(error.message).toBe(`"${slideId}" ${what}. ${error.hint}`);
        expect(error.hint).toMatch(SLIDE_HINT);
      }
    }
    // The deck is untouched, and the key was not used up: the same key now does the intended edit.
    const fixed = await ok("edit_note_tab", { ...base, operation: "slide_update", slide_id: ids[2], body: "x" });
    expect(fixed).toMatchObject({ replayed: false, slide_ids: [ids[2]], version: other.version + 1 });
  });

  it("a slide index given as a number is refused as not an ID, naming slide_id", async () => {
    const { noteId, tabId, version } = await newDeck(5);
    for (const operation of ["slide_update", "slide_delete"]) {
      const error = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation, slide_id: 3, title: operation === "slide_update" ? "x" : undefined });
      expect(error.code).toBe("invalid_arguments");
      expect(error.issues).toEqual([{ path: "slide_id", problem: 'must be the slide\'s ID as text, e.g. "slide-12-mh8z1k2a" (an index is not an ID)' }]);
    }
  });

  it("slide_update with none of title, body or notes is refused, and a blank title too", async () => {
    const { noteId, tabId, ids, version } = await newDeck(2);
    const base = { ...write(noteId, version, "k"), tab_id: tabId, operation: "slide_update", slide_id: ids[0] };
    const none = await refused(noteId, "edit_note_tab", base);
    expect(none).toMatchObject({ code: "invalid_arguments", issues: [{ path: "title", problem: "give at least one of title, body or notes to change" }] });
    const blank = await refused(noteId, "edit_note_tab", { ...base, title: " \u200b " });
    expect(blank.issues).toEqual([{ path: "title", problem: "must not be empty or blank (spaces and invisible characters only)" }]);
    const tooLong = await refused(noteId, "edit_note_tab", { ...base, body: "b".repeat(LIMITS.slideBodyLength + 1) });
    expect(tooLong.issues.map((i: { path: string }) => i.path)).toEqual(["body"]);
  });

  it("a slide_update that changes nothing still answers the slide and keeps its content", async () => {
    const { noteId, tabId, ids, version } = await newDeck(2);
    const same = await ok("edit_note_tab", { ...write(noteId, version, "same"), tab_id: tabId, operation: "slide_update", slide_id: ids[1], title: "Slide 2", body: "Body 2" });
    expect(same).toMatchObject({ slide_ids: [ids[1]], slide_count: 2, replayed: false });
    expect((await slidesOf(noteId, tabId))[1]).toEqual({ id: ids[1], index: 1, title: "Slide 2", body: "Body 2", notes: "Notes 2" });
  });

  it(`a deck holds at most ${LIMITS.slidesPerTab} slides: one more is limit_exceeded naming slides_per_tab`, async () => {
    const { noteId, tabId, ids, version } = await newDeck(LIMITS.slidesPerTab);
    expect(new Set(ids).size).toBe(LIMITS.slidesPerTab);
    for (const edit of [
      { operation: "slide_add", title: "One too many" },
      { operation: "slides_add_outline", slides: [{ title: "One too many" }] },
    ]) {
      const error = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "too-many"), tab_id: tabId, ...edit });
      expect(error).toMatchObject({ code: "limit_exceeded", limit: "slides_per_tab", max: LIMITS.slidesPerTab });
    }
    // Deleting one makes room for exactly one.
    const deleted = await ok("edit_note_tab", { ...write(noteId, version, "drop"), tab_id: tabId, operation: "slide_delete", slide_id: ids[250] });
    const added = await ok("edit_note_tab", { ...write(noteId, deleted.version, "add"), tab_id: tabId, operation: "slide_add", title: "Back to 500" });
    expect(added.slide_count).toBe(LIMITS.slidesPerTab);
  });
});

describe("Sheets: columns and rows with exact IDs", () => {
  it("create_note_tab makes a Sheet with its columns and rows, and returns the rows' IDs in order", async () => {
    const { noteId, version } = await newNote();
    const rows = [{ Name: "Ada", Age: 36, City: "London" }, { City: "Paris", Name: "Marie" }, { Age: 0 }];
    const created = await ok("create_note_tab", { ...write(noteId, version, "people"), tab_type: "sheet", label: "People", columns: ["Name", "Age", "City"], rows });
    expect(created).toMatchObject({ note_id: noteId, tab_type: "sheet", label: "People", position: 3, columns: ["Name", "Age", "City"], row_count: 3, version: version + 1, replayed: false, arguments_differ: false });
    expect(created.row_ids).toHaveLength(3);
    for (const id of created.row_ids) expect(id).toMatch(ROW_ID);
    expect(new Set(created.row_ids).size).toBe(3);

    const page = await ok("read_note_tab", { note_id: noteId, tab_id: created.tab_id });
    expect(page.tab).toEqual({ id: created.tab_id, type: "sheet", label: "People", position: 3, row_count: 3, column_count: 3 });
    expect(page.columns).toEqual(["Name", "Age", "City"]);
    expect(page.next_cursor).toBeNull();
    expect(page.rows).toEqual([
      { id: created.row_ids[0], index: 0, cells: { Name: "Ada", Age: 36, City: "London" } },
      { id: created.row_ids[1], index: 1, cells: { Name: "Marie", City: "Paris" } },
      { id: created.row_ids[2], index: 2, cells: { Age: 0 } },
    ]);
    // Cells come back in the Sheet's column order, whatever order they were given in.
    expect(Object.keys(page.rows[1].cells)).toEqual(["Name", "City"]);
    const tabs = await ok("list_note_tabs", { note_id: noteId });
    expect(tabs.tabs.at(-1)).toEqual({ id: created.tab_id, type: "sheet", label: "People", position: 3, row_count: 3, column_count: 3 });
  });

  it("an empty Sheet, and one with columns and no rows, read back empty", async () => {
    const { noteId, version } = await newNote();
    const bare = await ok("create_note_tab", { ...write(noteId, version, "bare"), tab_type: "sheet" });
    expect(bare).toMatchObject({ columns: [], row_count: 0, row_ids: [] });
    expect(await ok("read_note_tab", { note_id: noteId, tab_id: bare.tab_id })).toMatchObject({ columns: [], rows: [], next_cursor: null });
    const headed = await ok("create_note_tab", { ...write(noteId, bare.version, "headed"), tab_type: "sheet", columns: ["A"] });
    expect(await ok("read_note_tab", { note_id: noteId, tab_id: headed.tab_id })).toMatchObject({ columns: ["A"], rows: [], next_cursor: null, tab: { row_count: 0, column_count: 1 } });
  });

  it("rows_append adds rows after the last with new IDs; row_update sets only the cells given; row_delete removes exactly one row", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["Item", "Qty", "Note"], [{ Item: "Apples", Qty: 3 }, { Item: "Pears", Qty: 5, Note: "ripe" }]);

    const appended = await ok("edit_note_tab", { ...write(noteId, version, "append"), tab_id: tabId, operation: "rows_append", rows: [{ Item: "Plums" }, { Qty: 7, Item: "Figs" }] });
    expect(appended).toMatchObject({ tab_id: tabId, operation: "rows_append", row_count: 4, columns: ["Item", "Qty", "Note"], version: version + 1, replayed: false });
    expect(appended.row_ids).toHaveLength(2);
    expect(ids).not.toContain(appended.row_ids[0]);
    const all = [...ids, ...appended.row_ids];

    const updated = await ok("edit_note_tab", { ...write(noteId, appended.version, "update"), tab_id: tabId, operation: "row_update", row_id: all[1], cells: { Qty: 6, Note: null } });
    expect(updated).toEqual({ note_id: noteId, tab_id: tabId, operation: "row_update", row_ids: [all[1]], row_count: 4, columns: ["Item", "Qty", "Note"], version: version + 2, replayed: false, arguments_differ: false });

    const deleted = await ok("edit_note_tab", { ...write(noteId, updated.version, "delete"), tab_id: tabId, operation: "row_delete", row_id: all[2] });
    expect(deleted).toEqual({ note_id: noteId, tab_id: tabId, operation: "row_delete", row_ids: [all[2]], row_count: 3, columns: ["Item", "Qty", "Note"], version: version + 3, replayed: false, arguments_differ: false });

    const { rows } = await rowsOf(noteId, tabId);
    expect(rows).toEqual([
      { id: all[0], index: 0, cells: { Item: "Apples", Qty: 3 } },
      { id: all[1], index: 1, cells: { Item: "Pears", Qty: 6 } },
      { id: all[3], index: 2, cells: { Item: "Figs", Qty: 7 } },
    ]);
    expect((await ok("list_note_tabs", { note_id: noteId })).tabs.at(-1)).toMatchObject({ row_count: 3, column_count: 3 });

    // The deleted row's ID names nothing now, for an update as for a delete.
    for (const edit of [{ operation: "row_update", cells: { Qty: 1 } }, { operation: "row_delete" }]) {
      const error = await refused(noteId, "edit_note_tab", { ...write(noteId, deleted.version, "gone"), tab_id: tabId, row_id: all[2], ...edit });
      expect(error).toMatchObject({ code: "row_not_found", tab_id: tabId, row_id: all[2] });
      expect(error.message).toContain(`is no row of tab "${tabId}"`);
    }
  });

  it("columns_add appends columns: earlier rows have them empty, later rows and updates can fill them", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A"], [{ A: "a1" }]);
    const added = await ok("edit_note_tab", { ...write(noteId, version, "cols"), tab_id: tabId, operation: "columns_add", columns: ["B", "C"] });
    expect(added).toEqual({ note_id: noteId, tab_id: tabId, operation: "columns_add", row_ids: [], row_count: 1, columns: ["A", "B", "C"], version: version + 1, replayed: false, arguments_differ: false });
    const appended = await ok("edit_note_tab", { ...write(noteId, added.version, "row"), tab_id: tabId, operation: "rows_append", rows: [{ C: "c2", A: "a2" }] });
    await ok("edit_note_tab", { ...write(noteId, appended.version, "fill"), tab_id: tabId, operation: "row_update", row_id: ids[0], cells: { B: 1.5 } });
    const read = await rowsOf(noteId, tabId);
    expect(read.columns).toEqual(["A", "B", "C"]);
    expect(read.rows).toEqual([
      { id: ids[0], index: 0, cells: { A: "a1", B: 1.5 } },
      { id: appended.row_ids[0], index: 1, cells: { A: "a2", C: "c2" } },
    ]);
  });

  it("rows can be added to a Sheet created empty once it has columns", async () => {
    const { noteId, tabId, version } = await newSheet();
    const noColumns = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "early"), tab_id: tabId, operation: "rows_append", rows: [{ A: 1 }] });
    expect(noColumns).toMatchObject({ code: "invalid_arguments", issues: [{ path: 'rows[0].A' }] });
    expect(noColumns.issues[0].problem).toContain("it has no columns yet (columns_add adds some)");
    const cols = await ok("edit_note_tab", { ...write(noteId, version, "cols"), tab_id: tabId, operation: "columns_add", columns: ["A"] });
    const rows = await ok("edit_note_tab", { ...write(noteId, cols.version, "early"), tab_id: tabId, operation: "rows_append", rows: [{ A: 1 }] });
    expect(rows).toMatchObject({ row_count: 1, replayed: false });
  });
});

describe("what a Sheet refuses, leaving the Note byte-identical", () => {
  it("a row index, a row of another Sheet or a slide's ID passed as row_id is row_not_found, naming what it is, with the hint", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A"], [{ A: 1 }, { A: 2 }, { A: 3 }]);
    const other = await newSheet(["A"], [{ A: "elsewhere" }], { noteId, version });
    const deck = await ok("create_note_tab", { ...write(noteId, other.version, "deck"), tab_type: "slides", slides: [{ title: "S" }] });
    const base = { ...write(noteId, deck.version, "by-what"), tab_id: tabId };
    const cases: [string, string][] = [
      ["2", "is a row index, not a row ID"],
      ["0", "is a row index, not a row ID"],
      [other.ids[0] as string, `is a row of tab "${other.tabId}", not of tab "${tabId}"`],
      [deck.slide_ids[0], `is no row of tab "${tabId}" (deleted, or never one)`],
      ["row-999-zzzz", `is no row of tab "${tabId}" (deleted, or never one)`],
    ];
    for (const [rowId, what] of cases) {
      for (const edit of [{ operation: "row_update", cells: { A: 9 } }, { operation: "row_delete" }]) {
        const error = await refused(noteId, "edit_note_tab", { ...base, ...edit, row_id: rowId });
        expect(error, `${edit.operation} ${rowId}`).toMatchObject({ code: "row_not_found", tab_id: tabId, row_id: rowId });
        expect(error.message).toBe(`"${rowId}" ${what}. ${error.hint}`);
        expect(error.hint).toMatch(ROW_HINT);
      }
    }
    const asNumber = await refused(noteId, "edit_note_tab", { ...base, operation: "row_delete", row_id: 2 });
    expect(asNumber.code).toBe("invalid_arguments");
    expect(asNumber.issues).toEqual([{ path: "row_id", problem: 'must be the row\'s ID as text, e.g. "row-12-mh8z1k2a" (an index is not an ID)' }]);
    // The slide's ID is no row, and a row's ID is no slide.
    const rowAsSlide = await refused(noteId, "edit_note_tab", { ...base, tab_id: deck.tab_id, operation: "slide_delete", slide_id: ids[0] });
    expect(rowAsSlide).toMatchObject({ code: "slide_not_found", slide_id: ids[0] });
  });

  it("a row_update that would empty every cell is refused naming cells, as rows_append refuses an empty row; emptying some cells is fine", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A", "B"], [{ A: 1, B: "two" }, { A: 3 }]);
    const emptied = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "row_update", row_id: ids[1], cells: { A: null } });
    expect(emptied.code).toBe("invalid_arguments");
    expect(emptied.issues).toEqual([{ path: "cells", problem: `would empty every cell of row "${ids[1]}"; a row keeps at least one cell (give a value, or delete the row with row_delete)` }]);
    const both = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "row_update", row_id: ids[0], cells: { A: null, B: null } });
    expect(both.issues).toEqual([{ path: "cells", problem: expect.stringContaining(`would empty every cell of row "${ids[0]}"`) }]);
    // The same row as a new one: rows_append refuses it.
    expect((await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: [{}] })).issues).toEqual([{ path: "rows[0]", problem: "at least one cell" }]);
    // One cell left is a row.
    const kept = await ok("edit_note_tab", { ...write(noteId, version, "one"), tab_id: tabId, operation: "row_update", row_id: ids[0], cells: { A: null } });
    expect(kept.version).toBe(version + 1);
    expect((await rowsOf(noteId, tabId)).rows.map((row: any) => row.cells)).toEqual([{ B: "two" }, { A: 3 }]);
  });

  it('a cell of no column is invalid_arguments naming rows[i].Col or cells.Col, and listing the columns', async () => {
    const { noteId, tabId, ids, version } = await newSheet(["Name", "Age"], [{ Name: "Ada" }]);
    const appended = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: [{ Name: "ok" }, { Name: "x", Colour: "red", age: 3 }] });
    expect(appended.code).toBe("invalid_arguments");
    expect(appended.issues).toEqual([
      { path: 'rows[1].Colour', problem: 'no column "Colour" in this Sheet; its columns are "Name", "Age"' },
      { path: 'rows[1].age', problem: 'no column "age" in this Sheet' },
    ]);
    const updated = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "row_update", row_id: ids[0], cells: { Name: "Bo", "Name ": "x" } });
    expect(updated.issues).toEqual([{ path: 'cells["Name "]', problem: 'no column "Name " in this Sheet; its columns are "Name", "Age"' }]);
    const created = await refused(noteId, "create_note_tab", { ...write(noteId, version, "k"), tab_type: "sheet", columns: ["A", "B"], rows: [{ A: 1 }, { A: 2 }, { C: 3 }] });
    expect(created.issues).toEqual([{ path: 'rows[2].C', problem: 'no column "C" in this Sheet; its columns are "A", "B"' }]);
  });

  it("500 rows of 50 cells of no column answer the first 50 problems and name the columns once: kilobytes, not a 50 MB echo", async () => {
    const columns = Array.from({ length: LIMITS.columnsPerSheet }, (_, i) => `${i}`.padStart(LIMITS.columnNameLength, "c"));
    const { noteId, tabId, ids, version } = await newSheet(columns, [{ [columns[0] as string]: 1 }]);
    const stray = Object.fromEntries(Array.from({ length: LIMITS.columnsPerSheet }, (_, i) => [`u${i}`, 0]));
    const cases: [Record<string, unknown>, string, number][] = [
      [{ tab_id: tabId, operation: "rows_append", rows: Array.from({ length: LIMITS.rowsPerCall }, () => stray) }, 'rows[0].u0', LIMITS.rowsPerCall * LIMITS.columnsPerSheet],
      [{ tab_id: tabId, operation: "row_update", row_id: ids[0], cells: stray }, 'cells.u0', LIMITS.columnsPerSheet],
      [{ tab_type: "sheet", columns, rows: Array.from({ length: LIMITS.rowsPerCall }, () => stray) }, 'rows[0].u0', LIMITS.rowsPerCall * LIMITS.columnsPerSheet],
    ];
    for (const [args, first, count] of cases) {
      const error = await refused(noteId, "operation" in args ? "edit_note_tab" : "create_note_tab", { ...write(noteId, version, "stray"), ...args });
      expect(error.code).toBe("invalid_arguments");
      expect(error.issues[0].path).toBe(first);
      expect(error.issues[0].problem).toContain(`its columns are ${JSON.stringify(columns[0])}`);
      expect(error.issues.filter((issue: { problem: string }) => issue.problem.includes("its columns are"))).toHaveLength(1);
      if (count > 50) {
        expect(error.issues).toHaveLength(51);
        expect(error.issues[50]).toEqual({ path: "(arguments)", problem: `and ${count - 50} more problems` });
      } else expect(error.issues).toHaveLength(count);
      expect(JSON.stringify(error).length).toBeLessThan(20_000);
    }
  });

  it("a duplicate column is refused, whether it is already in the Sheet or given twice", async () => {
    const { noteId, tabId, version } = await newSheet(["A", "B"]);
    const existing = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "columns_add", columns: ["C", "B"] });
    expect(existing).toMatchObject({ code: "invalid_arguments", issues: [{ path: "columns[1]", problem: '"B" is already a column of this Sheet' }] });
    const twice = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "columns_add", columns: ["C", "D", "C"] });
    expect(twice.issues).toEqual([{ path: "columns[2]", problem: '"C" is given twice' }]);
    const onCreate = await refused(noteId, "create_note_tab", { ...write(noteId, version, "k"), tab_type: "sheet", columns: ["X", "X"] });
    expect(onCreate.issues).toEqual([{ path: "columns[1]", problem: '"X" is given twice' }]);
    for (const [name, problem] of [
      [" A", "must not start or end with spaces"],
      ["", "must not be empty or blank (spaces and invisible characters only)"],
      ["a\nb", "must be one line"],
    ] as const) {
      const bad = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "columns_add", columns: [name] });
      expect(bad.issues, JSON.stringify(name)).toEqual([{ path: "columns[0]", problem }]);
    }
  });

  it("a field another operation takes is refused, naming it and what the operation takes", async () => {
    const deck = await newDeck(2);
    const sheet = await newSheet(["A"], [{ A: 1 }], { noteId: deck.noteId, version: deck.version });
    const base = write(deck.noteId, sheet.version, "k");
    const cases: [Record<string, unknown>, string, string][] = [
      [{ tab_id: deck.tabId, operation: "slide_delete", slide_id: deck.ids[0], title: "x" }, "title", "not allowed with slide_delete, which takes `slide_id`"],
      [{ tab_id: deck.tabId, operation: "slide_update", slide_id: deck.ids[0], title: "x", rows: [{ A: 1 }] }, "rows", "not allowed with slide_update, which takes `slide_id`, `title`, `body`, `notes`"],
      [{ tab_id: deck.tabId, operation: "slide_add", title: "x", slide_id: deck.ids[0] }, "slide_id", "not allowed with slide_add, which takes `title`, `body`, `notes`"],
      [{ tab_id: sheet.tabId, operation: "rows_append", rows: [{ A: 1 }], row_id: sheet.ids[0] }, "row_id", "not allowed with rows_append, which takes `rows`"],
      [{ tab_id: sheet.tabId, operation: "row_update", row_id: sheet.ids[0], cells: { A: 2 }, rows: [{ A: 1 }] }, "rows", "not allowed with row_update, which takes `row_id`, `cells`"],
      [{ tab_id: sheet.tabId, operation: "row_delete", row_id: sheet.ids[0], cells: { A: 2 } }, "cells", "not allowed with row_delete, which takes `row_id`"],
      [{ tab_id: sheet.tabId, operation: "columns_add", columns: ["B"], title: "x" }, "title", "not allowed with columns_add, which takes `columns`"],
      [{ tab_id: sheet.tabId, operation: "row_delete", row_id: sheet.ids[0], slide_id: deck.ids[0] }, "slide_id", "not allowed with row_delete, which takes `row_id`"],
    ];
    for (const [args, path, problem] of cases) {
      const error = await refused(deck.noteId, "edit_note_tab", { ...base, ...args });
      expect(error, JSON.stringify(args)).toMatchObject({ code: "invalid_arguments", issues: [{ path, problem }] });
    }
    // A field no operation takes is refused at the edge.
    const unknown = await refused(deck.noteId, "edit_note_tab", { ...base, tab_id: sheet.tabId, operation: "row_delete", row_id: sheet.ids[0], after_id: null });
    expect(unknown.issues).toEqual([
      { path: "after_id", problem: "unexpected field; the fields here are: note_id, expected_version, idempotency_key, tab_id, operation, title, body, notes, slides, slide_id, rows, row_id, cells, columns" },
    ]);
    // And each operation's own field is required.
    const missing: [Record<string, unknown>, string][] = [
      [{ tab_id: deck.tabId, operation: "slide_delete" }, "slide_id"],
      [{ tab_id: sheet.tabId, operation: "rows_append" }, "rows"],
      [{ tab_id: sheet.tabId, operation: "row_update", row_id: sheet.ids[0] }, "cells"],
      [{ tab_id: sheet.tabId, operation: "row_delete" }, "row_id"],
      [{ tab_id: sheet.tabId, operation: "columns_add" }, "columns"],
    ];
    for (const [args, path] of missing) {
      const error = await refused(deck.noteId, "edit_note_tab", { ...base, ...args });
      expect(error.issues, JSON.stringify(args)).toEqual([{ path, problem: "required" }]);
    }
  });

  it("an operation on the wrong kind of tab is wrong_tab_type, both ways, and create_note_tab keeps slides and Sheets apart", async () => {
    const deck = await newDeck(1);
    const sheet = await newSheet(["A"], [{ A: 1 }], { noteId: deck.noteId, version: deck.version });
    const base = write(deck.noteId, sheet.version, "k");
    const cases: [string, Record<string, unknown>, string][] = [
      [sheet.tabId, { operation: "slide_update", slide_id: deck.ids[0], title: "x" }, "sheet"],
      [sheet.tabId, { operation: "slide_delete", slide_id: deck.ids[0] }, "sheet"],
      [sheet.tabId, { operation: "slide_add", title: "x" }, "sheet"],
      [deck.tabId, { operation: "rows_append", rows: [{ A: 1 }] }, "slides"],
      [deck.tabId, { operation: "row_update", row_id: sheet.ids[0], cells: { A: 1 } }, "slides"],
      [deck.tabId, { operation: "row_delete", row_id: sheet.ids[0] }, "slides"],
      [deck.tabId, { operation: "columns_add", columns: ["B"] }, "slides"],
      ["markdown", { operation: "row_delete", row_id: sheet.ids[0] }, "markdown"],
    ];
    for (const [tabId, edit, type] of cases) {
      const error = await refused(deck.noteId, "edit_note_tab", { ...base, tab_id: tabId, ...edit });
      const expected = edit.operation?.toString().startsWith("slide") ? "slides" : "sheet";
      expect(error, `${edit.operation} on ${type}`).toMatchObject({ code: "wrong_tab_type", tab_id: tabId, tab_type: type, expected: [expected] });
      expect(error.message).toBe(`Tab "${tabId}" is a ${type} tab; ${edit.operation} edits a ${expected} tab.`);
    }
    const create: [Record<string, unknown>, string, string][] = [
      [{ tab_type: "slides", columns: ["A"] }, "columns", "only a Sheet can be created with columns"],
      [{ tab_type: "slides", slides: [{ title: "t" }], rows: [{ A: 1 }] }, "rows", "only a Sheet can be created with rows"],
      [{ tab_type: "sheet", slides: [{ title: "t" }] }, "slides", "only a slides tab can be created with slides; a Sheet takes columns and rows"],
      [{ tab_type: "sheet", rows: [{ A: 1 }] }, "rows", "rows need `columns`: name the Sheet's columns in this call"],
    ];
    for (const [args, path, problem] of create) {
      const error = await refused(deck.noteId, "create_note_tab", { ...base, ...args });
      expect(error, JSON.stringify(args)).toMatchObject({ code: "invalid_arguments", issues: [{ path, problem }] });
    }
  });

  it(`rows per call (${LIMITS.rowsPerCall}) and a cell's length (${LIMITS.cellLength}) are limit_exceeded naming the limit and where`, async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A", "B"], [{ A: 1 }]);
    const many = Array.from({ length: LIMITS.rowsPerCall + 1 }, (_, i) => ({ A: i }));
    const append = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: many });
    expect(append).toMatchObject({ code: "limit_exceeded", limit: "rows_per_call", max: LIMITS.rowsPerCall });
    expect(append.message).toContain(`rows holds ${LIMITS.rowsPerCall + 1} rows`);
    const create = await refused(noteId, "create_note_tab", { ...write(noteId, version, "k"), tab_type: "sheet", columns: ["A"], rows: many });
    expect(create).toMatchObject({ code: "limit_exceeded", limit: "rows_per_call", max: LIMITS.rowsPerCall });

    const long = "x".repeat(LIMITS.cellLength + 1);
    const longRow = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: [{ A: 1 }, { B: long }] });
    expect(longRow).toMatchObject({ code: "limit_exceeded", limit: "cell_length", max: LIMITS.cellLength });
    expect(longRow.message).toContain(`rows[1].B holds ${LIMITS.cellLength + 1} UTF-16 code units`);
    const longCell = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "row_update", row_id: ids[0], cells: { A: long } });
    expect(longCell).toMatchObject({ code: "limit_exceeded", limit: "cell_length", max: LIMITS.cellLength });
    expect(longCell.message).toContain("cells.A holds");
    // A malformed argument beside a passed limit: the mistake is told first, naming the field.
    const both = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: [{ A: long }, { B: true }] });
    expect(both).toMatchObject({ code: "invalid_arguments", issues: [{ path: "rows[1].B" }] });
    const emptyList = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "rows_append", rows: [] });
    expect(emptyList.issues).toEqual([{ path: "rows", problem: "at least 1 item" }]);

    // Exactly at the limits is fine.
    const full = await ok("edit_note_tab", {
      ...write(noteId, version, "full"),
      tab_id: tabId,
      operation: "rows_append",
      rows: Array.from({ length: LIMITS.rowsPerCall }, (_, i) => (i === 0 ? { A: "y".repeat(LIMITS.cellLength) } : { B: i })),
    });
    expect(full.row_count).toBe(1 + LIMITS.rowsPerCall);
    const first = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 2 });
    expect(first.rows[1].cells.A).toHaveLength(LIMITS.cellLength);
  });

  it(`a Sheet holds at most ${LIMITS.columnsPerSheet} columns: more is limit_exceeded naming columns_per_sheet`, async () => {
    const names = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `C${from + i}`);
    const { noteId, tabId, version } = await newSheet(names(LIMITS.columnsPerSheet - 2));
    const over = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "k"), tab_id: tabId, operation: "columns_add", columns: names(3, 100) });
    expect(over).toMatchObject({ code: "limit_exceeded", limit: "columns_per_sheet", max: LIMITS.columnsPerSheet });
    const to50 = await ok("edit_note_tab", { ...write(noteId, version, "two"), tab_id: tabId, operation: "columns_add", columns: names(2, 100) });
    expect(to50.columns).toHaveLength(LIMITS.columnsPerSheet);
    const one = await refused(noteId, "edit_note_tab", { ...write(noteId, to50.version, "k"), tab_id: tabId, operation: "columns_add", columns: ["One more"] });
    expect(one).toMatchObject({ code: "limit_exceeded", limit: "columns_per_sheet", max: LIMITS.columnsPerSheet });
    // More than a Sheet may hold in one list is refused before the Sheet is looked at.
    const list = await refused(noteId, "create_note_tab", { ...write(noteId, to50.version, "k"), tab_type: "sheet", columns: names(LIMITS.columnsPerSheet + 1) });
    expect(list).toMatchObject({ code: "limit_exceeded", limit: "columns_per_sheet", max: LIMITS.columnsPerSheet });
    // A full row of 50 cells is a row.
    const row = Object.fromEntries(to50.columns.map((name: string, i: number) => [name, i]));
    const appended = await ok("edit_note_tab", { ...write(noteId, to50.version, "row"), tab_id: tabId, operation: "rows_append", rows: [row] });
    expect((await ok("read_note_tab", { note_id: noteId, tab_id: tabId })).rows).toEqual([{ id: appended.row_ids[0], index: 0, cells: row }]);
  });

  it(`a Sheet holds at most ${LIMITS.rowsPerSheet} rows: more is limit_exceeded naming rows_per_sheet`, async () => {
    const { noteId, tabId, version } = await newSheet(["N"]);
    const append = async (current: number, from: number, count: number) => {
      const rows = Array.from({ length: count }, (_, i) => ({ N: from + i }));
      return (await ok("edit_note_tab", { ...write(noteId, current, `rows-${from}`), tab_id: tabId, operation: "rows_append", rows })).version as number;
    };
    let current = version;
    let count = 0;
    // 100 rows short of room for a whole call.
    const nearlyFull = LIMITS.rowsPerSheet - LIMITS.rowsPerCall + 100;
    while (count < nearlyFull) {
      const adding = Math.min(LIMITS.rowsPerCall, nearlyFull - count);
      current = await append(current, count, adding);
      count += adding;
    }
    // A call that would pass the limit is refused whole, not cut short.
    const tooMany = Array.from({ length: LIMITS.rowsPerCall }, (_, i) => ({ N: count + i }));
    const over = await refused(noteId, "edit_note_tab", { ...write(noteId, current, "over"), tab_id: tabId, operation: "rows_append", rows: tooMany });
    expect(over).toMatchObject({ code: "limit_exceeded", limit: "rows_per_sheet", max: LIMITS.rowsPerSheet });
    expect(over.message).toContain(`has ${count} rows; ${LIMITS.rowsPerCall} more would pass the limit`);
    current = await append(current, count, LIMITS.rowsPerSheet - count);
    const full = await ok("list_note_tabs", { note_id: noteId });
    expect(full.tabs.at(-1)).toMatchObject({ id: tabId, row_count: LIMITS.rowsPerSheet });
    const one = await refused(noteId, "edit_note_tab", { ...write(noteId, current, "one"), tab_id: tabId, operation: "rows_append", rows: [{ N: 0 }] });
    expect(one).toMatchObject({ code: "limit_exceeded", limit: "rows_per_sheet", max: LIMITS.rowsPerSheet });

    // Every row once, in order, across 20 pages of 500.
    const { rows, pages } = await rowsOf(noteId, tabId, LIMITS.rowsPageSize);
    expect(pages).toBe(LIMITS.rowsPerSheet / LIMITS.rowsPageSize);
    expect(rows.map((row) => row.cells.N)).toEqual(Array.from({ length: LIMITS.rowsPerSheet }, (_, i) => i));
    expect(new Set(rows.map((row) => row.id)).size).toBe(LIMITS.rowsPerSheet);
  });

  it("odd values: huge and tiny numbers and -0 are kept as JSON has them; 1e999, lone surrogates and control characters are refused", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A", "B", "C", "D", "E"], [{ A: "start" }]);
    const numbers = { A: 1e308, B: -Number.MAX_VALUE, C: 5e-324, D: 2 ** 53 + 2, E: 123456789012345678901234567890 };
    const appended = await ok("edit_note_tab", { ...write(noteId, version, "numbers"), tab_id: tabId, operation: "rows_append", rows: [numbers] });
    // -0 can only be spelled in raw JSON; it is stored as JSON keeps it: 0.
    const zero = await rawTool(
      "edit_note_tab",
      `{"note_id":"${noteId}","expected_version":${appended.version},"idempotency_key":"zero","tab_id":"${tabId}","operation":"row_update","row_id":"${ids[0]}","cells":{"B":-0,"C":-0.0e5}}`,
    );
    expect(zero.isError).toBe(false);
    const text = { A: "tab\tand\nnewline", B: "", C: "\u{1F600} emoji", D: "  spaces kept  " };
    const texts = await ok("edit_note_tab", { ...write(noteId, zero.data.version, "texts"), tab_id: tabId, operation: "rows_append", rows: [text] });
    const { rows } = await rowsOf(noteId, tabId);
    expect(rows).toEqual([
      { id: ids[0], index: 0, cells: { A: "start", B: 0, C: 0 } },
      { id: appended.row_ids[0], index: 1, cells: numbers },
      { id: texts.row_ids[0], index: 2, cells: text },
    ]);
    expect(Object.is(rows[0].cells.B, 0)).toBe(true);

    const base = { ...write(noteId, texts.version, "odd"), tab_id: tabId };
    // JSON has no Infinity, but 1e999 parses as one.
    const infinite = await rawTool("edit_note_tab", JSON.stringify({ ...base, operation: "rows_append", rows: [{ A: 1 }] }).replace('"A":1', '"A":1e999'));
    expect(infinite.isError).toBe(true);
    expect(infinite.data).toMatchObject({ code: "invalid_arguments", issues: [{ path: "rows[0].A", problem: "must be text or a finite number" }] });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ operation: "rows_append", rows: [{ A: "a\ud800b" }] }, "rows[0].A", "must be well-formed Unicode (a lone surrogate at index 1)"],
      [{ operation: "row_update", row_id: ids[0], cells: { B: "\udc00" } }, "cells.B", "must be well-formed Unicode (a lone surrogate at index 0)"],
      [{ operation: "columns_add", columns: ["X\ud83d"] }, "columns[0]", "must be well-formed Unicode (a lone surrogate at index 1)"],
      [{ operation: "rows_append", rows: [{ A: "bell\u0007" }] }, 'rows[0].A', "must not contain control characters (U+0007 at index 4)"],
      [{ operation: "row_update", row_id: ids[0], cells: { A: "\u0000" } }, 'cells.A', "must not contain control characters (U+0000 at index 0)"],
      [{ operation: "row_update", row_id: ids[0], cells: {} }, "cells", "at least one cell"],
      [{ operation: "rows_append", rows: [{ A: 1 }, {}] }, "rows[1]", "at least one cell"],
      [{ operation: "rows_append", rows: [{ A: true }] }, "rows[0].A", "must be text or a finite number"],
      [{ operation: "rows_append", rows: [{ A: { value: 1 } }] }, "rows[0].A", "must be text or a finite number"],
      [{ operation: "row_update", row_id: ids[0], cells: { A: [1] } }, "cells.A", "must be text, a finite number, or null to empty the cell"],
      [{ operation: "row_update", row_id: ids[0], cells: "A=1" }, "cells", "expected object"],
    ];
    for (const [edit, path, problem] of cases) {
      const error = await refused(noteId, "edit_note_tab", { ...base, ...edit });
      expect(error, JSON.stringify(edit)).toMatchObject({ code: "invalid_arguments" });
      expect(error.issues, JSON.stringify(edit)).toContainEqual({ path, problem });
    }
    // A cell named with a lone surrogate is no column (nor is a name longer than any column's); the path spells the name as JSON, so it stays well-formed text.
    const oddKey = await refused(noteId, "edit_note_tab", { ...base, operation: "row_update", row_id: ids[0], cells: { "\ud800": 1 } });
    expect(oddKey.issues).toEqual([{ path: 'cells["\\ud800"]', problem: 'no column "\\ud800" in this Sheet; its columns are "A", "B", "C", "D", "E"' }]);
    const longName = "k".repeat(LIMITS.columnNameLength + 1);
    const longKey = await refused(noteId, "edit_note_tab", { ...base, operation: "row_update", row_id: ids[0], cells: { [longName]: 1 } });
    expect(longKey.issues).toEqual([{ path: `cells.${longName}`, problem: `is no column name (at most ${LIMITS.columnNameLength} UTF-16 code units)` }]);
  });

  it('a cell or column named "__proto__" is refused at the edge, naming where', async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A"], [{ A: 1 }]);
    const common = `"note_id":"${noteId}","expected_version":${version},"idempotency_key":"proto","tab_id":"${tabId}"`;
    const cases: [string, string, string][] = [
      ["edit_note_tab", `{${common},"operation":"row_update","row_id":"${ids[0]}","cells":{"__proto__":"x"}}`, "cells.__proto__"],
      ["edit_note_tab", `{${common},"operation":"rows_append","rows":[{"A":1},{"A":2,"__proto__":3}]}`, "rows[1].__proto__"],
      ["create_note_tab", `{"note_id":"${noteId}","expected_version":${version},"idempotency_key":"proto","tab_type":"sheet","columns":["A"],"rows":[{"__proto__":"x"}]}`, "rows[0].__proto__"],
    ];
    for (const [name, args, path] of cases) {
      const before = await dump(noteId);
      const answer = await rawTool(name, args);
      expect(answer.isError, args).toBe(true);
      expect(answer.data).toMatchObject({ code: "invalid_arguments", issues: [{ path, problem: 'nothing can be named "__proto__"' }] });
      expect(await dump(noteId)).toBe(before);
    }
    const column = await refused(noteId, "edit_note_tab", { ...write(noteId, version, "proto"), tab_id: tabId, operation: "columns_add", columns: ["__proto__"] });
    expect(column.issues).toEqual([{ path: "columns[0]", problem: 'cannot be "__proto__"' }]);
    const onCreate = await refused(noteId, "create_note_tab", { ...write(noteId, version, "proto"), tab_type: "sheet", columns: ["A", "__proto__"] });
    expect(onCreate.issues).toEqual([{ path: "columns[1]", problem: 'cannot be "__proto__"' }]);
    // Other names of Object's own properties are plain columns.
    const plain = await ok("edit_note_tab", { ...write(noteId, version, "plain"), tab_id: tabId, operation: "columns_add", columns: ["constructor", "toString", "hasOwnProperty"] });
    const row = await ok("edit_note_tab", { ...write(noteId, plain.version, "plain-row"), tab_id: tabId, operation: "rows_append", rows: [{ constructor: "c", toString: 1 }] });
    expect((await rowsOf(noteId, tabId)).rows[1]).toEqual({ id: row.row_ids[0], index: 1, cells: { constructor: "c", toString: 1 } });
  });
});

describe("a resend after a lost answer gets the first result, for every new operation", () => {
  /** A Note with a deck of 3 slides and a Sheet of 3 rows (columns A, B); every ID and the version. */
  async function setUp() {
    const deck = await newDeck(3);
    const sheet = await newSheet(["A", "B"], [{ A: "a1", B: 1 }, { A: "a2", B: 2 }, { A: "a3", B: 3 }], { noteId: deck.noteId, version: deck.version });
    return { noteId: deck.noteId, deck: deck.tabId, slides: deck.ids, sheet: sheet.tabId, rows: sheet.ids, version: sheet.version };
  }

  type Note = Awaited<ReturnType<typeof setUp>>;
  /** Each operation: its call, the same intent with other arguments, and a later write that moves the Note on (over the same slide or row, where it has one). */
  const cases: Record<string, (n: Note) => { tool: string; call: Record<string, unknown>; differs: Record<string, unknown>; later: Record<string, unknown> }> = {
    "create_note_tab with a Sheet": (n) => ({
      tool: "create_note_tab",
      call: { tab_type: "sheet", label: "Budget", columns: ["Item", "Cost"], rows: [{ Item: "Rent", Cost: 900 }] },
      differs: { tab_type: "sheet", label: "Budget", columns: ["Item", "Cost"], rows: [{ Item: "Rent", Cost: 950 }] },
      later: { tool: "edit_note_tab", tab_id: n.sheet, operation: "rows_append", rows: [{ A: "later" }] },
    }),
    slide_update: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.deck, operation: "slide_update", slide_id: n.slides[1], body: "Fixed" },
      differs: { tab_id: n.deck, operation: "slide_update", slide_id: n.slides[1], body: "Fixed twice" },
      later: { tool: "edit_note_tab", tab_id: n.deck, operation: "slide_delete", slide_id: n.slides[1] },
    }),
    slide_delete: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.deck, operation: "slide_delete", slide_id: n.slides[1] },
      differs: { tab_id: n.deck, operation: "slide_delete", slide_id: n.slides[2] },
      later: { tool: "edit_note_tab", tab_id: n.deck, operation: "slide_add", title: "Later" },
    }),
    rows_append: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.sheet, operation: "rows_append", rows: [{ A: "new", B: 4 }, { B: 5 }] },
      differs: { tab_id: n.sheet, operation: "rows_append", rows: [{ A: "new", B: 4 }, { B: "5" }] },
      later: { tool: "edit_note_tab", tab_id: n.sheet, operation: "row_delete", row_id: n.rows[0] },
    }),
    row_update: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.sheet, operation: "row_update", row_id: n.rows[1], cells: { A: "changed", B: null } },
      differs: { tab_id: n.sheet, operation: "row_update", row_id: n.rows[1], cells: { A: "changed" } },
      later: { tool: "edit_note_tab", tab_id: n.sheet, operation: "row_delete", row_id: n.rows[1] },
    }),
    row_delete: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.sheet, operation: "row_delete", row_id: n.rows[1] },
      differs: { tab_id: n.sheet, operation: "row_delete", row_id: n.rows[2] },
      later: { tool: "edit_note_tab", tab_id: n.sheet, operation: "columns_add", columns: ["C"] },
    }),
    columns_add: (n) => ({
      tool: "edit_note_tab",
      call: { tab_id: n.sheet, operation: "columns_add", columns: ["C"] },
      differs: { tab_id: n.sheet, operation: "columns_add", columns: ["D"] },
      later: { tool: "edit_note_tab", tab_id: n.sheet, operation: "columns_add", columns: ["E"] },
    }),
  };

  it.each(Object.keys(cases))("%s: the same call resent with its stale version replays the first result and writes nothing; other arguments are told apart", async (name) => {
    const note = await setUp();
    const { tool, call, differs, later } = (cases[name] as (n: Note) => ReturnType<(typeof cases)[string]>)(note);
    const first = await ok(tool, { ...write(note.noteId, note.version, "the-intent"), ...call });
    expect(first).toMatchObject({ version: note.version + 1, replayed: false, arguments_differ: false });

    // The answer was lost; meanwhile the Note moved on.
    const { tool: laterTool, ...laterCall } = later;
    const moved = await ok(laterTool as string, { ...write(note.noteId, first.version, "later"), ...laterCall });
    const before = await dump(note.noteId);

    const resent = await ok(tool, { ...write(note.noteId, note.version, "the-intent"), ...call });
    // The first call's result, and where the Note is now.
    expect(resent).toEqual({ ...first, replayed: true, current_version: moved.version });
    // A resend with a fresh version is the same intent too.
    expect(await ok(tool, { ...write(note.noteId, moved.version, "the-intent"), ...call })).toEqual({ ...first, replayed: true, current_version: moved.version });
    const other = await ok(tool, { ...write(note.noteId, note.version, "the-intent"), ...differs });
    expect(other).toEqual({ ...first, replayed: true, arguments_differ: true, current_version: moved.version });
    expect(await dump(note.noteId)).toBe(before);
    expect(await versionOf(note.noteId)).toBe(moved.version);
  });

  it("a resent row's cells in another order are the same arguments", async () => {
    const note = await setUp();
    const call = { ...write(note.noteId, note.version, "order"), tab_id: note.sheet, operation: "rows_append", rows: [{ A: "x", B: 1 }] };
    const first = await ok("edit_note_tab", call);
    const resent = await ok("edit_note_tab", { ...call, rows: [{ B: 1, A: "x" }] });
    expect(resent).toEqual({ ...first, replayed: true, arguments_differ: false, current_version: first.version });
    const update = { ...write(note.noteId, first.version, "cells-order"), tab_id: note.sheet, operation: "row_update", row_id: note.rows[0], cells: { A: "y", B: null } };
    const updated = await ok("edit_note_tab", update);
    expect(await ok("edit_note_tab", { ...update, cells: { B: null, A: "y" } })).toEqual({ ...updated, replayed: true, arguments_differ: false, current_version: updated.version });
    // A number and the same digits as text are different cells.
    expect(await ok("edit_note_tab", { ...call, rows: [{ A: "x", B: "1" }] })).toMatchObject({ replayed: true, arguments_differ: true });
  });

  it("a refused call uses up no key: resent once the Note allows it, it writes", async () => {
    const note = await setUp();
    const call = { ...write(note.noteId, note.version, "retry"), tab_id: note.sheet, operation: "rows_append", rows: [{ C: 1 }] };
    expect(await refused(note.noteId, "edit_note_tab", call)).toMatchObject({ code: "invalid_arguments" });
    const cols = await ok("edit_note_tab", { ...write(note.noteId, note.version, "add-c"), tab_id: note.sheet, operation: "columns_add", columns: ["C"] });
    const stale = await refused(note.noteId, "edit_note_tab", call);
    expect(stale).toMatchObject({ code: "version_conflict", expected_version: note.version, current_version: cols.version });
    const done = await ok("edit_note_tab", { ...call, expected_version: cols.version });
    expect(done).toMatchObject({ replayed: false, row_count: 4, version: cols.version + 1 });
  });
});

describe("reading a Sheet in pages", () => {
  it("every row once, in order, with continuous indexes, whatever the page size", async () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({ N: i, Label: `row ${i}` }));
    const first = await newSheet(["N", "Label"], rows.slice(0, LIMITS.rowsPerCall));
    expect(first.ids).toHaveLength(250);
    for (const limit of [undefined, 7, 100, 249, 250, LIMITS.rowsPageSize]) {
      const read = await rowsOf(first.noteId, first.tabId, limit);
      expect(read.rows.map((row) => row.id), String(limit)).toEqual(first.ids);
      expect(read.rows.map((row) => row.cells)).toEqual(rows);
      expect(read.pages, String(limit)).toBe(Math.max(1, Math.ceil(250 / (limit ?? LIMITS.rowsPageDefault))));
    }
  });

  it("a row deleted or added between two pages is neither repeated nor skipped over", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["N"], Array.from({ length: 30 }, (_, i) => ({ N: i })));
    const page1 = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 10 });
    const dropRead = await ok("edit_note_tab", { ...write(noteId, version, "d1"), tab_id: tabId, operation: "row_delete", row_id: ids[3] });
    const dropUnread = await ok("edit_note_tab", { ...write(noteId, dropRead.version, "d2"), tab_id: tabId, operation: "row_delete", row_id: ids[15] });
    const added = await ok("edit_note_tab", { ...write(noteId, dropUnread.version, "a"), tab_id: tabId, operation: "rows_append", rows: [{ N: 30 }] });
    const page2 = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 10, cursor: page1.next_cursor });
    const page3 = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 10, cursor: page2.next_cursor });
    expect(page3.next_cursor).toBeNull();
    const seen = [...page1.rows, ...page2.rows, ...page3.rows];
    expect(seen.map((row: { id: string }) => row.id)).toEqual([...ids.slice(0, 15), ...ids.slice(16), added.row_ids[0]]);
    expect(seen.map((row: { index: number }) => row.index)).toEqual(seen.map((_: unknown, i: number) => i));
  });

  it("a cursor of another tab, of a deck, of another Note or edited is refused, naming cursor", async () => {
    const sheet = await newSheet(["N"], Array.from({ length: 5 }, (_, i) => ({ N: i })));
    const other = await newSheet(["N"], Array.from({ length: 5 }, (_, i) => ({ N: i })), { noteId: sheet.noteId, version: sheet.version });
    const deck = await ok("create_note_tab", { ...write(sheet.noteId, other.version, "deck"), tab_type: "slides", slides: [{ title: "1" }, { title: "2" }] });
    const elsewhere = await newSheet(["N"], [{ N: 0 }, { N: 1 }]);
    const cursorOf = async (noteId: string, tabId: string) => (await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 1 })).next_cursor as string;
    const sheetCursor = await cursorOf(sheet.noteId, sheet.tabId);
    const cases: [string, string][] = [
      [other.tabId, sheetCursor],
      [sheet.tabId, await cursorOf(sheet.noteId, other.tabId)],
      [sheet.tabId, await cursorOf(sheet.noteId, deck.tab_id)],
      [deck.tab_id, sheetCursor],
      [sheet.tabId, await cursorOf(elsewhere.noteId, elsewhere.tabId)],
      [sheet.tabId, `${sheetCursor.slice(0, -2)}${sheetCursor.endsWith("A") ? "B" : "A"}${sheetCursor.at(-1)}`],
    ];
    for (const [tabId, cursor] of cases) {
      const error = await failure("read_note_tab", { note_id: sheet.noteId, tab_id: tabId, cursor });
      expect(error, `${tabId} ${cursor}`).toMatchObject({ code: "invalid_arguments", issues: [{ path: "cursor" }] });
      expect(error.issues[0].problem).toContain("not a cursor read_note_tab issued for this tab");
    }
    // The cursor still works where it came from.
    expect((await ok("read_note_tab", { note_id: sheet.noteId, tab_id: sheet.tabId, limit: 1, cursor: sheetCursor })).rows[0].index).toBe(1);
  });

  it(`limit: up to ${LIMITS.slidesPageSize} slides of a deck, up to ${LIMITS.rowsPageSize} rows of a Sheet`, async () => {
    const { noteId, tabId, version } = await newDeck(3);
    const sheet = await newSheet(["N"], [{ N: 1 }], { noteId, version });
    const deck = await failure("read_note_tab", { note_id: noteId, tab_id: tabId, limit: LIMITS.slidesPageSize + 1 });
    expect(deck).toMatchObject({ code: "invalid_arguments", issues: [{ path: "limit", problem: `must be at most ${LIMITS.slidesPageSize} for a slides tab` }] });
    expect((await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: LIMITS.slidesPageSize })).slides).toHaveLength(3);
    expect((await ok("read_note_tab", { note_id: noteId, tab_id: sheet.tabId, limit: LIMITS.rowsPageSize })).rows).toHaveLength(1);
    const over = await failure("read_note_tab", { note_id: noteId, tab_id: sheet.tabId, limit: LIMITS.rowsPageSize + 1 });
    expect(over).toMatchObject({ code: "invalid_arguments", issues: [{ path: "limit", problem: `at most ${LIMITS.rowsPageSize}` }] });
    const zero = await failure("read_note_tab", { note_id: noteId, tab_id: sheet.tabId, limit: 0 });
    expect(zero.issues).toEqual([{ path: "limit", problem: "at least 1" }]);
    const markdown = await failure("read_note_tab", { note_id: noteId, tab_id: "markdown", limit: 10 });
    expect(markdown.issues).toEqual([{ path: "limit", problem: "pages a slides or Sheet tab only; a markdown tab is read whole" }]);
  });

  it(`a page stops early once its text passes ${LIMITS.pageChars.toLocaleString("en")} characters, and the next pages go on from there`, async () => {
    const columns = Array.from({ length: 10 }, (_, i) => `C${i}`);
    const { noteId, tabId, version } = await newSheet(columns);
    // Rows of 10 cells of 2,000 characters: about 20,000 characters of cells each, 10 rows a call within the request size.
    const rowOf = (n: number) => Object.fromEntries(columns.map((c) => [c, `${n}:${c}:`.padEnd(LIMITS.cellLength, "x")]));
    const total = 30;
    let current = version;
    for (let start = 0; start < total; start += 10) {
      const rows = Array.from({ length: 10 }, (_, i) => rowOf(start + i));
      current = (await ok("edit_note_tab", { ...write(noteId, current, `big-${start}`), tab_id: tabId, operation: "rows_append", rows })).version;
    }
    const size = (row: { cells: unknown }) => JSON.stringify(row.cells).length;
    const all: { index: number; cells: unknown }[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: LIMITS.rowsPageSize, cursor });
      const chars = page.rows.reduce((sum: number, row: { cells: unknown }) => sum + size(row), 0);
      expect(chars).toBeLessThanOrEqual(LIMITS.pageChars);
      // One row more would have passed the limit.
      if (page.next_cursor !== null) expect(chars + size({ cells: rowOf(all.length + page.rows.length) })).toBeGreaterThan(LIMITS.pageChars);
      all.push(...page.rows);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(all.length).toBe(total);
    expect(all.map((row) => row.index)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(all.map((row) => row.cells)).toEqual(Array.from({ length: total }, (_, i) => rowOf(i)));

    // A deck of long slides: 20,300 characters each, so a page of 50 holds a dozen.
    const deck = await newNote();
    const long = (n: number) => ({ title: `S${n}`.padEnd(LIMITS.slideTitleLength, "t"), body: "b".repeat(LIMITS.slideBodyLength), notes: "n".repeat(LIMITS.slideNotesLength) });
    // Ten a call: a request is at most 256 KiB.
    const created = await ok("create_note_tab", { note_id: deck.noteId, expected_version: deck.version, idempotency_key: "long", tab_type: "slides", slides: Array.from({ length: 10 }, (_, i) => long(i)) });
    const more = await ok("edit_note_tab", { note_id: deck.noteId, expected_version: created.version, idempotency_key: "more", tab_id: created.tab_id, operation: "slides_add_outline", slides: Array.from({ length: 10 }, (_, i) => long(10 + i)) });
    created.slide_ids.push(...more.slide_ids);
    const first = await ok("read_note_tab", { note_id: deck.noteId, tab_id: created.tab_id });
    const slideChars = (s: { title: string; body: string; notes: string }) => s.title.length + s.body.length + s.notes.length;
    expect(first.slides.length).toBe(Math.floor(LIMITS.pageChars / slideChars(long(0))));
    const rest = await ok("read_note_tab", { note_id: deck.noteId, tab_id: created.tab_id, cursor: first.next_cursor });
    expect([...first.slides, ...rest.slides].map((s: { id: string }) => s.id)).toEqual(created.slide_ids);
    expect(rest.next_cursor).toBeNull();
  });
});

describe("review findings", () => {
  it("a row appended at the key of the cursor's deleted last row is on the next page, not hidden", async () => {
    const { noteId, tabId, ids, version } = await newSheet(["A"], [{ A: 1 }, { A: 2 }, { A: 3 }]);
    const first = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 2 });
    expect(first.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    let current = version;
    for (const id of [ids[2], ids[1]]) current = (await ok("edit_note_tab", { note_id: noteId, expected_version: current, idempotency_key: `del-${id}`, tab_id: tabId, operation: "row_delete", row_id: id })).version;
    // Appended after the last row left (row 1), the new row takes the key row 2 had: the cursor's key.
    const added = await ok("edit_note_tab", { note_id: noteId, expected_version: current, idempotency_key: "add", tab_id: tabId, operation: "rows_append", rows: [{ A: 4 }] });
    const next = await ok("read_note_tab", { note_id: noteId, tab_id: tabId, limit: 2, cursor: first.next_cursor });
    expect(next.rows.map((r: { id: string; cells: unknown }) => [r.id, r.cells])).toEqual([[added.row_ids[0], { A: 4 }]]);
  });

  it("an agent's edit that changes nothing keeps the version and changes no content; its key still gives the first result back after the Note moved on", async () => {
    const { noteId, tabId, ids, version } = await newDeck(3);
    const slides = async () => (await ok("read_note_tab", { note_id: noteId, tab_id: tabId })).slides;
    const before = await slides();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "same", tab_id: tabId, operation: "slide_update", slide_id: ids[1], body: "Body 2" };
    const same = await ok("edit_note_tab", call);
    expect(same).toMatchObject({ version, replayed: false, slide_ids: [ids[1]], slide_count: 3 });
    expect(await slides()).toEqual(before);
    expect(await versionOf(noteId)).toBe(version);
    // Another write moves the Note on; the resend (its answer lost) still gets the first result, not a conflict.
    const other = await ok("edit_note_tab", { ...call, idempotency_key: "other", slide_id: ids[0], body: "changed" });
    expect(await ok("edit_note_tab", call)).toEqual({ ...same, replayed: true, current_version: other.version });
    const sheet = await newSheet(["A"], [{ A: 1 }]);
    const cells = await ok("edit_note_tab", { note_id: sheet.noteId, expected_version: sheet.version, idempotency_key: "same", tab_id: sheet.tabId, operation: "row_update", row_id: sheet.ids[0], cells: { A: 1 } });
    expect(cells).toMatchObject({ version: sheet.version, row_ids: sheet.ids });
    expect(await versionOf(sheet.noteId)).toBe(sheet.version);
  });
});

describe("column names a model can copy exactly", () => {
  it("refuses a name not in NFC form or holding zero-width or direction marks, naming each; accepts NFC, emoji sequences and other scripts", async () => {
    const { noteId, tabId, version } = await newSheet(["A"]);
    const error = await refused(noteId, "edit_note_tab", {
      ...write(noteId, version, "odd"),
      tab_id: tabId,
      operation: "columns_add",
      columns: ["e\u0301", "a\u200bb", "\u202eevil", "ok"],
    });
    expect(error.issues).toEqual([
      { path: "columns[0]", problem: 'must be in Unicode NFC form ("\u00e9")' },
      { path: "columns[1]", problem: "must not contain zero-width or text-direction characters" },
      { path: "columns[2]", problem: "must not contain zero-width or text-direction characters" },
    ]);
    const added = await ok("edit_note_tab", { ...write(noteId, version, "fine"), tab_id: tabId, operation: "columns_add", columns: ["\u00e9", "\u{1F469}\u200d\u{1F4BB}", "שם", "名前"] });
    expect(added.columns).toEqual(["A", "\u00e9", "\u{1F469}\u200d\u{1F4BB}", "שם", "名前"]);
  });
});
