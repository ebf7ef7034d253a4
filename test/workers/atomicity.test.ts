/// <reference types="vite/client" />
/**
 * One owner of the transaction (issue 10): a rejected call leaves the Note
 * byte-identical, through the real Durable Object, and a failure result rolls
 * back as surely as a thrown error, in both stores.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { fail, ok, type Result } from "../../src/note/result.js";
import type { NoteStore } from "../../src/note/store.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { dumpDatabase } from "../support/dump.js";
import { api, newNote, uniqueNoteId } from "../support/workers.js";

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));

describe("a rejected call through the object leaves the Note byte-identical", () => {
  it("a tab added at a position past the strip is refused, writes nothing, and uses up no tab number", async () => {
    const noteId = uniqueNoteId("bugcheck");
    expect((await api("POST", "/notes", { note_id: noteId, title: "t" })).status).toBe(201);
    const before = await dump(noteId);

    const refused = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "x", position: 99 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "position", problem: "must be at most 3" }] });
    expect(await dump(noteId)).toBe(before);

    const added = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "y" });
    expect(added.status).toBe(201);
    expect(added.body.tab).toMatchObject({ label: "y", position: 3 });
    expect(added.body.tab.id).toMatch(/^slides-1-/);
    const note = await api("GET", `/notes/${noteId}`);
    expect(note.body.tabs.map((t: { label: string }) => t.label)).toEqual(["Markdown", "Files", "Sources", "y"]);
  });

  it("a person's tab placed at the end or inside the strip keeps positions a permutation", async () => {
    const { noteId } = await newNote();
    const atEnd = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "sheet", label: "end", position: 3 });
    const first = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "first", position: 0 });
    expect([atEnd.status, first.status]).toEqual([201, 201]);
    const note = await api("GET", `/notes/${noteId}`);
    expect(note.body.tabs.map((t: { label: string; position: number }) => [t.label, t.position])).toEqual([
      ["first", 0],
      ["Markdown", 1],
      ["Files", 2],
      ["Sources", 3],
      ["end", 4],
    ]);
  });

  it("an operation given arguments of the wrong shape over RPC is refused by the Note itself, naming each field", async () => {
    const { noteId } = await newNote();
    const before = await dump(noteId);
    const agent: Caller = { user: "alice", channel: "connector" };
    const stub = stubOf(noteId);
    const missing = await stub.execute(noteId, agent, "create_tab", { tab_type: "slides" } as never);
    expect(missing).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    const paths = !missing.ok && missing.error.code === "invalid_arguments" ? missing.error.issues.map((i) => i.path) : [];
    expect(paths).toEqual(["expected_version", "idempotency_key"]);
    const notAnObject = await stub.execute(noteId, agent, "create_tab", null as never);
    expect(notAnObject).toMatchObject({ ok: false, error: { code: "invalid_arguments", issues: [{ path: "(arguments)" }] } });
    const wrongTypes = await stub.execute(noteId, agent, "edit_tab", {
      expected_version: "1",
      idempotency_key: 7,
      tab_id: ["slides"],
      operation: "slide_add",
      title: { text: "x" },
    } as never);
    const wrongPaths = !wrongTypes.ok && wrongTypes.error.code === "invalid_arguments" ? wrongTypes.error.issues.map((i) => i.path) : [];
    expect(wrongPaths).toEqual(["expected_version", "idempotency_key", "tab_id", "title"]);
    expect(await dump(noteId)).toBe(before);
  });
});

/** The two stores, each over a fresh Note database. */
function stores(): [string, (test: (store: NoteStore, dumpNow: () => string) => void) => Promise<void>][] {
  return [
    [
      "in memory",
      async (test) => {
        const store = new MemoryNoteStore();
        test(store, () => JSON.stringify(store.tables()));
      },
    ],
    [
      "SQLite in the object",
      async (test) => {
        const { noteId } = await newNote();
        await runInDurableObject(stubOf(noteId), (_instance, state) => {
          test(new SqliteNoteStore(new Sql(state.storage.sql), state.storage), () => dumpDatabase(state.storage.sql));
        });
      },
    ],
  ];
}

