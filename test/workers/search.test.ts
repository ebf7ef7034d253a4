/**
 * Search within a Note through the real Note object (SQLite's FTS5, migration
 * 10): a committed change is found by the next call, a failed one leaves
 * every table and the index's own pages byte-identical, access is checked as
 * for every read, the memory store ranks as FTS5 does, and the cost law
 * (docs/search.md) read from SQLite's own counters.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, CommandName, Input, Output } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { Result } from "../../src/note/result.js";
import { queryTerms } from "../../src/note/search/text.js";
import type { DirectoryEntry } from "../../src/note/store.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { dumpDatabase } from "../support/dump.js";
import { indexRules, sqliteTables } from "../support/note-tables.js";

const APP: Caller = { user: "alice", channel: "app" };
const AGENT: Caller = { user: "alice", channel: "connector" };
const BOB_AGENT: Caller = { user: "bob", channel: "connector" };

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
let notes = 0;

async function run<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Result<Output<K>>> {
  return (await stubOf(noteId).execute(noteId, caller, name, input)) as Result<Output<K>>;
}

async function value<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Output<K>> {
  const result = await run(noteId, caller, name, input);
  if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
  return result.value;
}

/** A new Note of alice's, approved for connectors unless asked not to be; its version. */
async function newNote(approved = true): Promise<{ noteId: string; version: number }> {
  const noteId = `search-${++notes}-${Date.now().toString(36)}`;
  let { version } = await value(noteId, APP, "create_note", { title: "Search test" });
  if (approved) version = (await value(noteId, APP, "set_approval", { approved: true })).version;
  return { noteId, version };
}

/** A deck of `count` slides (20 a call), "zebra" in the body of the sixth only; its tab, slide IDs and the Note's version. */
async function deckOf(count: number): Promise<{ noteId: string; tabId: string; slideIds: string[]; version: number }> {
  let { noteId, version } = await newNote();
  let tabId = "";
  const slideIds: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const slides = Array.from({ length: Math.min(20, count - start) }, (_, i) => ({ title: `Slide ${start + i + 1}`, body: start + i === 5 ? "the zebra figures" : `common words ${start + i}` }));
    const out =
      start === 0
        ? await value(noteId, AGENT, "create_tab", { expected_version: version, idempotency_key: "deck", tab_type: "slides", slides })
        : await value(noteId, AGENT, "edit_tab", { expected_version: version, idempotency_key: `more-${start}`, tab_id: tabId, operation: "slides_add_outline", slides });
    if (!("slide_ids" in out)) throw new Error("not a deck");
    tabId = out.tab_id;
    version = out.version;
    slideIds.push(...out.slide_ids);
  }
  return { noteId, tabId, slideIds, version };
}

/** Runs one operation of the Note's rules over the object's database with a counting SQL helper of its own, as cost.test.ts does. */
async function cost<K extends CommandName>(noteId: string, name: K, input: Input<K>, caller: Caller = AGENT): Promise<{ read: number; written: number; index: number; value: Output<K> }> {
  return runInDurableObject(stubOf(noteId), (_instance, state) => {
    const sql = new Sql(state.storage.sql);
    // The rows the index's own statements wrote, counted apart.
    let index = 0;
    class Counting extends SqliteNoteStore {
      override searchPut(...args: Parameters<SqliteNoteStore["searchPut"]>): void {
        const before = sql.rowsWritten;
        super.searchPut(...args);
        index += sql.rowsWritten - before;
      }
      override searchDrop(key: number): void {
        const before = sql.rowsWritten;
        super.searchDrop(key);
        index += sql.rowsWritten - before;
      }
    }
    const result = new Note(noteId, new Counting(sql, state.storage), { now: Date.now }).execute(caller, name, input);
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return { read: sql.rowsRead, written: sql.rowsWritten, index, value: result.value };
  });
}

const ids = (page: { hits: { id: string }[] }) => page.hits.map((hit) => hit.id);

