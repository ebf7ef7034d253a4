/** The retention boundary: the alarm rings exactly when the oldest key turns `retention` old, and must prune it then. */
import { describe, expect, it } from "vitest";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";

describe("idempotency retention", () => {
  it("a record exactly `retention` old is pruned, one a millisecond younger is kept", () => {
    let clock = 1_000_000;
    const note = new Note("n", new MemoryNoteStore(), { now: () => clock });
    const app = { user: "alice", channel: "app" } as const;
    const agent = { user: "alice", channel: "connector" } as const;
    note.execute(app, "create_note", { title: "T" });
    note.execute(app, "set_approval", { approved: true });
    const first = note.execute(agent, "create_tab", { expected_version: 2, idempotency_key: "a", tab_type: "sheet" });
    clock += 1;
    const second = note.execute(agent, "create_tab", { expected_version: 3, idempotency_key: "b", tab_type: "sheet" });
    expect(first.ok && second.ok).toBe(true);

    // The alarm for the oldest record rings at its created_at + retention, to the millisecond.
    clock = 1_000_000 + 5_000;
    expect(note.pruneIdempotency(5_000)).toEqual({ pruned: 1, oldest: 1_000_001 });
    clock += 1;
    expect(note.pruneIdempotency(5_000)).toEqual({ pruned: 1, oldest: null });
  });
});
