/**
 * The simulations of `npm run sim` (docs/spec.md §9, issue 4): the invariants each
 * experiment exists to show, on the domain's own Note, and the seeded
 * reproducibility the tables rely on. Trials are reduced where the invariant
 * holds trial by trial; experiment 3 runs whole (it is small).
 */
import { describe, expect, it } from "vitest";
import { errorResult, successResult } from "../../src/mcp/results.js";
import { inputs } from "../../src/mcp/schemas.js";
import type { NoteError } from "../../src/note/errors.js";
import { TOOLS_BY_NAME } from "../../src/mcp/tools.js";
import { EXPERIMENTS, makePlan, runExperiments, sections, toJson, jobsOf, runJob, collect, assemble, type Results } from "../../sim/experiments.js";
import { conflictsConfig, conflictsUnits, type ConflictDeck, type ConflictsRow } from "../../sim/conflicts.js";
import { DELAYS, MISTAKES, revertChunks, revertConfig, revertResult, runRevert, runRevertChunk, STRATEGIES, type RevertResult } from "../../sim/revert.js";
import { runInProcess, World } from "../../sim/in-process.js";
import { handlesChunks, handlesConfig, handlesResult, runHandles, runHandlesChunk, type HandlesResult } from "../../sim/handles.js";
import { expNeg, stream } from "../../sim/random.js";
import { renderMarkdown } from "../../sim/report.js";
import { IN_PROCESS_TAG, type Reply, type Step, type Unit } from "../../sim/script.js";
import { answerBytes, requestBytes, untouched, utf8Length } from "../../sim/outline.js";
import { spell, SPELLINGS } from "../../sim/sources.js";
import { SEVEN_SPELLINGS } from "../support/spellings.js";

const ALL = new Set(EXPERIMENTS);

/** Experiment 1 at 2,000 trials per K: enough for the 1/K check below, fast enough for a unit test. */
const HANDLE_TRIALS = 2_000;
let handlesCache: HandlesResult | undefined;
function handles(): HandlesResult {
  handlesCache ??= runHandles({ ...handlesConfig({ trials: HANDLE_TRIALS }) });
  return handlesCache;
}

let fullCache: Results | undefined;
/** Experiments 3, 4 and 5 in process: 3 whole, 4 at 60 sessions, 5 at 200 decks (--trials 2000). */
function scaledRun(): Results {
  fullCache ??= runExperiments({ trials: 2_000 }, new Set([3, 4, 5]));
  return fullCache;
}

describe("experiment 1: only the exact ID finds the deck", () => {
  it("the ID handle finds the agent's deck in 100% of trials, for every K", () => {
    const rows = handles().handles.filter((r) => r.handle === "id");
    expect(rows.map((r) => r.k)).toEqual([2, 5]);
    for (const row of rows) expect(row).toMatchObject({ trials: HANDLE_TRIALS, correct: HANDLE_TRIALS, wrong: 0, not_found: 0 });
  });

  it("the type handle finds it in about 1/K of trials", () => {
    const result = handles();
    for (const row of result.handles.filter((r) => r.handle === "type")) {
      const k = row.k;
      const p = row.correct / row.trials;
      // The type handle is right exactly when the first Slides tab is the target. The target is
      // uniform among the K original decks and the person's changes ignore it, so P = f / K, where
      // f is the share of trials whose first Slides tab is an original deck (not one the person
      // added and moved to the front). Allow 4 standard errors of a proportion over these trials
      // (K=2: ±0.045, K=5: ±0.036 at 2,000 trials), plus the (1 − f) / K that added tabs take away.
      const f = (result.original_deck_first.find((o) => o.k === k)?.trials ?? 0) / row.trials;
      const standardError = Math.sqrt(((1 / k) * (1 - 1 / k)) / row.trials);
      expect(f).toBeGreaterThan(0.95);
      expect(Math.abs(p - 1 / k)).toBeLessThan(4 * standardError + (1 - f) / k);
      expect(row.correct + row.wrong).toBe(row.trials);
    }
  });

  it("position and label handles name a wrong tab or nothing after some changes", () => {
    for (const row of handles().handles.filter((r) => r.handle === "position" || r.handle === "label")) {
      expect(row.wrong + row.not_found, `${row.handle}, K=${row.k}`).toBeGreaterThan(0);
      expect(row.correct + row.wrong + row.not_found).toBe(row.trials);
    }
  });
});

