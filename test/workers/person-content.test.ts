/**
 * The person's edits of a tab's content through /api/v1 (issue 12): slides and
 * rows added, changed, moved and deleted by exact ID, each one version bump;
 * a change that changes nothing commits nothing; a refused one leaves the Note
 * byte-identical.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";
import { dumpDatabase } from "../support/dump.js";
import { api, type ApiAnswer, fetchWorker, newNote, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("app"));

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));
/** The order keys of a tab's slides or rows by ID, as stored: what tells a re-keyed tab. */
const keysOf = (noteId: string, table: "slides" | "sheet_rows") =>
  runInDurableObject(stubOf(noteId), (_instance, state) =>
    Object.fromEntries(state.storage.sql.exec<{ id: string; idx: number }>(`SELECT id, idx FROM ${table}`).toArray().map((r) => [r.id, r.idx])),
  );
const versionOf = async (noteId: string): Promise<number> => (await api("GET", `/notes/${noteId}`)).body.version;

/** A fresh Note with a deck of `count` slides ("S0", "S1", ...): its IDs, the tab's, the slides' and the version. */
async function deck(count: number): Promise<{ noteId: string; tab: string; ids: string[]; version: number }> {
  const { noteId } = await newNote();
  const tab = (await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "Deck" })).body.tab.id as string;
  const ids: string[] = [];
  for (let from = 0; from < count; from += 20) {
    const slides = Array.from({ length: Math.min(20, count - from) }, (_, i) => ({ title: `S${from + i}` }));
    const added = await api("POST", `/notes/${noteId}/tabs/${tab}/slides`, { slides });
    expect(added.status).toBe(201);
    ids.push(...added.body.slide_ids);
  }
  return { noteId, tab, ids, version: await versionOf(noteId) };
}

/** A fresh Note with a Sheet of columns "name" and "n" and `count` rows ({name: "R0", n: 0}, ...). */
async function sheet(count: number): Promise<{ noteId: string; tab: string; ids: string[]; version: number }> {
  const { noteId } = await newNote();
  const tab = (await api("POST", `/notes/${noteId}/tabs`, { tab_type: "sheet", label: "Sheet" })).body.tab.id as string;
  expect((await api("POST", `/notes/${noteId}/tabs/${tab}/columns`, { columns: ["name", "n"] })).status).toBe(201);
  const rows = Array.from({ length: count }, (_, i) => ({ name: `R${i}`, n: i }));
  const added = await api("POST", `/notes/${noteId}/tabs/${tab}/rows`, { rows });
  expect(added.status).toBe(201);
  return { noteId, tab, ids: added.body.row_ids, version: await versionOf(noteId) };
}

/** Every slide or row of the tab in order, read page by page through GET .../tabs/:tab. */
async function readAll(noteId: string, tab: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = await api("GET", `/notes/${noteId}/tabs/${tab}${query}`);
    expect(page.status).toBe(200);
    items.push(...(page.body.slides ?? page.body.rows));
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return items;
}

const slideOrder = async (noteId: string, tab: string) => (await readAll(noteId, tab, 50)).map((s) => s.id as string);
const rowOrder = async (noteId: string, tab: string) => (await readAll(noteId, tab, 500)).map((r) => r.id as string);

/** `ids` with `id` moved to right after `after` (null: first), as the person's move should leave them. */
function moved(ids: readonly string[], id: string, after: string | null): string[] {
  const rest = ids.filter((x) => x !== id);
  rest.splice(after === null ? 0 : rest.indexOf(after) + 1, 0, id);
  return rest;
}

