/**
 * Experiments 1 and 2 (docs/spec.md §9): what a handle to a deck is worth after the
 * person reorders, renames and adds tabs, and what the version check says
 * about a write through each handle. Promise 1 (exact tab IDs) and promise 3
 * (the version proves freshness, not the target), on the domain's own Note.
 */
import type { Caller, CommandName, Input, Output, TabSummary } from "../src/note/commands.js";
import { MemoryNoteStore } from "../src/note/memory-store.js";
import { Note } from "../src/note/note.js";
import type { Result } from "../src/note/result.js";
import { stream, type Random } from "./random.js";
import { seedOf, type Settings } from "./settings.js";
import { count, markdownTable, share } from "./table.js";
import type { Section } from "./report.js";
import { AGENT, APP, EPOCH_MS } from "./in-process.js";

export const HANDLE_KINDS = ["position", "type", "label", "id"] as const;
export type HandleKind = (typeof HANDLE_KINDS)[number];

/** The five deck labels a Note's Slides tabs are named from (renames and new tabs draw from them too). */
export const DECK_LABELS = ["Q3 deck", "Launch plan", "Board update", "Sales kickoff", "Roadmap"] as const;

/** Change mix of docs/spec.md §9.1: move 40%, rename 35%, add 25%. */
const MOVE = 0.4;
const RENAME = 0.35;

export interface HandlesConfig {
  seed: number;
  trials: number;
  ks: readonly number[];
}

export function handlesConfig(settings: Settings): HandlesConfig {
  return { seed: seedOf(settings), trials: settings.trials, ks: [2, 5] };
}

/** Experiment 1: how each handle resolved after the person's changes. */
export interface HandleRow {
  k: number;
  handle: HandleKind;
  trials: number;
  correct: number;
  wrong: number;
  not_found: number;
}

/** Experiment 2: the write through each resolved handle, with the version of the fresh list. */
export interface WriteRow {
  k: number;
  handle: HandleKind;
  /** Writes sent: one per trial whose handle resolved to some tab. */
  writes: number;
  passed_version_check: number;
  /** Passed the version check and added the slide to the target deck. */
  right_deck: number;
  /** Passed the version check and added the slide to another deck. */
  wrong_deck: number;
  /** Passed the version check, then refused because the tab is not a deck (a fixed tab). */
  wrong_tab_refused: number;
  version_conflicts: number;
  /** Trials where the handle found nothing, so no write was sent. */
  not_sent: number;
}

export interface HandlesResult {
  config: HandlesConfig;
  handles: HandleRow[];
  writes: WriteRow[];
  /** Per K: trials in which the first Slides tab after the changes is one of the K original decks (the type handle can be right only then). */
  original_deck_first: { k: number; trials: number }[];
  /** Per K: changes the person made, by kind (a rename to the same label changes nothing and is counted as unchanged). */
  changes: { k: number; move: number; rename: number; add: number; unchanged: number }[];
}

/** A slice of experiment 1's trials: trials [from, to) for one K. Slices add up; any split gives the same result. */
export interface HandlesChunk {
  k: number;
  from: number;
  to: number;
}

/** What a slice counted: plain numbers, added up slice by slice. */
export interface HandlesTally {
  k: number;
  trials: number;
  resolved: Record<HandleKind, { correct: number; wrong: number; not_found: number }>;
  written: Record<HandleKind, Omit<WriteRow, "k" | "handle">>;
  originalFirst: number;
  changes: { move: number; rename: number; add: number; unchanged: number };
}

/** Experiment 1's trials in slices of at most `size`, K by K. */
export function handlesChunks(config: HandlesConfig, size = 500): HandlesChunk[] {
  const chunks: HandlesChunk[] = [];
  for (const k of config.ks) for (let from = 0; from < config.trials; from += size) chunks.push({ k, from, to: Math.min(config.trials, from + size) });
  return chunks;
}

/** Runs one slice; trial t of K draws from the stream (seed, 1, K, t) whichever slice it is in. */
export function runHandlesChunk(config: HandlesConfig, chunk: HandlesChunk): HandlesTally {
  const tally = newTally(chunk.k);
  for (let trial = chunk.from; trial < chunk.to; trial++) runTrial(stream(config.seed, 1, chunk.k, trial), chunk.k, trial, tally);
  tally.trials = chunk.to - chunk.from;
  return tally;
}

/** Experiments 1 and 2 from their slices' tallies. */
export function handlesResult(config: HandlesConfig, tallies: readonly HandlesTally[]): HandlesResult {
  const result: HandlesResult = { config, handles: [], writes: [], original_deck_first: [], changes: [] };
  for (const k of config.ks) {
    const total = newTally(k);
    for (const tally of tallies) if (tally.k === k) addTally(total, tally);
    for (const handle of HANDLE_KINDS) {
      result.handles.push({ k, handle, trials: total.trials, ...total.resolved[handle] });
      result.writes.push({ k, handle, ...total.written[handle] });
    }
    result.original_deck_first.push({ k, trials: total.originalFirst });
    result.changes.push({ k, ...total.changes });
  }
  return result;
}