describe("experiment 2: the version proves freshness, not the target", () => {
  it("every write with a fresh version passes the version check, the wrong-deck ones included", () => {
    for (const row of handles().writes) {
      const label = `${row.handle}, K=${row.k}`;
      expect(row.version_conflicts, label).toBe(0);
      expect(row.passed_version_check, label).toBe(row.writes);
      expect(row.right_deck + row.wrong_deck + row.wrong_tab_refused, label).toBe(row.writes);
    }
    const typeRows = handles().writes.filter((r) => r.handle === "type");
    for (const row of typeRows) expect(row.wrong_deck, `type, K=${row.k}`).toBeGreaterThan(0);
  });

  it("only the ID handle's writes all land in the agent's deck", () => {
    for (const row of handles().writes) {
      if (row.handle === "id") expect(row.right_deck).toBe(row.writes);
      else expect(row.right_deck).toBeLessThan(HANDLE_TRIALS);
    }
  });
});

describe("experiment 3: the key is checked before the version", () => {
  it("key-then-version with a key kept across resends creates exactly 50 tabs in every seed", () => {
    const result = scaledRun().idempotency;
    if (result === undefined) throw new Error("experiment 3 did not run");
    expect(result.config.seeds).toEqual([1, 2, 3]);
    for (const policy of ["same-on-resend", "fresh-after-conflict"] as const) {
      const row = result.rows.find((r) => r.policy === policy && r.order === "key-then-version");
      expect(row?.runs.map((run) => run.tabs_created)).toEqual([50, 50, 50]);
      expect(row?.runs.every((run) => run.lost_responses > 0 && run.replays_seen > 0)).toBe(true);
    }
  });

  it("checking the version first turns resends into second decks for a client that starts over after a conflict", () => {
    const rows = scaledRun().idempotency?.rows ?? [];
    const versionFirst = rows.find((r) => r.policy === "fresh-after-conflict" && r.order === "version-then-key");
    expect(versionFirst?.duplicate_tabs).toBeGreaterThan(0);
    const keptKey = rows.find((r) => r.policy === "same-on-resend" && r.order === "version-then-key");
    const production = rows.find((r) => r.policy === "same-on-resend" && r.order === "key-then-version");
    expect(keptKey?.duplicate_tabs).toBe(0);
    // It still gets there, but every resend costs a conflict and a re-read.
    expect(keptKey?.calls_sent).toBeGreaterThan(production?.calls_sent ?? Infinity);
    const fresh = rows.filter((r) => r.policy === "fresh-every-call");
    for (const row of fresh) expect(row.duplicate_tabs).toBeGreaterThan(0);
  });
});

describe("the version-first server the simulation plays", () => {
  /** A Note at version 3 with one deck, whose create's answer was lost; then the stale resend, and the tabs after it. */
  function resend(world: World): { answer: Reply; tabs: Reply } {
    const noteId = "sim3-00000000-played";
    world.answer({ kind: "person", action: { op: "create_note", note_id: noteId, title: "Played" } });
    world.answer({ kind: "person", action: { op: "approve", note_id: noteId } });
    const call = { note_id: noteId, expected_version: 2, idempotency_key: "deck-1", tab_type: "slides", label: "Deck 1" };
    const first = world.answer({ kind: "agent", tool: "create_note_tab", args: call });
    expect(first).toMatchObject({ ok: true, value: { version: 3, replayed: false } });
    const answer = world.answer({ kind: "agent", tool: "create_note_tab", args: call });
    return { answer, tabs: world.answer({ kind: "agent", tool: "list_note_tabs", args: { note_id: noteId } }) };
  }

  it("answers a stale resend with the Note's own version_conflict, where this server replays it; neither writes", () => {
    const played = resend(new World("version-first"));
    expect(played.answer).toMatchObject({ ok: false, error: { code: "version_conflict", expected_version: 2, current_version: 3 } });
    const today = resend(new World());
    expect(today.answer).toMatchObject({ ok: true, value: { version: 3, replayed: true } });
    for (const { tabs } of [played, today]) expect(tabs).toMatchObject({ ok: true, value: { version: 3 } });
  });
});

