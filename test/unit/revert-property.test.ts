/**
 * Taking a change back (issue 25, docs/spec.md §10), as a property over generated
 * histories, through the domain and the in-memory store (which answers as the
 * SQLite store does; test/workers/revert.test.ts runs the object):
 *
 * - the latest content change taken back leaves the content exactly as before it, and
 *   taking that revert back leaves it exactly as after it;
 * - an earlier change taken back puts back what it touched (each slide and row it touched
 *   as before it, or gone when it added it) and changes nothing else; a refused revert
 *   leaves every table byte-identical;
 * - `list_note_changes` says `revertible` exactly when a revert then succeeds, also for
 *   reverts left in place (a revert's revert, a change taken back again after a redo).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Caller, CommandName, Input } from "../../src/note/commands.js";
import { MemoryNoteStore } from "../../src/note/memory-store.js";
import { Note } from "../../src/note/note.js";
import type { Result } from "../../src/note/result.js";

const APP: Caller = { user: "alice", channel: "app" };
const AGENT: Caller = { user: "alice", channel: "connector", client: { id: "c1", name: "Agent" } };
const NOT_CONTENT = new Set(["create_note", "delete_note", "set_approval", "add_member", "remove_member"]);
const RUNS = 100;

type Row = Record<string, unknown>;
type Tables = Record<string, Row[]>;

/** What the Note shows: every table but the log, keys, counters and what undo keeps. */
function content(store: MemoryNoteStore): Tables {
  const t = store.tables();
  const meta = (t.meta ?? []).map((m) => ({ title: m.title, tab_count: m.tab_count, source_count: m.source_count, file_count: m.file_count }));
  const live = (rows: Row[] | undefined) => (rows ?? []).filter((r) => !String(r.tab_id).startsWith("~"));
  return { meta, markdown: t.markdown ?? [], tabs: t.tabs ?? [], slides: live(t.slides), sheet_rows: live(t.sheet_rows), sources: t.sources ?? [], files: t.files ?? [] };
}

interface World {
  store: MemoryNoteStore;
  note: Note;
  /** The content after each version the Note reached. */
  at: Map<number, Tables>;
  version: number;
  keys: number;
}

function run<K extends CommandName>(w: World, caller: Caller, name: K, input: Input<K>): Result<unknown> {
  const result = w.note.execute(caller, name, input);
  if (result.ok) {
    const version = w.store.readMeta()?.version ?? 0;
    if (version !== w.version) {
      w.version = version;
      w.at.set(version, content(w.store));
    }
  }
  return result;
}

function world(): World {
  const store = new MemoryNoteStore();
  let clock = Date.UTC(2026, 0, 5);
  const note = new Note("n1", store, { now: () => (clock += 1000) });
  const w: World = { store, note, at: new Map(), version: 0, keys: 0 };
  run(w, APP, "create_note", { title: "Plan", markdown: "# Plan\n\nOne.\n" });
  run(w, APP, "set_approval", { approved: true });
  run(w, AGENT, "create_tab", { expected_version: w.version, idempotency_key: "deck", tab_type: "slides", slides: [{ title: "A" }, { title: "B" }, { title: "C" }] });
  run(w, AGENT, "create_tab", { expected_version: w.version, idempotency_key: "sheet", tab_type: "sheet", columns: ["n", "v"], rows: [{ n: "a", v: 1 }, { n: "b" }, { v: 3 }] });
  return w;
}

/** A step of a history: a content change by index into what the Note holds now, or a revert. */
type Step = { op: string; a: number; b: number; text: string };

const pick = <T>(items: readonly T[], i: number): T | undefined => (items.length === 0 ? undefined : items[i % items.length]);

