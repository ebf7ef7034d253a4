/**
 * The rules of a Note (docs/spec.md §1, §3, §5, §6), driven through the domain with an
 * in-memory store and a clock the test controls.
 */
import { describe, expect, it } from "vitest";
import { CONNECTOR_COMMANDS, type Caller, type CommandName, type CreatedTab, type EditedTab, type Input, type Output, type TabSummary } from "../../src/note/commands.js";
import type { NoteError } from "../../src/note/errors.js";
import { DEFAULT_RETENTION_MS, LIMITS } from "../../src/note/limits.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { Result } from "../../src/note/result.js";
import { SEVEN_SPELLINGS } from "../support/spellings.js";

const APP: Caller = { user: "alice", channel: "app" };
const AGENT: Caller = { user: "alice", channel: "connector" };
const BOB_APP: Caller = { user: "bob", channel: "app" };
const BOB_AGENT: Caller = { user: "bob", channel: "connector" };

const START = Date.UTC(2026, 0, 5, 9, 0, 0);
const TAB_ID = /^(slides|sheet)-(\d+)-([0-9a-z]+)$/;


function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/**
 * A deck's answer to create_tab or edit_tab, each a union of a deck's and a
 * Sheet's: the test fails here, not on a missing field, when a Sheet's came back.
 */
function deckAnswer<T extends CreatedTab | EditedTab>(answer: T): Extract<T, { slide_ids: string[] }> {
  if (!("slide_ids" in answer)) throw new Error(`expected a deck's answer, got ${JSON.stringify(answer)}`);
  return answer as Extract<T, { slide_ids: string[] }>;
}

function failure(result: Result<unknown>): NoteError {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.error;
}

/** The paths an `invalid_arguments` error names. */
function issuePaths(result: Result<unknown>): string[] {
  const error = failure(result);
  if (error.code !== "invalid_arguments") throw new Error(`expected invalid_arguments, got ${JSON.stringify(error)}`);
  return error.issues.map((issue) => issue.path);
}

function tabN(id: string): number {
  const match = TAB_ID.exec(id);
  if (match?.[2] === undefined) throw new Error(`not an added tab's ID: ${id}`);
  return Number(match[2]);
}

/** A Note in a fresh in-memory store, its clock, and the calls the tests repeat. */
class Fixture {
  clock = START;
  readonly note: Note;
  #keys = 0;

  /** The Note's store, read directly where a test looks beneath the operations. */
  readonly store = new MemoryNoteStore();

  constructor(options: { create?: boolean; approved?: boolean; noteId?: string } = {}) {
    this.note = new Note(options.noteId ?? "note-1", this.store, { now: () => this.clock });
    if (options.create === false) return;
    value(this.note.execute(APP, "create_note", { title: "Quarterly review" }));
    if (options.approved !== false) value(this.note.execute(APP, "set_approval", { approved: true }));
  }

  run<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Result<Output<K>> {
    return this.note.execute(caller, name, input);
  }

  tick(ms = 1): void {
    this.clock += ms;
  }

  key(): string {
    this.#keys += 1;
    return `intent-${this.#keys}`;
  }

  version(): number {
    const meta = this.store.readMeta();
    if (meta === null) throw new Error("no Note");
    return meta.version;
  }

  tabs(): TabSummary[] {
    return value(this.run(APP, "list_tabs", {})).tabs;
  }

  slideCounts(): Record<string, number> {
    return Object.fromEntries(this.tabs().filter((t) => t.type === "slides").map((t) => [t.id, t.slide_count ?? -1]));
  }

  createTab(input: Partial<Input<"create_tab">> = {}): CreatedTab {
    return value(this.run(AGENT, "create_tab", { expected_version: this.version(), idempotency_key: this.key(), tab_type: "slides", ...input }));
  }

  slideAdd(tabId: string, title = "A slide"): Result<Output<"edit_tab">> {
    return this.run(AGENT, "edit_tab", { expected_version: this.version(), idempotency_key: this.key(), tab_id: tabId, operation: "slide_add", title });
  }

  addSource(url: string, title = "A page"): Result<Output<"add_source">> {
    return this.run(AGENT, "add_source", { expected_version: this.version(), idempotency_key: this.key(), title, url });
  }

  /** Everything a caller can observe of the Note, to compare before and after a call. */
  snapshot(): unknown {
    return {
      meta: this.store.readMeta(),
      whole: value(this.run(APP, "read_note", {})),
      sources: this.all("sources"),
      files: this.all("files"),
    };
  }

  all(kind: "sources" | "files"): unknown[] {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = value(this.run(APP, "list_attachments", { kind, cursor }));
      items.push(...page.items);
      if (page.next_cursor === null) return items;
      cursor = page.next_cursor;
    }
  }
}

