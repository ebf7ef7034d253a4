/**
 * Experiment 6 (issue 13): experiment 5's slide-by-slide decks when each
 * version_conflict carries the changes since the agent's version. Today the
 * agent re-reads (list_note_tabs) after every conflict; with the changes it
 * retries at once with current_version when none touched its deck, and
 * re-reads only when one did. Same seed, same draws, same domain code: calls
 * and bytes (requests and answers) per deck, and whether every deck ends
 * exactly right. The person's saves of experiment 5 are all in the Markdown
 * tab, so they never touch the deck; a second mix makes a share of them
 * renames of the agent's deck, so the re-read path runs too.
 */
import { count, decimal, markdownTable, percent, share } from "./table.js";
import { outlineConfig, writeDeck, type DeckConfig, type DeckFigures, type OutlineFigures } from "./outline.js";
import type { Section } from "./report.js";
import type { Source, Unit } from "./script.js";
import { scaled, type Settings } from "./settings.js";

export const MIXES = ["markdown", "renames"] as const;
/** The person's saves: all Markdown (experiment 5's), or a share of them renames of the agent's deck. */
export type Mix = (typeof MIXES)[number];

export const POLICIES = ["re-read", "changes"] as const;
/** What the agent does on a version_conflict (sim/outline.ts, DeckRules.onConflict). */
export type Policy = (typeof POLICIES)[number];

export interface ConflictsConfig extends DeckConfig {
  /** Decks per row. */
  decks: number;
  /** In the "renames" mix, the share of the person's saves that rename the agent's deck. */
  renameShare: number;
}

/**
 * 500 decks per row (a quarter of experiment 5's 2,000, scaled by --trials
 * alike): four rows of decks that each read back their slides would
 * otherwise add more to the run than experiments 1 to 5 together take.
 */
export function conflictsConfig(settings: Settings): ConflictsConfig {
  const { seed, thinkSeconds, savesPerSecond } = outlineConfig(settings);
  return { seed, decks: scaled(500, settings), thinkSeconds, savesPerSecond, renameShare: 0.25 };
}

/** The figures of one deck of one row. */
export interface ConflictDeck {
  mix: Mix;
  policy: Policy;
  figures: DeckFigures;
}

/**
 * A Note ID's unit part of the same length for every row, and as long as
 * experiment 5's ("slide-by-slide-0000"), so the rows' request bytes differ
 * only by what the agent does and the re-read row's equal experiment 5's.
 */
function unitName(mix: Mix, policy: Policy, deck: number): string {
  return `${mix === "markdown" ? "md" : "rn"}-${policy === "re-read" ? "reread" : "change"}-deck-${String(deck).padStart(4, "0")}`;
}

export function conflictsUnits(config: ConflictsConfig): Unit<ConflictDeck>[] {
  const units: Unit<ConflictDeck>[] = [];
  for (const mix of MIXES) {
    for (const policy of POLICIES) {
      const rules = { onConflict: policy, renameShare: mix === "renames" ? config.renameShare : 0, audit: true };
      for (let deck = 0; deck < config.decks; deck++) {
        units.push({
          script: function* (tag) {
            const out: OutlineFigures = yield* writeDeck(config, "slide-by-slide", deck, tag, rules, unitName(mix, policy, deck));
            if (out.kind !== "deck") throw new Error("a deck's unit returned no deck");
            return { mix, policy, figures: out.figures };
          },
        });
      }
    }
  }
  return units;
}

export interface ConflictsRow {
  mix: Mix;
  policy: Policy;
  source: Source;
  decks: number;
  conflicts: number;
  /** Conflicts whose window held a rename of the agent's deck. */
  touched_conflicts: number;
  re_reads: number;
  /** Conflicts retried at once, without a re-read. */
  immediate_retries: number;
  calls_per_deck: number;
  request_bytes_per_deck: number;
  answer_bytes_per_deck: number;
  bytes_per_deck: number;
  /** The mean answer of a version_conflict, changes included (the server sends them whatever the agent does with them). */
  bytes_per_conflict_answer: number;
  person_saves: number;
  renames: number;
  /** Decks whose slides, read back, are the 12 of the outline exactly once and in order. */
  decks_exact: number;
  /** Decks whose slides, read back, are the same as the re-read row's deck of the same number and mix. */
  decks_as_re_read: number;
}

export interface ConflictsResult {
  config: ConflictsConfig;
  rows: ConflictsRow[];
}

export function conflictsResult(config: ConflictsConfig, units: readonly { figures: ConflictDeck; source: Source }[]): ConflictsResult {
  const rows: ConflictsRow[] = [];
  for (const mix of MIXES) {
    const reference = new Map(units.filter((u) => u.figures.mix === mix && u.figures.policy === "re-read").map((u) => [u.figures.figures.deck, u.figures.figures.final_deck]));
    for (const policy of POLICIES) {
      const mine = units.filter((u) => u.figures.mix === mix && u.figures.policy === policy);
      const n = mine.length;
      const total = (pick: (f: DeckFigures) => number): number => mine.reduce((a, u) => a + pick(u.figures.figures), 0);
      const perDeck = (pick: (f: DeckFigures) => number): number => (n === 0 ? 0 : total(pick) / n);
      const conflicts = total((f) => f.conflicts);
      const reReads = total((f) => f.re_reads);
      rows.push({
        mix,
        policy,
        source: mine[0]?.source ?? "in process",
        decks: n,
        conflicts,
        touched_conflicts: total((f) => f.touched_conflicts),
        re_reads: reReads,
        immediate_retries: conflicts - reReads,
        calls_per_deck: perDeck((f) => f.calls),
        request_bytes_per_deck: perDeck((f) => f.bytes),
        answer_bytes_per_deck: perDeck((f) => f.answer_bytes),
        bytes_per_deck: perDeck((f) => f.bytes + f.answer_bytes),
        bytes_per_conflict_answer: conflicts === 0 ? 0 : total((f) => f.conflict_answer_bytes) / conflicts,
        person_saves: total((f) => f.person_saves),
        renames: total((f) => f.renames),
        decks_exact: mine.filter((u) => u.figures.figures.deck_exact === true).length,
        decks_as_re_read: mine.filter((u) => u.figures.figures.final_deck !== null && u.figures.figures.final_deck === reference.get(u.figures.figures.deck)).length,
      });
    }
  }
  return { config, rows };
}

