/**
 * What a call costs in SQLite rows: bounded by the call, not by the Note's
 * size. Each measured operation runs the Note's rules over the object's own
 * database with a counting SQL helper of its own.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, CommandName, Input, Output } from "../../src/note/commands.js";
import { Note } from "../../src/note/note.js";
import { NoteObject } from "../../src/storage/note-object.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { fetchWorker, newNote, ok } from "../support/workers.js";

const AGENT: Caller = { user: "alice", channel: "connector" };

async function cost<K extends CommandName>(noteId: string, name: K, input: Input<K>): Promise<{ read: number; written: number; value: Output<K> }> {
  return runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (_instance, state) => {
    const sql = new Sql(state.storage.sql);
    const result = new Note(noteId, new SqliteNoteStore(sql, state.storage), { now: Date.now }).execute(AGENT, name, input);
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return { read: sql.rowsRead, written: sql.rowsWritten, value: result.value };
  });
}

describe("the cost of a call", () => {
  it("create_note_tab with 20 slides writes at most 25 rows", async () => {
    const { noteId, version } = await newNote();
    const slides = Array.from({ length: 20 }, (_, i) => ({ title: `Slide ${i + 1}`, body: "text" }));
    const { written, value } = await cost(noteId, "create_tab", { expected_version: version, idempotency_key: "deck", tab_type: "slides", slides });
    expect(value.slide_count).toBe(20);
    expect(written).toBeLessThanOrEqual(25);
    expect(written).toBeGreaterThanOrEqual(22); // 20 slides, the tab, the version, the key: the counters count
  });

  it("create_note_tab reads as many rows on a Note of 60 tabs as on a new one", async () => {
    const create = async (noteId: string, version: number, key: string) => cost(noteId, "create_tab", { expected_version: version, idempotency_key: key, tab_type: "sheet" });
    const empty = await newNote();
    const onEmpty = await create(empty.noteId, empty.version, "first");
    const full = await newNote();
    let version = full.version;
    for (let i = 0; i < 60; i++) version = (await ok("create_note_tab", { note_id: full.noteId, expected_version: version, idempotency_key: `t${i}`, tab_type: "sheet" })).version;
    const onFull = await create(full.noteId, version, "sixty-first");
    expect(onFull.value.position).toBe(63);
    expect(onFull.read).toBe(onEmpty.read);
    expect(onFull.read).toBeLessThan(10);
  });

  it("a page of attachments reads about `limit` rows, whatever the Note holds", async () => {
    const { noteId } = await newNote();
    await runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (_instance, state) => {
      for (let i = 0; i < 2_000; i++) {
        state.storage.sql.exec("INSERT INTO sources (title, url, normalized_url, description, added_at) VALUES (?, ?, ?, '', 0)", `S${i}`, `https://example.org/${i}`, `https://example.org/${i}`);
      }
      state.storage.sql.exec("UPDATE meta SET source_count = 2000");
    });
    const first = await cost(noteId, "list_attachments", { kind: "sources", limit: 50 });
    let cursor = first.value.next_cursor as string;
    for (let i = 0; i < 30; i++) cursor = (await ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 50, cursor })).next_cursor;
    const deep = await cost(noteId, "list_attachments", { kind: "sources", limit: 50, cursor });
    expect(first.value.items).toHaveLength(50);
    expect(deep.value.items).toHaveLength(50);
    expect(deep.value.items[0]?.id).toBe("source-1551");
    // The page's 51 rows plus the Note's meta and membership rows.
    expect(first.read).toBeLessThanOrEqual(60);
    expect(deep.read).toBe(first.read);
    expect(first.written).toBe(0);
  });

  it("a page of a 500-slide deck reads about `limit` rows, as a page of a 5-slide deck does", async () => {
    const deckOf = async (count: number) => {
      const { noteId, version } = await newNote();
      let current = version;
      let tabId = "";
      for (let start = 0; start < count; start += 20) {
        const slides = Array.from({ length: Math.min(20, count - start) }, (_, i) => ({ title: `Slide ${start + i + 1}` }));
        if (start === 0) ({ tab_id: tabId, version: current } = await ok("create_note_tab", { note_id: noteId, expected_version: current, idempotency_key: "deck", tab_type: "slides", slides }));
        else current = (await ok("edit_note_tab", { note_id: noteId, expected_version: current, idempotency_key: `more-${start}`, tab_id: tabId, operation: "slides_add_outline", slides })).version;
      }
      return { noteId, tabId };
    };
    const small = await deckOf(5);
    const large = await deckOf(500);
    const onSmall = await cost(small.noteId, "read_tab", { tab_id: small.tabId, limit: 5 });
    const first = await cost(large.noteId, "read_tab", { tab_id: large.tabId, limit: 5 });
    if (!("slides" in first.value)) throw new Error("not a deck");
    let cursor = first.value.next_cursor as string;
    for (let i = 0; i < 60; i++) cursor = (await ok("read_note_tab", { note_id: large.noteId, tab_id: large.tabId, limit: 5, cursor })).next_cursor;
    const deep = await cost(large.noteId, "read_tab", { tab_id: large.tabId, limit: 5, cursor });
    if (!("slides" in deep.value)) throw new Error("not a deck");
    expect(deep.value.slides.map((s) => s.title)).toEqual(["Slide 306", "Slide 307", "Slide 308", "Slide 309", "Slide 310"]);
    // The page's rows and one more, beside the Note's meta, membership and tab rows.
    expect(first.read).toBeLessThanOrEqual(onSmall.read + 1);
    expect(deep.read).toBe(first.read);
    expect(first.read).toBeLessThan(15);
  });
});

describe("the production Worker", () => {
  it("serves no benchmark route", async () => {
    expect((await fetchWorker("/bench/baseline")).status).toBe(404);
    expect((await fetchWorker("/bench/stats/x")).status).toBe(404);
    expect((await fetchWorker("/bench/seed-sources/x?count=5", { method: "POST" })).status).toBe(404);
  });

  it("has a Note object class without the benchmark's methods (they live in bench/worker.ts)", () => {
    expect(["ping", "stats", "seedSources"].filter((method) => method in NoteObject.prototype)).toEqual([]);
  });
});