/** A small seeded PRNG (mulberry32), so a failing sequence can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

// ---- promise 1: every tab instance has an exact ID -------------------------

describe("tab IDs", () => {
  it("new tabs get IDs of the form {type}-{n}-{base36 time} with n strictly increasing", () => {
    const f = new Fixture();
    const ids: string[] = [];
    for (const type of ["slides", "sheet", "slides"] as const) {
      f.tick(1000);
      const created = f.createTab({ tab_type: type });
      expect(created.tab_id).toMatch(TAB_ID);
      expect(created.tab_id.startsWith(`${type}-`)).toBe(true);
      expect(created.tab_id.endsWith(`-${f.clock.toString(36)}`)).toBe(true);
      ids.push(created.tab_id);
    }
    f.tick(1000);
    const added = value(f.run(APP, "add_tab", { tab_type: "sheet", label: "Budget" }));
    expect(added.tab?.id).toMatch(TAB_ID);
    ids.push(added.tab?.id ?? "");
    const ns = ids.map(tabN);
    for (let i = 1; i < ns.length; i++) expect(ns[i]).toBeGreaterThan(ns[i - 1] ?? Infinity);
    expect(f.tabs().map((t) => t.id)).toEqual(["markdown", "files", "sources", ...ids]);
  });

  it("tabs created in the same millisecond still get distinct IDs", () => {
    const f = new Fixture();
    const a = f.createTab();
    const b = f.createTab();
    expect(a.tab_id).not.toBe(b.tab_id);
    expect(tabN(b.tab_id)).toBeGreaterThan(tabN(a.tab_id));
  });

  it("slide IDs are slide-{n}-{base36 ms}, never reused across replaced decks and deleted tabs, even in the same millisecond", () => {
    const f = new Fixture();
    f.clock = START;
    const deck = deckAnswer(f.createTab({ slides: [{ title: "One" }, { title: "Two" }] }));
    expect(deck.slide_ids).toEqual([`slide-1-${START.toString(36)}`, `slide-2-${START.toString(36)}`]);
    value(f.run(APP, "set_slides", { tab_id: deck.tab_id, slides: [{ title: "One" }, { title: "Two" }] }));
    const replaced = value(f.run(AGENT, "read_tab", { tab_id: deck.tab_id }));
    const kept = "slides" in replaced ? replaced.slides.map((s) => s.id) : [];
    value(f.run(APP, "delete_tab", { tab_id: deck.tab_id }));
    const later = deckAnswer(f.createTab({ slides: [{ title: "One" }] }));
    const added = deckAnswer(value(f.slideAdd(later.tab_id)));
    const all = [...deck.slide_ids, ...kept, ...later.slide_ids, ...added.slide_ids];
    expect(all.map((id) => Number(id.split("-")[1]))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(all).size).toBe(6);
  });

  it("an ID is never reused, even after its tab is deleted", () => {
    const f = new Fixture();
    const first = f.createTab({ label: "Q3 deck" });
    value(f.run(APP, "delete_tab", { tab_id: first.tab_id }));
    expect(f.tabs().some((t) => t.id === first.tab_id)).toBe(false);
    // Even with the clock turned back to the very same millisecond.
    f.clock = START;
    const second = f.createTab({ label: "Q3 deck" });
    expect(second.tab_id).not.toBe(first.tab_id);
    expect(tabN(second.tab_id)).toBeGreaterThan(tabN(first.tab_id));
    const edited = failure(f.slideAdd(first.tab_id));
    expect(edited.code).toBe("tab_not_found");
  });

  it("the fixed tabs have the IDs markdown, files and sources", () => {
    const f = new Fixture();
    expect(f.tabs().map((t) => [t.id, t.type, t.position])).toEqual([
      ["markdown", "markdown", 0],
      ["files", "files", 1],
      ["sources", "sources", 2],
    ]);
  });

  it("a tab ID keeps naming the same tab through the person's random moves, renames and new tabs", () => {
    const f = new Fixture();
    const labels = ["Q3 deck", "Q3 deck", "Draft", "Summary", "Slides"];
    f.createTab({ label: "Q3 deck" });
    const kept = f.createTab({ label: "Q3 deck" }).tab_id;
    f.createTab({ label: "Draft" });
    const random = mulberry32(7);
    let ambiguous = 0;
    let slidesInKept = 0;

    for (let step = 0; step < 200; step++) {
      f.tick(250);
      const tabs = f.tabs();
      const added = tabs.filter((t) => t.type === "slides" || t.type === "sheet");
      const roll = random();
      if (roll < 0.4) {
        const tab = pick(random, tabs);
        value(f.run(APP, "move_tab", { tab_id: tab.id, position: Math.floor(random() * tabs.length) }));
      } else if (roll < 0.75) {
        const tab = pick(random, added);
        value(f.run(APP, "rename_tab", { tab_id: tab.id, label: pick(random, labels) }));
      } else {
        const position = random() < 0.5 ? Math.floor(random() * (tabs.length + 1)) : undefined;
        value(f.run(APP, "add_tab", { tab_type: random() < 0.8 ? "slides" : "sheet", label: pick(random, labels), position }));
      }

      // Would a handle by type or by label have picked another tab now?
      const after = f.tabs();
      const keptTab = after.find((t) => t.id === kept);
      expect(keptTab?.type).toBe("slides");
      const firstSlides = after.find((t) => t.type === "slides");
      const firstWithLabel = after.find((t) => t.label === keptTab?.label);
      if (firstSlides?.id !== kept || firstWithLabel?.id !== kept) ambiguous += 1;

      const before = f.slideCounts();
      const edited = deckAnswer(value(f.slideAdd(kept, `step ${step}`)));
      slidesInKept += 1;
      expect(edited.tab_id).toBe(kept);
      expect(edited.slide_count).toBe(slidesInKept);
      expect(f.slideCounts()).toEqual({ ...before, [kept]: (before[kept] ?? 0) + 1 });
    }

    // The sequence did put the kept deck where a type or label handle goes wrong.
    expect(ambiguous).toBeGreaterThan(50);
    const titles: string[] = [];
    let cursor: string | null | undefined;
    do {
      const content = value(f.run(AGENT, "read_tab", { tab_id: kept, ...(cursor ? { cursor } : {}) }));
      if (!("slides" in content)) throw new Error("the kept tab is not a slides tab");
      titles.push(...content.slides.map((s) => s.title));
      cursor = content.next_cursor;
    } while (cursor !== null);
    expect(titles).toEqual(Array.from({ length: 200 }, (_, i) => `step ${i}`));
  });

  it("read_tab pages a deck: every slide once, in order, indexes continuing; a cursor names its tab only", () => {
    const f = new Fixture();
    const deck = f.createTab({ tab_type: "slides", slides: Array.from({ length: 7 }, (_, i) => ({ title: `s${i}` })) });
    const pages: { indexes: number[]; next: string | null }[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = value(f.run(AGENT, "read_tab", { tab_id: deck.tab_id, limit: 3, ...(cursor === undefined ? {} : { cursor }) }));
      if (!("slides" in page)) throw new Error("not a deck");
      pages.push({ indexes: page.slides.map((s) => s.index), next: page.next_cursor === null ? null : "more" });
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(pages).toEqual([{ indexes: [0, 1, 2], next: "more" }, { indexes: [3, 4, 5], next: "more" }, { indexes: [6], next: null }]);
    const other = f.createTab({ tab_type: "slides", slides: [{ title: "x" }] });
    expect(f.run(AGENT, "read_tab", { tab_id: other.tab_id, cursor })).toMatchObject({ ok: false, error: { code: "invalid_arguments", issues: [{ path: "cursor" }] } });
    expect(f.run(AGENT, "read_tab", { tab_id: "markdown", limit: 5 })).toMatchObject({ ok: false, error: { code: "invalid_arguments", issues: [{ path: "limit" }] } });
    expect(f.run(AGENT, "read_tab", { tab_id: deck.tab_id, limit: 51 })).toMatchObject({ ok: false, error: { code: "invalid_arguments", issues: [{ path: "limit" }] } });
  });

  it("a type name or a label passed as tab_id gets tab_not_found with a hint, and writes nothing", () => {
    const f = new Fixture();
    const deck = f.createTab({ label: "Q3 deck" });
    f.createTab({ label: "Other" });
    const before = f.snapshot();
    const version = f.version();

    for (const notAnId of ["slides", "Q3 deck", "sheet", "Other"]) {
      const error = failure(f.slideAdd(notAnId));
      expect(error.code).toBe("tab_not_found");
      if (error.code !== "tab_not_found") continue;
      expect(error.tab_id).toBe(notAnId);
      expect(error.hint).toContain("list_note_tabs");
      expect(error.message).toContain("list_note_tabs");
    }
    const read = failure(f.run(AGENT, "read_tab", { tab_id: "Q3 deck" }));
    expect(read.code).toBe("tab_not_found");

    expect(f.version()).toBe(version);
    expect(f.snapshot()).toEqual(before);
    expect(f.slideCounts()[deck.tab_id]).toBe(0);
  });

  it("the message says whether the string was a type or a label", () => {
    const f = new Fixture();
    f.createTab({ label: "Q3 deck" });
    expect(failure(f.slideAdd("slides")).message).toMatch(/tab type/);
    expect(failure(f.slideAdd("Q3 deck")).message).toMatch(/tab label/);
  });
});

// ---- promise 2: a repeated idempotency key returns the first result --------

describe("idempotency", () => {
  it("a resend after a lost response returns the first tab, although its version is now stale", () => {
    const f = new Fixture();
    const v = f.version();
    const call: Input<"create_tab"> = { expected_version: v, idempotency_key: "deck-for-q3", tab_type: "slides", label: "Q3", slides: [{ title: "Intro" }] };
    const first = value(f.run(AGENT, "create_tab", call));
    expect(first).toMatchObject({ replayed: false, version: v + 1, slide_count: 1 });

    const resend = value(f.run(AGENT, "create_tab", call));
    expect(resend).toEqual({ ...first, replayed: true, current_version: f.version() });
    expect(f.version()).toBe(v + 1);
    expect(f.tabs().filter((t) => t.type === "slides").map((t) => t.id)).toEqual([first.tab_id]);
  });

  it("a replay returns the first result whatever the arguments now say, and says that they differ", () => {
    const f = new Fixture();
    const first = f.createTab({ idempotency_key: "k", label: "First" });
    f.createTab();
    const replay = value(f.run(AGENT, "create_tab", { expected_version: 1, idempotency_key: "k", tab_type: "sheet", label: "Changed" }));
    expect(replay).toEqual({ ...first, replayed: true, arguments_differ: true, current_version: f.version() });
    expect(f.tabs().filter((t) => t.type === "sheet")).toEqual([]);
  });

  it("a resend with the same arguments in another order, or a newer version, does not differ", () => {
    const f = new Fixture();
    const v = f.version();
    const first = value(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", label: "Deck", slides: [{ title: "a", body: "b" }] }));
    expect(first.arguments_differ).toBe(false);
    const reordered = value(f.run(AGENT, "create_tab", { slides: [{ body: "b", title: "a" }], label: "Deck", tab_type: "slides", idempotency_key: "k", expected_version: v + 1 }));
    expect(reordered).toEqual({ ...first, replayed: true, arguments_differ: false, current_version: f.version() });
    const otherSlide = value(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", label: "Deck", slides: [{ title: "a", body: "c" }] }));
    expect(otherSlide.arguments_differ).toBe(true);
  });

  it("resends of an edit and of a source return their first results", () => {
    const f = new Fixture();
    const deck = f.createTab();
    const v = f.version();
    const edit: Input<"edit_tab"> = { expected_version: v, idempotency_key: "slide-x", tab_id: deck.tab_id, operation: "slide_add", title: "X" };
    const edited = value(f.run(AGENT, "edit_tab", edit));
    expect(value(f.run(AGENT, "edit_tab", edit))).toEqual({ ...edited, replayed: true, current_version: f.version() });
    const source: Input<"add_source"> = { expected_version: v + 1, idempotency_key: "src", title: "Report", url: "https://example.org/a" };
    const added = value(f.run(AGENT, "add_source", source));
    expect(value(f.run(AGENT, "add_source", source))).toEqual({ ...added, replayed: true, current_version: f.version() });
    expect(f.version()).toBe(v + 2);
    expect(f.slideCounts()[deck.tab_id]).toBe(1);
    expect(f.all("sources")).toHaveLength(1);
  });

  it("a key used for a different tool is refused as reused", () => {
    const f = new Fixture();
    const deck = f.createTab({ idempotency_key: "shared" });
    const v = f.version();
    const edit = failure(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "shared", tab_id: deck.tab_id, operation: "slide_add", title: "X" }));
    expect(edit).toMatchObject({ code: "idempotency_key_reused", idempotency_key: "shared", first_used_by: "create_tab" });
    const source = failure(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "shared", title: "T", url: "https://example.org/x" }));
    expect(source.code).toBe("idempotency_key_reused");
    expect(f.version()).toBe(v);
    expect(f.slideCounts()[deck.tab_id]).toBe(0);
    expect(f.all("sources")).toEqual([]);
  });

  it("a call rejected for a stale version records nothing: the same key succeeds once the version is fresh", () => {
    const f = new Fixture();
    const stale = f.version();
    f.createTab();
    const rejected = failure(f.run(AGENT, "create_tab", { expected_version: stale, idempotency_key: "retry-me", tab_type: "slides" }));
    expect(rejected).toMatchObject({ code: "version_conflict", expected_version: stale, current_version: stale + 1 });
    const retried = value(f.run(AGENT, "create_tab", { expected_version: stale + 1, idempotency_key: "retry-me", tab_type: "slides" }));
    expect(retried.replayed).toBe(false);
    expect(retried.version).toBe(stale + 2);
    expect(f.tabs().filter((t) => t.type === "slides")).toHaveLength(2);
  });

  it("a call rejected for a missing tab records nothing: the same key succeeds on the right tab", () => {
    const f = new Fixture();
    const deck = f.createTab({ label: "Q3 deck" });
    const v = f.version();
    const wrong = failure(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "add-summary", tab_id: "Q3 deck", operation: "slide_add", title: "Summary" }));
    expect(wrong.code).toBe("tab_not_found");
    const right = value(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "add-summary", tab_id: deck.tab_id, operation: "slide_add", title: "Summary" }));
    expect(right).toMatchObject({ replayed: false, slide_count: 1, version: v + 1 });
  });

  it("a call rejected for a bad URL or bad arguments records nothing", () => {
    const f = new Fixture();
    const v = f.version();
    const bad = failure(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "cite", title: "T", url: "javascript:alert(1)" }));
    expect(bad.code).toBe("invalid_url");
    const blank = failure(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "cite", title: "  ", url: "https://example.org/x" }));
    expect(blank.code).toBe("invalid_arguments");
    const good = value(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "cite", title: "T", url: "https://example.org/x" }));
    expect(good).toMatchObject({ replayed: false, already_attached: false, version: v + 1 });
  });

  it("a key is honoured within the retention window and pruned after it", () => {
    const f = new Fixture();
    const v = f.version();
    const call: Input<"create_tab"> = { expected_version: v, idempotency_key: "old-intent", tab_type: "slides" };
    const first = value(f.run(AGENT, "create_tab", call));
    const createdAt = f.clock;

    // Honoured for the whole window: a millisecond before it ends, the record is still there.
    f.clock = createdAt + DEFAULT_RETENTION_MS - 1;
    expect(f.note.pruneIdempotency(DEFAULT_RETENTION_MS)).toEqual({ pruned: 0, oldest: createdAt });
    expect(value(f.run(AGENT, "create_tab", call))).toEqual({ ...first, replayed: true, current_version: f.version() });

    const young = f.createTab({ idempotency_key: "young-intent" });
    const youngAt = f.clock;

    f.clock = createdAt + DEFAULT_RETENTION_MS + 1;
    expect(f.note.pruneIdempotency(DEFAULT_RETENTION_MS)).toEqual({ pruned: 1, oldest: youngAt });

    // The younger record survives pruning.
    expect(value(f.run(AGENT, "create_tab", { expected_version: 1, idempotency_key: "young-intent", tab_type: "slides" }))).toEqual({ ...young, replayed: true, current_version: f.version() });
    // The pruned key is free: with a fresh version it is a new intent.
    const again = value(f.run(AGENT, "create_tab", { ...call, expected_version: f.version() }));
    expect(again.replayed).toBe(false);
    expect(again.tab_id).not.toBe(first.tab_id);
    expect(f.tabs().filter((t) => t.type === "slides")).toHaveLength(3);
  });

  it("pruning honours a configured retention window, not only the default", () => {
    const f = new Fixture();
    f.createTab({ idempotency_key: "a" });
    f.tick(60_000);
    f.createTab({ idempotency_key: "b" });
    f.tick(30_000);
    expect(f.note.pruneIdempotency(60_000)).toEqual({ pruned: 1, oldest: START + 60_000 });
    expect(f.note.pruneIdempotency(1)).toEqual({ pruned: 1, oldest: null });
  });

  it("keys are scoped to one Note", () => {
    const a = new Fixture({ noteId: "note-a" });
    const b = new Fixture({ noteId: "note-b" });
    const inA = a.createTab({ idempotency_key: "same" });
    const inB = b.createTab({ idempotency_key: "same" });
    expect(inB.replayed).toBe(false);
    expect(inB.note_id).toBe("note-b");
    expect(inA.note_id).toBe("note-a");
  });
});

// ---- promise 3: the version proves freshness -------------------------------

describe("versions", () => {
  it("a version conflict carries the expected and the current version", () => {
    const f = new Fixture();
    const v = f.version();
    const agent = failure(f.run(AGENT, "create_tab", { expected_version: v - 1, idempotency_key: f.key(), tab_type: "slides" }));
    expect(agent).toMatchObject({ code: "version_conflict", expected_version: v - 1, current_version: v });
    const person = failure(f.run(APP, "set_markdown", { text: "x", expected_version: v + 5 }));
    expect(person).toMatchObject({ code: "version_conflict", expected_version: v + 5, current_version: v });
    expect(f.version()).toBe(v);
  });

  it("every committed change, by agent or person, bumps the version by exactly 1", () => {
    const f = new Fixture({ approved: false });
    let deck = "";
    let sheet = "";
    const steps: [string, () => { version: number }][] = [
      ["person set_approval", () => value(f.run(APP, "set_approval", { approved: true }))],
      [
        "agent create_tab",
        () => {
          const created = f.createTab({ label: "Deck" });
          deck = created.tab_id;
          return created;
        },
      ],
      ["agent edit_tab slide_add", () => value(f.slideAdd(deck))],
      [
        "agent edit_tab slides_add_outline",
        () => value(f.run(AGENT, "edit_tab", { expected_version: f.version(), idempotency_key: f.key(), tab_id: deck, operation: "slides_add_outline", slides: [{ title: "a" }, { title: "b" }] })),
      ],
      ["agent add_source", () => value(f.addSource("https://example.org/one"))],
      [
        "person add_tab",
        () => {
          const changed = value(f.run(APP, "add_tab", { tab_type: "sheet", label: "Numbers" }));
          sheet = changed.tab?.id ?? "";
          return changed;
        },
      ],
      ["person rename_tab", () => value(f.run(APP, "rename_tab", { tab_id: deck, label: "Renamed" }))],
      ["person move_tab", () => value(f.run(APP, "move_tab", { tab_id: deck, position: 0 }))],
      ["person set_slides", () => value(f.run(APP, "set_slides", { tab_id: deck, slides: [{ title: "only" }] }))],
      ["person set_markdown", () => value(f.run(APP, "set_markdown", { text: "# Notes" }))],
      ["person add_file", () => value(f.run(APP, "add_file", { name: "a.pdf", media_type: "application/pdf", size_bytes: 10 }))],
      ["person add_member", () => value(f.run(APP, "add_member", { user: "carol" }))],
      ["person delete_tab", () => value(f.run(APP, "delete_tab", { tab_id: sheet }))],
      ["person set_approval (revoke)", () => value(f.run(APP, "set_approval", { approved: false }))],
    ];
    for (const [step, apply] of steps) {
      const before = f.version();
      const result = apply();
      expect({ step, bump: f.version() - before, returned: result.version }).toEqual({ step, bump: 1, returned: before + 1 });
    }
  });

  it("reads, replays, no-op changes and already-attached sources do not bump the version", () => {
    const f = new Fixture();
    const deck = f.createTab({ idempotency_key: "deck", label: "Deck" });
    value(f.run(APP, "set_markdown", { text: "# Notes" }));
    value(f.addSource("https://example.org/report"));
    value(f.run(APP, "add_file", { name: "a.pdf", media_type: "application/pdf", size_bytes: 10 }));
    const steps: [string, () => unknown][] = [
      ["list_tabs", () => value(f.run(AGENT, "list_tabs", {}))],
      ["read_tab slides", () => value(f.run(AGENT, "read_tab", { tab_id: deck.tab_id }))],
      ["read_tab markdown", () => value(f.run(AGENT, "read_tab", { tab_id: "markdown" }))],
      ["list_attachments sources", () => value(f.run(AGENT, "list_attachments", { kind: "sources" }))],
      ["list_attachments files", () => value(f.run(AGENT, "list_attachments", { kind: "files" }))],
      ["read_note", () => value(f.run(APP, "read_note", {}))],
      ["replay of create_tab", () => value(f.run(AGENT, "create_tab", { expected_version: 1, idempotency_key: "deck", tab_type: "slides" }))],
      ["rename to the same label", () => value(f.run(APP, "rename_tab", { tab_id: deck.tab_id, label: "Deck" }))],
      ["rename to the same label after trimming", () => value(f.run(APP, "rename_tab", { tab_id: deck.tab_id, label: "  Deck " }))],
      ["approve an approved Note", () => value(f.run(APP, "set_approval", { approved: true }))],
      ["move a tab to where it is", () => value(f.run(APP, "move_tab", { tab_id: deck.tab_id, position: 3 }))],
      ["set the same Markdown", () => value(f.run(APP, "set_markdown", { text: "# Notes" }))],
      ["add an existing member", () => value(f.run(APP, "add_member", { user: "alice" }))],
      ["add an already attached source", () => value(f.addSource("https://www.example.org/report/"))],
    ];
    for (const [step, apply] of steps) {
      const before = f.snapshot();
      apply();
      expect({ step, after: f.snapshot() }).toEqual({ step, after: before });
    }
  });

  it("a person's change while the agent thinks makes the agent's write a conflict, never a write into the wrong tab", () => {
    const f = new Fixture();
    const deck = f.createTab({ label: "Q3 deck" });
    const seen = f.version();
    value(f.run(APP, "rename_tab", { tab_id: deck.tab_id, label: "Q4 deck" }));
    const late = failure(f.run(AGENT, "edit_tab", { expected_version: seen, idempotency_key: f.key(), tab_id: deck.tab_id, operation: "slide_add", title: "x" }));
    expect(late).toMatchObject({ code: "version_conflict", expected_version: seen, current_version: seen + 1 });
    expect(f.slideCounts()[deck.tab_id]).toBe(0);
  });
});

// ---- sources and attachments ----------------------------------------------

describe("sources", () => {
  it("seven spellings of one page give one source", () => {
    const f = new Fixture();
    const [first, ...others] = SEVEN_SPELLINGS;
    const v = f.version();
    const added = value(f.addSource(first));
    expect(added).toMatchObject({ already_attached: false, replayed: false, version: v + 1, normalized_url: "https://example.org/report" });
    for (const spelling of others) {
      const again = value(f.addSource(spelling, "Another title"));
      expect({ spelling, ...again }).toMatchObject({
        spelling,
        already_attached: true,
        source_id: added.source_id,
        version: v + 1,
        title: added.title,
        url: added.url,
      });
    }
    expect(f.version()).toBe(v + 1);
    expect(f.all("sources")).toHaveLength(1);
  });

  it("an already attached page does not use up its key: the key stays free for a new intent", () => {
    const f = new Fixture();
    value(f.addSource("https://example.org/report"));
    const v = f.version();
    const again = value(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "cite-2", title: "T", url: "example.org/report" }));
    expect(again.already_attached).toBe(true);
    const other = value(f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "cite-2", title: "T", url: "example.org/other" }));
    expect(other).toMatchObject({ already_attached: false, replayed: false, version: v + 1 });
  });

  it("an invalid URL is an argument problem: invalid_url comes before access, the key and the version", () => {
    const f = new Fixture();
    const v = f.version();
    const stale = { expected_version: v - 1, idempotency_key: "k", title: "T", url: "javascript:alert(1)" };
    expect(failure(f.run(AGENT, "add_source", stale)).code).toBe("invalid_url");
    expect(failure(f.run(BOB_AGENT, "add_source", stale)).code).toBe("invalid_url");
    expect(failure(f.run(AGENT, "add_source", { ...stale, url: "https://example.org/a" })).code).toBe("version_conflict");
    expect(f.version()).toBe(v);
  });

  it("an invalid URL gets invalid_url with its reason, and nothing is written", () => {
    const f = new Fixture();
    const before = f.snapshot();
    for (const url of ["javascript:alert(1)", "ftp://example.org/x", "https://user:pass@example.org/", "https://localhost/x", "//example.org/x"]) {
      const error = failure(f.addSource(url));
      expect(error.code).toBe("invalid_url");
      if (error.code === "invalid_url") {
        expect(error.url).toBe(url);
        expect(error.reason.length).toBeGreaterThan(0);
      }
    }
    expect(f.snapshot()).toEqual(before);
  });

  it("a source keeps the URL as the agent wrote it (made absolute) and lists it with its metadata", () => {
    const f = new Fixture();
    f.clock = Date.UTC(2026, 1, 2, 3, 4, 5);
    value(f.run(AGENT, "add_source", { expected_version: f.version(), idempotency_key: "k", title: " Report ", url: "www.example.org/report?utm_source=x", description: "Q3 numbers" }));
    expect(f.all("sources")).toEqual([
      { id: "source-1", title: "Report", url: "https://www.example.org/report?utm_source=x", description: "Q3 numbers", added_at: "2026-02-02T03:04:05.000Z" },
    ]);
  });
});

describe("paging attachments", () => {
  function withSources(count: number): Fixture {
    const f = new Fixture();
    for (let i = 1; i <= count; i++) value(f.addSource(`https://example.org/page-${i}`, `Page ${i}`));
    return f;
  }

  it("120 sources list in exactly 3 pages at limit 50, each source exactly once", () => {
    const f = withSources(120);
    const sizes: number[] = [];
    const titles: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    for (;;) {
      calls += 1;
      const page = value(f.run(AGENT, "list_attachments", { kind: "sources", limit: 50, cursor }));
      sizes.push(page.items.length);
      for (const item of page.items) titles.push("title" in item ? item.title : "");
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
      if (calls > 10) throw new Error("paging does not end");
    }
    expect(calls).toBe(3);
    expect(sizes).toEqual([50, 50, 20]);
    expect(titles).toEqual(Array.from({ length: 120 }, (_, i) => `Page ${i + 1}`));
  });

  it("the limit defaults to 50", () => {
    const f = withSources(51);
    const page = value(f.run(AGENT, "list_attachments", { kind: "sources" }));
    expect(page.items).toHaveLength(50);
    expect(page.next_cursor).not.toBeNull();
  });

  it("a page that holds the last item says there is no next page", () => {
    const f = withSources(50);
    const page = value(f.run(AGENT, "list_attachments", { kind: "sources", limit: 50 }));
    expect(page.items).toHaveLength(50);
    expect(page.next_cursor).toBeNull();
    const empty = value(f.run(AGENT, "list_attachments", { kind: "files" }));
    expect(empty).toMatchObject({ items: [], next_cursor: null });
  });

  it("a limit of 51 or 0 is refused, naming limit", () => {
    const f = withSources(1);
    for (const limit of [51, 0, -1, 1.5]) {
      expect(issuePaths(f.run(AGENT, "list_attachments", { kind: "sources", limit }))).toEqual(["limit"]);
    }
  });

  it("a tampered cursor or one from another list or Note is refused, naming cursor", () => {
    const f = withSources(60);
    const cursor = value(f.run(AGENT, "list_attachments", { kind: "sources", limit: 10 })).next_cursor;
    if (cursor === null) throw new Error("expected a next page");
    const tampered = `${cursor.slice(0, 3)}${cursor[3] === "A" ? "B" : "A"}${cursor.slice(4)}`;
    const elsewhere = new Fixture({ noteId: "note-2" });
    for (let i = 1; i <= 20; i++) value(elsewhere.addSource(`https://example.org/page-${i}`));
    const fromNote2 = value(elsewhere.run(AGENT, "list_attachments", { kind: "sources", limit: 10 })).next_cursor ?? "";

    for (const [what, bad, kind] of [
      ["flipped", tampered, "sources"],
      ["truncated", cursor.slice(0, -2), "sources"],
      ["other kind", cursor, "files"],
      ["other Note", fromNote2, "sources"],
      ["garbage", "not a cursor!", "sources"],
    ] as const) {
      expect({ what, paths: issuePaths(f.run(AGENT, "list_attachments", { kind, cursor: bad })) }).toEqual({ what, paths: ["cursor"] });
    }
  });

  it("files list metadata only: id, name, media_type, size_bytes, added_at", () => {
    const f = new Fixture();
    value(f.run(APP, "add_file", { name: "Budget.xlsx", media_type: "application/vnd.ms-excel", size_bytes: 12_345 }));
    value(f.run(APP, "add_file", { name: "photo.png", media_type: "image/png", size_bytes: 0 }));
    const page = value(f.run(AGENT, "list_attachments", { kind: "files" }));
    expect(page.items).toHaveLength(2);
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(["added_at", "id", "media_type", "name", "size_bytes"]);
    expect(page.items[0]).toEqual({ id: "file-1", name: "Budget.xlsx", media_type: "application/vnd.ms-excel", size_bytes: 12_345, added_at: new Date(START).toISOString() });
    expect(JSON.stringify(page)).not.toMatch(/https?:|content|url|link/i);
  });

  it("sources list exactly id, title, url, description, added_at", () => {
    const f = withSources(2);
    const page = value(f.run(AGENT, "list_attachments", { kind: "sources" }));
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(["added_at", "description", "id", "title", "url"]);
  });
});

// ---- access -----------------------------------------------------------------

describe("access", () => {
  /** One valid call of every operation but create_note, given a tab that exists. */
  function everyOperation(tabId: string): [CommandName, (f: Fixture, caller: Caller) => Result<unknown>][] {
    return [
      ["list_tabs", (f, c) => f.run(c, "list_tabs", {})],
      ["read_tab", (f, c) => f.run(c, "read_tab", { tab_id: tabId })],
      ["create_tab", (f, c) => f.run(c, "create_tab", { expected_version: 3, idempotency_key: "k-create", tab_type: "slides" })],
      ["edit_tab", (f, c) => f.run(c, "edit_tab", { expected_version: 3, idempotency_key: "k-edit", tab_id: tabId, operation: "slide_add", title: "x" })],
      ["add_source", (f, c) => f.run(c, "add_source", { expected_version: 3, idempotency_key: "k-source", title: "T", url: "https://example.org/x" })],
      ["list_attachments", (f, c) => f.run(c, "list_attachments", { kind: "sources" })],
      ["read_note", (f, c) => f.run(c, "read_note", {})],
      ["set_approval", (f, c) => f.run(c, "set_approval", { approved: false })],
      ["add_member", (f, c) => f.run(c, "add_member", { user: "bob" })],
      ["add_tab", (f, c) => f.run(c, "add_tab", { tab_type: "slides" })],
      ["rename_tab", (f, c) => f.run(c, "rename_tab", { tab_id: tabId, label: "Mine" })],
      ["move_tab", (f, c) => f.run(c, "move_tab", { tab_id: tabId, position: 0 })],
      ["delete_tab", (f, c) => f.run(c, "delete_tab", { tab_id: tabId })],
      ["set_slides", (f, c) => f.run(c, "set_slides", { tab_id: tabId, slides: [{ title: "x" }] })],
      ["set_markdown", (f, c) => f.run(c, "set_markdown", { text: "mine" })],
      ["add_file", (f, c) => f.run(c, "add_file", { name: "a.txt", media_type: "text/plain", size_bytes: 1 })],
    ];
  }

  it("a non-member gets note_not_found for every operation, exactly as for a Note never created", () => {
    const alices = new Fixture();
    const deck = alices.createTab();
    const never = new Fixture({ create: false });
    const before = alices.snapshot();

    for (const [name, call] of everyOperation(deck.tab_id)) {
      for (const caller of [BOB_APP, BOB_AGENT]) {
        const hidden = failure(call(alices, caller));
        const missing = failure(call(never, caller));
        expect({ name, channel: caller.channel, hidden }).toEqual({ name, channel: caller.channel, hidden: missing });
        // The person's operations are refused to a connector before the Note is even looked at.
        const expected = caller.channel === "app" || CONNECTOR_COMMANDS.has(name) ? "note_not_found" : "invalid_arguments";
        expect({ name, code: hidden.code }).toEqual({ name, code: expected });
      }
      const expected = CONNECTOR_COMMANDS.has(name) ? "note_not_found" : "invalid_arguments";
      expect({ name, missing: failure(call(never, AGENT)).code }).toEqual({ name, missing: expected });
    }
    expect(alices.snapshot()).toEqual(before);
    expect(never.store.readMeta()).toBeNull();
  });

  it("a non-member cannot learn whether a Note is approved", () => {
    const unapproved = new Fixture({ approved: false });
    expect(failure(unapproved.run(BOB_AGENT, "list_tabs", {})).code).toBe("note_not_found");
  });

  it("an unapproved Note refuses connector calls while the app still works", () => {
    const f = new Fixture({ approved: false });
    const deck = value(f.run(APP, "create_tab", { expected_version: f.version(), idempotency_key: f.key(), tab_type: "slides" }));
    const before = f.snapshot();
    const v = f.version();
    const agentCalls: [string, () => Result<unknown>][] = [
      ["list_tabs", () => f.run(AGENT, "list_tabs", {})],
      ["read_tab", () => f.run(AGENT, "read_tab", { tab_id: deck.tab_id })],
      ["create_tab", () => f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "a", tab_type: "slides" })],
      ["edit_tab", () => f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "b", tab_id: deck.tab_id, operation: "slide_add", title: "x" })],
      ["add_source", () => f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "c", title: "T", url: "https://example.org/x" })],
      ["list_attachments", () => f.run(AGENT, "list_attachments", { kind: "files" })],
    ];
    for (const [name, call] of agentCalls) expect({ name, code: failure(call()).code }).toEqual({ name, code: "note_not_approved" });
    const selfApproval = failure(f.run(AGENT, "set_approval", { approved: true }));
    expect(selfApproval).toMatchObject({ code: "invalid_arguments", issues: [{ path: "operation" }] });
    expect(f.snapshot()).toEqual(before);

    expect(value(f.run(APP, "list_tabs", {})).tabs).toHaveLength(4);
    expect(value(f.run(APP, "read_tab", { tab_id: deck.tab_id }))).toMatchObject({ tab: { id: deck.tab_id } });
  });

  it("approval opens the Note to connectors, and revoking it closes it again", () => {
    const f = new Fixture({ approved: false });
    expect(failure(f.run(AGENT, "list_tabs", {})).code).toBe("note_not_approved");
    value(f.run(APP, "set_approval", { approved: true }));
    expect(value(f.run(AGENT, "list_tabs", {})).version).toBe(f.version());
    const deck = f.createTab();
    value(f.run(APP, "set_approval", { approved: false }));
    expect(failure(f.run(AGENT, "list_tabs", {})).code).toBe("note_not_approved");
    expect(failure(f.slideAdd(deck.tab_id)).code).toBe("note_not_approved");
    expect(f.slideCounts()[deck.tab_id]).toBe(0);
  });

  it("a member the owner adds can use the Note", () => {
    const f = new Fixture();
    expect(failure(f.run(BOB_AGENT, "list_tabs", {})).code).toBe("note_not_found");
    value(f.run(APP, "add_member", { user: "bob" }));
    expect(value(f.run(BOB_AGENT, "list_tabs", {})).note_id).toBe("note-1");
  });
});