describe("experiment 4: a citation's key names the page in the Note", () => {
  it("the normalized-URL key stores no duplicate, with URL dedupe off or on", () => {
    const rows = scaledRun().sources?.rows.filter((r) => r.policy === "note-and-normalized-url") ?? [];
    expect(rows.map((r) => r.dedupe)).toEqual(["off", "on"]);
    for (const row of rows) {
      expect(row.duplicates).toBe(0);
      expect(row.stored).toBe(row.pages_cited);
    }
  });

  it("with URL dedupe on, no policy stores a duplicate", () => {
    const rows = scaledRun().sources?.rows.filter((r) => r.dedupe === "on") ?? [];
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatchObject({ duplicates: 0, stored: row.pages_cited });
  });

  it("without dedupe, a random UUID and the URL as written store duplicates that new URL() mostly misses", () => {
    const rows = scaledRun().sources?.rows.filter((r) => r.dedupe === "off" && r.policy !== "note-and-normalized-url") ?? [];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.duplicates).toBeGreaterThan(0);
      expect(row.caught_by_href).toBeLessThan(row.duplicates / 2);
    }
  });

  it("spells a page the seven ways the tests cite", () => {
    expect(Array.from({ length: SPELLINGS }, (_, k) => spell("https://example.org/report", k))).toEqual([...SEVEN_SPELLINGS]);
  });
});

describe("experiment 5: a whole deck in one outline call", () => {
  it("a 12-slide outline is 1 write; slide by slide is 13", () => {
    const result = scaledRun().outline;
    const outline = result?.rows.find((r) => r.strategy === "outline");
    const bySlide = result?.rows.find((r) => r.strategy === "slide-by-slide");
    expect(outline?.writes_per_deck).toBe(1);
    expect(bySlide?.writes_per_deck).toBe(13);
    expect(outline?.request_bytes_per_deck).toBeLessThan(bySlide?.request_bytes_per_deck ?? 0);
    expect(outline?.conflicts_per_deck).toBeLessThan(bySlide?.conflicts_per_deck ?? 0);
  });

  it("lists 120 sources in 3 calls at limit 50", () => {
    expect(scaledRun().outline?.listing).toMatchObject({ sources: 120, page_size: 50, calls: 3, items_per_call: [50, 50, 20] });
  });

  it("counts a request as its JSON-RPC body's UTF-8 bytes", () => {
    const args = { note_id: "n1", expected_version: 2, idempotency_key: "k", tab_id: "slides-1-x", operation: "slide_add" as const, title: "Café" };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "edit_note_tab", arguments: args } });
    // "é" is one UTF-16 unit and two bytes.
    expect(requestBytes(1, "edit_note_tab", args)).toBe(body.length + 1);
  });
});