function apply(w: World, step: Step): void {
  const tabs = w.store.tabs();
  const decks = tabs.filter((t) => t.type === "slides");
  const sheets = tabs.filter((t) => t.type === "sheet");
  const deck = pick(decks, step.a);
  const sheet = pick(sheets, step.a);
  const slides = deck === undefined ? [] : w.store.slides.all(deck.id);
  const rows = sheet === undefined ? [] : w.store.rows.all(sheet.id);
  const edit = (caller: Caller, tabId: string, fields: Record<string, unknown>) =>
    caller === AGENT
      ? run(w, AGENT, "edit_tab", { expected_version: w.version, idempotency_key: `k${w.keys++}`, tab_id: tabId, ...fields } as Input<"edit_tab">)
      : run(w, APP, "change_tab", { tab_id: tabId, ...fields } as Input<"change_tab">);
  const who = step.b % 2 === 0 ? AGENT : APP;
  switch (step.op) {
    case "slide_update": {
      const slide = pick(slides, step.b);
      if (deck && slide) edit(who, deck.id, { operation: "slide_update", slide_id: slide.id, body: step.text });
      return;
    }
    case "slide_add":
      if (deck) edit(who, deck.id, { operation: "slide_add", title: step.text || "New" });
      return;
    case "slide_delete": {
      const slide = pick(slides, step.b);
      if (deck && slide) edit(who, deck.id, { operation: "slide_delete", slide_id: slide.id });
      return;
    }
    case "slide_move": {
      const slide = pick(slides, step.b);
      const after = step.a % 3 === 0 ? null : (pick(slides, step.a)?.id ?? null);
      if (deck && slide && after !== slide.id) edit(APP, deck.id, { operation: "slide_move", slide_id: slide.id, after_id: after });
      return;
    }
    case "set_slides":
      if (deck) run(w, APP, "set_slides", { tab_id: deck.id, slides: [{ title: step.text || "X" }, { title: "Y" }] });
      return;
    case "rows_append":
      if (sheet) edit(who, sheet.id, { operation: "rows_append", rows: [{ [sheet.columns[0] as string]: step.text || "r" }] });
      return;
    case "row_update": {
      const row = pick(rows, step.b);
      if (sheet && row) edit(who, sheet.id, { operation: "row_update", row_id: row.id, cells: { [sheet.columns[step.b % sheet.columns.length] as string]: step.text || 7 } });
      return;
    }
    case "row_delete": {
      const row = pick(rows, step.b);
      if (sheet && row) edit(who, sheet.id, { operation: "row_delete", row_id: row.id });
      return;
    }
    case "row_move": {
      const row = pick(rows, step.b);
      if (sheet && row) edit(APP, sheet.id, { operation: "row_move", row_id: row.id, after_id: null });
      return;
    }
    case "columns_add":
      if (sheet) edit(who, sheet.id, { operation: "columns_add", columns: [`c${w.keys++}`] });
      return;
    case "add_tab":
      run(w, APP, "add_tab", { tab_type: step.b % 2 === 0 ? "slides" : "sheet", label: step.text || "T", position: step.a % (tabs.length + 1) });
      return;
    case "rename_tab": {
      const tab = pick([...decks, ...sheets], step.b);
      if (tab) run(w, APP, "rename_tab", { tab_id: tab.id, label: `L${step.text}` });
      return;
    }
    case "move_tab": {
      const tab = pick([...decks, ...sheets], step.b);
      if (tab) run(w, APP, "move_tab", { tab_id: tab.id, position: step.a % tabs.length });
      return;
    }
    case "delete_tab": {
      const tab = pick([...decks, ...sheets], step.b);
      if (tab) run(w, APP, "delete_tab", { tab_id: tab.id });
      return;
    }
    case "set_markdown":
      run(w, APP, "set_markdown", { text: `# Plan\n\n${step.text}\nOne.\n` });
      return;
    case "rename_note":
      run(w, APP, "rename_note", { title: `Plan ${step.text}` });
      return;
    case "add_source":
      run(w, AGENT, "add_source", { expected_version: w.version, idempotency_key: `k${w.keys++}`, title: "S", url: `https://example.org/${step.b % 3}` });
      return;
    case "add_file":
      run(w, APP, "add_file", { name: `f${step.b}.txt`, media_type: "text/plain", size_bytes: step.a });
      return;
    case "revert_latest":
      return revertLatest(w);
    case "revert_earlier":
      return revertEarlier(w, step.a);
    case "revert_and_keep":
      return revertAndKeep(w, step.a);
  }
}

