/**
 * The change log through the Worker and the real Durable Object: an agent's
 * write is told by its OAuth client's registered name, the person's by their
 * user; a version_conflict carries what changed; list_note_changes and the
 * person's GET …/changes page the same log; a member removed loses the Note.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, failure, newNote, ok, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("bobAgent", "bobApp"));

/** The name scripts/lib/sign-in.ts registers its clients under: the agent tokens' client. */
const CLIENT_NAME = "Local script";

describe("the change log", () => {
  it("tells the agent's write by its client and the person's rename by the user, in order", async () => {
    const { noteId, version } = await newNote();
    const slides = Array.from({ length: 12 }, (_, i) => ({ title: `Slide ${i + 1}` }));
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides });
    const renamed = await api("PATCH", `/notes/${noteId}/tabs/${deck.tab_id}`, { label: "Board deck" });
    expect(renamed.status).toBe(200);

    const page = await ok("list_note_changes", { note_id: noteId, since_version: 0 });
    expect(page).toMatchObject({ note_id: noteId, version: deck.version + 1, oldest_version: 1, next_since_version: null });
    expect(page.changes.map((c: any) => [c.version, c.operation, c.actor.kind])).toEqual([
      [1, "create_note", "person"],
      [2, "set_approval", "person"],
      [3, "create_tab", "agent"],
      [4, "rename_tab", "person"],
    ]);
    const [, , create, rename] = page.changes;
    expect(create.actor).toEqual({ kind: "agent", user: "alice", client_id: expect.any(String), client_name: CLIENT_NAME });
    expect(create).toMatchObject({ tab_id: deck.tab_id, slide_ids: deck.slide_ids });
    expect(rename).toMatchObject({ actor: { kind: "person", user: "alice" }, tab_id: deck.tab_id });
    expect(Date.parse(rename.at)).toBeGreaterThanOrEqual(Date.parse(create.at));

    // The person's API pages the same log.
    const person = await api("GET", `/notes/${noteId}/changes?since_version=2&limit=1`);
    expect(person.status).toBe(200);
    expect(person.body).toEqual({ note_id: noteId, version: 4, oldest_version: 1, changes: [create], next_since_version: 3 });
  });

  it("answers a stale write with the changes since its version, so the agent sees whether its tab was touched", async () => {
    const { noteId, version } = await newNote();
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides: [{ title: "One" }] });
    expect((await api("PUT", `/notes/${noteId}/markdown`, { text: "Notes" })).status).toBe(200);
    const conflict = await failure("edit_note_tab", {
      note_id: noteId,
      expected_version: deck.version,
      idempotency_key: "two",
      tab_id: deck.tab_id,
      operation: "slide_add",
      title: "Two",
    });
    expect(conflict).toMatchObject({ code: "version_conflict", expected_version: deck.version, current_version: deck.version + 1, changes_complete: true });
    expect(conflict.changes).toEqual([
      { version: deck.version + 1, at: expect.any(String), actor: { kind: "person", user: "alice" }, operation: "set_markdown", tab_id: "markdown", tab_label: "Markdown" },
    ]);
    expect(conflict.message).toMatch(/changes.*lists every change since your version: if none touched your target, retry with the current version/);
    // Nothing touched the deck: the same call at the current version goes through.
    const retried = await ok("edit_note_tab", {
      note_id: noteId,
      expected_version: conflict.current_version,
      idempotency_key: "two",
      tab_id: deck.tab_id,
      operation: "slide_add",
      title: "Two",
    });
    expect(retried.slide_count).toBe(2);
  });

  it("refuses bad paging arguments by name, and a Note not approved for connectors", async () => {
    const { noteId } = await newNote();
    expect(await failure("list_note_changes", { note_id: noteId, since_version: 3 })).toMatchObject({
      code: "invalid_arguments",
      issues: [{ path: "since_version", problem: expect.stringMatching(/ahead of the Note's version 2/) }],
    });
    for (const args of [{ since_version: -1 }, { since_version: "1" }, { since_version: 0, limit: 0 }, { since_version: 0, limit: 201 }, {}]) {
      const error = await failure("list_note_changes", { note_id: noteId, ...args });
      expect(error.code, JSON.stringify(args)).toBe("invalid_arguments");
    }
    const query = await api("GET", `/notes/${noteId}/changes?since_version=abc`);
    expect(query.status).toBe(400);
    expect(query.body.error.issues[0].path).toBe("since_version");

    const hidden = await newNote({ approved: false });
    expect((await failure("list_note_changes", { note_id: hidden.noteId, since_version: 0 })).code).toBe("note_not_approved");
  });

  it("removes a member: their directory drops the Note and they cannot use it; the last member cannot leave", async () => {
    const { noteId } = await newNote();
    expect((await api("POST", `/notes/${noteId}/members`, { user: "bob" })).status).toBe(200);
    expect((await ok("list_notes", {}, TOKENS.bobAgent)).notes.map((n: any) => n.note_id)).toContain(noteId);

    const removed = await api("DELETE", `/notes/${noteId}/members/bob`);
    expect(removed.status).toBe(200);
    expect((await ok("list_notes", {}, TOKENS.bobAgent)).notes.map((n: any) => n.note_id)).not.toContain(noteId);
    expect((await api("GET", `/notes/${noteId}`, undefined, TOKENS.bobApp)).status).toBe(404);
    const log = await ok("list_note_changes", { note_id: noteId, since_version: 2 });
    expect(log.changes.map((c: any) => [c.operation, c.member])).toEqual([
      ["add_member", "bob"],
      ["remove_member", "bob"],
    ]);

    const last = await api("DELETE", `/notes/${noteId}/members/alice`);
    expect(last.status).toBe(400);
    expect(last.body.error.issues[0]).toMatchObject({ path: "user", problem: expect.stringMatching(/only member/) });
    expect((await api("DELETE", `/notes/${noteId}/members/carol`)).body).toEqual({ note_id: noteId, version: log.version });
  });
});