/** Runs experiments 1 and 2 in this thread: `trials` trials for each K, every handle kind in every trial. */
export function runHandles(config: HandlesConfig): HandlesResult {
  return handlesResult(config, handlesChunks(config).map((chunk) => runHandlesChunk(config, chunk)));
}

function newTally(k: number): HandlesTally {
  const per = <T>(make: () => T): Record<HandleKind, T> => ({ position: make(), type: make(), label: make(), id: make() });
  return {
    k,
    trials: 0,
    resolved: per(() => ({ correct: 0, wrong: 0, not_found: 0 })),
    written: per(() => ({ writes: 0, passed_version_check: 0, right_deck: 0, wrong_deck: 0, wrong_tab_refused: 0, version_conflicts: 0, not_sent: 0 })),
    originalFirst: 0,
    changes: { move: 0, rename: 0, add: 0, unchanged: 0 },
  };
}

function addTally(into: HandlesTally, from: HandlesTally): void {
  into.trials += from.trials;
  into.originalFirst += from.originalFirst;
  addCounts(into.changes, from.changes);
  for (const handle of HANDLE_KINDS) {
    addCounts(into.resolved[handle], from.resolved[handle]);
    addCounts(into.written[handle], from.written[handle]);
  }
}

function addCounts<T extends object>(into: T, from: T): void {
  const target = into as Record<string, number>;
  for (const [name, value] of Object.entries(from as Record<string, number>)) target[name] = (target[name] ?? 0) + value;
}

/**
 * One trial: the person builds a Note with K decks; the agent lists, picks a
 * target and keeps all four handles to it; the person makes 0–2 changes; the
 * agent lists again, resolves each handle, and writes one slide through each.
 */
function runTrial(random: Random, k: number, trial: number, tally: HandlesTally): void {
  let clock = EPOCH_MS;
  const store = new MemoryNoteStore();
  const note = new Note(`sim1-${k}-${trial}`, store, { now: () => (clock += 1) });
  const run = <K extends CommandName>(caller: Caller, name: K, input: Input<K>): Output<K> => expect(note.execute(caller, name, input), name);

  run(APP, "create_note", { title: "Handles" });
  run(APP, "set_approval", { approved: true });
  const decks: string[] = [];
  for (const label of random.sample(DECK_LABELS, k)) decks.push(addedTabId(run(APP, "add_tab", { tab_type: "slides", label })));
  const original = new Set(decks);

  // The agent's first list: it picks a target deck and keeps a handle of each kind.
  const before = run(AGENT, "list_tabs", {});
  const targetId = decks[random.int(k)];
  const target = before.tabs.find((t) => t.id === targetId);
  if (target === undefined) throw new Error("the target deck is not in the list");
  const handles = { position: target.position, label: target.label, id: target.id };

  // The person's changes between the agent's turns, through the app.
  const everyTab = ["markdown", "files", "sources", ...decks];
  const changes = random.int(3);
  for (let c = 0; c < changes; c++) {
    const u = random.next();
    let changed: Output<"move_tab">;
    if (u < MOVE) {
      // The person sees the strip in the app: where the tab is now, and how many there are.
      const moving = random.pick(everyTab);
      const from = store.tab(moving)?.position ?? 0;
      const other = random.int(everyTab.length - 1);
      changed = run(APP, "move_tab", { tab_id: moving, position: other >= from ? other + 1 : other });
      tally.changes.move += 1;
    } else if (u < MOVE + RENAME) {
      changed = run(APP, "rename_tab", { tab_id: random.pick(decks), label: random.pick(DECK_LABELS) });
      tally.changes.rename += 1;
    } else {
      changed = run(APP, "add_tab", { tab_type: "slides", label: random.pick(DECK_LABELS) });
      const id = addedTabId(changed);
      decks.push(id);
      everyTab.push(id);
      tally.changes.add += 1;
    }
    if (changed.tab === undefined) tally.changes.unchanged += 1;
  }

  // The agent's fresh list; each handle resolves the way it always did.
  const after = run(AGENT, "list_tabs", {});
  const firstDeck = after.tabs.find((t) => t.type === "slides");
  if (firstDeck !== undefined && original.has(firstDeck.id)) tally.originalFirst += 1;
  const resolved: Record<HandleKind, TabSummary | undefined> = {
    position: after.tabs[handles.position],
    type: firstDeck,
    label: after.tabs.find((t) => t.label === handles.label),
    id: after.tabs.find((t) => t.id === handles.id),
  };

  // Experiment 2: a slide through each handle, with the newest version the agent holds (its fresh
  // list's, then the previous write's answer), so every write is fresh. Handles that resolved to the
  // same tab share one write: same tab, same fresh version, so the same answer.
  let version = after.version;
  const answers = new Map<string, Outcome>();
  for (const handle of HANDLE_KINDS) {
    const tab = resolved[handle];
    const seen = tally.resolved[handle];
    const wrote = tally.written[handle];
    if (tab === undefined) {
      seen.not_found += 1;
      wrote.not_sent += 1;
      continue;
    }
    const right = tab.id === target.id;
    if (right) seen.correct += 1;
    else seen.wrong += 1;
    wrote.writes += 1;
    let outcome = answers.get(tab.id);
    if (outcome === undefined) {
      const answer = note.execute(AGENT, "edit_tab", {
        expected_version: version,
        idempotency_key: `slide-into-${tab.id}`,
        tab_id: tab.id,
        operation: "slide_add",
        title: "Added through a kept handle",
      });
      if (answer.ok) version = answer.value.version;
      outcome = answer.ok ? "committed" : answer.error.code;
      answers.set(tab.id, outcome);
    }
    if (outcome === "committed") {
      wrote.passed_version_check += 1;
      if (right) wrote.right_deck += 1;
      else wrote.wrong_deck += 1;
    } else if (outcome === "version_conflict") {
      wrote.version_conflicts += 1;
    } else if (outcome === "wrong_tab_type") {
      // The target check runs after the version check: this write was fresh, and aimed at a fixed tab.
      wrote.passed_version_check += 1;
      wrote.wrong_tab_refused += 1;
    } else {
      throw new Error(`edit_tab through the ${handle} handle: unexpected ${outcome}`);
    }
  }
}