describe("experiment 6: version conflicts that carry the changes since", () => {
  // 40 decks per row (--trials 800): enough renames that the re-read path runs in many decks.
  const config = conflictsConfig({ trials: 800 });
  let decksCache: ConflictDeck[] | undefined;
  /** Every deck of every row, run one by one, so each deck's own figures can be checked. */
  function decks(): ConflictDeck[] {
    decksCache ??= conflictsUnits(config).map((unit) => runInProcess(unit));
    return decksCache;
  }
  const rowsOf = (): ConflictsRow[] => runExperiments({ trials: 800 }, new Set([6])).conflicts?.rows ?? [];

  it("never makes a deck wrong: every deck of every row reads back as the outline's 12 slides, once each, in order, the same as the re-read deck", () => {
    const all = decks();
    expect(all).toHaveLength(4 * config.decks);
    for (const { mix, policy, figures } of all) expect(figures.deck_exact, `${mix}, ${policy}, deck ${figures.deck}`).toBe(true);
    for (const mix of ["markdown", "renames"] as const) {
      const reference = all.filter((d) => d.mix === mix && d.policy === "re-read").map((d) => d.figures.final_deck);
      const changes = all.filter((d) => d.mix === mix && d.policy === "changes").map((d) => d.figures.final_deck);
      expect(changes).toEqual(reference);
    }
  });

  it("re-lists exactly when a change touched the agent's deck: never in experiment 5's Markdown saves, after each rename otherwise", () => {
    let touched = 0;
    for (const { mix, policy, figures } of decks()) {
      const label = `${mix}, ${policy}, deck ${figures.deck}`;
      // touched_conflicts is what the script did (it renamed the deck in that try's window), not what the server said.
      if (policy === "re-read") expect(figures.re_reads, label).toBe(figures.conflicts);
      else expect(figures.re_reads, label).toBe(figures.touched_conflicts);
      if (mix === "markdown") expect(figures.touched_conflicts, label).toBe(0);
      if (mix === "renames" && policy === "changes") touched += figures.touched_conflicts;
    }
    // The fallback path ran, and conflicts without a rename were retried at once in the same decks.
    expect(touched).toBeGreaterThan(0);
    const renames = decks().filter((d) => d.mix === "renames" && d.policy === "changes");
    expect(renames.some((d) => d.figures.touched_conflicts > 0 && d.figures.conflicts > d.figures.re_reads)).toBe(true);
  });

  it("every row meets the same saves and conflicts; retrying at once saves calls and bytes in both mixes", () => {
    const rows = rowsOf();
    expect(rows.map((r) => [r.mix, r.policy])).toEqual([
      ["markdown", "re-read"],
      ["markdown", "changes"],
      ["renames", "re-read"],
      ["renames", "changes"],
    ]);
    const first = rows[0];
    for (const row of rows) expect({ conflicts: row.conflicts, saves: row.person_saves }).toEqual({ conflicts: first?.conflicts, saves: first?.person_saves });
    expect(first?.conflicts).toBeGreaterThan(0);
    for (const mix of ["markdown", "renames"] as const) {
      const today = rows.find((r) => r.mix === mix && r.policy === "re-read");
      const changes = rows.find((r) => r.mix === mix && r.policy === "changes");
      if (today === undefined || changes === undefined) throw new Error(`no rows for ${mix}`);
      expect(changes.calls_per_deck).toBeLessThan(today.calls_per_deck);
      expect(changes.bytes_per_deck).toBeLessThan(today.bytes_per_deck);
      expect(changes.request_bytes_per_deck + changes.answer_bytes_per_deck).toBeCloseTo(changes.bytes_per_deck, 6);
      // Each call left out is one re-read: the first list and every write try are the same in both.
      expect((today.calls_per_deck - changes.calls_per_deck) * changes.decks).toBeCloseTo(today.re_reads - changes.re_reads, 6);
    }
  });

  it("today's row is experiment 5's slide-by-slide row at the same seed and number of decks", () => {
    // Experiment 6 at --trials 800 has 40 decks per row, experiment 5 at --trials 200 too.
    const five = runExperiments({ trials: 200 }, new Set([5])).outline?.rows.find((r) => r.strategy === "slide-by-slide");
    const today = rowsOf().find((r) => r.mix === "markdown" && r.policy === "re-read");
    expect(five?.decks).toBe(config.decks);
    expect(today).toMatchObject({ decks: five?.decks, conflicts: five?.conflicts, calls_per_deck: five?.calls_per_deck, request_bytes_per_deck: five?.all_request_bytes_per_deck });
  });

  it("retries at once only on a complete list of changes that names none of its deck", () => {
    const conflict = (changes: { version: number; tab_id?: string }[], complete = true) => ({ code: "version_conflict", message: "m", expected_version: 3, current_version: 5, changes, changes_complete: complete });
    expect(untouched(conflict([{ version: 4, tab_id: "markdown" }, { version: 5 }]), "slides-4-a")).toBe(true);
    expect(untouched(conflict([{ version: 4, tab_id: "markdown" }, { version: 5, tab_id: "slides-4-a" }]), "slides-4-a")).toBe(false);
    expect(untouched(conflict([{ version: 4, tab_id: "markdown" }], false), "slides-4-a")).toBe(false);
    expect(untouched({ code: "version_conflict", message: "an older server's conflict", expected_version: 3, current_version: 5 }, "slides-4-a")).toBe(false);
    // No deck yet (its create conflicted): nothing can have touched it, and the create's key makes the retry safe.
    expect(untouched(conflict([{ version: 4, tab_id: "slides-4-a" }]), "")).toBe(true);
  });

  it("counts an answer as the JSON-RPC response the MCP server sends, in UTF-8 bytes", () => {
    const encoder = new TextEncoder();
    const sent = (id: number, result: unknown): number => encoder.encode(JSON.stringify({ result, jsonrpc: "2.0", id })).length;
    const value = { note_id: "n1", version: 12, tabs: [{ id: "slides-4-x", label: "Café \"plan\" \\ 😀\n—", slide_count: 3 }] };
    for (const id of [1, 9, 10, 123]) expect(answerBytes(id, { ok: true, value }), `id ${id}`).toBe(sent(id, successResult(value)));
    const error = { code: "version_conflict", message: "Expected version 3 is behind \"5\"", expected_version: 3, current_version: 5, changes: [{ version: 4, at: "2026-01-05T09:00:00.001Z", actor: { kind: "person", user: "zoë" }, operation: "rename_tab", tab_id: "slides-4-x" }], changes_complete: true };
    expect(answerBytes(7, { ok: false, error })).toBe(sent(7, errorResult(error as unknown as NoteError)));
    for (const text of ["", "plain", "é", "—", "😀", "a\u0000b"]) expect(utf8Length(text), JSON.stringify(text)).toBe(encoder.encode(text).length);
  });
});