function revert(w: World, version: number, by: Caller): Result<unknown> {
  return by === AGENT
    ? run(w, AGENT, "revert_change", { expected_version: w.version, idempotency_key: `k${w.keys++}`, version })
    : run(w, APP, "undo_change", { expected_version: w.version, version });
}

function entryOf(w: World, version: number) {
  return w.store.change(version);
}

/** The latest change, if content, goes back exactly; its revert taken back, exactly forward again. */
function revertLatest(w: World): void {
  const latest = w.version;
  const entry = entryOf(w, latest);
  if (entry === null) return;
  const before = w.at.get(latest - 1);
  const after = w.at.get(latest);
  const done = revert(w, latest, latest % 2 === 0 ? AGENT : APP);
  if (NOT_CONTENT.has(entry.entry.operation)) {
    expect(done.ok ? "ok" : done.error.code).toBe("not_revertible");
    return;
  }
  if (!done.ok) {
    // Only a limit may stand in the way of the latest change's revert (a full deck, for a deleted slide).
    expect(done.error.code, JSON.stringify(done.error)).toBe("limit_exceeded");
    return;
  }
  if (before !== undefined) expect(content(w.store)).toEqual(before);
  const redo = revert(w, w.version, APP);
  expect(redo.ok, JSON.stringify(redo)).toBe(true);
  if (after !== undefined) expect(content(w.store)).toEqual(after);
}

/** An earlier change: revertible says whether it goes; when it does, what it touched goes back and nothing else changes; when not, nothing is written. */
function revertEarlier(w: World, at: number): void {
  const page = w.note.execute(APP, "list_changes", { since_version: 0, limit: 200 });
  if (!page.ok) throw new Error(JSON.stringify(page.error));
  const entries = page.value.changes;
  const chosen = entries[at % entries.length];
  if (chosen === undefined) return;
  const tablesBefore = JSON.stringify(w.store.tables());
  const now = content(w.store);
  const kept = entryOf(w, chosen.version);
  const done = revert(w, chosen.version, at % 2 === 0 ? AGENT : APP);
  if (!done.ok) {
    expect(JSON.stringify(w.store.tables())).toBe(tablesBefore);
    if (done.error.code !== "limit_exceeded") expect(chosen.revertible, `${JSON.stringify(chosen)} refused as ${done.error.code}`).toBe(false);
    return;
  }
  expect(chosen.revertible, `${JSON.stringify(chosen)} was taken back`).toBe(true);
  const beforeChange = w.at.get(chosen.version - 1) as Tables;
  const touch = kept?.undo?.touch;
  const keys = new Set(touch?.keys ?? []);
  const whole = new Set(touch?.whole ?? []);
  const after = content(w.store);
  for (const table of ["slides", "sheet_rows"] as const) {
    const byId = (rows: Row[] | undefined) => new Map((rows ?? []).map((r) => [String(r.id), r]));
    const was = byId(beforeChange[table]);
    const prior = byId(now[table]);
    const is = byId(after[table]);
    for (const id of new Set([...prior.keys(), ...is.keys(), ...was.keys()])) {
      const touched = keys.has(id) || whole.has(String((prior.get(id) ?? is.get(id) ?? was.get(id))?.tab_id));
      const { idx: _i1, ...current } = is.get(id) ?? {};
      if (touched) {
        // What the change touched is as it was before it: its fields back, or gone when the change added it.
        const { idx: _i2, ...then } = was.get(id) ?? {};
        expect(current, `${table} ${id} after taking back ${chosen.version} (${chosen.operation})`).toEqual(then);
      } else {
        const { idx: _i3, ...untouched } = prior.get(id) ?? {};
        expect(current, `${table} ${id}, untouched by ${chosen.version} (${chosen.operation})`).toEqual(untouched);
      }
    }
  }
  if (!keys.has("markdown")) expect(after.markdown).toEqual(now.markdown);
  else expect(after.markdown).toEqual(beforeChange.markdown);
  if (!keys.has("title")) expect(after.meta?.[0]?.title).toEqual(now.meta?.[0]?.title);
  // And taken back once more, the revert is undone exactly (the latest change's rule).
  const redone = revert(w, w.version, APP);
  expect(redone.ok, JSON.stringify(redone)).toBe(true);
  expect(content(w.store)).toEqual(now);
}