/** Sends a refused request and checks that the Note is byte-identical after it; returns the answer. */
async function refused(noteId: string, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const before = await dump(noteId);
  const answer = await api(method, path, body);
  expect(answer.status, `${method} ${path} ${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(500);
  expect(await dump(noteId)).toBe(before);
  return answer;
}

describe("the person's slide edits", () => {
  it("adds, updates and deletes a slide by ID, each one version bump answering the slide's ID and the tab", async () => {
    const { noteId, tab, ids, version } = await deck(3);
    const added = await api("POST", `/notes/${noteId}/tabs/${tab}/slides`, { slides: [{ title: "S3", body: "b", notes: "n" }], expected_version: version });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ note_id: noteId, version: version + 1, tab: { id: tab, type: "slides", slide_count: 4 } });
    expect(added.body.slide_ids).toHaveLength(1);
    expect(ids).not.toContain(added.body.slide_ids[0]);
    const all = [...ids, added.body.slide_ids[0] as string];

    const updated = await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${all[1]}`, { body: "new body", expected_version: version + 1 });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ note_id: noteId, version: version + 2, tab: expect.objectContaining({ id: tab, slide_count: 4 }), slide_ids: [all[1]] });

    const deleted = await api("DELETE", `/notes/${noteId}/tabs/${tab}/slides/${all[2]}?expected_version=${version + 2}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ note_id: noteId, version: version + 3, tab: expect.objectContaining({ id: tab, slide_count: 3 }), slide_ids: [all[2]] });

    const slides = await readAll(noteId, tab, 2);
    expect(slides.map((s) => [s.id, s.index, s.title, s.body, s.notes])).toEqual([
      [all[0], 0, "S0", "", ""],
      [all[1], 1, "S1", "new body", ""],
      [all[3], 2, "S3", "b", "n"],
    ]);
    expect(await versionOf(noteId)).toBe(version + 3);
  });

  it("an update to the text already there, or one leaving out every field it would change, commits nothing", async () => {
    const { noteId, tab, ids, version } = await deck(2);
    expect((await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${ids[0]}`, { title: "Hello", notes: "say hi" })).body.version).toBe(version + 1);
    const before = await dump(noteId);
    for (const same of [{ title: "Hello" }, { title: "  Hello  " }, { notes: "say hi", body: "" }, { title: "Hello", body: "", notes: "say hi" }]) {
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${ids[0]}`, same);
      expect({ same, status: answer.status, version: answer.body.version }).toEqual({ same, status: 200, version: version + 1 });
    }
    expect(await dump(noteId)).toBe(before);
  });

  it("moves a slide first, after another, and last, one bump each; a move to where it is commits nothing", async () => {
    const { noteId, tab, ids, version } = await deck(5);
    let order = [...ids];
    let expected = version;
    const moves: [string, string | null][] = [
      [ids[3] as string, null], // first
      [ids[0] as string, ids[4] as string], // last: after the last one
      [ids[4] as string, ids[1] as string], // after another, in the middle
    ];
    for (const [id, after] of moves) {
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${id}`, { after_id: after, expected_version: expected });
      expected += 1;
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ note_id: noteId, version: expected, tab: expect.objectContaining({ id: tab, slide_count: 5 }), slide_ids: [id] });
      order = moved(order, id, after);
      expect(await slideOrder(noteId, tab)).toEqual(order);
    }
    expect(order).toEqual([ids[3], ids[1], ids[4], ids[2], ids[0]]);

    const before = await dump(noteId);
    for (const [id, after] of [[order[0], null], [order[2], order[1]], [order[4], order[3]]] as [string, string | null][]) {
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${id}`, { after_id: after });
      expect({ id, status: answer.status, version: answer.body.version }).toEqual({ id, status: 200, version: expected });
    }
    expect(await dump(noteId)).toBe(before);
  });

  it("twelve moves into the same gap re-key the whole deck once: the order stays right and no slide's ID changes", async () => {
    const { noteId, tab, ids, version } = await deck(14);
    const first = await keysOf(noteId, "slides");
    let order = [...ids];
    let rekeyedAt: number | null = null;
    // Each move puts the last slide between S0 and the slide moved before it: the gap after S0 halves each time.
    for (let i = 1; i <= 13; i++) {
      const id = order.at(-1) as string;
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/slides/${id}`, { after_id: ids[0] });
      expect({ i, status: answer.status, version: answer.body.version, slide_ids: answer.body.slide_ids }).toEqual({ i, status: 200, version: version + i, slide_ids: [id] });
      order = moved(order, id, ids[0] as string);
      expect(await slideOrder(noteId, tab)).toEqual(order);
      // S0 was never moved: only a re-key gives it a new key.
      const keys = await keysOf(noteId, "slides");
      if (rekeyedAt === null && keys[ids[0] as string] !== first[ids[0] as string]) rekeyedAt = i;
      expect(Object.keys(keys).sort()).toEqual([...ids].sort());
    }
    // A gap of 1024 takes ten halvings; the eleventh move into it finds no free key.
    expect(rekeyedAt).toBe(11);
    const read = await readAll(noteId, tab, 5);
    expect(read.map((s) => [s.id, s.title])).toEqual(order.map((id) => [id, `S${ids.indexOf(id)}`]));
  });

  it("refuses a slide moved after itself, naming after_id, and leaves the Note byte-identical", async () => {
    const { noteId, tab, ids } = await deck(3);
    const answer = await refused(noteId, "PATCH", `/notes/${noteId}/tabs/${tab}/slides/${ids[1]}`, { after_id: ids[1] });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "after_id", problem: expect.stringContaining("names the item being moved") }] });
  });
});

