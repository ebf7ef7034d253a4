/**
 * Search within a Note over the in-memory store (docs/search.md): the one
 * tokenizer (every language, hostile FTS5 syntax as text), the index kept by
 * every write and every revert, FTS5's bm25 in JavaScript, and the commands'
 * checks, hits, paging and fetch.
 */
import { describe, expect, it } from "vitest";
import type { Caller, CommandName, Input, Output } from "../../src/note/commands.js";
import { LIMITS } from "../../src/note/limits.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { Result } from "../../src/note/result.js";
import { bm25 } from "../../src/note/search/bm25.js";
import { FETCH_CHARS, keyParts } from "../../src/note/search/contract.js";
import { markdownSections, rowText } from "../../src/note/search/documents.js";
import { indexText, matchExpression, queryTerms, snippet, tokenize } from "../../src/note/search/text.js";
import { rebuildIndex } from "../support/note-tables.js";

const APP: Caller = { user: "alice", channel: "app" };
const AGENT: Caller = { user: "alice", channel: "connector" };
const BOB: Caller = { user: "bob", channel: "connector" };

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** A Note over a fresh memory store, approved for connectors. */
class Fixture {
  readonly store = new MemoryNoteStore();
  clock = Date.UTC(2026, 0, 5);
  readonly note = new Note("n1", this.store, { now: () => this.clock++ });
  version = 0;
  #keys = 0;

  constructor() {
    this.version = value(this.run(APP, "create_note", { title: "Quarterly plan" })).version;
    this.version = value(this.run(APP, "set_approval", { approved: true })).version;
  }

  run<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Result<Output<K>> {
    return this.note.execute(caller, name, input);
  }

  /** An agent's write at the current version, with a fresh key; the version moves on. */
  write<K extends "create_tab" | "edit_tab" | "add_source" | "revert_change">(name: K, input: Omit<Input<K>, "expected_version" | "idempotency_key">): Output<K> {
    const out = value(this.run(AGENT, name, { ...input, expected_version: this.version, idempotency_key: `k${++this.#keys}` } as Input<K>));
    this.version = out.version;
    return out;
  }

  search(query: string, limit?: number, cursor?: string) {
    return value(this.run(AGENT, "search", { query, ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) }));
  }

  /** The index as held, against the index rebuilt from the content. */
  indexMatchesContent(): void {
    const tables = this.store.tables();
    expect(tables.search).toEqual(rebuildIndex(tables as never).map((d) => ({ rowid: d.key, text: d.text, item: d.item })));
  }
}

