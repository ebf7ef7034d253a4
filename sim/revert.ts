/**
 * Experiment 7 (issue 25): taking an agent's wrong change back. A person and
 * an agent co-edit a 12-slide deck; at a random turn the agent makes a wrong
 * change (overwrites three slides' bodies, or deletes a slide); the person
 * notices 1, 5 or 20 turns later and takes it back in one of three ways:
 *
 * - revert: the Note's own revert (`undo_change`, the person's
 *   `POST …/changes/:version/revert`) of the mistake's change(s), on the
 *   domain's Note;
 * - restore: the Note as it was at the version before the mistake (what a
 *   point-in-time restore gives): everything after it is gone;
 * - rewrite: the agent rewrites what it damaged from the text it read before
 *   its mistake (`slide_update` with the remembered body; a deleted slide is
 *   added again with `slide_add`, at the end of the deck, with a new ID).
 *
 * Every trial plays one history on the domain's Note. Restore is read off
 * the deck at the version before the mistake; the revert runs on the Note,
 * is scored, and its calls are taken back in turn (the Note's revert, newest
 * first: the deck is then as the history left it, checked); then the rewrite
 * runs. Each is compared with
 * the "ideal" deck: the same history with the mistake left out. In process
 * only (`--live` runs it in process too).
 */
import type { Caller, CommandName, Input, Output } from "../src/note/commands.js";
import { MemoryNoteStore } from "../src/note/memory-store.js";
import { Note } from "../src/note/note.js";
import type { Result } from "../src/note/result.js";
import { AGENT, APP, EPOCH_MS } from "./in-process.js";
import { stream, type Random } from "./random.js";
import type { Section } from "./report.js";
import { scaled, seedOf, type Settings } from "./settings.js";
import { count, decimal, markdownTable, percent } from "./table.js";

