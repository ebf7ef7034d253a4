/**
 * The change log keeps the names its entries need, as they were at each
 * version (issue 24): a feed tells history as it was, not under today's
 * names. Through the Worker and the real Durable Object: the MCP tool's
 * output schema, the person's GET …/changes and a version_conflict all carry them.
 */
import { describe, expect, it } from "vitest";
import { NAME_KEPT } from "../../src/note/changes.js";
import { api, failure, newNote, ok } from "../support/workers.js";

describe("the change log's names", () => {
  it("keeps a tab's label as it was: the create says Alpha after a rename to Beta, the rename says Alpha → Beta", async () => {
    const { noteId, version } = await newNote({ title: "Launch plan" });
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Alpha deck", slides: [{ title: "One" }] });
    expect((await api("PATCH", `/notes/${noteId}/tabs/${deck.tab_id}`, { label: "Beta deck" })).status).toBe(200);
    const slide = await ok("edit_note_tab", { note_id: noteId, expected_version: deck.version + 1, idempotency_key: "two", tab_id: deck.tab_id, operation: "slide_add", title: "Two" });

    // list_note_changes: through the tool's output schema, which declares every field an entry may have.
    const page = await ok("list_note_changes", { note_id: noteId, since_version: 0 });
    const [created, , create, rename, added] = page.changes;
    expect(created).toMatchObject({ operation: "create_note", note_title: "Launch plan" });
    expect(create).toMatchObject({ operation: "create_tab", tab_id: deck.tab_id, tab_label: "Alpha deck" });
    expect(create).not.toHaveProperty("tab_label_before");
    expect(rename).toMatchObject({ operation: "rename_tab", tab_id: deck.tab_id, tab_label_before: "Alpha deck", tab_label: "Beta deck" });
    expect(added).toMatchObject({ operation: "slide_add", tab_id: deck.tab_id, tab_label: "Beta deck", slide_ids: slide.slide_ids });

    // The person's API pages the same entries, byte for byte.
    const person = await api("GET", `/notes/${noteId}/changes?since_version=0`);
    expect(person.body.changes).toEqual(page.changes);

    // A deleted tab's entry names it by the label it had; the earlier entries keep theirs.
    expect((await api("DELETE", `/notes/${noteId}/tabs/${deck.tab_id}?expected_version=${slide.version}`)).status).toBe(200);
    const after = await ok("list_note_changes", { note_id: noteId, since_version: 2 });
    expect(after.changes.map((c: any) => [c.operation, c.tab_label_before ?? null, c.tab_label])).toEqual([
      ["create_tab", null, "Alpha deck"],
      ["rename_tab", "Alpha deck", "Beta deck"],
      ["slide_add", null, "Beta deck"],
      ["delete_tab", null, "Beta deck"],
    ]);
  });

  it("keeps a source's title, a file's name, the Note's titles and a fixed tab's label; a version_conflict carries them", async () => {
    const { noteId, version } = await newNote({ title: "Before" });
    const source = await ok("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "src", title: "  Q3 report  ", url: "https://example.com/q3" });
    const file = await api("POST", `/notes/${noteId}/files`, { name: " plan.pdf ", media_type: "application/pdf", size_bytes: 10 });
    expect(file.status).toBe(201);
    expect((await api("PATCH", `/notes/${noteId}`, { title: "After" })).status).toBe(200);
    expect((await api("PUT", `/notes/${noteId}/markdown`, { text: "# Hi" })).status).toBe(200);

    const conflict = await failure("edit_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "late", tab_id: "slides-x", operation: "slide_add", title: "Late" });
    expect(conflict).toMatchObject({ code: "version_conflict", changes_complete: true });
    expect(conflict.changes).toEqual([
      { version: version + 1, at: expect.any(String), actor: expect.objectContaining({ kind: "agent" }), operation: "add_source", tab_id: "sources", source_id: source.source_id, tab_label: "Sources", source_title: "Q3 report" },
      { version: version + 2, at: expect.any(String), actor: { kind: "person", user: "alice" }, operation: "add_file", tab_id: "files", file_id: file.body.file_id, tab_label: "Files", file_name: "plan.pdf" },
      { version: version + 3, at: expect.any(String), actor: { kind: "person", user: "alice" }, operation: "rename_note", note_title: "After", note_title_before: "Before" },
      { version: version + 4, at: expect.any(String), actor: { kind: "person", user: "alice" }, operation: "set_markdown", tab_id: "markdown", tab_label: "Markdown" },
    ]);
  });

  it(`clips a long name to ${NAME_KEPT} UTF-16 units ending in "…", never inside a surrogate pair`, async () => {
    const { noteId, version } = await newNote();
    // 98 units, then an emoji (2 units) across the cut, then more: the cut keeps 98 units, not half the emoji.
    const title = `${"t".repeat(NAME_KEPT - 2)}😀${"u".repeat(300)}`;
    const source = await ok("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "long", title, url: "https://example.com/long" });
    expect(source.title).toBe(title);
    const [entry] = (await ok("list_note_changes", { note_id: noteId, since_version: version })).changes;
    expect(entry.source_title).toBe(`${"t".repeat(NAME_KEPT - 2)}…`);
    expect(entry.source_title.isWellFormed()).toBe(true);

    const name = "n".repeat(NAME_KEPT + 1);
    expect((await api("POST", `/notes/${noteId}/files`, { name, media_type: "text/plain", size_bytes: 1 })).status).toBe(201);
    const [fileEntry] = (await ok("list_note_changes", { note_id: noteId, since_version: version + 1 })).changes;
    expect(fileEntry.file_name).toBe(`${"n".repeat(NAME_KEPT - 1)}…`);
    expect(fileEntry.file_name).toHaveLength(NAME_KEPT);
  });
});