describe("the tokenizer", () => {
  it("folds accents, case and compatibility forms: perché finds perche, STRASSE finds straße", () => {
    expect(indexText("Perché NON è così")).toBe("perche non e cosi");
    expect(indexText("STRASSE")).toBe(indexText("straße"));
    expect(indexText("ﬁnance Ｑ３")).toBe("finance q3");
    expect(queryTerms("PERCHÉ")).toEqual([["perche"]]);
  });

  it("keeps Devanagari's vowel signs and viramas inside their word", () => {
    expect(indexText("नमस्ते दुनिया")).toBe("नमस्ते दुनिया");
    expect(tokenize("हिंदी में")).toHaveLength(2);
  });

  it("finds a Japanese word inside a sentence by its pairs in order", () => {
    expect(indexText("東京都に行きます")).toBe("東京 京都 都に に行 行き きま ます");
    expect(queryTerms("京都")).toEqual([["京都"]]);
    // The run as a phrase, then each pair: the phrase scores an item holding the whole run first.
    expect(queryTerms("東京都")).toEqual([["東京", "京都"], ["東京"], ["京都"]]);
    expect(matchExpression("東京都")).toBe('"東京 京都" OR "東京" OR "京都"');
  });

  it("finds what holds some words of a question written without spaces (search quality's ja-01, docs/search.md)", () => {
    // "Who is the customer in Osaka?": its row holds only 大阪, not the sentence.
    const row = new Set(indexText("田中浩", "海斗物流株式会社", "大阪").split(" "));
    expect(queryTerms("大阪の顧客は誰ですか").filter((words) => words.every((w) => row.has(w)))).toEqual([["大阪"]]);
  });

  it("turns FTS5 syntax into text: quotes, stars, NEAR(, OR, -, ^ and col: are no operators", () => {
    expect(matchExpression('"a" OR b* NEAR(c d) -e ^f text:g')).toBe('"a" OR "or" OR "b" OR "near" OR "c" OR "d" OR "e" OR "f" OR "text" OR "g"');
    for (const hostile of ['"', "*", "(", "-", "^", ":", '"""', "()"]) expect(matchExpression(hostile)).toBeNull();
    expect(matchExpression("NEAR(")).toBe('"near"');
    // No term can carry a quote, so no term ends the phrase FTS5 reads it as.
    for (const words of queryTerms('x"y OR "z')) for (const word of words) expect(word).not.toMatch(/["*^():\-]/);
  });

  it("finds no word in empty or blank text, and splits 5,000 characters in bounded time", () => {
    expect(queryTerms("")).toEqual([]);
    expect(queryTerms(" \t\n\u3000")).toEqual([]);
    const long = "word ".repeat(1_000);
    expect(queryTerms(long)).toHaveLength(1_000);
    expect(new Set(matchExpression(long)?.split(" OR "))).toEqual(new Set(['"word"']));
  });

  it("reads a lone surrogate as no letter, never a broken token", () => {
    expect(queryTerms("a\ud800b")).toEqual([["a"], ["b"]]);
    expect(indexText("\udc00")).toBe("");
  });

  it("cuts a snippet around the first matched word, within its length", () => {
    const text = `${"lorem ipsum ".repeat(40)}the Osaka office ${"dolor sit ".repeat(40)}`;
    const cut = snippet(text, "OSAKA", 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toContain("Osaka");
    expect(cut.startsWith("…")).toBe(true);
  });
});

describe("bm25 as FTS5 computes it", () => {
  it("ranks rarer and more frequent words first, shorter documents first at equal counts", () => {
    const docs = new Map([
      [1, ["apple", "pie"]],
      [2, ["apple", "apple", "tart"]],
      [3, ["pear"]],
      [4, ["apple", "pie", "with", "cream", "and", "more", "words"]],
    ]);
    const scores = new Map(bm25(docs, [["apple"]]).map((s) => [s.key, s.score]));
    expect([...scores.keys()].sort()).toEqual([1, 2, 4]);
    expect(scores.get(2) as number).toBeLessThan(scores.get(1) as number);
    expect(scores.get(1) as number).toBeLessThan(scores.get(4) as number);
    // One document of four holds "pear": idf ln(3.5/1.5); its length equals the average (3.25)? no: 1 token.
    const [pear] = bm25(docs, [["pear"]]);
    const avgdl = 13 / 4;
    expect(pear?.score).toBeCloseTo(-(Math.log(3.5 / 1.5) * (1 * 2.2)) / (1 + 1.2 * (1 - 0.75 + (0.75 * 1) / avgdl)), 12);
  });
});

describe("a Sheet row's document", () => {
  it("indexes each cell with its column's name: a question naming the column finds the row (search quality's en-01)", () => {
    const row = rowText({ Customer: "Hiroshi Tanaka", City: "Osaka", Amount: 18400 });
    expect(row.index).toBe("customer hiroshi tanaka city osaka amount 18400");
    expect(row.title).toBe("Hiroshi Tanaka");
    expect(queryTerms("which customer was in Osaka?").filter((words) => row.index.split(" ").includes(words[0] as string))).toEqual([["customer"], ["osaka"]]);
  });
});

describe("markdown sections", () => {
  it("are split at headings (not inside fenced code), blank ones left out, long ones cut at line ends", () => {
    const sections = markdownSections("intro\n# One\ntext\n```\n# not a heading\n```\n## Two\nmore\n\n# \n");
    // A heading without words starts a section titled as the tab is.
    expect(sections.map((s) => s.title)).toEqual(["Markdown", "One", "Two", "Markdown"]);
    expect(sections[1]?.text).toContain("# not a heading");
    const long = markdownSections(`# Big\n${"line of text\n".repeat(1_000)}`);
    expect(long.length).toBeGreaterThan(1);
    for (const s of long) expect(s.text.length).toBeLessThanOrEqual(4_000);
    expect(long.every((s) => s.title === "Big")).toBe(true);
  });
});

describe("search within a Note (memory store)", () => {
  it("finds a slide, a row, a source, the Markdown, a tab and the title, each with the IDs to act on it", () => {
    const f = new Fixture();
    const deck = f.write("create_tab", { tab_type: "slides", label: "Q3 deck", slides: [{ title: "Pricing", body: "Osaka customers pay in yen", notes: "perché" }, { title: "Team" }] });
    const sheet = f.write("create_tab", { tab_type: "sheet", label: "Customers", columns: ["Name", "City"], rows: [{ Name: "Keiko", City: "大阪市" }] });
    const source = f.write("add_source", { title: "Tokyo report", url: "https://example.org/tokyo", description: "नमस्ते market" });
    value(f.run(APP, "set_markdown", { text: "# Goals\nGrow in Osaka\n# Risks\nStraße closures" }));
    f.version += 1;
    if (!("slide_ids" in deck) || !("row_ids" in sheet)) throw new Error("wrong tab types");

    const osaka = f.search("osaka");
    expect(osaka.hits.map((h) => h.kind).sort()).toEqual(["markdown", "slide"]);
    expect(osaka.hits.find((h) => h.kind === "slide")).toMatchObject({
      id: `n1/${deck.tab_id}/${deck.slide_ids[0]}`,
      note_id: "n1",
      tab_id: deck.tab_id,
      slide_id: deck.slide_ids[0],
      title: "Pricing",
      note_title: "Quarterly plan",
    });
    expect(osaka.hits.find((h) => h.kind === "markdown")).toMatchObject({ id: "n1/markdown/section-0", tab_id: "markdown", section: 0, title: "Goals" });
    expect(f.search("大阪").hits).toEqual([expect.objectContaining({ kind: "row", tab_id: sheet.tab_id, row_id: sheet.row_ids[0], title: "Keiko" })]);
    expect(f.search("PERCHE").hits.map((h) => h.slide_id)).toEqual([deck.slide_ids[0]]);
    expect(f.search("strasse").hits.map((h) => h.id)).toEqual(["n1/markdown/section-1"]);
    expect(f.search("नमस्ते").hits).toEqual([expect.objectContaining({ kind: "source", source_id: source.source_id, tab_id: "sources", title: "Tokyo report" })]);
    expect(f.search("q3").hits).toEqual([expect.objectContaining({ kind: "tab", id: `n1/${deck.tab_id}`, tab_id: deck.tab_id, title: "Q3 deck" })]);
    expect(f.search("quarterly").hits).toEqual([expect.objectContaining({ kind: "note", id: "n1", title: "Quarterly plan" })]);
    expect(f.search('"osaka" OR NEAR( yen*').hits.map((h) => h.kind)).toContain("slide");
    f.indexMatchesContent();
  });

  it("keeps the index current through updates, deletions, moves, reverts, tab deletions and set_slides", () => {
    const f = new Fixture();
    const deck = f.write("create_tab", { tab_type: "slides", slides: [{ title: "Alpha" }, { title: "Beta" }] });
    if (!("slide_ids" in deck)) throw new Error("not a deck");
    const [alpha, beta] = deck.slide_ids as [string, string];
    f.write("edit_tab", { tab_id: deck.tab_id, operation: "slide_update", slide_id: alpha, body: "gamma" });
    expect(f.search("gamma").hits.map((h) => h.slide_id)).toEqual([alpha]);
    const deleted = f.write("edit_tab", { tab_id: deck.tab_id, operation: "slide_delete", slide_id: beta });
    expect(f.search("beta").hits).toEqual([]);
    f.indexMatchesContent();
    f.write("revert_change", { version: deleted.version });
    expect(f.search("beta").hits.map((h) => h.slide_id)).toEqual([beta]);
    f.indexMatchesContent();
    value(f.run(APP, "change_tab", { tab_id: deck.tab_id, operation: "slide_move", slide_id: beta, after_id: null, expected_version: f.version }));
    f.version += 1;
    value(f.run(APP, "rename_tab", { tab_id: deck.tab_id, label: "Roadmap", expected_version: f.version }));
    f.version += 1;
    expect(f.search("roadmap").hits.map((h) => h.kind)).toEqual(["tab"]);
    value(f.run(APP, "set_slides", { tab_id: deck.tab_id, slides: [{ title: "Delta" }], expected_version: f.version }));
    f.version += 1;
    expect(f.search("alpha").hits).toEqual([]);
    expect(f.search("delta").hits).toHaveLength(1);
    f.indexMatchesContent();
    const undone = value(f.run(APP, "undo_change", { version: f.version, expected_version: f.version }));
    f.version = undone.version;
    expect(f.search("alpha").hits.map((h) => h.slide_id)).toEqual([alpha]);
    expect(f.search("delta").hits).toEqual([]);
    f.indexMatchesContent();
    value(f.run(APP, "delete_tab", { tab_id: deck.tab_id, expected_version: f.version }));
    f.version += 1;
    expect(f.search("alpha roadmap gamma").hits).toEqual([]);
    f.indexMatchesContent();
    value(f.run(APP, "undo_change", { version: f.version, expected_version: f.version }));
    f.version += 1;
    expect(f.search("gamma").hits.map((h) => h.slide_id)).toEqual([alpha]);
    f.indexMatchesContent();
    value(f.run(APP, "rename_note", { title: "Renamed plan", expected_version: f.version }));
    f.version += 1;
    expect(f.search("quarterly").hits).toEqual([]);
    expect(f.search("renamed").hits.map((h) => h.kind)).toEqual(["note"]);
    f.indexMatchesContent();
  });

  it("queues each member's directory what changed, and a new member the whole index", () => {
    const f = new Fixture();
    value(f.run(APP, "add_member", { user: "bob" }));
    f.version += 1;
    const owed = () => f.store.owedDirectoryEntries().map((o) => ({ user: o.user, index: o.entry.index }));
    const bobs = owed().filter((o) => o.user === "bob");
    expect(bobs.at(-1)?.index).toMatchObject({ reset: true });
    expect(bobs.at(-1)?.index?.put?.map(([key]) => keyParts(key)?.code).sort()).toEqual(["fixed_tab", "fixed_tab", "fixed_tab", "note"]);
    for (const o of f.store.owedDirectoryEntries()) f.store.directoryEntryDelivered(o.seq);
    const deck = f.write("create_tab", { tab_type: "slides", slides: [{ title: "Hello" }] });
    const after = owed();
    expect(after.map((o) => o.user)).toEqual(["alice", "bob"]);
    expect(after[0]?.index?.put?.map(([, text]) => text).sort()).toEqual(["hello", "slides"]);
    expect(after[0]?.index).toEqual(after[1]?.index);
    for (const o of f.store.owedDirectoryEntries()) f.store.directoryEntryDelivered(o.seq);
    if (!("slide_ids" in deck)) throw new Error("not a deck");
    f.write("edit_tab", { tab_id: deck.tab_id, operation: "slide_delete", slide_id: deck.slide_ids[0] as string });
    expect(owed().map((o) => o.index)).toEqual([{ drop: [expect.any(Number)] }, { drop: [expect.any(Number)] }]);
  });

  it("refuses a query with no word, too long, or with a lone surrogate, naming `query`; refuses a foreign cursor", () => {
    const f = new Fixture();
    const paths = (input: Record<string, unknown>) => {
      const result = f.run(AGENT, "search", input as Input<"search">);
      if (result.ok || result.error.code !== "invalid_arguments") throw new Error(`expected invalid_arguments, got ${JSON.stringify(result)}`);
      return result.error.issues.map((i) => i.path);
    };
    for (const query of ["", "   ", '"*^-:()', "a\ud800", "x".repeat(LIMITS.searchQueryLength + 1)]) expect(paths({ query })).toEqual(["query"]);
    expect(paths({})).toEqual(["query"]);
    expect(paths({ query: "a", limit: 0 })).toEqual(["limit"]);
    expect(paths({ query: "a", limit: LIMITS.searchPageSize + 1 })).toEqual(["limit"]);
    expect(paths({ query: "a", cursor: "bm90IGEgY3Vyc29y" })).toEqual(["cursor"]);
    expect(paths({ query: "a", extra: 1 })).toEqual(["extra"]);
    // 1,000 characters of hostile syntax and words: ordinary results.
    expect(f.search(`${'NEAR("a" OR b*) col:^x -'.repeat(40)}`.slice(0, LIMITS.searchQueryLength)).hits).toEqual([]);
  });

  it("pages by cursor, every hit once, the cursor bound to its query", () => {
    const f = new Fixture();
    f.write("create_tab", { tab_type: "slides", slides: Array.from({ length: 20 }, (_, i) => ({ title: `Topic ${i}`, body: "topic ".repeat(i % 4) })) });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = f.search("topic", 6, cursor);
      seen.push(...page.hits.map((h) => h.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
    const first = f.search("topic", 6);
    const other = f.run(AGENT, "search", { query: "topics", cursor: first.next_cursor as string });
    expect(other.ok).toBe(false);
  });

  it("answers note_not_approved to a connector on an unapproved Note, note_not_found to a non-member", () => {
    const f = new Fixture();
    value(f.run(APP, "set_approval", { approved: false }));
    const code = (caller: Caller, name: "search" | "fetch_item" | "describe_hits", input: Record<string, unknown>) => {
      const result = f.run(caller, name, input as never);
      return result.ok ? "ok" : result.error.code;
    };
    expect(code(AGENT, "search", { query: "plan" })).toBe("note_not_approved");
    expect(code(AGENT, "fetch_item", { id: "n1" })).toBe("note_not_approved");
    expect(code(AGENT, "describe_hits", { keys: [0], query: "plan" })).toBe("note_not_approved");
    expect(code(BOB, "search", { query: "plan" })).toBe("note_not_found");
    expect(code(APP, "search", { query: "plan" })).toBe("ok");
  });

  it("describes the keys a directory ranked, in their order, leaving out those no longer held", () => {
    const f = new Fixture();
    const deck = f.write("create_tab", { tab_type: "slides", slides: [{ title: "One plan" }, { title: "Two plan" }] });
    if (!("slide_ids" in deck)) throw new Error("not a deck");
    const keys = f.store.searchDump().filter((d) => d.item.startsWith("slide-")).map((d) => d.key);
    f.write("edit_tab", { tab_id: deck.tab_id, operation: "slide_delete", slide_id: deck.slide_ids[0] as string });
    const described = value(f.run(AGENT, "describe_hits", { keys: [keys[1] as number, 999_999, keys[0] as number, 0], query: "plan" }));
    expect(described.hits.map((h) => [h.key, h.kind, h.title])).toEqual([
      [keys[1], "slide", "Two plan"],
      [0, "note", "Quarterly plan"],
    ]);
  });

  it("fetches a hit's whole text, bounded, and item_not_found for one gone; another Note's ID is note_not_found", () => {
    const f = new Fixture();
    const deck = f.write("create_tab", { tab_type: "slides", label: "Deck", slides: [{ title: "Big", body: "x".repeat(9_000), notes: "n".repeat(9_000) }] });
    const sheet = f.write("create_tab", { tab_type: "sheet", columns: ["Name", "City"], rows: [{ Name: "Keiko", City: "Osaka" }] });
    if (!("slide_ids" in deck) || !("row_ids" in sheet)) throw new Error("wrong tab types");
    const slide = value(f.run(AGENT, "fetch_item", { id: `n1/${deck.tab_id}/${deck.slide_ids[0]}` }));
    expect(slide).toMatchObject({ title: "Big", metadata: { kind: "slide", slide_id: deck.slide_ids[0], tab_id: deck.tab_id, version: f.version, truncated: false, length: 3 + 2 + 9_000 + 2 + 9_000 } });
    const row = value(f.run(AGENT, "fetch_item", { id: `n1/${sheet.tab_id}/${sheet.row_ids[0]}` }));
    expect(row.text).toBe("Name: Keiko\nCity: Osaka");
    const outline = value(f.run(AGENT, "fetch_item", { id: "n1" }));
    expect(outline.text).toContain("# Quarterly plan");
    expect(outline.text).toContain("1. Big");
    const tab = value(f.run(AGENT, "fetch_item", { id: `n1/${deck.tab_id}` }));
    expect(tab.text).toBe("Deck\n1. Big");
    value(f.run(APP, "set_markdown", { text: `# Long\n${"y".repeat(3_000)}\n`.repeat(60) }));
    f.version += 1;
    const markdownTab = value(f.run(AGENT, "fetch_item", { id: "n1/markdown" }));
    expect(markdownTab.text.split("\n")[1]).toBe("1. Long");
    // A long slide body over FETCH_CHARS is impossible within the limits; the Note's outline of many long titles is cut.
    expect(FETCH_CHARS).toBeGreaterThan(LIMITS.slideTitleLength + LIMITS.slideBodyLength + LIMITS.slideNotesLength);
    f.write("edit_tab", { tab_id: deck.tab_id, operation: "slide_delete", slide_id: deck.slide_ids[0] as string });
    const gone = f.run(AGENT, "fetch_item", { id: `n1/${deck.tab_id}/${deck.slide_ids[0]}` });
    expect(gone.ok ? null : gone.error.code).toBe("item_not_found");
    const foreign = f.run(AGENT, "fetch_item", { id: `n2/${deck.tab_id}` });
    expect(foreign.ok ? null : foreign.error).toMatchObject({ code: "note_not_found", note_id: "n2" });
    const wrongTab = f.run(AGENT, "fetch_item", { id: `n1/${deck.tab_id}/${sheet.row_ids[0]}` });
    expect(wrongTab.ok ? null : wrongTab.error.code).toBe("item_not_found");
  });
});