/** What a write's answer was: committed, or the error code. */
type Outcome = "committed" | string;

function expect<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new Error(`${what}: unexpected ${result.error.code}: ${result.error.message}`);
  return result.value;
}

function addedTabId(changed: Output<"add_tab">): string {
  if (changed.tab === undefined) throw new Error("add_tab returned no tab");
  return changed.tab.id;
}

const HANDLE_NAMES: Record<HandleKind, string> = {
  position: "position in the strip",
  type: 'type ("slides": first Slides tab)',
  label: "label (first tab with it)",
  id: "exact tab ID",
};

export function handlesSection(result: HandlesResult): Section {
  const { config } = result;
  const changes = result.changes
    .map((c) => `K=${c.k}: ${count(c.move)} moves, ${count(c.rename)} renames (${count(c.unchanged)} to the label it had), ${count(c.add)} new tabs`)
    .join("; ");
  return {
    key: "handles",
    heading: `### 1. Handles: which deck a kept handle finds after the person's changes (${count(config.trials)} trials per K, seed ${config.seed})`,
    tables: [
      markdownTable({
        head: ["K", "handle", "correct deck", "wrong deck", "not found"],
        rows: result.handles.map((r) => [String(r.k), HANDLE_NAMES[r.handle], share(r.correct, r.trials), share(r.wrong, r.trials), share(r.not_found, r.trials)]),
        align: ["right", "left"],
      }),
    ],
    note:
      "Only the exact ID finds the agent's deck every time; position, type and label silently name another tab once the person moves, renames or adds one (promise 1). " +
      "Model: each trial is a new Note (the three fixed tabs, then K Slides tabs the person adds, with K distinct labels drawn from the five, in random order); " +
      "the agent lists the tabs and picks its target uniformly among the K decks; the person then makes 0, 1 or 2 changes (equally likely) through the app's commands: " +
      "move_tab (40%: a uniformly chosen tab of the strip, fixed tabs included, to a uniformly chosen other position), " +
      "rename_tab (35%: a uniformly chosen Slides tab to one of the five labels, possibly the one it has, which changes nothing), " +
      "add_tab (25%: a Slides tab with one of the five labels, at the end of the strip, where the app puts it); " +
      "the agent lists again and resolves: position = the tab now at that index, type = the first Slides tab (the old fallback), label = the first tab with that label, ID = that ID. " +
      `A wrong "deck" of the position handle can be a fixed tab. Trial t of K draws from the stream (seed, 1, K, t). Changes made: ${changes}.`,
  };
}

export function writesSection(result: HandlesResult): Section {
  const { config } = result;
  return {
    key: "version_vs_target",
    heading: `### 2. Version vs target: a write through each handle with the version from the fresh list (the trials of experiment 1, seed ${config.seed})`,
    tables: [
      markdownTable({
        head: ["K", "handle", "writes", "passed version check", "right deck", "wrong deck", "refused: not a deck", "version conflicts", "not sent (not found)"],
        rows: result.writes.map((r) => [
          String(r.k),
          HANDLE_NAMES[r.handle],
          count(r.writes),
          share(r.passed_version_check, r.writes),
          share(r.right_deck, r.writes),
          share(r.wrong_deck, r.writes),
          count(r.wrong_tab_refused),
          count(r.version_conflicts),
          count(r.not_sent),
        ]),
        align: ["right", "left"],
      }),
    ],
    note:
      "Every fresh write passes the version check, the ones aimed at the wrong deck included: the version proves freshness, not the target; only the tab ID does (promise 3). " +
      "Model: after its fresh list, the agent writes one slide (edit_note_tab slide_add) into the tab each handle resolved to, in the order position, type, label, ID, " +
      "each with the newest version it holds (the list's, then the previous write's answer; nobody else writes in between); handles that resolved to the same tab share one write (same tab, same fresh version, same answer), counted for each. " +
      '"Right/wrong deck": the slide was added to the agent\'s deck / to another deck; "refused: not a deck": the handle named a fixed tab, which the target check, after the version check, refused with wrong_tab_type.',
  };
}