const MIX_NAMES: Record<Mix, string> = {
  markdown: "Markdown only (experiment 5)",
  renames: "1 in 4 renames the agent's deck",
};

const POLICY_NAMES: Record<Policy, string> = {
  "re-read": "re-read, then retry (today)",
  changes: "retry at once unless `changes` touched the deck",
};

/** The mean answer of a version_conflict over all rows. */
function meanConflictAnswer(rows: readonly ConflictsRow[]): number {
  const conflicts = rows.reduce((a, r) => a + r.conflicts, 0);
  return conflicts === 0 ? 0 : rows.reduce((a, r) => a + r.bytes_per_conflict_answer * r.conflicts, 0) / conflicts;
}

/** "−1.23 (−4.5%)": a row's figure against the re-read row of its mix. */
function against(value: number, base: number, digits: number): string {
  const diff = value - base;
  const sign = diff < 0 ? "−" : "+";
  const size = digits === 0 ? count(Math.abs(diff)) : Math.abs(diff).toFixed(digits);
  return `${sign}${size} (${sign}${base === 0 ? "–" : percent(Math.abs(diff), base)})`;
}

export function conflictsSection(result: ConflictsResult): Section {
  const { config, rows } = result;
  const marks = rows.some((r) => r.source !== "in process");
  const base = (mix: Mix): ConflictsRow | undefined => rows.find((r) => r.mix === mix && r.policy === "re-read");
  return {
    key: "conflict_changes",
    heading: `### 6. Conflicts that carry the changes since: experiment 5's slide-by-slide decks, ${count(config.decks)} decks per row, seed ${config.seed}`,
    tables: [
      markdownTable({
        head: [
          "the person's saves",
          "agent on a version_conflict",
          ...(marks ? ["ran"] : []),
          "conflicts",
          "touched the deck",
          "re-reads",
          "calls per deck",
          "request bytes per deck",
          "answer bytes per deck",
          "bytes per deck",
          "calls vs re-read",
          "bytes vs re-read",
          "decks exactly right",
          "same deck as re-read",
        ],
        rows: rows.map((r) => {
          const b = base(r.mix);
          const same = r.policy === "re-read";
          return [
            MIX_NAMES[r.mix],
            POLICY_NAMES[r.policy],
            ...(marks ? [r.source] : []),
            count(r.conflicts),
            count(r.touched_conflicts),
            count(r.re_reads),
            decimal(r.calls_per_deck, 2),
            count(r.request_bytes_per_deck),
            count(r.answer_bytes_per_deck),
            count(r.bytes_per_deck),
            same || b === undefined ? "–" : against(r.calls_per_deck, b.calls_per_deck, 2),
            same || b === undefined ? "–" : against(r.bytes_per_deck, b.bytes_per_deck, 0),
            share(r.decks_exact, r.decks),
            same ? "–" : share(r.decks_as_re_read, r.decks),
          ];
        }),
        align: ["left", "left", ...(marks ? ["left" as const] : [])],
      }),
    ],
    note:
      "With the changes since its version in every version_conflict, the agent skips the re-read whenever the person's save was elsewhere in the Note: every conflict of experiment 5, whose saves are all in the Markdown tab; when some saves rename the agent's deck, exactly those conflicts still re-read. Every deck ends the same, its 12 slides once each and in order. " +
      `Model: experiment 5's slide-by-slide decks (empty create + 12 slide_add), the same seed and the same draws, so every row meets the same saves at the same tries and the same conflicts; the person saves as a Poisson process of ${decimal(config.savesPerSecond * 60, 0)} a minute, ${config.thinkSeconds} s before each try. ` +
      "\"Re-read\": on a conflict the agent calls list_note_tabs and retries with its version (experiment 5). \"Retry at once\": when the conflict's changes are complete (changes_complete) and none names the agent's tab (tab_id), it retries with the conflict's current_version and no list; otherwise it re-reads. Either way the retry comes after another think time (the agent's turn), so no row gains or loses a conflict. " +
      `In the second mix each save renames the agent's deck with probability ${decimal(config.renameShare, 2)} once the deck exists (its own stream, seed, 6, deck, write), else saves the Markdown; "touched the deck" counts the conflicts whose window held such a rename, as the script knows it. ` +
      "Calls and request bytes are counted as in experiment 5 (first list, every try, every re-read); answer bytes are the JSON-RPC responses the MCP server sends for them (src/mcp/results.ts: a success's JSON text and structuredContent, a failure's {error} text), without transport framing. " +
      `Every row gets the same conflict answers, changes included (the server sends them whatever the agent does with them): ${count(meanConflictAnswer(rows))} bytes each on average. ` +
      "After the deck, read_note_tab (not counted) reads it back: \"exactly right\" is the outline's 12 slides once each in order; \"same deck\" compares it with the re-read row's deck of the same number.",
  };
}