// ---- limits and argument checks ------------------------------------------

describe("limits", () => {
  it("21 slides in one create are refused, naming slides, and 20 are accepted", () => {
    const f = new Fixture();
    const slides = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Slide ${i + 1}` }));
    const v = f.version();
    expect(issuePaths(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", slides: slides(21) }))).toEqual(["slides"]);
    expect(f.version()).toBe(v);
    const created = value(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", slides: slides(20) }));
    expect(deckAnswer(created).slide_count).toBe(20);
  });

  it("a tab holds at most LIMITS.slidesPerTab slides", () => {
    const f = new Fixture();
    const deck = f.createTab();
    const full = Array.from({ length: LIMITS.slidesPerTab - 10 }, (_, i) => ({ title: `S${i}` }));
    value(f.run(APP, "set_slides", { tab_id: deck.tab_id, slides: full }));
    const v = f.version();
    const outline = (n: number) => ({ expected_version: v, idempotency_key: f.key(), tab_id: deck.tab_id, operation: "slides_add_outline" as const, slides: Array.from({ length: n }, () => ({ title: "more" })) });
    const over = failure(f.run(AGENT, "edit_tab", outline(11)));
    expect(over).toMatchObject({ code: "limit_exceeded", limit: "slides_per_tab", max: LIMITS.slidesPerTab });
    expect(f.version()).toBe(v);
    expect(deckAnswer(value(f.run(AGENT, "edit_tab", outline(10)))).slide_count).toBe(LIMITS.slidesPerTab);
    expect(failure(f.slideAdd(deck.tab_id))).toMatchObject({ code: "limit_exceeded", limit: "slides_per_tab" });
    expect(f.slideCounts()[deck.tab_id]).toBe(LIMITS.slidesPerTab);
  });

  it("a Note holds at most LIMITS.tabsPerNote Slides and Sheet tabs", () => {
    const f = new Fixture();
    for (let i = 0; i < LIMITS.tabsPerNote; i++) value(f.run(APP, "add_tab", { tab_type: i % 2 === 0 ? "slides" : "sheet" }));
    const v = f.version();
    const agent = failure(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides" }));
    expect(agent).toMatchObject({ code: "limit_exceeded", limit: "tabs_per_note", max: LIMITS.tabsPerNote });
    expect(failure(f.run(APP, "add_tab", { tab_type: "sheet" })).code).toBe("limit_exceeded");
    expect(f.version()).toBe(v);
    expect(f.tabs()).toHaveLength(LIMITS.tabsPerNote + 3);
    // A deleted tab frees its place, and the next one goes to the end of the strip.
    value(f.run(APP, "delete_tab", { tab_id: f.tabs()[3]?.id ?? "" }));
    const again = value(f.run(AGENT, "create_tab", { expected_version: f.version(), idempotency_key: "k2", tab_type: "sheet" }));
    expect(again.position).toBe(LIMITS.tabsPerNote + 2);
    expect(f.tabs().map((t) => t.position)).toEqual(Array.from({ length: LIMITS.tabsPerNote + 3 }, (_, i) => i));
  });

  it("an idempotency key of 257 characters or with a non-printable character is refused, naming idempotency_key", () => {
    const f = new Fixture();
    const v = f.version();
    const create = (key: string) => f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: key, tab_type: "slides" });
    for (const key of ["k".repeat(LIMITS.idempotencyKeyLength + 1), "", "bell\u0007", "line\nbreak", "tab\there", "zero\u200bwidth"]) {
      expect({ key, paths: issuePaths(create(key)) }).toEqual({ key, paths: ["idempotency_key"] });
    }
    expect(f.version()).toBe(v);
    expect(value(create("k".repeat(LIMITS.idempotencyKeyLength))).replayed).toBe(false);
  });

  it("expected_version must be a positive integer", () => {
    const f = new Fixture();
    for (const expected_version of [0, -1, 1.5, Number.NaN]) {
      expect(issuePaths(f.run(AGENT, "create_tab", { expected_version, idempotency_key: "k", tab_type: "slides" }))).toEqual(["expected_version"]);
    }
  });
});

describe("the Note checks what it is given, whoever calls it", () => {
  it("a write without expected_version or idempotency_key is refused, naming both, not a TypeError", () => {
    const f = new Fixture();
    const v = f.version();
    const bare = { tab_type: "slides" } as unknown as Input<"create_tab">;
    expect(issuePaths(f.run(AGENT, "create_tab", bare))).toEqual(["expected_version", "idempotency_key"]);
    const source = { title: "T", url: "https://example.org/a" } as unknown as Input<"add_source">;
    expect(issuePaths(f.run(AGENT, "add_source", source))).toEqual(["expected_version", "idempotency_key"]);
    expect(f.version()).toBe(v);
  });

  it("arguments that are not an object, or fields of the wrong type, are refused, naming each field", () => {
    const f = new Fixture();
    for (const input of [null, undefined, "x", 7, ["a"]]) {
      expect({ input, paths: issuePaths(f.run(AGENT, "create_tab", input as unknown as Input<"create_tab">)) }).toEqual({ input, paths: ["(arguments)"] });
    }
    const wrong = { expected_version: f.version(), idempotency_key: "k", tab_type: "slides", label: 5, slides: "one slide" } as unknown as Input<"create_tab">;
    expect(issuePaths(f.run(AGENT, "create_tab", wrong))).toEqual(["label", "slides"]);
    const person = { tab_id: 3, position: "1" } as unknown as Input<"move_tab">;
    expect(issuePaths(f.run(APP, "move_tab", person))).toEqual(["tab_id", "position"]);
  });

  it("text that is not well-formed Unicode (a lone surrogate) is refused in every text field", () => {
    const f = new Fixture();
    const v = f.version();
    const cut = "\ud83d"; // the first half of an emoji, alone
    expect(issuePaths(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", label: `a${cut}b` }))).toEqual(["label"]);
    expect(issuePaths(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", slides: [{ title: "t", notes: cut }] }))).toEqual(["slides[0].notes"]);
    expect(issuePaths(f.run(APP, "set_markdown", { text: `x\udc00` }))).toEqual(["text"]);
    const error = failure(f.run(APP, "add_tab", { tab_type: "slides", label: "\ud800".repeat(100) }));
    expect(error.message).toContain("lone surrogate at index 0");
    // A whole emoji is a surrogate pair: well-formed, and kept as sent.
    const deck = value(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", label: "Deck \ud83d\ude80" }));
    expect(deck.label).toBe("Deck \u{1F680}");
    expect(f.version()).toBe(v + 1);
  });

  it("fields the operation does not take are refused, at the top and inside a slide, as the edge refuses them", () => {
    const f = new Fixture();
    const v = f.version();
    const deck = f.createTab();
    const w = f.version();
    const add = { expected_version: w, idempotency_key: "k1", tab_id: deck.tab_id, operation: "slide_add", title: "Sources", index: 0 } as unknown as Input<"edit_tab">;
    expect(issuePaths(f.run(AGENT, "edit_tab", add))).toEqual(["index"]);
    const outline = { expected_version: w, idempotency_key: "k2", tab_id: deck.tab_id, operation: "slides_add_outline", slides: [{ title: "a", bullets: ["b"] }] } as unknown as Input<"edit_tab">;
    expect(issuePaths(f.run(AGENT, "edit_tab", outline))).toEqual(["slides[0].bullets"]);
    const odd = { expected_version: w, idempotency_key: "k3", tab_type: "slides", extra: BigInt(1) } as unknown as Input<"create_tab">;
    expect(issuePaths(f.run(AGENT, "create_tab", odd))).toEqual(["extra"]);
    expect(issuePaths(f.run(APP, "set_markdown", { text: "x", html: "<p>x</p>" } as unknown as Input<"set_markdown">))).toEqual(["html"]);
    expect(issuePaths(f.run(AGENT, "list_tabs", { everything: true } as unknown as Input<"list_tabs">))).toEqual(["everything"]);
    expect(f.version()).toBe(w);
    expect(w).toBe(v + 1);
  });

  it("a caller is a user through the app or a connector: any other door is refused, never let past approval", () => {
    const f = new Fixture({ approved: false });
    const v = f.version();
    const input = { expected_version: v, idempotency_key: "k", tab_type: "slides" } as const;
    for (const caller of [{ user: "alice", channel: "mcp" }, { user: "alice" }, { user: "", channel: "app" }, null]) {
      const paths = issuePaths(f.note.execute(caller as unknown as Caller, "create_tab", input));
      expect({ caller, paths: paths.every((p) => p.startsWith("caller.")) }).toEqual({ caller, paths: true });
    }
    expect(f.version()).toBe(v);
  });

  it("labels and user IDs a person could not tell apart are refused: invisible, on two lines, or padded", () => {
    const f = new Fixture();
    const v = f.version();
    for (const label of ["\u200d", " \u200b ", "\u3164", "a\u2028b", "a\u2029b"]) {
      expect({ label, paths: issuePaths(f.run(APP, "add_tab", { tab_type: "slides", label })) }).toEqual({ label, paths: ["label"] });
    }
    for (const user of ["Bob ", " bob", "bo\nb"]) {
      expect({ user, paths: issuePaths(f.run(APP, "add_member", { user })) }).toEqual({ user, paths: ["user"] });
    }
    expect(f.version()).toBe(v);
  });

  it("a version ahead of the Note's is a conflict that says so", () => {
    const f = new Fixture();
    const v = f.version();
    const ahead = failure(f.run(AGENT, "create_tab", { expected_version: v + 5, idempotency_key: "k", tab_type: "slides" }));
    expect(ahead).toMatchObject({ code: "version_conflict", expected_version: v + 5, current_version: v });
    expect(ahead.message).toContain("ahead of the Note's current version");
  });

  it("an empty outline is refused: an empty deck omits slides", () => {
    const f = new Fixture();
    const v = f.version();
    expect(issuePaths(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides", slides: [] }))).toEqual(["slides"]);
    expect(deckAnswer(value(f.run(AGENT, "create_tab", { expected_version: v, idempotency_key: "k", tab_type: "slides" }))).slide_count).toBe(0);
  });
});

describe("edit_tab", () => {
  it("edits only slides tabs: a sheet or a fixed tab gets wrong_tab_type", () => {
    const f = new Fixture();
    const sheet = f.createTab({ tab_type: "sheet" });
    const before = f.snapshot();
    for (const tabId of [sheet.tab_id, "markdown", "files", "sources"]) {
      const error = failure(f.slideAdd(tabId));
      expect({ tabId, code: error.code }).toEqual({ tabId, code: "wrong_tab_type" });
    }
    expect(f.snapshot()).toEqual(before);
  });

  it("slide_add without a title is refused, naming title", () => {
    const f = new Fixture();
    const deck = f.createTab();
    const v = f.version();
    expect(issuePaths(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "k", tab_id: deck.tab_id, operation: "slide_add", body: "text" }))).toEqual(["title"]);
    expect(issuePaths(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "k", tab_id: deck.tab_id, operation: "slide_add", title: "   " }))).toEqual(["title"]);
    expect(f.version()).toBe(v);
  });

  it("slides_add_outline with a lone title is refused", () => {
    const f = new Fixture();
    const deck = f.createTab();
    const v = f.version();
    const paths = issuePaths(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "k", tab_id: deck.tab_id, operation: "slides_add_outline", title: "x", slides: [{ title: "a" }] }));
    expect(paths).toEqual(["title"]);
    expect(issuePaths(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "k", tab_id: deck.tab_id, operation: "slides_add_outline" }))).toEqual(["slides"]);
    expect(issuePaths(f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "k", tab_id: deck.tab_id, operation: "slide_add", title: "x", slides: [{ title: "a" }] }))).toEqual(["slides"]);
    expect(f.version()).toBe(v);
  });

  it("an unknown operation is refused, naming operation", () => {
    const f = new Fixture();
    const deck = f.createTab();
    const input = { expected_version: f.version(), idempotency_key: "k", tab_id: deck.tab_id, operation: "slides_add", slides: [{ title: "a" }] } as unknown as Input<"edit_tab">;
    expect(issuePaths(f.run(AGENT, "edit_tab", input))).toEqual(["operation"]);
  });

  it("slides land at the end of the deck, in order, with the fields given", () => {
    const f = new Fixture();
    const deck = deckAnswer(f.createTab({ slides: [{ title: "One" }] }));
    const outline = deckAnswer(value(f.run(AGENT, "edit_tab", { expected_version: f.version(), idempotency_key: "k1", tab_id: deck.tab_id, operation: "slides_add_outline", slides: [{ title: "Two", body: "b" }, { title: "Three", notes: "n" }] })));
    const single = deckAnswer(value(f.run(AGENT, "edit_tab", { expected_version: f.version(), idempotency_key: "k2", tab_id: deck.tab_id, operation: "slide_add", title: "Four" })));
    const ids = [...deck.slide_ids, ...outline.slide_ids, ...single.slide_ids];
    const content = value(f.run(AGENT, "read_tab", { tab_id: deck.tab_id }));
    expect("slides" in content ? content.slides : null).toEqual([
      { id: ids[0], index: 0, title: "One", body: "", notes: "" },
      { id: ids[1], index: 1, title: "Two", body: "b", notes: "" },
      { id: ids[2], index: 2, title: "Three", body: "", notes: "n" },
      { id: ids[3], index: 3, title: "Four", body: "", notes: "" },
    ]);
  });
});

// ---- atomicity --------------------------------------------------------------

describe("a failing operation leaves the Note exactly as it was", () => {
  it("every kind of rejected call writes nothing", () => {
    const f = new Fixture();
    const deck = f.createTab({ label: "Q3 deck", idempotency_key: "used" });
    value(f.run(APP, "set_slides", { tab_id: deck.tab_id, slides: Array.from({ length: LIMITS.slidesPerTab - 5 }, () => ({ title: "s" })) }));
    const sheet = f.createTab({ tab_type: "sheet" });
    value(f.addSource("https://example.org/report"));
    const v = f.version();
    const rejected: [string, () => Result<unknown>][] = [
      ["add_tab at a position past the end (the tab is inserted before the move fails)", () => f.run(APP, "add_tab", { tab_type: "slides", label: "Late", position: 99 })],
      ["create_tab with a stale version", () => f.run(AGENT, "create_tab", { expected_version: v - 1, idempotency_key: "new-1", tab_type: "slides" })],
      ["add_source with a key used for create_tab", () => f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "used", title: "T", url: "https://example.org/new" })],
      ["outline past the slides limit", () => f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "new-2", tab_id: deck.tab_id, operation: "slides_add_outline", slides: Array.from({ length: 6 }, () => ({ title: "x" })) })],
      ["edit by label", () => f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "new-3", tab_id: "Q3 deck", operation: "slide_add", title: "x" })],
      ["edit a sheet", () => f.run(AGENT, "edit_tab", { expected_version: v, idempotency_key: "new-4", tab_id: sheet.tab_id, operation: "slide_add", title: "x" })],
      ["an invalid URL", () => f.run(AGENT, "add_source", { expected_version: v, idempotency_key: "new-5", title: "T", url: "data:text/html,x" })],
      ["set_slides with a blank title", () => f.run(APP, "set_slides", { tab_id: deck.tab_id, slides: [{ title: "ok" }, { title: " " }] })],
      ["rename a fixed tab", () => f.run(APP, "rename_tab", { tab_id: "markdown", label: "Mine" })],
      ["delete a fixed tab", () => f.run(APP, "delete_tab", { tab_id: "sources" })],
      ["move to a negative position", () => f.run(APP, "move_tab", { tab_id: deck.tab_id, position: -1 })],
      ["a person's change at a stale version", () => f.run(APP, "delete_tab", { tab_id: deck.tab_id, expected_version: v - 1 })],
      ["a file with a bad media type", () => f.run(APP, "add_file", { name: "a", media_type: "pdf", size_bytes: 1 })],
      ["create_note on an existing Note", () => f.run(APP, "create_note", { title: "Again" })],
    ];
    for (const [what, call] of rejected) {
      const before = f.snapshot();
      const result = call();
      expect({ what, ok: result.ok }).toEqual({ what, ok: false });
      expect({ what, after: f.snapshot() }).toEqual({ what, after: before });
    }
    // No rejected call consumed a tab number or a key.
    const next = f.createTab({ idempotency_key: "new-1" });
    expect(next.replayed).toBe(false);
    expect(tabN(next.tab_id)).toBe(tabN(sheet.tab_id) + 1);
  });
});

describe("the change log", () => {
  it("names the tab a deletion removed, as it names the tab of every other change to the strip", () => {
    const f = new Fixture();
    const tab = value(f.run(APP, "add_tab", { tab_type: "slides" })).tab as TabSummary;
    value(f.run(APP, "rename_tab", { tab_id: tab.id, label: "Renamed" }));
    value(f.run(APP, "delete_tab", { tab_id: tab.id }));
    const log = value(f.run(APP, "list_changes", { since_version: 2 })).changes;
    expect(log.map((entry) => [entry.version, entry.operation, entry.tab_id])).toEqual([
      [3, "add_tab", tab.id],
      [4, "rename_tab", tab.id],
      [5, "delete_tab", tab.id],
    ]);
  });
});
