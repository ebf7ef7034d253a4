/** What a call costs in SQLite rows, from the object's own counters: bounded by the call, not by the Note's size. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { NoteStats } from "../../src/storage/note-stats.js";
import { fetchWorker, newNote, ok } from "../support/workers.js";

function stats(noteId: string): Promise<NoteStats> {
  return runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (instance) => instance.stats());
}

async function cost<T>(noteId: string, call: () => Promise<T>): Promise<{ read: number; written: number; value: T }> {
  const before = await stats(noteId);
  const value = await call();
  const after = await stats(noteId);
  // stats() itself reads the counted tables; subtract what one stats() call reads.
  const probe = (await stats(noteId)).rows_read - after.rows_read;
  return { read: after.rows_read - before.rows_read - probe, written: after.rows_written - before.rows_written, value };
}

describe("the cost of a call", () => {
  it("create_note_tab with 20 slides writes at most 25 rows", async () => {
    const { noteId, version } = await newNote();
    const slides = Array.from({ length: 20 }, (_, i) => ({ title: `Slide ${i + 1}`, body: "text" }));
    const { written, value } = await cost(noteId, () => ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides }));
    expect(value.slide_count).toBe(20);
    expect(written).toBeLessThanOrEqual(25);
    expect(written).toBeGreaterThanOrEqual(22); // 20 slides, the tab, the version, the key: the counters count
  });

  it("create_note_tab reads as many rows on a Note of 60 tabs as on a new one", async () => {
    const create = async (noteId: string, version: number, key: string) =>
      cost(noteId, () => ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: key, tab_type: "sheet" }));
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
    const first = await cost(noteId, () => ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 50 }));
    const deep = await cost(noteId, async () => {
      let cursor = first.value.next_cursor as string;
      for (let i = 0; i < 30; i++) cursor = (await ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 50, cursor })).next_cursor;
      return ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 50, cursor });
    });
    expect(first.value.items).toHaveLength(50);
    expect(deep.value.items).toHaveLength(50);
    // The page's 51 rows plus the Note's meta and membership rows.
    expect(first.read).toBeLessThanOrEqual(60);
    expect(deep.read / 31).toBeLessThanOrEqual(60);
    expect(first.written).toBe(0);
  });
});

describe("benchmark routes", () => {
  it("are not served unless the benchmark turns them on", async () => {
    expect((await fetchWorker("/bench/baseline")).status).toBe(404);
    expect((await fetchWorker("/bench/stats/x")).status).toBe(404);
    expect((await fetchWorker("/bench/seed-sources/x?count=5", { method: "POST" })).status).toBe(404);
  });
});
