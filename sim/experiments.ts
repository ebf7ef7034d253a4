/**
 * The five experiments of docs/spec.md §9, issue 13's sixth and issue 25's seventh, as one run: which to run, the jobs they
 * consist of, their results, printed sections and JSON. Pure (no Node APIs):
 * the Worker tests and the CLI (main.ts) run it as it is, and the live
 * driver (live.ts) sends units over HTTP, several at once. Every job draws
 * from its own seeded streams, so neither the order nor the split of the
 * jobs changes a figure.
 */
import { handlesChunks, handlesConfig, handlesResult, handlesSection, runHandlesChunk, writesSection, type HandlesChunk, type HandlesConfig, type HandlesResult, type HandlesTally } from "./handles.js";
import { idempotencyConfig, idempotencyResult, idempotencySection, idempotencyUnits, type IdempotencyConfig, type IdempotencyResult, type RunFigures } from "./idempotency.js";
import { conflictsConfig, conflictsResult, conflictsSection, conflictsUnits, type ConflictDeck, type ConflictsConfig, type ConflictsResult } from "./conflicts.js";
import { runInProcess } from "./in-process.js";
import { revertChunks, revertConfig, revertResult, revertSection, runRevertChunk, type RevertChunk, type RevertConfig, type RevertResult, type RevertTally } from "./revert.js";
import { outlineConfig, outlineResult, outlineSection, outlineUnits, type OutlineConfig, type OutlineFigures, type OutlineResult } from "./outline.js";
import type { Section } from "./report.js";
import type { Source, Unit } from "./script.js";
import type { Settings } from "./settings.js";
import { sourcesConfig, sourcesResult, sourcesSection, sourcesUnits, type SessionFigures, type SourcesConfig, type SourcesResult } from "./sources.js";

export const EXPERIMENTS = [1, 2, 3, 4, 5, 6, 7] as const;
export type ExperimentNumber = (typeof EXPERIMENTS)[number];

/** What to run: each chosen experiment's settings and its jobs (1 and 2 share theirs). */
export interface Plan {
  only: ReadonlySet<ExperimentNumber>;
  handles?: { config: HandlesConfig; chunks: HandlesChunk[] };
  idempotency?: { config: IdempotencyConfig; units: Unit<RunFigures>[] };
  sources?: { config: SourcesConfig; units: Unit<SessionFigures[]>[] };
  outline?: { config: OutlineConfig; units: Unit<OutlineFigures>[] };
  conflicts?: { config: ConflictsConfig; units: Unit<ConflictDeck>[] };
  /** Experiment 7 runs in process only, in slices like experiment 1's. */
  revert?: { config: RevertConfig; chunks: RevertChunk[] };
}

/** A unit's figures and where they came from. */
export interface Ran<R> {
  figures: R;
  source: Source;
}

/** Every job's output, in the plan's order. */
export interface Outputs {
  handles: HandlesTally[];
  idempotency: Ran<RunFigures>[];
  sources: Ran<SessionFigures[]>[];
  outline: Ran<OutlineFigures>[];
  conflicts: Ran<ConflictDeck>[];
  revert: RevertTally[];
}

export interface Results {
  /** Experiments 1 and 2 share their trials. */
  handles?: HandlesResult;
  idempotency?: IdempotencyResult;
  sources?: SourcesResult;
  outline?: OutlineResult;
  conflicts?: ConflictsResult;
  revert?: RevertResult;
}

export function makePlan(settings: Settings, only: ReadonlySet<ExperimentNumber>): Plan {
  const plan: Plan = { only };
  if (only.has(1) || only.has(2)) {
    const config = handlesConfig(settings);
    plan.handles = { config, chunks: handlesChunks(config) };
  }
  if (only.has(3)) {
    const config = idempotencyConfig(settings);
    plan.idempotency = { config, units: idempotencyUnits(config) };
  }
  if (only.has(4)) {
    const config = sourcesConfig(settings);
    plan.sources = { config, units: sourcesUnits(config) };
  }
  if (only.has(5)) {
    const config = outlineConfig(settings);
    plan.outline = { config, units: outlineUnits(config) };
  }
  if (only.has(6)) {
    const config = conflictsConfig(settings);
    plan.conflicts = { config, units: conflictsUnits(config) };
  }
  if (only.has(7)) {
    const config = revertConfig(settings);
    plan.revert = { config, chunks: revertChunks(config) };
  }
  return plan;
}

/** A job: one slice of experiment 1's or 7's trials, or one unit of experiment 3, 4, 5 or 6. */
export type Job = { experiment: "handles" | "revert"; index: number } | { experiment: "idempotency" | "sources" | "outline" | "conflicts"; index: number };

/** Every job of the plan, in order. */
export function jobsOf(plan: Plan): Job[] {
  const jobs: Job[] = [];
  plan.handles?.chunks.forEach((_, index) => jobs.push({ experiment: "handles", index }));
  for (const experiment of ["idempotency", "sources", "outline", "conflicts"] as const) plan[experiment]?.units.forEach((_, index) => jobs.push({ experiment, index }));
  plan.revert?.chunks.forEach((_, index) => jobs.push({ experiment: "revert", index }));
  return jobs;
}

