/** One line of the page's activity feed (src/page/client/feed.ts): an agent by its client's name, the person by user, names as they were. */
import { describe, expect, it } from "vitest";
import { describeChange, idText, lineText, whenText } from "../../src/page/client/feed.js";
import type { ChangeEntry } from "../../src/page/client/types.js";

const at = "2026-12-01T13:00:00.000Z";
const alice = { kind: "person", user: "alice" } as const;
const claude = { kind: "agent", user: "alice", client_id: "c-1", client_name: "Claude" } as const;

describe("describeChange", () => {
  it("tells an agent, by its registered client name and the user it acts for, from the person; a tab by the label it had then", () => {
    const agent: ChangeEntry = { version: 3, at, actor: claude, operation: "create_tab", tab_id: "slides-1-x", slide_ids: ["s1", "s2"], tab_label: "Alpha deck" };
    expect(describeChange(agent)).toEqual({ who: "Claude", forUser: "alice", what: "created tab", tabId: "slides-1-x", tab: { name: "“Alpha deck”", id: "slides-1-x" }, count: ": 2 slides" });
    expect(lineText(describeChange(agent))).toBe("Claude created tab “Alpha deck” (slides-1-x): 2 slides");
    const person: ChangeEntry = { version: 4, at, actor: alice, operation: "rename_tab", tab_id: "slides-1-x", tab_label: "Beta deck", tab_label_before: "Alpha deck" };
    expect(lineText(describeChange(person))).toBe("alice renamed tab “Alpha deck” to “Beta deck” (slides-1-x)");
    // For a screen reader: the names without the IDs.
    expect(lineText(describeChange(person), false)).toBe("alice renamed tab “Alpha deck” to “Beta deck”");
  });

  it("names a source by its title, a file by its name, the Note by its titles; the Markdown, a source and a file need no tab named besides", () => {
    const source: ChangeEntry = { version: 5, at, actor: claude, operation: "add_source", tab_id: "sources", source_id: "source-1", tab_label: "Sources", source_title: "Q3 report" };
    expect(describeChange(source)).toMatchObject({ tabId: "sources", subject: { name: "“Q3 report”", id: "source-1" } });
    expect(describeChange(source).tab).toBeUndefined();
    expect(lineText(describeChange(source))).toBe("Claude added a source “Q3 report” (source-1)");
    const file: ChangeEntry = { version: 6, at, actor: alice, operation: "add_file", tab_id: "files", file_id: "file-2", tab_label: "Files", file_name: "plan.pdf" };
    expect(lineText(describeChange(file))).toBe("alice added a file “plan.pdf” (file-2)");
    expect(lineText(describeChange({ version: 7, at, actor: alice, operation: "set_markdown", tab_id: "markdown", tab_label: "Markdown" }))).toBe("alice edited the Markdown");
    expect(lineText(describeChange({ version: 8, at, actor: alice, operation: "rename_note", note_title: "After", note_title_before: "Before" }))).toBe("alice renamed the Note “Before” to “After”");
    expect(lineText(describeChange({ version: 1, at, actor: alice, operation: "create_note", note_title: "Launch" }))).toBe("alice created the Note “Launch”");
    expect(describeChange({ version: 9, at, actor: alice, operation: "delete_tab", tab_id: "sheet-1-x", tab_label: "Costs" })).toMatchObject({ gone: true, tab: { name: "“Costs”" } });
  });

  it("names the change a revert took back, and the tab it took it back in", () => {
    const revert: ChangeEntry = { version: 9, at, actor: alice, operation: "revert_change", reverts: 7, tab_id: "slides-1-x", slide_ids: ["s1"], tab_label: "Q3" };
    expect(lineText(describeChange(revert))).toBe("alice took back v7 in “Q3” (slides-1-x): 1 slide");
    expect(lineText(describeChange({ version: 10, at, actor: claude, operation: "revert_change", reverts: 8 }))).toBe("Claude took back v8");
  });

  it("shows an entry from before the log kept names by its IDs alone", () => {
    expect(lineText(describeChange({ version: 4, at, actor: alice, operation: "rename_tab", tab_id: "slides-1-x" }))).toBe("alice renamed tab slides-1-x");
    expect(lineText(describeChange({ version: 5, at, actor: claude, operation: "add_source", tab_id: "sources", source_id: "source-1" }))).toBe("Claude added a source source-1");
    expect(lineText(describeChange({ version: 5, at, actor: claude, operation: "add_source", tab_id: "sources", source_id: "source-1" }), false)).toBe("Claude added a source source-1");
  });

  it("names a client that registered no name by its ID, counts the IDs an entry left out, and keeps an unknown operation's own name", () => {
    const entry: ChangeEntry = { version: 9, at, actor: { kind: "agent", user: "bob", client_id: "c-2", client_name: null }, operation: "rows_append", tab_id: "sheet-2-x", row_ids: Array.from({ length: 20 }, (_, i) => `r${i}`), ids_omitted: 480 };
    expect(describeChange(entry)).toMatchObject({ who: "c-2", forUser: "bob", what: "added rows to", count: ": 500 rows" });
    expect(describeChange({ version: 10, at, actor: { kind: "person", user: "bob" }, operation: "something_new" }).what).toBe("something_new");
    expect(describeChange({ version: 11, at, actor: { kind: "person", user: "bob" }, operation: "remove_member", member: "carol" })).toEqual({ who: "bob", what: "removed member", subject: { id: "carol" }, count: "" });
  });
});

describe("idText", () => {
  it("words a change by its IDs, as a conflict tells it", () => {
    expect(idText(describeChange({ version: 7, at, actor: claude, operation: "slide_update", tab_id: "slides-2-x", slide_ids: ["s1"], tab_label: "Q3" }))).toBe("Claude changed a slide in slides-2-x: 1 slide");
    expect(idText(describeChange({ version: 8, at, actor: claude, operation: "add_source", tab_id: "sources", source_id: "source-1", source_title: "Q3 report" }))).toBe("Claude added a source sources source-1");
    expect(idText(describeChange({ version: 9, at, actor: alice, operation: "rename_note", note_title: "After", note_title_before: "Before" }))).toBe("alice renamed the Note");
  });
});

describe("whenText", () => {
  const now = new Date(2026, 11, 2, 16, 30);
  it("gives today's entries their time alone, another day's its date too, another year's its year", () => {
    expect(whenText(new Date(2026, 11, 2, 14, 3, 9).toISOString(), now, "en-GB")).toBe("14:03:09");
    expect(whenText(new Date(2026, 11, 1, 14, 3, 9).toISOString(), now, "en-GB")).toBe("1 Dec, 14:03");
    expect(whenText(new Date(2025, 11, 2, 14, 3).toISOString(), now, "en-GB")).toBe("2 Dec 2025, 14:03");
    expect(whenText("not a time", now, "en-GB")).toBe("not a time");
  });
});
