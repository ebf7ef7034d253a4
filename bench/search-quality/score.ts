/**
 * Scoring a run of the labelled queries: a query's hit at rank 1 is right
 * (precision at 1), or among the first 5 (recall at 5: each query has one
 * item it must find, so recall at 5 is the share of queries whose item is in
 * the top 5). Pure: the loader and the search calls are elsewhere.
 */
import type { Lang, LabelledQuery, QueryType } from "./types.js";

/** A label resolved to the IDs the connector gave its item when the corpus was loaded. */
export interface Expected {
  kind: "note" | "tab" | "slide" | "row" | "markdown" | "source";
  note_id: string;
  tab_id?: string;
  /** The slide's, row's or source's ID. */
  item_id?: string;
  /** A Markdown section: its heading, and its ordinal in the Note's Markdown (the `# title` line is 0). */
  heading?: string;
  section?: number;
}

/** A hit as the `search` tool's structuredContent carries it (only what scoring reads). */
export interface Hit {
  id?: string;
  kind?: string;
  note_id?: string;
  tab_id?: string;
  slide_id?: string;
  row_id?: string;
  source_id?: string;
  section?: number;
  title?: string;
  note_title?: string;
  snippet?: string;
}

const norm = (text: string | undefined): string => (text ?? "").replace(/^#+\s*/, "").trim().normalize("NFC");

export function isHit(hit: Hit, want: Expected): boolean {
  if (hit.note_id !== want.note_id || hit.kind !== want.kind) return false;
  switch (want.kind) {
    case "note":
      return true;
    case "tab":
      return hit.tab_id === want.tab_id;
    case "slide":
      return hit.tab_id === want.tab_id && hit.slide_id === want.item_id;
    case "row":
      return hit.tab_id === want.tab_id && hit.row_id === want.item_id;
    case "source":
      return hit.source_id === want.item_id;
    case "markdown":
      return norm(hit.title) === norm(want.heading) || (hit.section !== undefined && hit.section === want.section);
  }
}

export interface QueryResult {
  query: LabelledQuery;
  expected: Expected;
  hits: Hit[];
  /** 1-based rank of the expected item among the hits; null: not in them. */
  rank: number | null;
  /** The tool refused the query (its message), or null. */
  error: string | null;
}

export function rankOf(hits: readonly Hit[], want: Expected): number | null {
  const i = hits.findIndex((h) => isHit(h, want));
  return i < 0 ? null : i + 1;
}

export interface Figures {
  queries: number;
  precisionAt1: number;
  recallAt5: number;
  /** Mean reciprocal rank within the top 5 (0 for a miss): how far down the misses of rank 1 are. */
  mrr5: number;
}

export function figures(results: readonly QueryResult[]): Figures {
  const n = results.length;
  const at1 = results.filter((r) => r.rank === 1).length;
  const at5 = results.filter((r) => r.rank !== null && r.rank <= 5).length;
  const rr = results.reduce((sum, r) => sum + (r.rank !== null && r.rank <= 5 ? 1 / r.rank : 0), 0);
  return { queries: n, precisionAt1: n === 0 ? 0 : at1 / n, recallAt5: n === 0 ? 0 : at5 / n, mrr5: n === 0 ? 0 : rr / n };
}

export interface QualityReport {
  seed: number;
  /** Each query within its expected Note only (not the issue's figure), or across every Note. */
  withinNote: boolean;
  notes: number;
  items: { slides: number; rows: number; sections: number; sources: number };
  loadSeconds: number;
  settleSeconds: number;
  overall: Figures;
  byLang: Record<Lang, Figures>;
  byType: Partial<Record<QueryType, Figures>>;
  results: QueryResult[];
}

const pct = (x: number): string => x.toFixed(2);

function describe(hit: Hit): string {
  const where = hit.kind === "markdown" ? `section ${hit.section ?? "?"}` : (hit.slide_id ?? hit.row_id ?? hit.source_id ?? hit.tab_id ?? "");
  return `${hit.kind ?? "?"} "${(hit.title ?? "").slice(0, 50)}" in ${hit.note_id ?? "?"}${where === "" ? "" : ` (${where})`}`;
}

function wanted(e: Expected): string {
  const where = e.kind === "markdown" ? `section "${e.heading ?? ""}"` : (e.item_id ?? e.tab_id ?? "");
  return `${e.kind} in ${e.note_id}${where === "" ? "" : ` (${where})`}`;
}

export function markdownQuality(report: QualityReport, goals = { precisionAt1: 0.9, recallAt5: 0.98 }): string {
  const row = (label: string, f: Figures): string => `| ${label} | ${f.queries} | ${pct(f.precisionAt1)} | ${pct(f.recallAt5)} | ${pct(f.mrr5)} |`;
  const misses = report.results.filter((r) => r.rank !== 1);
  const met = (x: number, goal: number): string => (x >= goal ? "met" : "**missed**");
  return [
    "# npm run search:quality",
    "",
    `Corpus: seed ${report.seed}, ${report.notes} Notes (${report.items.slides} slides, ${report.items.rows} Sheet rows, ${report.items.sections} Markdown sections, ${report.items.sources} sources), loaded in ${report.loadSeconds} s; the cross-Note index settled ${report.settleSeconds} s after the last write.`,
    report.withinNote
      ? "Each query through the MCP `search` tool (limit 5) as alice's agent, **within its expected Note only** (`--within-note`: the Note's own ranking, not the issue's figure)."
      : "Each query through the MCP `search` tool (limit 5) as alice's agent, across all her Notes.",
    "",
    `Precision at 1: **${pct(report.overall.precisionAt1)}** (goal ${goals.precisionAt1}: ${met(report.overall.precisionAt1, goals.precisionAt1)}); recall at 5: **${pct(report.overall.recallAt5)}** (goal ${goals.recallAt5}: ${met(report.overall.recallAt5, goals.recallAt5)}).`,
    "",
    "| queries | n | precision at 1 | recall at 5 | MRR at 5 |",
    "| --- | ---: | ---: | ---: | ---: |",
    row("all", report.overall),
    ...Object.entries(report.byLang).map(([lang, f]) => row(lang, f)),
    ...Object.entries(report.byType).map(([type, f]) => row(`type: ${type}`, f as Figures)),
    "",
    misses.length === 0 ? "Every query found its item first." : `## Not first (${misses.length})`,
    "",
    ...misses.flatMap((r) => [
      `- \`${r.query.id}\` ${r.query.type} "${r.query.query}" → wanted ${wanted(r.expected)} (${r.query.expect}); ${r.error !== null ? `**refused**: ${r.error}` : r.rank === null ? "**not in the top 5**" : `at rank ${r.rank}`}`,
      ...r.hits.slice(0, r.rank === null ? 5 : r.rank - 1).map((h, i) => `  ${i + 1}. ${describe(h)}`),
    ]),
    "",
  ].join("\n");
}