/** Runs one job in this thread. */
export function runJob(plan: Plan, job: Job): HandlesTally | RevertTally | Ran<unknown> {
  if (job.experiment === "handles") {
    const handles = plan.handles;
    const chunk = handles?.chunks[job.index];
    if (handles === undefined || chunk === undefined) throw new Error(`no chunk ${job.index} of experiment 1`);
    return runHandlesChunk(handles.config, chunk);
  }
  if (job.experiment === "revert") {
    const revert = plan.revert;
    const chunk = revert?.chunks[job.index];
    if (revert === undefined || chunk === undefined) throw new Error(`no chunk ${job.index} of experiment 7`);
    return runRevertChunk(revert.config, chunk);
  }
  const unit = (plan[job.experiment]?.units as readonly Unit<unknown>[] | undefined)?.[job.index];
  if (unit === undefined) throw new Error(`no unit ${job.index} of ${job.experiment}`);
  return { figures: runInProcess(unit), source: "in process" };
}

/** The jobs' outputs sorted back into their experiments; `outputs[i]` belongs to `jobs[i]`. */
export function collect(jobs: readonly Job[], outputs: readonly (HandlesTally | RevertTally | Ran<unknown>)[]): Outputs {
  const collected: Outputs = { handles: [], idempotency: [], sources: [], outline: [], conflicts: [], revert: [] };
  jobs.forEach((job, i) => {
    const output = outputs[i];
    if (output === undefined) throw new Error(`job ${i} has no output`);
    (collected[job.experiment] as unknown[]).push(output);
  });
  return collected;
}

/** The results of the plan from its jobs' outputs. */
export function assemble(plan: Plan, outputs: Outputs): Results {
  const results: Results = {};
  if (plan.handles !== undefined) results.handles = handlesResult(plan.handles.config, outputs.handles);
  if (plan.idempotency !== undefined) results.idempotency = idempotencyResult(plan.idempotency.config, outputs.idempotency);
  if (plan.sources !== undefined) results.sources = sourcesResult(plan.sources.config, outputs.sources);
  if (plan.outline !== undefined) results.outline = outlineResult(plan.outline.config, outputs.outline);
  if (plan.conflicts !== undefined) results.conflicts = conflictsResult(plan.conflicts.config, outputs.conflicts);
  if (plan.revert !== undefined) results.revert = revertResult(plan.revert.config, outputs.revert);
  return results;
}

/** Runs the chosen experiments in this thread, in process. */
export function runExperiments(settings: Settings, only: ReadonlySet<ExperimentNumber> = new Set(EXPERIMENTS)): Results {
  const plan = makePlan(settings, only);
  const jobs = jobsOf(plan);
  return assemble(plan, collect(jobs, jobs.map((job) => runJob(plan, job))));
}

/** The printed sections, in experiment order. */
export function sections(results: Results, only: ReadonlySet<ExperimentNumber>): Section[] {
  const out: Section[] = [];
  if (only.has(1) && results.handles !== undefined) out.push(handlesSection(results.handles));
  if (only.has(2) && results.handles !== undefined) out.push(writesSection(results.handles));
  if (only.has(3) && results.idempotency !== undefined) out.push(idempotencySection(results.idempotency));
  if (only.has(4) && results.sources !== undefined) out.push(sourcesSection(results.sources));
  if (only.has(5) && results.outline !== undefined) out.push(outlineSection(results.outline));
  if (only.has(6) && results.conflicts !== undefined) out.push(conflictsSection(results.conflicts));
  if (only.has(7) && results.revert !== undefined) out.push(revertSection(results.revert));
  return out;
}

/** One JSON document: one key per experiment, each with its settings and its rows of named figures. */
export function toJson(results: Results, only: ReadonlySet<ExperimentNumber>): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  const { handles, idempotency, sources, outline, conflicts, revert } = results;
  if (only.has(1) && handles !== undefined) {
    json.handles = { experiment: 1, ...handles.config, rows: handles.handles, original_deck_first: handles.original_deck_first, changes: handles.changes };
  }
  if (only.has(2) && handles !== undefined) json.version_vs_target = { experiment: 2, ...handles.config, rows: handles.writes };
  if (only.has(3) && idempotency !== undefined) json.idempotency_order = { experiment: 3, ...idempotency.config, rows: idempotency.rows };
  if (only.has(4) && sources !== undefined) json.source_keys = { experiment: 4, ...sources.config, rows: sources.rows };
  if (only.has(5) && outline !== undefined) json.outline_vs_slide_by_slide = { experiment: 5, ...outline.config, rows: outline.rows, listing: outline.listing };
  if (only.has(6) && conflicts !== undefined) json.conflict_changes = { experiment: 6, ...conflicts.config, rows: conflicts.rows };
  if (only.has(7) && revert !== undefined) json.take_back = { experiment: 7, ...revert.config, rows: revert.rows };
  return json;
}
