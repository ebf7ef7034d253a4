/** One line of the page's activity feed (src/page/client/feed.ts): an agent by its client's name, the person by user. */
import { describe, expect, it } from "vitest";
import { describeChange } from "../../src/page/client/feed.js";
import type { ChangeEntry } from "../../src/page/client/types.js";

const at = "2026-12-01T13:00:00.000Z";

describe("describeChange", () => {
  it("tells an agent, by its registered client name and the user it acts for, from the person", () => {
    const agent: ChangeEntry = { version: 3, at, actor: { kind: "agent", user: "alice", client_id: "c-1", client_name: "Claude" }, operation: "create_tab", tab_id: "slides-1-x", slide_ids: ["s1", "s2"] };
    expect(describeChange(agent)).toEqual({ who: "Claude", forUser: "alice", what: "created tab", tabId: "slides-1-x", count: ": 2 slides" });
    const person: ChangeEntry = { version: 4, at, actor: { kind: "person", user: "alice" }, operation: "rename_tab", tab_id: "slides-1-x" };
    expect(describeChange(person)).toEqual({ who: "alice", what: "renamed tab", tabId: "slides-1-x", count: "" });
  });

  it("names a client that registered no name by its ID, counts the IDs an entry left out, and keeps an unknown operation's own name", () => {
    const entry: ChangeEntry = { version: 9, at, actor: { kind: "agent", user: "bob", client_id: "c-2", client_name: null }, operation: "rows_append", tab_id: "sheet-2-x", row_ids: Array.from({ length: 20 }, (_, i) => `r${i}`), ids_omitted: 480 };
    expect(describeChange(entry)).toMatchObject({ who: "c-2", forUser: "bob", what: "added rows to", count: ": 500 rows" });
    expect(describeChange({ version: 10, at, actor: { kind: "person", user: "bob" }, operation: "something_new" }).what).toBe("something_new");
    expect(describeChange({ version: 11, at, actor: { kind: "person", user: "bob" }, operation: "remove_member", member: "carol" })).toEqual({ who: "bob", what: "removed member", subject: "carol", count: "" });
  });
});
