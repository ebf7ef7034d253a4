/** docs/spec.md §5–§6: sources and file metadata, paged by opaque cursor. */
import { describe, expect, it } from "vitest";
import { api, failure, newNote, ok } from "../support/workers.js";

describe("attachments", () => {
  it("a Note with 120 sources lists in exactly 3 pages at limit 50, every source once", async () => {
    const { noteId, version } = await newNote();
    let expected = version;
    for (let i = 0; i < 120; i++) {
      const added = await ok("add_note_source", { note_id: noteId, expected_version: expected, idempotency_key: `src-${i}`, title: `Page ${i}`, url: `https://example.org/page/${i}` });
      expected = added.version;
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 50, ...(cursor === undefined ? {} : { cursor }) });
      calls += 1;
      seen.push(...page.items.map((i: any) => i.url));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && calls < 10);
    expect(calls).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
  });

  it("a tampered cursor gets a clear error naming the cursor", async () => {
    const { noteId, version } = await newNote();
    let expected = version;
    for (let i = 0; i < 3; i++) {
      expected = (await ok("add_note_source", { note_id: noteId, expected_version: expected, idempotency_key: `s${i}`, title: "t", url: `example.org/${i}` })).version;
    }
    const page = await ok("list_note_attachments", { note_id: noteId, kind: "sources", limit: 1 });
    const cursor: string = page.next_cursor;
    const tampered = cursor.slice(0, -2) + (cursor.endsWith("A") ? "BB" : "AA");
    for (const bad of [tampered, "not-a-cursor", cursor.slice(0, 5)]) {
      const error = await failure("list_note_attachments", { note_id: noteId, kind: "sources", cursor: bad });
      expect(error.code).toBe("invalid_arguments");
      expect(error.issues[0].path).toBe("cursor");
    }
    // A cursor for sources is not a cursor for files.
    expect((await failure("list_note_attachments", { note_id: noteId, kind: "files", cursor })).issues[0].path).toBe("cursor");
  });

  it("file metadata never carries content or a link", async () => {
    const { noteId } = await newNote();
    const recorded = await api("POST", `/notes/${noteId}/files`, { name: "deck.pdf", media_type: "application/pdf", size_bytes: 2048 });
    expect(recorded.status).toBe(201);
    for (const extra of [{ content: "JVBERi0=" }, { url: "https://files.example.org/deck.pdf" }, { download_url: "https://x.example/y" }]) {
      const refused = await api("POST", `/notes/${noteId}/files`, { name: "x.pdf", media_type: "application/pdf", size_bytes: 1, ...extra });
      expect(refused.status).toBe(400);
      expect(refused.body.error.issues[0]).toEqual({ path: Object.keys(extra)[0], problem: "unexpected field; the fields here are: name, media_type, size_bytes, expected_version" });
    }
    const page = await ok("list_note_attachments", { note_id: noteId, kind: "files" });
    expect(page.items).toHaveLength(1);
    expect(Object.keys(page.items[0]).sort()).toEqual(["added_at", "id", "media_type", "name", "size_bytes"]);
    expect(JSON.stringify(page)).not.toMatch(/https?:/);
  });
});