export const MISTAKES = ["overwrite", "delete"] as const;
/** The agent's wrong change: three slides' bodies replaced by a bad draft (three `slide_update` calls, the only way the agent's tools allow), or one slide deleted. */
export type Mistake = (typeof MISTAKES)[number];
export const DELAYS = [1, 5, 20] as const;
export const STRATEGIES = ["revert", "restore", "rewrite"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Slides in the deck. */
const SLIDES = 12;
/** Slides the overwrite damages. */
const OVERWRITTEN = 3;
/** The mistake comes after 1 to this many ordinary turns. */
const TURNS_BEFORE = 20;
/** The share of turns that are the person's edit (the rest are the agent's). */
const PERSON_SHARE = 0.5;

export interface RevertConfig {
  seed: number;
  /** Trials per cell (mistake × delay); every strategy sees the same trials. */
  trials: number;
  delays: readonly number[];
}

/** 2,000 trials a cell at the default --trials (10,000), scaled like experiments 4 to 6. */
export function revertConfig(settings: Settings): RevertConfig {
  return { seed: seedOf(settings), trials: scaled(2_000, settings), delays: DELAYS };
}

/** A slice of one cell's trials: [from, to). */
export interface RevertChunk {
  mistake: Mistake;
  delay: number;
  from: number;
  to: number;
}

export function revertChunks(config: RevertConfig, size = 500): RevertChunk[] {
  const chunks: RevertChunk[] = [];
  for (const mistake of MISTAKES) for (const delay of config.delays) for (let from = 0; from < config.trials; from += size) chunks.push({ mistake, delay, from, to: Math.min(config.trials, from + size) });
  return chunks;
}

/** What one strategy did over a slice's trials: plain sums. */
export interface StrategyTally {
  trials: number;
  /** The person's edits made after the mistake, in effect in the ideal deck. */
  person_edits_after: number;
  /** Of those, the ones not in the deck afterwards. */
  person_lost: number;
  agent_edits_after: number;
  agent_lost: number;
  /** Slides whose title or body differs from the ideal deck's (missing or extra slides included), summed. */
  wrong_slides: number;
  /** Trials with at least one wrong slide. */
  trials_wrong: number;
  /** Trials whose deck is not in the ideal deck's order (a slide added again goes to the end). */
  out_of_order: number;
  calls: number;
  /** Revert only: trials where a revert of the mistake was refused with revert_conflict. */
  conflicted: number;
  /** Revert only: calls refused with revert_conflict. */
  refusals: number;
  /** Revert only: later changes taken back first, and then made again. */
  taken_back: number;
}

export interface RevertTally {
  mistake: Mistake;
  delay: number;
  strategies: Record<Strategy, StrategyTally>;
  /** Trials where the person edited a damaged slide between the agent's read and its mistake (the rewrite is stale there). */
  stale_reads: number;
}

function newStrategyTally(): StrategyTally {
  return { trials: 0, person_edits_after: 0, person_lost: 0, agent_edits_after: 0, agent_lost: 0, wrong_slides: 0, trials_wrong: 0, out_of_order: 0, calls: 0, conflicted: 0, refusals: 0, taken_back: 0 };
}

function newTally(mistake: Mistake, delay: number): RevertTally {
  return { mistake, delay, strategies: { revert: newStrategyTally(), restore: newStrategyTally(), rewrite: newStrategyTally() }, stale_reads: 0 };
}

export function runRevertChunk(config: RevertConfig, chunk: RevertChunk): RevertTally {
  const tally = newTally(chunk.mistake, chunk.delay);
  for (let trial = chunk.from; trial < chunk.to; trial++) runTrial(stream(config.seed, 7, MISTAKES.indexOf(chunk.mistake), chunk.delay, trial), chunk, trial, tally);
  return tally;
}

export interface RevertRow extends StrategyTally {
  mistake: Mistake;
  delay: number;
  strategy: Strategy;
  stale_reads: number;
}

export interface RevertResult {
  config: RevertConfig;
  rows: RevertRow[];
}

export function revertResult(config: RevertConfig, tallies: readonly RevertTally[]): RevertResult {
  const rows: RevertRow[] = [];
  for (const mistake of MISTAKES) {
    for (const delay of config.delays) {
      const mine = tallies.filter((t) => t.mistake === mistake && t.delay === delay);
      const stale = mine.reduce((a, t) => a + t.stale_reads, 0);
      for (const strategy of STRATEGIES) {
        const total = newStrategyTally();
        for (const t of mine) for (const [name, value] of Object.entries(t.strategies[strategy])) (total as unknown as Record<string, number>)[name] = ((total as unknown as Record<string, number>)[name] ?? 0) + value;
        rows.push({ mistake, delay, strategy, ...total, stale_reads: stale });
      }
    }
  }
  return { config, rows };
}

export function runRevert(config: RevertConfig): RevertResult {
  return revertResult(config, revertChunks(config).map((chunk) => runRevertChunk(config, chunk)));
}

/** A slide as the comparison sees it. */
interface Content {
  title: string;
  body: string;
}

/** One ordinary turn: who edits, and a uniform draw that picks the slide among those in the deck then. */
interface Turn {
  person: boolean;
  pick: number;
}

/** The trial's events, drawn once, so every copy of the history is the same. */
interface Plan {
  before: Turn[];
  /** The agent read the deck after this many of the turns before the mistake (0 to all of them). */
  readAfter: number;
  /** Indexes (into the deck's order before the mistake) of the slides the mistake damages. */
  damaged: number[];
  after: Turn[];
}

function drawPlan(random: Random, mistake: Mistake, delay: number): Plan {
  const turns = (n: number): Turn[] => Array.from({ length: n }, () => ({ person: random.chance(PERSON_SHARE), pick: random.next() }));
  const before = turns(1 + random.int(TURNS_BEFORE));
  const readAfter = random.int(before.length + 1);
  const indexes = Array.from({ length: SLIDES }, (_, i) => i);
  const damaged = random.sample(indexes, mistake === "overwrite" ? OVERWRITTEN : 1);
  return { before, readAfter, damaged, after: turns(delay) };
}

/** A Note with one 12-slide deck, on the domain, and what runs commands on it. */
class Deck {
  readonly store = new MemoryNoteStore();
  readonly note: Note;
  readonly tabId: string;
  #clock = EPOCH_MS;
  #keys = 0;

  constructor(id: string) {
    this.note = new Note(id, this.store, { now: () => (this.#clock += 1) });
    this.run(APP, "create_note", { title: "Co-edited deck" });
    this.run(APP, "set_approval", { approved: true });
    const tab = this.run(APP, "add_tab", { tab_type: "slides", label: "Q3 deck" }).tab;
    if (tab === undefined) throw new Error("add_tab returned no tab");
    this.tabId = tab.id;
    const slides = Array.from({ length: SLIDES }, (_, i) => ({ title: `Slide ${i + 1}`, body: `Body of slide ${i + 1}.` }));
    this.agentEdit({ operation: "slides_add_outline", slides });
  }

  get version(): number {
    return this.store.readMeta()?.version ?? 0;
  }

  slides(): { id: string; title: string; body: string }[] {
    return this.store.slides.all(this.tabId);
  }

  run<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Output<K> {
    return expectOk(this.note.execute(caller, name, input), name);
  }

  try<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Result<Output<K>> {
    return this.note.execute(caller, name, input);
  }

  agentEdit(fields: Omit<Input<"edit_tab">, "expected_version" | "idempotency_key" | "tab_id">): Output<"edit_tab"> {
    return this.run(AGENT, "edit_tab", { ...fields, tab_id: this.tabId, expected_version: this.version, idempotency_key: `sim7-${(this.#keys += 1)}` } as Input<"edit_tab">);
  }

  personEdit(fields: Omit<Input<"change_tab">, "expected_version" | "tab_id">): Output<"change_tab"> {
    return this.run(APP, "change_tab", { ...fields, tab_id: this.tabId, expected_version: this.version } as Input<"change_tab">);
  }
}

/** The line a turn adds to a slide's body: unique in the trial, so the deck says whether it is still there. */
function line(person: boolean, turn: number): string {
  return `${person ? "Person" : "Agent"}'s line ${turn}.`;
}

/** What happened in one copy of the history, by version and by line. */
interface Played {
  deck: Deck;
  /** The mistake's versions, oldest first, and the slide IDs it damaged. */
  mistakeVersions: number[];
  damagedIds: string[];
  /** The deck as the agent read it, and just before the mistake. */
  read: Map<string, Content>;
  before: Map<string, Content>;
  /** Each turn after the mistake: its line, who wrote it, its slide and version. */
  later: { line: string; person: boolean; slide: string; version: number }[];
  /** The ideal deck, in order: the history with the mistake left out. */
  ideal: { id: string; title: string; body: string }[];
  /** Whether the person edited a slide the mistake damaged after the agent last saw it (its read, or its own edit of it) and before the mistake. */
  staleRead: boolean;
}

function play(plan: Plan, mistake: Mistake, noteId: string): Played {
  const deck = new Deck(noteId);
  // The ideal deck: the same edits, with the mistake left out.
  const ideal = deck.slides().map((s) => ({ id: s.id, title: s.title, body: s.body }));
  const idealById = new Map(ideal.map((s) => [s.id, s]));
  let read = snapshot(deck);
  const editedSinceRead = new Set<string>();
  let turnNumber = 0;
  const turn = (t: Turn): { line: string; slide: string; version: number } => {
    turnNumber += 1;
    const live = deck.slides();
    const slide = live[Math.floor(t.pick * live.length)];
    if (slide === undefined) throw new Error("no slide to edit");
    const text = line(t.person, turnNumber);
    const body = `${slide.body}\n${text}`;
    const done = t.person ? deck.personEdit({ operation: "slide_update", slide_id: slide.id, body }) : deck.agentEdit({ operation: "slide_update", slide_id: slide.id, body });
    const kept = idealById.get(slide.id);
    if (kept === undefined) throw new Error("an edited slide is not in the ideal deck");
    kept.body = `${kept.body}\n${text}`;
    return { line: text, slide: slide.id, version: done.version };
  };
  plan.before.forEach((t, i) => {
    if (i === plan.readAfter) {
      read = snapshot(deck);
      editedSinceRead.clear();
    }
    const done = turn(t);
    // What the person wrote since its read, the agent has not seen; a slide it edited itself since, it knows
    // as it left it (it read the body it added its line to).
    if (t.person) editedSinceRead.add(done.slide);
    else if (i >= plan.readAfter) {
      const wrote = deck.slides().find((s) => s.id === done.slide);
      if (wrote !== undefined) read.set(done.slide, { title: wrote.title, body: wrote.body });
      editedSinceRead.delete(done.slide);
    }
  });
  if (plan.readAfter === plan.before.length) {
    read = snapshot(deck);
    editedSinceRead.clear();
  }
  const before = snapshot(deck);
  const order = deck.slides();
  const damagedIds = plan.damaged.map((i) => order[i]?.id ?? "");
  const mistakeVersions: number[] = [];
  if (mistake === "overwrite") {
    damagedIds.forEach((id, i) => mistakeVersions.push(deck.agentEdit({ operation: "slide_update", slide_id: id, body: `Bad draft ${i + 1}: the agent's wrong text.` }).version));
  } else {
    mistakeVersions.push(deck.agentEdit({ operation: "slide_delete", slide_id: damagedIds[0] ?? "" }).version);
  }
  const later = plan.after.map((t) => ({ ...turn(t), person: t.person }));
  return { deck, mistakeVersions, damagedIds, read, before, later, ideal, staleRead: damagedIds.some((id) => editedSinceRead.has(id)) };
}

function snapshot(deck: Deck): Map<string, Content> {
  return new Map(deck.slides().map((s) => [s.id, { title: s.title, body: s.body }]));
}

/**
 * (a) The Note's revert of each of the mistake's changes, newest first. On a
 * revert_conflict (a later edit touched the slide), the person does what the
 * refusal says: takes the later changes it lists back, newest first, then the
 * mistake, then makes those later edits again (each adds its line to the
 * body as it stands then: the person retypes hers and asks the agent for
 * its own). Returns the calls made.
 */
function takeBackByRevert(played: Played, tally: StrategyTally): void {
  const { deck } = played;
  let conflicted = false;
  for (const version of [...played.mistakeVersions].reverse()) {
    tally.calls += 1;
    const first = deck.try(APP, "undo_change", { version, expected_version: deck.version });
    if (first.ok) continue;
    if (first.error.code !== "revert_conflict") throw new Error(`undo_change ${version}: unexpected ${first.error.code}`);
    conflicted = true;
    tally.refusals += 1;
    if (!first.error.changes_complete) throw new Error("a revert_conflict that does not list every later change");
    const laterVersions = first.error.changes.map((c) => c.version).sort((a, b) => b - a);
    for (const later of laterVersions) {
      tally.calls += 1;
      tally.taken_back += 1;
      deck.run(APP, "undo_change", { version: later, expected_version: deck.version });
    }
    tally.calls += 1;
    deck.run(APP, "undo_change", { version, expected_version: deck.version });
    // The later edits, again, oldest first.
    for (const later of [...laterVersions].reverse()) {
      const edit = played.later.find((l) => l.version === later);
      if (edit === undefined) throw new Error(`the conflict lists version ${later}, not a later edit`);
      const slide = deck.slides().find((s) => s.id === edit.slide);
      if (slide === undefined) throw new Error("a later edit's slide is gone");
      tally.calls += 1;
      const fields = { operation: "slide_update" as const, slide_id: edit.slide, body: `${slide.body}\n${edit.line}` };
      if (edit.person) deck.personEdit(fields);
      else deck.agentEdit(fields);
    }
  }
  if (conflicted) tally.conflicted += 1;
}

/**
 * (c) The agent rewrites what it damaged from what it read before its
 * mistake: each overwritten body with the remembered one, a deleted slide
 * added again (at the end of the deck, where slide_add puts it, with a new ID).
 * Returns the new ID of a slide added again, by the ID it replaces.
 */
function takeBackByRewrite(played: Played, mistake: Mistake, tally: StrategyTally): Map<string, string> {
  const { deck } = played;
  const renamed = new Map<string, string>();
  for (const id of played.damagedIds) {
    const remembered = played.read.get(id);
    if (remembered === undefined) throw new Error("the agent read no such slide");
    tally.calls += 1;
    if (mistake === "overwrite") {
      deck.agentEdit({ operation: "slide_update", slide_id: id, body: remembered.body });
    } else {
      const added = deck.agentEdit({ operation: "slide_add", title: remembered.title, body: remembered.body });
      const newId = "slide_ids" in added ? added.slide_ids[0] : undefined;
      if (newId === undefined) throw new Error("slide_add returned no ID");
      renamed.set(newId, id);
    }
  }
  return renamed;
}

/** Compares a deck (by slide ID, a slide added again under the ID it stands for) with the ideal one. */
function score(played: Played, final: readonly { id: string; title: string; body: string }[], tally: StrategyTally): void {
  const ideal = new Map(played.ideal.map((s) => [s.id, s]));
  const byId = new Map(final.map((s) => [s.id, s]));
  let wrong = 0;
  for (const s of played.ideal) {
    const got = byId.get(s.id);
    if (got === undefined || got.title !== s.title || got.body !== s.body) wrong += 1;
  }
  for (const s of final) if (!ideal.has(s.id)) wrong += 1;
  tally.trials += 1;
  tally.wrong_slides += wrong;
  if (wrong > 0) tally.trials_wrong += 1;
  const order = final.map((s) => s.id).join(" ");
  if (order !== played.ideal.map((s) => s.id).join(" ")) tally.out_of_order += 1;
  // A later edit is lost when its line is in the ideal deck's slide and not in the deck's.
  for (const edit of played.later) {
    const kept = byId.get(edit.slide)?.body.split("\n").includes(edit.line) === true;
    if (edit.person) {
      tally.person_edits_after += 1;
      if (!kept) tally.person_lost += 1;
    } else {
      tally.agent_edits_after += 1;
      if (!kept) tally.agent_lost += 1;
    }
  }
}

function runTrial(random: Random, chunk: RevertChunk, trial: number, tally: RevertTally): void {
  const plan = drawPlan(random, chunk.mistake, chunk.delay);
  const played = play(plan, chunk.mistake, `sim7-${chunk.mistake}-${chunk.delay}-${trial}`);
  if (played.staleRead) tally.stale_reads += 1;
  // (b) restore: the deck as it was at the version before the mistake; one call.
  tally.strategies.restore.calls += 1;
  score(played, [...played.before].map(([id, s]) => ({ id, ...s })), tally.strategies.restore);
  // (a) revert, on the domain; then its calls are taken back in turn (newest first, each the newest change
  // to what it touched), which leaves the deck as the mistake and the later turns left it (checked), so
  // (c) runs on the same history without replaying it (the rewrite writes, it reads no log).
  const { deck } = played;
  const afterTurns = deck.slides();
  const from = deck.version;
  takeBackByRevert(played, tally.strategies.revert);
  score(played, deck.slides(), tally.strategies.revert);
  for (let version = deck.version; version > from; version--) deck.run(APP, "undo_change", { version, expected_version: deck.version });
  if (!sameDeck(deck.slides(), afterTurns)) throw new Error("taking the revert's calls back did not give the deck back as it was");
  // (c) rewrite, on the domain.
  const renamed = takeBackByRewrite(played, chunk.mistake, tally.strategies.rewrite);
  score(played, deck.slides().map((s) => ({ id: renamed.get(s.id) ?? s.id, title: s.title, body: s.body })), tally.strategies.rewrite);
}

function sameDeck(a: readonly { id: string; title: string; body: string }[], b: readonly { id: string; title: string; body: string }[]): boolean {
  return a.length === b.length && a.every((s, i) => s.id === b[i]?.id && s.title === b[i]?.title && s.body === b[i]?.body);
}

function expectOk<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new Error(`${what}: unexpected ${result.error.code}: ${result.error.message}`);
  return result.value;
}

const STRATEGY_NAMES: Record<Strategy, string> = {
  revert: "(a) revert the change",
  restore: "(b) restore before it",
  rewrite: "(c) agent rewrites from memory",
};

const MISTAKE_NAMES: Record<Mistake, string> = {
  overwrite: "overwrites 3 bodies",
  delete: "deletes a slide",
};

export function revertSection(result: RevertResult): Section {
  const { config } = result;
  const mean = (part: number, whole: number): string => (whole === 0 ? "–" : decimal(part / whole, 2));
  return {
    key: "take_back",
    heading: `### 7. Taking an agent's wrong change back: revert vs restore vs rewrite (${count(config.trials)} trials a cell, seed ${config.seed})`,
    tables: [
      markdownTable({
        head: ["agent's mistake", "noticed after", "strategy", "person's later edits lost", "agent's later edits lost", "wrong slides left (mean)", "trials with wrong slides", "deck out of order", "calls (mean)", "revert refused: revert_conflict", "later changes taken back and redone (mean)"],
        rows: result.rows.map((r) => [
          MISTAKE_NAMES[r.mistake],
          `${r.delay} turn${r.delay === 1 ? "" : "s"}`,
          STRATEGY_NAMES[r.strategy],
          `${count(r.person_lost)} of ${count(r.person_edits_after)} (${percent(r.person_lost, r.person_edits_after)})`,
          `${count(r.agent_lost)} of ${count(r.agent_edits_after)}`,
          mean(r.wrong_slides, r.trials),
          percent(r.trials_wrong, r.trials),
          percent(r.out_of_order, r.trials),
          mean(r.calls, r.trials),
          r.strategy === "revert" ? `${percent(r.conflicted, r.trials)} of trials (${count(r.refusals)} calls)` : "–",
          r.strategy === "revert" ? mean(r.taken_back, r.trials) : "–",
        ]),
        align: ["left", "right", "left"],
      }),
    ],
    note:
      "Only the revert takes back the mistake and nothing else: no later edit lost, no wrong slide left, the deleted slide back with its ID in its place; it is refused (revert_conflict) when a later edit touched a damaged slide, and then costs a few calls more. " +
      "Restoring the Note as it was loses every later edit, the person's and the agent's; the agent's rewrite from memory loses the later edits on the slides it rewrites, brings back stale text where the person edited a damaged slide after the agent read it, and puts a deleted slide back at the end of the deck under a new ID. " +
      "Model: each trial is a new Note with one 12-slide deck (the agent's outline); before the mistake 1 to 20 turns (uniform), then the mistake, then 1, 5 or 20 turns, each turn one edit by the person (probability 0.5, through the app) or the agent (0.5, edit_note_tab), adding a line to the body of a slide drawn uniformly from the deck. " +
      "The agent read the deck after a uniformly drawn number of the turns before the mistake (0 to all), and knows a slide it edited since as it left it. The mistake: three slide_update calls replacing three distinct slides' bodies with a bad draft (the agent's tools update one slide a call, so the mistake is three changes, each reverted), or one slide_delete. " +
      "(a) undo_change of each of the mistake's changes, newest first; on revert_conflict the person takes the later changes it lists back (newest first), then the mistake, then makes those edits again (her own retyped, the agent's asked for), each a call; " +
      "(b) one call, the deck as it was at the version before the mistake; (c) one call per damaged slide: slide_update with the body the agent read, or slide_add of the deleted slide as the agent read it. " +
      "Finding the mistake (the feed, the prompt) is not counted. Wrong slides: slides whose title or body differ from the ideal deck's (the same history with the mistake left out), missing or extra ones included; out of order: the deck's slide order is not the ideal's. " +
      `Trials where the person edited a damaged slide after the agent last saw it and before the mistake (stale memory for (c)): ${result.rows
        .filter((r) => r.strategy === "rewrite")
        .map((r) => `${r.mistake} after ${r.delay}: ${percent(r.stale_reads, r.trials)}`)
        .join(", ")}. Trial t of a cell draws from the stream (seed, 7, mistake, delay, t).`,
  };
}