describe("the person's Sheet edits", () => {
  it("adds columns and rows, updates and deletes a row, each one version bump answering the rows' IDs and the tab", async () => {
    const { noteId } = await newNote();
    const created = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "sheet", label: "Sheet" });
    const tab = created.body.tab.id as string;
    let version = created.body.version as number;

    const columns = await api("POST", `/notes/${noteId}/tabs/${tab}/columns`, { columns: ["name", "n"], expected_version: version });
    expect(columns.status).toBe(201);
    expect(columns.body).toMatchObject({ note_id: noteId, version: ++version, tab: { id: tab, type: "sheet", column_count: 2, row_count: 0 }, row_ids: [] });

    const rows = await api("POST", `/notes/${noteId}/tabs/${tab}/rows`, { rows: [{ name: "a", n: 1 }, { n: 2 }, { name: "c" }], expected_version: version });
    expect(rows.status).toBe(201);
    expect(rows.body).toMatchObject({ note_id: noteId, version: ++version, tab: { id: tab, row_count: 3, column_count: 2 } });
    const ids = rows.body.row_ids as string[];
    expect(new Set(ids).size).toBe(3);

    const updated = await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${ids[1]}`, { cells: { name: "b", n: null }, expected_version: version });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ note_id: noteId, version: ++version, tab: expect.objectContaining({ id: tab, row_count: 3 }), row_ids: [ids[1]] });

    const deleted = await api("DELETE", `/notes/${noteId}/tabs/${tab}/rows/${ids[0]}?expected_version=${version}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ note_id: noteId, version: ++version, tab: expect.objectContaining({ id: tab, row_count: 2 }), row_ids: [ids[0]] });

    const page = await api("GET", `/notes/${noteId}/tabs/${tab}`);
    expect(page.body).toMatchObject({ version, columns: ["name", "n"], next_cursor: null });
    expect(page.body.rows).toEqual([
      { id: ids[1], index: 0, cells: { name: "b" } },
      { id: ids[2], index: 1, cells: { name: "c" } },
    ]);
  });

  it("an update to the cells already there commits nothing", async () => {
    const { noteId, tab, ids, version } = await sheet(2);
    const before = await dump(noteId);
    for (const cells of [{ name: "R1" }, { n: 1 }, { name: "R1", n: 1 }]) {
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${ids[1]}`, { cells });
      expect({ cells, status: answer.status, version: answer.body.version }).toEqual({ cells, status: 200, version });
    }
    expect(await dump(noteId)).toBe(before);
  });

  it("pages through the rows with limit and cursor: every row once, in order", async () => {
    const { noteId, tab, ids } = await sheet(7);
    const read = await readAll(noteId, tab, 3);
    expect(read.map((r) => [r.id, r.index, r.cells])).toEqual(ids.map((id, i) => [id, i, { name: `R${i}`, n: i }]));
    const first = await api("GET", `/notes/${noteId}/tabs/${tab}?limit=3`);
    expect(first.body.rows).toHaveLength(3);
    expect(typeof first.body.next_cursor).toBe("string");
  });

  it("moves rows first, after another and last, and twelve moves into one gap re-key the Sheet with every ID kept", async () => {
    const { noteId, tab, ids, version } = await sheet(14);
    let order = [...ids];
    let expected = version;
    for (const [id, after] of [[ids[5], null], [ids[0], ids[13]], [ids[13], ids[2]]] as [string, string | null][]) {
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${id}`, { after_id: after, expected_version: expected });
      expect(answer.body).toEqual({ note_id: noteId, version: ++expected, tab: expect.objectContaining({ id: tab, row_count: 14 }), row_ids: [id] });
      order = moved(order, id, after);
      expect(await rowOrder(noteId, tab)).toEqual(order);
    }
    const same = await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${order[1]}`, { after_id: order[0] });
    expect(same.body.version).toBe(expected);

    const anchor = order[0] as string;
    const anchorKey = (await keysOf(noteId, "sheet_rows"))[anchor];
    let rekeyedAt: number | null = null;
    for (let i = 1; i <= 13; i++) {
      const id = order.at(-1) as string;
      const answer = await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${id}`, { after_id: anchor });
      expect({ i, status: answer.status, version: answer.body.version, row_ids: answer.body.row_ids }).toEqual({ i, status: 200, version: ++expected, row_ids: [id] });
      order = moved(order, id, anchor);
      expect(await rowOrder(noteId, tab)).toEqual(order);
      const keys = await keysOf(noteId, "sheet_rows");
      if (rekeyedAt === null && keys[anchor] !== anchorKey) rekeyedAt = i;
      expect(Object.keys(keys).sort()).toEqual([...ids].sort());
    }
    // The anchor's neighbour is two gaps away (the row first between them moved last): eleven halvings, then a re-key.
    expect(rekeyedAt).toBe(12);
    const read = await readAll(noteId, tab, 4);
    expect(read.map((r) => [r.id, r.cells])).toEqual(order.map((id) => [id, { name: `R${ids.indexOf(id)}`, n: ids.indexOf(id) }]));
  });

  it("a page read before a re-key continues after its last row: every row once, none repeated", async () => {
    const { noteId, tab, ids } = await sheet(14);
    const first = await api("GET", `/notes/${noteId}/tabs/${tab}?limit=3`);
    expect(first.body.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 3));
    // Twelve moves of rows the page has not reached into the gap after R9: the 11th or 12th re-keys the whole Sheet.
    const before = await keysOf(noteId, "sheet_rows");
    for (let i = 0; i < 12; i++) {
      const id = ids[13 - (i % 3)] as string;
      const after = (await rowOrder(noteId, tab))[9] as string;
      if (id !== after) expect((await api("PATCH", `/notes/${noteId}/tabs/${tab}/rows/${id}`, { after_id: after })).status).toBe(200);
    }
    const keys = await keysOf(noteId, "sheet_rows");
    expect(keys[ids[0] as string]).not.toBe(before[ids[0] as string]); // re-keyed: every key moved above the cursor's
    const rest: { id: string; index: number }[] = [];
    let cursor: string | null = first.body.next_cursor;
    while (cursor !== null) {
      const page: ApiAnswer = await api("GET", `/notes/${noteId}/tabs/${tab}?limit=4&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...page.body.rows);
      cursor = page.body.next_cursor;
    }
    expect(rest.map((r) => r.id)).toEqual((await rowOrder(noteId, tab)).slice(3));
    expect(rest.map((r) => r.index)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it("refuses a row moved after itself, naming after_id, and leaves the Note byte-identical", async () => {
    const { noteId, tab, ids } = await sheet(3);
    const answer = await refused(noteId, "PATCH", `/notes/${noteId}/tabs/${tab}/rows/${ids[2]}`, { after_id: ids[2] });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "after_id", problem: expect.stringContaining("names the item being moved") }] });
  });
});

describe("the person's refused edits leave the Note byte-identical", () => {
  it("a stale expected_version is 409 version_conflict on every route, in the body or the DELETE's query", async () => {
    const s = await deck(2);
    const r = await sheet(2);
    const stale = s.version - 1;
    const cases: [string, string, string, unknown?][] = [
      [s.noteId, "POST", `/notes/${s.noteId}/tabs/${s.tab}/slides`, { slides: [{ title: "x" }], expected_version: stale }],
      [s.noteId, "PATCH", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, { title: "x", expected_version: stale }],
      [s.noteId, "PATCH", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, { after_id: s.ids[1], expected_version: stale }],
      [s.noteId, "DELETE", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}?expected_version=${stale}`],
      [s.noteId, "DELETE", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, { expected_version: stale }],
      [r.noteId, "POST", `/notes/${r.noteId}/tabs/${r.tab}/columns`, { columns: ["x"], expected_version: r.version - 1 }],
      [r.noteId, "POST", `/notes/${r.noteId}/tabs/${r.tab}/rows`, { rows: [{ n: 1 }], expected_version: r.version - 1 }],
      [r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { cells: { n: 5 }, expected_version: r.version - 1 }],
      [r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { after_id: r.ids[1], expected_version: r.version - 1 }],
      [r.noteId, "DELETE", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}?expected_version=${r.version - 1}`],
    ];
    for (const [noteId, method, path, body] of cases) {
      const current = noteId === s.noteId ? s.version : r.version;
      const answer = await refused(noteId, method, path, body);
      expect({ method, path, status: answer.status, error: answer.body.error }).toMatchObject({
        method, path, status: 409, error: { code: "version_conflict", expected_version: current - 1, current_version: current },
      });
    }
  });

  it("a slide or row ID the tab does not have is 404 slide_not_found or row_not_found, naming it and what it is instead", async () => {
    const s = await deck(2);
    const r = await sheet(2);
    // A second deck in the same Note: its slide is no slide of the first.
    const other = (await api("POST", `/notes/${s.noteId}/tabs`, { tab_type: "slides", label: "Other" })).body.tab.id as string;
    const elsewhere = (await api("POST", `/notes/${s.noteId}/tabs/${other}/slides`, { slides: [{ title: "E" }] })).body.slide_ids[0] as string;
    const slideCases: [string, string, unknown, string, string][] = [
      ["PATCH", "slide-999-x", { body: "x" }, "slide-999-x", "is no slide of tab"],
      ["PATCH", "0", { after_id: null }, "0", "is a slide index, not a slide ID"],
      ["PATCH", "S1", { title: "x" }, "S1", "is a slide title, not a slide ID"],
      ["PATCH", s.ids[0] as string, { after_id: "slide-999-x" }, "slide-999-x", "is no slide of tab"],
      ["PATCH", s.ids[0] as string, { after_id: elsewhere }, elsewhere, `is a slide of tab "${other}"`],
      ["PATCH", elsewhere, { body: "x" }, elsewhere, `is a slide of tab "${other}"`],
      ["DELETE", "slide-999-x", undefined, "slide-999-x", "is no slide of tab"],
    ];
    for (const [method, slide, body, named, what] of slideCases) {
      const answer = await refused(s.noteId, method, `/notes/${s.noteId}/tabs/${s.tab}/slides/${slide}`, body);
      expect({ slide, body, status: answer.status, error: answer.body.error }).toMatchObject({
        slide, body, status: 404, error: { code: "slide_not_found", tab_id: s.tab, slide_id: named, message: expect.stringContaining(what), hint: expect.stringContaining("Slide IDs") },
      });
    }
    const rowCases: [string, string, unknown, string, string][] = [
      ["PATCH", "row-999-x", { cells: { n: 1 } }, "row-999-x", "is no row of tab"],
      ["PATCH", "1", { after_id: null }, "1", "is a row index, not a row ID"],
      ["PATCH", r.ids[0] as string, { after_id: "row-999-x" }, "row-999-x", "is no row of tab"],
      ["DELETE", "row-999-x", undefined, "row-999-x", "is no row of tab"],
    ];
    for (const [method, row, body, named, what] of rowCases) {
      const answer = await refused(r.noteId, method, `/notes/${r.noteId}/tabs/${r.tab}/rows/${row}`, body);
      expect({ row, body, status: answer.status, error: answer.body.error }).toMatchObject({
        row, body, status: 404, error: { code: "row_not_found", tab_id: r.tab, row_id: named, message: expect.stringContaining(what), hint: expect.stringContaining("Row IDs") },
      });
    }
  });

  it("a PATCH that both changes and moves, or does neither, is refused", async () => {
    const s = await deck(2);
    const r = await sheet(2);
    for (const body of [{ title: "x", after_id: s.ids[1] }, { body: "x", after_id: null }, {}, { expected_version: s.version }]) {
      const answer = await refused(s.noteId, "PATCH", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, body);
      expect({ body, status: answer.status, code: answer.body.error.code }).toEqual({ body, status: 400, code: "invalid_arguments" });
      expect(answer.body.error.message).toContain("one of the two");
    }
    for (const body of [{ cells: { n: 1 }, after_id: r.ids[1] }, { cells: {}, after_id: null }, {}]) {
      const answer = await refused(r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, body);
      expect({ body, status: answer.status, code: answer.body.error.code }).toEqual({ body, status: 400, code: "invalid_arguments" });
      expect(answer.body.error.message).toContain("one of the two");
    }
    const empty = await refused(r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { cells: {} });
    expect(empty.body.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "cells", problem: "at least one cell" }] });
  });

  it("a PATCH that would empty every cell of a row is 400 naming cells, and the row stays; one cell left is a row", async () => {
    const r = await sheet(1);
    const emptied = await refused(r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { cells: { name: null, n: null } });
    expect(emptied.status).toBe(400);
    expect(emptied.body.error).toMatchObject({
      code: "invalid_arguments",
      issues: [{ path: "cells", problem: `would empty every cell of row "${r.ids[0]}"; a row keeps at least one cell (give a value, or delete the row with row_delete)` }],
    });
    const kept = await api("PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { cells: { name: null } });
    expect(kept.status).toBe(200);
    expect((await readAll(r.noteId, r.tab, 10)).map((row) => row.cells)).toEqual([{ n: 0 }]);
    expect((await refused(r.noteId, "PATCH", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, { cells: { n: null } })).status).toBe(400);
  });

  it("a wrong tab type, an unknown tab, a column named __proto__, a version given twice or an unknown parameter is refused, naming it", async () => {
    const s = await deck(1);
    const r = await sheet(1);
    const onSheet = `/notes/${r.noteId}/tabs/${r.tab}`;
    const wrongType = await refused(r.noteId, "POST", `${onSheet}/slides`, { slides: [{ title: "x" }] });
    expect(wrongType).toMatchObject({ status: 422, body: { error: { code: "wrong_tab_type", tab_id: r.tab, expected: ["slides"] } } });
    // The person's routes, not the Note's operation names.
    expect(wrongType.body.error.message).toBe(`Tab "${r.tab}" is a sheet tab; this route edits a slides tab.`);
    const onDeck = await refused(s.noteId, "PATCH", `/notes/${s.noteId}/tabs/${s.tab}/rows/${r.ids[0]}`, { cells: { n: 1 } });
    expect(onDeck).toMatchObject({ status: 422, body: { error: { code: "wrong_tab_type", tab_id: s.tab, expected: ["sheet"] } } });
    const noTab = await refused(s.noteId, "DELETE", `/notes/${s.noteId}/tabs/slides-99-x/slides/${s.ids[0]}`);
    expect(noTab).toMatchObject({ status: 404, body: { error: { code: "tab_not_found", tab_id: "slides-99-x" } } });

    const cases: [string, string, unknown, string][] = [
      ["POST", `${onSheet}/columns`, { columns: ["__proto__"] }, "columns[0]"],
      // JSON can carry a "__proto__" key that a parsed object would drop: it is refused, not lost.
      ["POST", `${onSheet}/rows`, JSON.parse('{"rows": [{"name": "x", "__proto__": "y"}]}'), "rows[0].__proto__"],
      ["POST", `${onSheet}/columns`, { columns: ["name"] }, "columns[0]"],
      ["POST", `${onSheet}/rows`, { rows: [{ nope: 1 }] }, "rows[0].nope"],
      ["DELETE", `${onSheet}/rows/${r.ids[0]}?expected_version=${r.version}`, { expected_version: r.version }, "expected_version"],
      ["PATCH", `${onSheet}/rows/${r.ids[0]}?after_id=x`, { cells: { n: 2 } }, "after_id"],
    ];
    for (const [method, path, body, named] of cases) {
      const answer = await refused(r.noteId, method, path, body);
      expect({ path, status: answer.status, code: answer.body.error.code, paths: answer.body.error.issues.map((i: { path: string }) => i.path) }).toEqual({
        path, status: 400, code: "invalid_arguments", paths: [named],
      });
    }
  });

  it("a method a path does not take is 405 with Allow", async () => {
    const s = await deck(1);
    const r = await sheet(1);
    const cases: [string, string, string][] = [
      ["GET", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, "PATCH, DELETE"],
      ["PUT", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, "PATCH, DELETE"],
      ["POST", `/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, "PATCH, DELETE"],
      ["GET", `/notes/${r.noteId}/tabs/${r.tab}/rows`, "POST"],
      ["PUT", `/notes/${r.noteId}/tabs/${r.tab}/columns`, "POST"],
      ["POST", `/notes/${r.noteId}/tabs/${r.tab}/rows/${r.ids[0]}`, "PATCH, DELETE"],
    ];
    for (const [method, path, allow] of cases) {
      const noteId = path.includes(s.noteId) ? s.noteId : r.noteId;
      const answer = await refused(noteId, method, path, method === "GET" ? undefined : {});
      expect({ method, path, status: answer.status, code: answer.body.error.code }).toEqual({ method, path, status: 405, code: "method_not_allowed" });
      expect(answer.body.error.message).toContain(`it takes ${allow}`);
    }
    const raw = await fetchWorker(`/api/v1/notes/${s.noteId}/tabs/${s.tab}/slides/${s.ids[0]}`, { method: "PUT", headers: { Authorization: `Bearer ${TOKENS.app}` } });
    expect(raw.status).toBe(405);
    expect(raw.headers.get("Allow")).toBe("PATCH, DELETE");
  });
});

