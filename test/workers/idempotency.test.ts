/** Promise 2: a repeated key returns the first result, because the key is checked before the version. */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliverOwed } from "../support/restart.js";
import { failure, newNote, ok } from "../support/workers.js";

describe("idempotency keys", () => {
  it("a resend after a lost response returns the first tab, not a conflict or a second tab", async () => {
    const { noteId, version } = await newNote();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "deck: Q3 plan", tab_type: "slides", label: "Q3" };
    const first = await ok("create_note_tab", call);
    // The answer to `first` was lost; the client resends the very same call, now with a stale version.
    const resent = await ok("create_note_tab", call);
    expect(resent).toEqual({ ...first, replayed: true, current_version: first.version });
    expect(first.replayed).toBe(false);
    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list.version).toBe(version + 1);
    expect(list.tabs.filter((t: { type: string }) => t.type === "slides").map((t: { id: string }) => t.id)).toEqual([first.tab_id]);
  });

  it("20 concurrent creates with one key make exactly one tab, and every answer names it", async () => {
    const { noteId, version } = await newNote();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "same-intent", tab_type: "slides" };
    const answers = await Promise.all(Array.from({ length: 20 }, () => ok("create_note_tab", call)));
    const ids = new Set(answers.map((a) => a.tab_id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list.tabs.filter((t: { type: string }) => t.type === "slides")).toHaveLength(1);
    expect(list.version).toBe(version + 1);
  });

  it("20 concurrent writes with one version and different keys: one commits, 19 conflict with the current version", async () => {
    const { noteId, version } = await newNote();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        import("../support/workers.js").then(({ tool }) =>
          tool("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: `intent-${i}`, tab_type: "sheet" }),
        ),
      ),
    );
    const committed = results.filter((r) => !r.isError);
    const conflicts = results.filter((r) => r.isError);
    expect(committed).toHaveLength(1);
    expect(conflicts).toHaveLength(19);
    for (const c of conflicts) {
      expect(c.data).toMatchObject({ code: "version_conflict", expected_version: version, current_version: version + 1 });
    }
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version + 1);
  });

  it("a key first used by another tool is refused, and a rejected call can be retried with its key", async () => {
    const { noteId, version } = await newNote();
    const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "k", tab_type: "slides" });
    const reused = await failure("add_note_source", { note_id: noteId, expected_version: created.version, idempotency_key: "k", title: "T", url: "https://example.org" });
    // The agent is told the tool it used first, by the name it knows.
    expect(reused).toMatchObject({ code: "idempotency_key_reused", first_used_by: "create_note_tab" });
    expect(reused.message).not.toContain("create_tab");

    const stale = await failure("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "src", title: "T", url: "https://example.org" });
    expect(stale.code).toBe("version_conflict");
    const fixed = await ok("add_note_source", { note_id: noteId, expected_version: stale.current_version, idempotency_key: "src", title: "T", url: "https://example.org" });
    expect(fixed).toMatchObject({ replayed: false, already_attached: false, version: created.version + 1 });
  });

  it("keys are honoured until the alarm prunes them after the retention window", async () => {
    const { noteId, version } = await newNote();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "old-intent", tab_type: "slides" };
    const first = await ok("create_note_tab", call);
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));

    // Within retention the alarm keeps the record (once it has rung for the tab's search documents).
    await deliverOwed(noteId);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await ok("create_note_tab", call)).toMatchObject({ tab_id: first.tab_id, replayed: true });

    // Age the record past the window (7 days), then let the alarm run.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE idempotency SET created_at = created_at - ?", 8 * 24 * 3600 * 1000);
    });
    // The alarm that kept it rescheduled itself for when the oldest record expires.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).not.toBeNull();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const count = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM idempotency").one().n);
    expect(count).toBe(0);

    // The key now names a new intent: with the current version it creates a second tab.
    const again = await ok("create_note_tab", { ...call, expected_version: first.version });
    expect(again.replayed).toBe(false);
    expect(again.tab_id).not.toBe(first.tab_id);
  });
});
