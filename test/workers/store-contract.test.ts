/**
 * The simulations and unit tests run the Note over the in-memory store; the
 * Durable Object runs it over SQLite. The same script of operations must get
 * the same answers from both, so what the simulations show holds in production.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, CommandName, Input } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { NoteStore } from "../../src/note/store.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { uniqueNoteId } from "../support/workers.js";

type Step = { caller: Caller; name: CommandName; input: (last: any[]) => unknown };

const app: Caller = { user: "alice", channel: "app" };
const agent: Caller = { user: "alice", channel: "connector" };
const stranger: Caller = { user: "mallory", channel: "connector" };

/** A deterministic script touching every operation, its failures included. */
function script(): Step[] {
  const version = (last: any[]) => [...last].reverse().find((r) => r.ok && typeof r.value.version === "number")?.value.version ?? 1;
  const tabOf = (last: any[], i: number) => last[i]?.value?.tab_id ?? last[i]?.value?.tab?.id ?? "missing";
  const steps: Step[] = [
    { caller: agent, name: "list_tabs", input: () => ({}) },
    { caller: app, name: "create_note", input: () => ({ title: "Contract", markdown: "# hi" }) },
    { caller: agent, name: "list_tabs", input: () => ({}) },
    { caller: app, name: "set_approval", input: () => ({ approved: true }) },
    { caller: stranger, name: "list_tabs", input: () => ({}) },
    { caller: agent, name: "create_tab", input: (l) => ({ expected_version: version(l), idempotency_key: "a", tab_type: "slides", label: "Deck", slides: [{ title: "1" }, { title: "2", body: "b", notes: "n" }] }) },
    { caller: agent, name: "create_tab", input: () => ({ expected_version: 1, idempotency_key: "a", tab_type: "slides" }) },
    { caller: agent, name: "create_tab", input: () => ({ expected_version: 1, idempotency_key: "b", tab_type: "sheet" }) },
    { caller: agent, name: "edit_tab", input: (l) => ({ expected_version: version(l), idempotency_key: "c", tab_id: tabOf(l, 5), operation: "slide_add", title: "3" }) },
    { caller: agent, name: "edit_tab", input: (l) => ({ expected_version: version(l), idempotency_key: "d", tab_id: "Deck", operation: "slide_add", title: "x" }) },
    { caller: agent, name: "edit_tab", input: (l) => ({ expected_version: version(l), idempotency_key: "a", tab_id: tabOf(l, 5), operation: "slide_add", title: "x" }) },
    { caller: app, name: "add_tab", input: () => ({ tab_type: "sheet", label: "Numbers", position: 0 }) },
    { caller: app, name: "rename_tab", input: (l) => ({ tab_id: tabOf(l, 5), label: "Renamed" }) },
    { caller: app, name: "move_tab", input: (l) => ({ tab_id: tabOf(l, 5), position: 1 }) },
    { caller: app, name: "move_tab", input: (l) => ({ tab_id: tabOf(l, 5), position: 99 }) },
    { caller: app, name: "set_slides", input: (l) => ({ tab_id: tabOf(l, 5), slides: [{ title: "only" }] }) },
    { caller: app, name: "delete_tab", input: (l) => ({ tab_id: tabOf(l, 11) }) },
    { caller: app, name: "delete_tab", input: () => ({ tab_id: "sources" }) },
    { caller: app, name: "set_markdown", input: () => ({ text: "# changed" }) },
    { caller: app, name: "add_file", input: () => ({ name: "a.pdf", media_type: "application/pdf", size_bytes: 10 }) },
    { caller: app, name: "add_member", input: () => ({ user: "bob" }) },
  ];
  const urls = ["https://example.org/a", "www.example.org/a/", "example.org/b?utm_medium=x&q=1", "javascript:alert(1)", "https://Example.org/c#x"];
  urls.forEach((url, i) => steps.push({ caller: agent, name: "add_source", input: (l) => ({ expected_version: version(l), idempotency_key: `s${i}`, title: `S${i}`, url }) }));
  steps.push(
    { caller: agent, name: "list_attachments", input: () => ({ kind: "sources", limit: 2 }) },
    { caller: agent, name: "list_attachments", input: (l) => ({ kind: "sources", limit: 2, cursor: l.at(-1)?.value?.next_cursor }) },
    { caller: agent, name: "list_attachments", input: () => ({ kind: "files" }) },
    { caller: agent, name: "read_tab", input: (l) => ({ tab_id: tabOf(l, 5) }) },
    { caller: agent, name: "read_tab", input: () => ({ tab_id: "markdown" }) },
    // Search within the Note (issue 26): the same hits, in the same order, from FTS5 and from the memory store's bm25.
    { caller: agent, name: "search", input: () => ({ query: "s1 S2 only changed renamed contract", limit: 3 }) },
    { caller: agent, name: "search", input: (l) => ({ query: "s1 S2 only changed renamed contract", limit: 3, cursor: l.at(-1)?.value?.next_cursor }) },
    { caller: agent, name: "search", input: () => ({ query: '"*' }) },
    { caller: agent, name: "describe_hits", input: () => ({ keys: [0, 12, 41, 4], query: "contract" }) },
    { caller: agent, name: "fetch_item", input: (l) => ({ id: l.at(-4)?.value?.hits?.[0]?.id ?? "missing" }) },
    { caller: agent, name: "fetch_item", input: (l) => ({ id: l.at(-4)?.value?.note_id ?? "missing" }) },
    { caller: app, name: "read_note", input: () => ({}) },
    { caller: app, name: "set_approval", input: () => ({ approved: false }) },
    { caller: agent, name: "list_tabs", input: () => ({}) },
    { caller: app, name: "rename_note", input: () => ({ title: "  Renamed Note  " }) },
    { caller: app, name: "rename_note", input: () => ({ title: "" }) },
    { caller: app, name: "delete_note", input: (l) => ({ expected_version: version(l) - 1 }) },
    { caller: app, name: "delete_note", input: () => ({}) },
    // The tombstone: gone for everyone, and its ID not free until the object erases it.
    { caller: app, name: "read_note", input: () => ({}) },
    { caller: app, name: "delete_note", input: () => ({}) },
    { caller: app, name: "create_note", input: () => ({ title: "Again" }) },
  );
  return steps;
}