/** Writes to every kind of state a Note keeps: the meta row, a deck and its slides, a Sheet and its rows, a key record, a source, a file, the outbox. */
function writeEverything(store: NoteStore): void {
  const meta = store.readMeta() ?? { note_id: "n", title: "t", version: 1, approved: false, next_tab_n: 1, next_slide_n: 1, next_row_n: 1, tab_count: 3, source_count: 0, file_count: 0, created_at: 0, deleted: false };
  store.writeMeta({ ...meta, version: meta.version + 1, next_tab_n: meta.next_tab_n + 2, next_slide_n: meta.next_slide_n + 1, next_row_n: meta.next_row_n + 2 });
  store.insertTab({ id: "slides-99-x", type: "slides", label: "L", position: 3, slide_count: 1, row_count: 0, columns: [] });
  store.slides.insert("slides-99-x", [{ id: "slide-99-x", key: 0, title: "s", body: "", notes: "" }]);
  store.slides.update("slides-99-x", { id: "slide-99-x", key: 1024, title: "s2", body: "b", notes: "" });
  store.insertTab({ id: "sheet-100-x", type: "sheet", label: "S", position: 4, slide_count: 0, row_count: 1, columns: ["A"] });
  store.rows.insert("sheet-100-x", [
    { id: "row-99-x", key: 0, cells: { A: "a" } },
    { id: "row-100-x", key: 1024, cells: { A: 1 } },
  ]);
  store.rows.update("sheet-100-x", { id: "row-99-x", key: 512, cells: { A: "b" } });
  store.rows.remove("sheet-100-x", "row-100-x");
  store.recordIdempotency({ key: "k", tool: "create_tab", fingerprint: "f", result: { tab_id: "slides-99-x" }, created_at: 1 });
  store.insertSource({ title: "S", url: "https://example.org/", normalized_url: "https://example.org", description: "", added_at: 1 });
  store.insertFile({ name: "a.pdf", media_type: "application/pdf", size_bytes: 1, added_at: 1 });
  store.writeMarkdown("changed");
  store.addMember("mallory", "editor");
  store.searchPut({ key: 2 * 8 + 2, item: "slide-2-x", text: "some words" });
  store.searchPut({ key: 99 * 8 + 2, item: "slide-99-x", text: "s2 b" });
  store.searchDrop(2 * 8 + 2);
  store.queueDirectoryEntry("alice", { note_id: "n", title: "t", approved: true, version: 99 });
}

describe.each(stores())("one transaction owner, in the store %s", (_name, withStore) => {
  it("a failure result returned after writes rolls every one of them back", async () => {
    await withStore((store, dumpNow) => {
      const before = dumpNow();
      const result = store.transaction((): Result<never> => {
        writeEverything(store);
        return fail({ code: "note_not_found", message: "late check", note_id: "n" });
      });
      expect(result).toMatchObject({ ok: false, error: { message: "late check" } });
      expect(dumpNow()).toBe(before);
    });
  });

  it("a thrown error rolls every write back and reaches the caller", async () => {
    await withStore((store, dumpNow) => {
      const before = dumpNow();
      expect(() =>
        store.transaction(() => {
          writeEverything(store);
          throw new Error("a bug");
        }),
      ).toThrow("a bug");
      expect(dumpNow()).toBe(before);
    });
  });

  it("a nested transaction is a programming error: it throws at once, and the outer one rolls back", async () => {
    await withStore((store, dumpNow) => {
      const before = dumpNow();
      expect(() =>
        store.transaction(() => {
          writeEverything(store);
          return store.transaction(() => ok(null));
        }),
      ).toThrow(/nested transaction/);
      expect(dumpNow()).toBe(before);
    });
  });

  it("a success commits every write", async () => {
    await withStore((store, dumpNow) => {
      const before = dumpNow();
      expect(store.transaction(() => (writeEverything(store), ok("done")))).toEqual({ ok: true, value: "done" });
      expect(dumpNow()).not.toBe(before);
      expect(store.tab("slides-99-x")).toMatchObject({ slide_count: 1 });
      expect(store.slides.all("slides-99-x")).toEqual([{ id: "slide-99-x", key: 1024, title: "s2", body: "b", notes: "" }]);
      expect(store.tab("sheet-100-x")).toMatchObject({ row_count: 1, columns: ["A"] });
      expect(store.rows.all("sheet-100-x")).toEqual([{ id: "row-99-x", key: 512, cells: { A: "b" } }]);
      expect(store.owedDirectoryEntries()).toHaveLength(1);
    });
  });
});

describe("the SQLite store is the only owner of a Note's transactions", () => {
  it("no other source file of the Worker calls transactionSync but the directory's own migrations", () => {
    const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
    expect(Object.keys(sources).length).toBeGreaterThan(20);
    const callers = Object.entries(sources)
      .filter(([, text]) => /\.transactionSync\(/.test(text))
      .map(([path]) => path.replace("../../", ""));
    expect(callers.sort()).toEqual(["src/storage/directory-object.ts", "src/storage/sqlite-note-store.ts"]);
  });
});

describe.each(stores())("the store %s answers as the other does", (_name, withStore) => {
  it("members and tied positions come out in SQLite's order (code points, then tab ID)", async () => {
    await withStore((store) => {
      store.transaction(() => {
        for (const user of ["\u{1F600}", "\uFFFD", "b", "a"]) store.addMember(user, "editor");
        store.insertTab({ id: "slides-10-a", type: "slides", label: "t", position: 7, slide_count: 0, row_count: 0, columns: [] });
        store.insertTab({ id: "slides-9-a", type: "slides", label: "t", position: 7, slide_count: 0, row_count: 0, columns: [] });
        return ok(null);
      });
      expect(store.members().filter((u) => u !== "alice")).toEqual(["a", "b", "\uFFFD", "\u{1F600}"]);
      expect(store.tabs().slice(-2).map((t) => t.id)).toEqual(["slides-10-a", "slides-9-a"]);
    });
  });
});