describe("search within a Note, through the object", () => {
  it("finds a committed change at the next call; a deleted slide is not found, and is again after its revert", async () => {
    const { noteId, version } = await newNote();
    const deck = await value(noteId, AGENT, "create_tab", { expected_version: version, idempotency_key: "d", tab_type: "slides", slides: [{ title: "Pricing", body: "Osaka customers" }, { title: "Team" }] });
    if (!("slide_ids" in deck)) throw new Error("not a deck");
    const pricing = `${noteId}/${deck.tab_id}/${deck.slide_ids[0]}`;
    const search = (query: string) => value(noteId, AGENT, "search", { query });
    expect(ids(await search("osaka"))).toEqual([pricing]);
    expect((await search("OSAKA")).hits[0]).toMatchObject({ kind: "slide", note_id: noteId, tab_id: deck.tab_id, slide_id: deck.slide_ids[0], title: "Pricing", note_title: "Search test", snippet: "Pricing\n\nOsaka customers".replace(/\s+/g, " ") });

    const updated = await value(noteId, AGENT, "edit_tab", { expected_version: deck.version, idempotency_key: "u", tab_id: deck.tab_id, operation: "slide_update", slide_id: deck.slide_ids[0] as string, body: "Kyoto customers" });
    expect(ids(await search("kyoto"))).toEqual([pricing]);
    expect(ids(await search("osaka"))).toEqual([]);

    const deleted = await value(noteId, AGENT, "edit_tab", { expected_version: updated.version, idempotency_key: "x", tab_id: deck.tab_id, operation: "slide_delete", slide_id: deck.slide_ids[0] as string });
    expect(ids(await search("kyoto pricing"))).toEqual([]);
    const gone = await run(noteId, AGENT, "fetch_item", { id: pricing });
    expect(gone).toMatchObject({ ok: false, error: { code: "item_not_found", id: pricing } });

    await value(noteId, AGENT, "revert_change", { expected_version: deleted.version, idempotency_key: "r", version: deleted.version });
    expect(ids(await search("kyoto"))).toEqual([pricing]);
    expect(await value(noteId, AGENT, "fetch_item", { id: pricing })).toMatchObject({ title: "Pricing", text: "Pricing\n\nKyoto customers", metadata: { kind: "slide", slide_id: deck.slide_ids[0], truncated: false } });
    const tables = await runInDurableObject(stubOf(noteId), (_instance, state) => sqliteTables(state.storage.sql));
    expect(indexRules(tables)).toEqual([]);
  });

  it("a call that fails after its writes leaves every table, the index's own pages included, byte-identical", async () => {
    const { noteId, version } = await newNote();
    const deck = await value(noteId, AGENT, "create_tab", { expected_version: version, idempotency_key: "d", tab_type: "slides", slides: [{ title: "Alpha" }] });
    if (!("slide_ids" in deck)) throw new Error("not a deck");
    const outcome = await runInDurableObject(stubOf(noteId), (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The outbox is written last, after the index: a failure there must take the index's writes back too.
      class Failing extends SqliteNoteStore {
        override queueDirectoryEntry(_user: string, _entry: DirectoryEntry): void {
          throw new Error("the outbox failed");
        }
      }
      const before = dumpDatabase(state.storage.sql);
      const note = new Note(noteId, new Failing(sql, state.storage), { now: Date.now });
      let thrown = "";
      try {
        note.execute(AGENT, "edit_tab", { expected_version: deck.version, idempotency_key: "u", tab_id: deck.tab_id, operation: "slide_update", slide_id: deck.slide_ids[0] as string, body: "beta" });
      } catch (error) {
        thrown = String(error);
      }
      return { thrown, same: dumpDatabase(state.storage.sql) === before, shadow: /search_data/.test(before) };
    });
    expect(outcome).toEqual({ thrown: "Error: the outbox failed", same: true, shadow: true });
    expect(ids(await value(noteId, AGENT, "search", { query: "beta" }))).toEqual([]);
    expect(ids(await value(noteId, AGENT, "search", { query: "alpha" }))).toHaveLength(1);
  });

  it("connectors find nothing in an unapproved Note (note_not_approved), another user nothing in alice's (note_not_found)", async () => {
    const { noteId, version } = await newNote(false);
    await value(noteId, APP, "set_markdown", { text: "# Secret\nsalary figures", expected_version: version });
    expect(await run(noteId, AGENT, "search", { query: "salary" })).toMatchObject({ ok: false, error: { code: "note_not_approved" } });
    expect(await run(noteId, AGENT, "fetch_item", { id: `${noteId}/markdown/section-0` })).toMatchObject({ ok: false, error: { code: "note_not_approved" } });
    expect(await run(noteId, AGENT, "describe_hits", { keys: [4], query: "salary" })).toMatchObject({ ok: false, error: { code: "note_not_approved" } });
    expect(await run(noteId, BOB_AGENT, "search", { query: "salary" })).toMatchObject({ ok: false, error: { code: "note_not_found" } });
    expect(await run(noteId, { user: "bob", channel: "app" }, "fetch_item", { id: noteId })).toMatchObject({ ok: false, error: { code: "note_not_found" } });
    // The person's own app reaches it.
    expect(ids(await value(noteId, APP, "search", { query: "salary" }))).toEqual([`${noteId}/markdown/section-0`]);
  });

  it("hostile queries are text or a clear invalid_arguments, never an internal error", async () => {
    const { noteId, version } = await newNote();
    await value(noteId, APP, "set_markdown", { text: "near or not, col text", expected_version: version });
    for (const query of ['"', "*", "NEAR(", "OR", "-", "^", "col:", 'text:"x', "a*b", '"unterminated', "NOT AND", "x".repeat(1_000), "perché ".repeat(140)]) {
      const result = await run(noteId, AGENT, "search", { query });
      if (!result.ok) expect(result.error.code).toBe("invalid_arguments");
    }
    expect(ids(await value(noteId, AGENT, "search", { query: "NEAR(" }))).toHaveLength(1);
    expect(ids(await value(noteId, AGENT, "search", { query: "col:" }))).toHaveLength(1);
    for (const query of ["", "   ", '"*^', "\ud800x", "x".repeat(5_000)]) {
      const result = await run(noteId, AGENT, "search", { query });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid_arguments", issues: [{ path: "query" }] } });
    }
  });

  it("the memory store ranks exactly as FTS5 does", async () => {
    const { noteId, version } = await newNote();
    const slides = [
      { title: "Apple pie", body: "apple apple crumble" },
      { title: "Pear", body: "apple" },
      { title: "東京都の計画", body: "京都 and 東京" },
      { title: "Long", body: `${"filler ".repeat(60)}apple` },
      { title: "Perché", body: "STRASSE" },
    ];
    const memory = new MemoryNoteStore();
    const local = new Note(noteId, memory, { now: () => 1 });
    const createLocal = (caller: Caller, name: CommandName, input: unknown) => {
      const result = local.execute(caller, name, input as never);
      if (!result.ok) throw new Error(JSON.stringify(result.error));
    };
    createLocal(APP, "create_note", { title: "Search test" });
    createLocal(APP, "set_approval", { approved: true });
    createLocal(AGENT, "create_tab", { expected_version: version, idempotency_key: "d", tab_type: "slides", slides });
    await value(noteId, AGENT, "create_tab", { expected_version: version, idempotency_key: "d", tab_type: "slides", slides });
    for (const query of ["apple", "apple pie", "京都", "東京都", "strasse perche", "filler apple"]) {
      const terms = queryTerms(query);
      const real = await runInDurableObject(stubOf(noteId), (_instance, state) => new SqliteNoteStore(new Sql(state.storage.sql), state.storage).searchQuery(terms, null, 50));
      const mine = memory.searchQuery(terms, null, 50);
      expect(mine.map((d) => d.key)).toEqual(real.map((d) => d.key));
      mine.forEach((d, i) => expect(d.score).toBeCloseTo((real[i] as { score: number }).score, 10));
      expect(real.length).toBeGreaterThan(0);
    }
  });
});