function play(store: NoteStore, noteId: string): unknown[] {
  let clock = 1_750_000_000_000;
  const note = new Note(noteId, store, { now: () => (clock += 7) });
  const results: any[] = [];
  for (const step of script()) {
    results.push(note.execute(step.caller, step.name, step.input(results) as Input<typeof step.name>));
  }
  // What the deletion left for the directories: the removals alone, every earlier entry dropped.
  results.push(store.owedDirectoryEntries().map(({ user, entry }) => ({ user, entry })));
  return results;
}

describe("the two stores", () => {
  it("the in-memory store and SQLite give the same answers to the same operations", async () => {
    const noteId = uniqueNoteId();
    const memory = play(new MemoryNoteStore(), noteId);
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const sqlite = await runInDurableObject(stub, (_instance, state) => play(new SqliteNoteStore(new Sql(state.storage.sql), state.storage), noteId));
    expect(sqlite).toEqual(memory);
    // The script must exercise both outcomes, or the comparison proves little.
    expect(memory.at(-1)).toEqual(["alice", "bob"].map((user) => ({ user, entry: { note_id: noteId, title: "Renamed Note", approved: false, version: expect.any(Number), removed: true } })));
    expect(memory.at(-2)).toMatchObject({ ok: false, error: { code: "note_exists", message: expect.stringContaining("being deleted") } });
    // A page of search hits with a next page, and that page: FTS5's keyset paging (score, key) against the memory store's.
    const searches = memory.filter((r: any) => r.ok && Array.isArray(r.value?.hits) && "next_cursor" in r.value) as any[];
    expect(searches[0].value.hits).toHaveLength(3);
    expect(searches[0].value.next_cursor).toEqual(expect.any(String));
    expect(searches[1].value.hits.length).toBeGreaterThan(0);
    const outcomes = memory.slice(0, -1).map((r: any) => (r.ok ? "ok" : r.error.code));
    for (const code of ["ok", "note_not_found", "note_not_approved", "tab_not_found", "idempotency_key_reused", "invalid_arguments", "wrong_tab_type", "invalid_url", "version_conflict"]) {
      expect(outcomes).toContain(code);
    }
  });
});
