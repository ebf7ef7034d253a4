import { describe, expect, it } from "vitest";
import { newNote, ok } from "../support/workers.js";

describe("smoke", () => {
  it("lists a new Note's fixed tabs", async () => {
    const { noteId, version } = await newNote();
    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list.version).toBe(version);
    expect(list.tabs.map((t: any) => t.id)).toEqual(["markdown", "files", "sources"]);
  });
});
