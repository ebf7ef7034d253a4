/**
 * The change log's own rules, through the domain with the in-memory store:
 * retention by dropping one entry per commit, capped ID lists, the conflict's
 * bounded list, and pages that end.
 */
import { describe, expect, it } from "vitest";
import { CHANGES_KEPT, CONFLICT_CHANGES, IDS_PER_CHANGE, isoTime } from "../../src/note/changes.js";
import type { Caller, ChangePage } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { Result } from "../../src/note/result.js";

const APP: Caller = { user: "alice", channel: "app" };
const AGENT: Caller = { user: "alice", channel: "connector", client: { id: "client-1", name: "Deck Builder" } };

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function newNote(): { note: Note; store: MemoryNoteStore } {
  const store = new MemoryNoteStore();
  let now = Date.UTC(2026, 11, 1, 9, 0, 0);
  const note = new Note("n1", store, { now: () => (now += 1000) });
  value(note.execute(APP, "create_note", { title: "Log" }));
  value(note.execute(APP, "set_approval", { approved: true }));
  return { note, store };
}

describe("the change log", () => {
  it(`keeps the newest ${CHANGES_KEPT} entries, dropping one per commit past them`, () => {
    const { note, store } = newNote();
    for (let i = 0; i < CHANGES_KEPT + 5; i++) value(note.execute(APP, "set_markdown", { text: `v${i}` }));
    const version = value(note.execute(APP, "list_tabs", {})).version;
    const log = store.tables().changes as { version: number }[];
    expect(log).toHaveLength(CHANGES_KEPT);
    expect(log[0]?.version).toBe(version - CHANGES_KEPT + 1);
    expect(log.at(-1)?.version).toBe(version);
    const page = value(note.execute(APP, "list_changes", { since_version: 0, limit: 3 }));
    // The log no longer holds the first versions: the page starts at the oldest kept, and says which that is.
    expect(page.oldest_version).toBe(version - CHANGES_KEPT + 1);
    expect(page.changes.map((c) => c.version)).toEqual([1, 2, 3].map((n) => version - CHANGES_KEPT + n));
  });

  it(`lists at most ${IDS_PER_CHANGE} row IDs of an append and counts the rest`, () => {
    const { note } = newNote();
    const rows = Array.from({ length: 50 }, (_, i) => ({ n: i }));
    const sheet = value(note.execute(AGENT, "create_tab", { expected_version: 2, idempotency_key: "s", tab_type: "sheet", columns: ["n"], rows }));
    if (!("row_ids" in sheet)) throw new Error("expected a Sheet");
    const [entry] = value(note.execute(APP, "list_changes", { since_version: 2 })).changes;
    expect(entry).toMatchObject({
      version: 3,
      operation: "create_tab",
      actor: { kind: "agent", user: "alice", client_id: "client-1", client_name: "Deck Builder" },
      tab_id: sheet.tab_id,
      row_ids: sheet.row_ids.slice(0, IDS_PER_CHANGE),
      ids_omitted: 50 - IDS_PER_CHANGE,
    });
  });

  it(`gives a version_conflict at most ${CONFLICT_CHANGES} changes, and says when they are not all`, () => {
    const { note } = newNote();
    for (let i = 0; i < CONFLICT_CHANGES + 3; i++) value(note.execute(APP, "set_markdown", { text: `v${i}` }));
    const write = (expected: number) => note.execute(AGENT, "create_tab", { expected_version: expected, idempotency_key: `k${expected}`, tab_type: "slides" });
    const many = write(2);
    if (many.ok || many.error.code !== "version_conflict") throw new Error(`expected a conflict, got ${JSON.stringify(many)}`);
    expect(many.error.changes.map((c) => c.version)).toEqual(Array.from({ length: CONFLICT_CHANGES }, (_, i) => 3 + i));
    expect(many.error.changes_complete).toBe(false);
    // A partial list must not read as leave to retry blind.
    expect(many.error.message).toMatch(/lists only the first 20 of 23 changes since your version.*re-read it/);
    expect(many.error.message).not.toMatch(/retry with the current version/);
    const current = many.error.current_version;
    const few = write(current - 2);
    if (few.ok || few.error.code !== "version_conflict") throw new Error(`expected a conflict, got ${JSON.stringify(few)}`);
    expect(few.error.changes.map((c) => [c.version, c.operation, c.tab_id])).toEqual([
      [current - 1, "set_markdown", "markdown"],
      [current, "set_markdown", "markdown"],
    ]);
    expect(few.error.changes_complete).toBe(true);
  });

  it("pages end: a short page has no next_since_version, and since_version ahead of the Note is refused", () => {
    const { note } = newNote();
    for (let i = 0; i < 5; i++) value(note.execute(APP, "set_markdown", { text: `v${i}` }));
    const seen: number[] = [];
    let since: number | null = 0;
    let pages = 0;
    while (since !== null) {
      const page: ChangePage = value(note.execute(AGENT, "list_changes", { since_version: since, limit: 2 }));
      seen.push(...page.changes.map((c) => c.version));
      since = page.next_since_version;
      pages++;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages).toBe(4);
    const ahead = note.execute(AGENT, "list_changes", { since_version: 8 });
    expect(ahead.ok ? null : ahead.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "since_version" }] });
  });

  it("a connector's write is an agent's, even when its caller names no client", () => {
    const { note } = newNote();
    value(note.execute({ user: "alice", channel: "connector" }, "create_tab", { expected_version: 2, idempotency_key: "k", tab_type: "slides" }));
    const [entry] = value(note.execute(APP, "list_changes", { since_version: 2 })).changes;
    expect(entry?.actor).toEqual({ kind: "agent", user: "alice", client_id: "(unknown)", client_name: null });
  });

  it("refuses . and .. as a member's ID: no URL path could name them to remove them", () => {
    const { note } = newNote();
    for (const user of [".", ".."]) {
      const added = note.execute(APP, "add_member", { user });
      expect(added.ok ? null : added.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "user" }] });
    }
    expect(value(note.execute(APP, "add_member", { user: "..." })).version).toBe(3);
  });

  it("a failed or unchanged call writes no entry", () => {
    const { note, store } = newNote();
    const before = JSON.stringify(store.tables().changes);
    expect(note.execute(APP, "rename_tab", { tab_id: "nope", label: "X" }).ok).toBe(false);
    expect(value(note.execute(APP, "set_approval", { approved: true })).version).toBe(2);
    expect(note.execute(APP, "remove_member", { user: "alice" }).ok).toBe(false);
    expect(JSON.stringify(store.tables().changes)).toBe(before);
  });
});

describe("an entry's time", () => {
  it("is the Date's ISO 8601 text for any time a Date holds, days and years apart, before 1970 and past 9999", () => {
    const times = [0, 1, -1, 999, 1000, 86_399_999, 86_400_000, -86_400_000, -86_400_001, Date.UTC(2026, 0, 5, 9, 0, 0), 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, 8.64e15, -8.64e15, 1.5e12 + 0.5, -0.5];
    // Runs of times on one day (what the kept day serves), then jumps back and forth between days.
    for (let t = Date.UTC(2026, 11, 1, 23, 59, 58); t < Date.UTC(2026, 11, 2, 0, 0, 2); t += 7) times.push(t);
    for (let i = 0; i < 2_000; i++) times.push(Math.round(Math.sin(i) * 4e12));
    for (const t of times) expect(isoTime(t), String(t)).toBe(new Date(t).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});

