/** docs/spec.md §5 through add_note_source: dangerous URLs are refused, and spellings of one page become one source. */
import { describe, expect, it } from "vitest";
import { SEVEN_SPELLINGS } from "../support/spellings.js";
import { failure, newNote, ok } from "../support/workers.js";

describe("source URLs", () => {
  const refused = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "ftp://example.org/file",
    "https://user:secret@example.org/",
    "https://",
    " https://example.org/leading-space",
    "java\tscript:alert(1)",
    "https://example.org/\u0000",
    "https://exa\u202emple.org/",
    `https://example.org/${"a".repeat(2100)}`,
    "",
  ];
  for (const url of refused) {
    it(`refuses ${JSON.stringify(url.slice(0, 60))} with invalid_url and writes nothing`, async () => {
      const { noteId, version } = await newNote();
      const error = await failure("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: "k", title: "T", url });
      expect(error.code).toBe("invalid_url");
      expect(error.reason.length).toBeGreaterThan(5);
      expect((await ok("list_note_attachments", { note_id: noteId, kind: "sources" })).items).toHaveLength(0);
      expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
    });
  }

  it("the seven spellings of one page become one source", async () => {
    const { noteId, version } = await newNote();
    let expected = version;
    const ids = new Set<string>();
    for (const [i, url] of SEVEN_SPELLINGS.entries()) {
      const added = await ok("add_note_source", { note_id: noteId, expected_version: expected, idempotency_key: `cite-${i}`, title: "Report", url });
      expect(added.already_attached).toBe(i > 0);
      expect(added.normalized_url).toBe("https://example.org/report");
      ids.add(added.source_id);
      expected = added.version;
    }
    expect(ids.size).toBe(1);
    expect(expected).toBe(version + 1);
    expect((await ok("list_note_attachments", { note_id: noteId, kind: "sources" })).items).toHaveLength(1);
  });
});