/** Experiment 7 at 50 trials a cell (--trials 250). */
let revertCache: RevertResult | undefined;
function takeBack(): RevertResult {
  revertCache ??= runRevert(revertConfig({ trials: 250 }));
  return revertCache;
}

describe("experiment 7: only the revert takes back the mistake and nothing else", () => {
  it("has a row per mistake, delay and strategy, each over the cell's trials", () => {
    const { config, rows } = takeBack();
    expect(config).toEqual({ seed: 7, trials: 50, delays: [1, 5, 20] });
    expect(revertConfig({ trials: 10_000 }).trials).toBe(2_000);
    expect(rows.map((r) => `${r.mistake}/${r.delay}/${r.strategy}`)).toEqual(MISTAKES.flatMap((m) => DELAYS.flatMap((d) => STRATEGIES.map((s) => `${m}/${d}/${s}`))));
    for (const row of rows) {
      expect(row.trials).toBe(50);
      // One edit a turn: the later edits are the delay's turns, the person's and the agent's.
      expect(row.person_edits_after + row.agent_edits_after).toBe(50 * row.delay);
    }
  });

  it("(a) revert loses no later edit and leaves no wrong slide, conflict or not; it is refused only where a later edit touched a damaged slide", () => {
    const rows = takeBack().rows.filter((r) => r.strategy === "revert");
    for (const row of rows) {
      expect(row, `${row.mistake} after ${row.delay}`).toMatchObject({ person_lost: 0, agent_lost: 0, wrong_slides: 0, trials_wrong: 0, out_of_order: 0 });
      // Every refusal was followed by the later changes it listed taken back and made again: at least 3 calls more.
      expect(row.calls).toBeGreaterThanOrEqual((row.mistake === "overwrite" ? 3 : 1) * row.trials + 3 * row.refusals);
    }
    // A deleted slide cannot be edited later, so its delete is never refused; overwritten ones are, more often the later it is noticed.
    for (const row of rows.filter((r) => r.mistake === "delete")) expect(row).toMatchObject({ conflicted: 0, refusals: 0, calls: row.trials });
    const overwrite = rows.filter((r) => r.mistake === "overwrite").map((r) => r.conflicted);
    expect(overwrite[0]).toBeGreaterThan(0);
    expect(overwrite[2]).toBeGreaterThan(overwrite[0] ?? Infinity);
  });

  it("(b) restoring the Note as it was before the mistake loses every later edit", () => {
    for (const row of takeBack().rows.filter((r) => r.strategy === "restore")) {
      expect(row.person_lost).toBe(row.person_edits_after);
      expect(row.agent_lost).toBe(row.agent_edits_after);
      expect(row.person_edits_after).toBeGreaterThan(0);
      // Every trial has at least one later edit, so every restored deck is wrong somewhere.
      expect(row.trials_wrong).toBe(row.trials);
      expect(row.calls).toBe(row.trials);
    }
  });

  it("(c) the agent's rewrite from memory leaves wrong content where the person edited a damaged slide after the agent read it, and puts a deleted slide at the end", () => {
    const rows = takeBack().rows.filter((r) => r.strategy === "rewrite");
    for (const row of rows) {
      expect(row.stale_reads, `${row.mistake} after ${row.delay}`).toBeGreaterThan(0);
      // A stale read is a wrong slide left: every such trial is among the wrong ones.
      expect(row.trials_wrong).toBeGreaterThanOrEqual(row.stale_reads);
      expect(row.wrong_slides).toBeGreaterThan(0);
    }
    for (const row of rows.filter((r) => r.mistake === "overwrite")) expect(row.person_lost).toBeGreaterThan(0);
    for (const row of rows.filter((r) => r.mistake === "delete")) {
      // Added again, not brought back: at the end of the deck unless it was the last slide.
      expect(row.out_of_order).toBeGreaterThan(row.trials / 2);
      expect(row.person_lost).toBe(0);
    }
  });

  it("gives the same figures in any split of its trials", () => {
    const config = { ...revertConfig({ trials: 100 }), delays: [5] };
    const whole = revertResult(config, revertChunks(config, 20).map((c) => runRevertChunk(config, c)));
    const sliced = revertResult(config, revertChunks(config, 3).map((c) => runRevertChunk(config, c)).reverse());
    expect(sliced).toEqual(whole);
  });
});