describe("the cost law of search (SQLite's counters)", () => {
  it("a search reads as many rows on a 500-slide deck as on a 10-slide one for the same hits; a slide_update keeps the index current with a constant few rows", async () => {
    const small = await deckOf(10);
    const large = await deckOf(500);
    const find = (deck: { noteId: string }) => cost(deck.noteId, "search", { query: "zebra" });
    const onSmall = await find(small);
    const onLarge = await find(large);
    expect(ids(onLarge.value)).toEqual([`${large.noteId}/${large.tabId}/${large.slideIds[5]}`]);
    expect(onLarge.read).toBe(onSmall.read);
    expect(onLarge.written).toBe(0);
    console.log(`search "zebra": ${onLarge.read} rows read on 10 slides and on 500`);

    const update = (deck: Awaited<ReturnType<typeof deckOf>>) =>
      cost(deck.noteId, "edit_tab", { expected_version: deck.version, idempotency_key: "fix", tab_id: deck.tabId, operation: "slide_update", slide_id: deck.slideIds[250 % deck.slideIds.length] as string, body: "Corrected figures" });
    const updatedSmall = await update(small);
    const updatedLarge = await update(large);
    expect(updatedLarge.written).toBe(updatedSmall.written);
    expect(updatedLarge.index).toBe(updatedSmall.index);
    // As in cost.test.ts: the deck's own B-tree may be one level deeper on 500 slides.
    expect(Math.abs(updatedLarge.read - updatedSmall.read)).toBeLessThanOrEqual(1);
    console.log(`slide_update: ${updatedLarge.written} rows written (${updatedLarge.index} by the index), ${updatedLarge.read} read, on 10 slides and on 500`);
    // The document's one row, replaced; the outbox's entry for the one member (cost.test.ts: 8 rows before the index).
    expect(updatedLarge.index).toBeLessThanOrEqual(2);
    expect(updatedLarge.written).toBeLessThanOrEqual(8 + 2 + 1);
    expect(ids((await cost(large.noteId, "search", { query: "corrected" })).value)).toHaveLength(1);
  });
});