/** Any change of the log taken back and left so (a revert's revert, a change taken back again after a redo): revertible says whether it goes; a refusal writes nothing. */
function revertAndKeep(w: World, at: number): void {
  const page = w.note.execute(APP, "list_changes", { since_version: 0, limit: 200 });
  if (!page.ok) throw new Error(JSON.stringify(page.error));
  const chosen = page.value.changes[at % page.value.changes.length];
  if (chosen === undefined) return;
  const tablesBefore = JSON.stringify(w.store.tables());
  const done = revert(w, chosen.version, at % 2 === 0 ? AGENT : APP);
  if (done.ok) expect(chosen.revertible, `${JSON.stringify(chosen)} was taken back`).toBe(true);
  else {
    expect(JSON.stringify(w.store.tables())).toBe(tablesBefore);
    if (done.error.code !== "limit_exceeded") expect(chosen.revertible, `${JSON.stringify(chosen)} refused as ${JSON.stringify(done.error)}`).toBe(false);
  }
}

const OPS = [
  "slide_update", "slide_add", "slide_delete", "slide_move", "set_slides", "rows_append", "row_update", "row_delete", "row_move", "columns_add",
  "add_tab", "rename_tab", "move_tab", "delete_tab", "set_markdown", "rename_note", "add_source", "add_file", "revert_latest", "revert_latest", "revert_earlier", "revert_earlier", "revert_earlier",
  "revert_and_keep", "revert_and_keep", "revert_and_keep",
];

const steps = fc.array(
  fc.record({ op: fc.constantFrom(...OPS), a: fc.nat(50), b: fc.nat(50), text: fc.constantFrom("", "x", "draft 😀", "Done") }),
  { minLength: 4, maxLength: 30 },
);

describe("taking changes back in generated histories (memory store)", () => {
  it(`${RUNS} histories: the latest goes back exactly, an earlier one only what it touched, a refusal writes nothing`, () => {
    fc.assert(
      fc.property(steps, (history) => {
        const w = world();
        for (const step of history) apply(w, step);
      }),
      { numRuns: RUNS, seed: 20261202 },
    );
  });

  // Histories other seeds found, where revertible said true and the revert was refused: a revert left in a tab whose
  // creation was taken back since; a file's revert whose key a later revert put back below it.
  const found: Step[][] = [
    [
      { op: "row_delete", a: 0, b: 0, text: "" },
      { op: "revert_and_keep", a: 39, b: 0, text: "" },
      { op: "revert_and_keep", a: 39, b: 0, text: "" },
      { op: "revert_earlier", a: 5, b: 0, text: "" },
    ],
    [
      { op: "add_file", a: 0, b: 0, text: "" },
      { op: "row_move", a: 0, b: 46, text: "" },
      { op: "revert_earlier", a: 28, b: 0, text: "" },
      { op: "slide_update", a: 0, b: 0, text: "Done" },
      { op: "revert_earlier", a: 22, b: 0, text: "" },
      { op: "revert_and_keep", a: 7, b: 0, text: "" },
      { op: "slide_update", a: 0, b: 0, text: "" },
      { op: "slide_update", a: 0, b: 0, text: "" },
      { op: "set_slides", a: 0, b: 0, text: "" },
      { op: "revert_earlier", a: 24, b: 0, text: "" },
    ],
  ];
  it.each(found.map((history, i) => [i + 1, history] as const))("found history %i: revertible agrees with the revert", (_n, history) => {
    const w = world();
    for (const step of history) apply(w, step);
  });
});