describe("a whole Note too long for one answer", () => {
  it("GET /notes/:id answers 422 limit_exceeded naming whole_note_chars (not a 500), and the decks still page", async () => {
    const { noteId, tab } = await deck(0);
    const long = (n: number) => ({ title: `S${n}`, body: "中".repeat(LIMITS.slideBodyLength), notes: "n".repeat(LIMITS.slideNotesLength) });
    // Twenty a call, each slide about 20,000 characters: 200 slides pass the whole Note's 4,000,000.
    for (let from = 0; from < 200; from += 20) {
      const added = await api("POST", `/notes/${noteId}/tabs/${tab}/slides`, { slides: Array.from({ length: 20 }, (_, i) => long(from + i)) });
      expect(added.status).toBe(201);
    }
    const whole = await api("GET", `/notes/${noteId}`);
    expect(whole.status).toBe(422);
    expect(whole.body.error).toMatchObject({ code: "limit_exceeded", limit: "whole_note_chars", max: LIMITS.wholeNoteChars });
    expect(whole.body.error.message).toContain(`GET /api/v1/notes/${noteId}/tabs/{tab_id}`);
    const page = await api("GET", `/notes/${noteId}/tabs/${tab}`);
    expect(page.status).toBe(200);
    expect(page.body.slides.length).toBeGreaterThan(0);
  });
});