/** The in-process World behind the edge of a live run: every agent step's arguments parsed by the tool's input schema first. */
class EdgeWorld extends World {
  readonly refused: { tool: string; args: unknown; problems: string[] }[] = [];
  parsed = 0;

  override answer(step: Step): Reply {
    if (step.kind === "agent") {
      const parsed = inputs[step.tool].safeParse(step.args);
      this.parsed += 1;
      if (!parsed.success) this.refused.push({ tool: step.tool, args: step.args, problems: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
    }
    return super.answer(step);
  }
}

describe("the requests", () => {
  it("every tool call experiments 3, 4, 5 and 6 send is one the tool's input schema accepts, as a live run's edge does", () => {
    const plan = makePlan({ trials: 100 }, new Set([3, 4, 5, 6]));
    const units: Unit<unknown>[] = [...(plan.idempotency?.units ?? []), ...(plan.sources?.units ?? []), ...(plan.outline?.units ?? []), ...(plan.conflicts?.units ?? [])];
    const refused: EdgeWorld["refused"] = [];
    let parsed = 0;
    for (const unit of units) {
      const world = new EdgeWorld(unit.server);
      world.run(unit.script(IN_PROCESS_TAG));
      refused.push(...world.refused);
      parsed += world.parsed;
    }
    expect(refused).toEqual([]);
    // Experiment 3 alone sends over 2,000 calls.
    expect(parsed).toBeGreaterThan(2_000);
  });
});

describe("reproducible runs", () => {
  const small = { trials: 200 };

  it("the same seed gives identical results and tables", () => {
    const first = runExperiments({ ...small, seed: 11 }, ALL);
    const second = runExperiments({ ...small, seed: 11 }, ALL);
    expect(second).toEqual(first);
    expect(renderMarkdown(sections(second, ALL))).toBe(renderMarkdown(sections(first, ALL)));
  });

  it("a different seed gives different results", () => {
    const a = runExperiments({ ...small, seed: 11 }, ALL);
    const b = runExperiments({ ...small, seed: 12 }, ALL);
    expect(b.handles?.handles).not.toEqual(a.handles?.handles);
    expect(b.idempotency?.rows).not.toEqual(a.idempotency?.rows);
    expect(b.sources?.rows).not.toEqual(a.sources?.rows);
    expect(b.outline?.rows).not.toEqual(a.outline?.rows);
    expect(b.conflicts?.rows).not.toEqual(a.conflicts?.rows);
    expect(b.revert?.rows).not.toEqual(a.revert?.rows);
  });

  it("running the jobs in any order or split (as --live runs units side by side) changes no figure", () => {
    const config = handlesConfig({ seed: 3, trials: 300 });
    const whole = handlesResult(config, handlesChunks(config, 300).map((c) => runHandlesChunk(config, c)));
    const sliced = handlesResult(config, handlesChunks(config, 7).map((c) => runHandlesChunk(config, c)).reverse());
    expect(sliced).toEqual(whole);

    const plan = makePlan({ seed: 5, trials: 100 }, ALL);
    const jobs = jobsOf(plan);
    // Run the jobs backwards, as if other units had finished first.
    const outputs = jobs.map((_, i) => i).reverse().map((i) => ({ i, output: runJob(plan, jobs[i] as (typeof jobs)[number]) }));
    const ordered = outputs.sort((x, y) => x.i - y.i).map((x) => x.output);
    expect(assemble(plan, collect(jobs, ordered))).toEqual(runExperiments({ seed: 5, trials: 100 }, ALL));
  });

  it("the same seed draws the same numbers on every machine (exact integer arithmetic)", () => {
    const random = stream(7, 1, 2, 0);
    expect([random.uint32(), random.uint32(), random.uint32()]).toEqual([1446307722, 4148580562, 3534909209]);
    expect(expNeg(4 / 60)).toBeCloseTo(Math.exp(-4 / 60), 15);
  });
});

describe("the output", () => {
  it("prints every experiment's heading, table and note; --json has one key per experiment with its rows", () => {
    const results = runExperiments({ trials: 100 }, ALL);
    const text = renderMarkdown(sections(results, ALL));
    for (const n of [1, 2, 3, 4, 5, 6, 7]) expect(text).toContain(`### ${n}. `);
    for (const column of ["correct deck", "wrong deck", "not found", "passed version check", "tabs, total", "calls, total", "stored sources", "duplicates per session", "caught by new URL()", "writes per deck", "request bytes per deck", "conflicts per deck", "answer bytes per deck", "re-reads", "decks exactly right", "person's later edits lost", "wrong slides left (mean)", "revert refused: revert_conflict"]) {
      expect(text).toContain(column);
    }
    const json = toJson(results, ALL);
    expect(Object.keys(json)).toEqual(["handles", "version_vs_target", "idempotency_order", "source_keys", "outline_vs_slide_by_slide", "conflict_changes", "take_back"]);
    for (const value of Object.values(json)) expect((value as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
  });

  it("drives the same Note operations the MCP tools do", () => {
    const plan = makePlan({ trials: 100 }, new Set([3]));
    expect(plan.idempotency?.units.filter((u) => u.server === "version-first")).toHaveLength(9);
    for (const tool of ["list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments"]) {
      expect(TOOLS_BY_NAME.get(tool)?.command).toBeTruthy();
    }
  });
});
