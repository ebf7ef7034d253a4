/**
 * Experiment 5 (docs/spec.md §9): a 12-slide deck as one create_note_tab with an
 * outline, or as an empty create plus 12 slide_add calls: writes, request
 * bytes (the JSON-RPC bodies), and version conflicts while a person keeps
 * saving the Note. Also: the calls it takes to list 120 sources.
 */
import { DECK } from "../scripts/lib/deck.js";
import { LIMITS } from "../src/note/limits.js";
import { hashHex } from "./hash.js";
import { stream } from "./random.js";
import { agent, expectOk, noteIdFor, person, setUpNote, type AgentTool, type Answer, type Reply, type Script, type Step, type Source, type ToolArgs, type ToolError, type ToolOutputs, type Unit } from "./script.js";
import { scaled, seedOf, type Settings } from "./settings.js";
import { count, decimal, markdownTable, percent } from "./table.js";
import type { Section } from "./report.js";

export const STRATEGIES = ["outline", "slide-by-slide"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface OutlineConfig {
  seed: number;
  decks: number;
  /** Seconds between the agent's read (or previous answer) and its write. */
  thinkSeconds: number;
  /** The person's saves per second anywhere in the Note (once a minute). */
  savesPerSecond: number;
  /** The listing part: sources in the Note, and the page size. */
  sources: number;
  pageSize: number;
}

export function outlineConfig(settings: Settings): OutlineConfig {
  return { seed: seedOf(settings), decks: scaled(2000, settings), thinkSeconds: 4, savesPerSecond: 1 / 60, sources: 120, pageSize: LIMITS.pageSize };
}

/** What a deck's unit reads of its experiment's settings. */
export type DeckConfig = Pick<OutlineConfig, "seed" | "thinkSeconds" | "savesPerSecond">;

export interface DeckFigures {
  strategy: Strategy;
  deck: number;
  /** Writes the deck needs when nothing conflicts. */
  writes: number;
  /** Request bytes of those writes (first tries only). */
  write_bytes: number;
  /** Every tools/call sent for the deck: the first list, every write try, every re-read. */
  calls: number;
  /** Request bytes of all of them. */
  bytes: number;
  /** Answer bytes of all of them (the JSON-RPC responses, see answerBytes). */
  answer_bytes: number;
  /** Of those, the answers that were version conflicts (with the changes they carry). */
  conflict_answer_bytes: number;
  conflicts: number;
  /** Conflicts after which the agent re-read with list_note_tabs. */
  re_reads: number;
  /** Conflicts whose window held a change to the agent's deck (the person renamed it), as the script itself knows. */
  touched_conflicts: number;
  /** The person's saves while the agent was writing this deck. */
  person_saves: number;
  /** Of those, the renames of the agent's deck. */
  renames: number;
  /** Slides in the deck at the end, as its last answer said. */
  slides: number;
  /** With rules.audit: the deck read back at the end (titles and bodies, in order) as a hash, and whether it is DECK exactly. */
  final_deck: string | null;
  deck_exact: boolean | null;
}

export interface ListingFigures {
  sources: number;
  page_size: number;
  calls: number;
  items_per_call: number[];
  bytes: number;
}

/** A deck's unit or the listing's unit. */
export type OutlineFigures = { kind: "deck"; figures: DeckFigures } | { kind: "listing"; figures: ListingFigures };

export function outlineUnits(config: OutlineConfig): Unit<OutlineFigures>[] {
  const units: Unit<OutlineFigures>[] = [];
  for (const strategy of STRATEGIES) {
    for (let deck = 0; deck < config.decks; deck++) {
      units.push({ script: (tag) => writeDeck(config, strategy, deck, tag) });
    }
  }
  units.push({ script: (tag) => listSources(config, tag) });
  return units;
}

/** Any character past ASCII: the regular expression engine finds the first far faster than a loop in JavaScript. */
const NON_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 length of a string, without encoding it (a run measures about 100,000 bodies). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  const first = text.search(NON_ASCII);
  if (first < 0) return bytes;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    // 2 bytes up to U+07FF, 3 for the rest of the BMP; a surrogate pair (4 bytes) is two units of 2.
    bytes += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/**
 * The size in bytes (UTF-8) of a tools/call's JSON-RPC body. `id` is the
 * call's number within its unit, counted from 1. The body is checked once,
 * where the call is answered: by the Note in process, by the tool's input
 * schema and then the Note with `--live` (test/unit/sim.test.ts parses every
 * body the experiments send with the tools' schemas).
 */
export function requestBytes<N extends AgentTool>(id: number, name: N, args: ToolArgs<N>): number {
  return utf8Length(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }));
}

/** The bytes a JSON string literal adds to its text: the quotes, and a backslash before each `"` and `\` (JSON text holds no control characters). */
function quotedExtra(json: string): number {
  return 2 + occurrences(json, '"') + occurrences(json, "\\");
}

/** How many times `char` occurs in `text` (indexOf scans natively). */
function occurrences(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) n += 1;
  return n;
}

/**
 * The bytes of a response around its figures, for a success (text and
 * structuredContent) and a failure (isError and text): the response with an
 * empty text, less that text's quotes (2), and less the 0 standing for
 * structuredContent (1) and for the id (1).
 */
const SUCCESS_FRAME = utf8Length(JSON.stringify({ result: { content: [{ type: "text", text: "" }], structuredContent: 0 }, jsonrpc: "2.0", id: 0 })) - 2 - 1 - 1;
const FAILURE_FRAME = utf8Length(JSON.stringify({ result: { isError: true, content: [{ type: "text", text: "" }] }, jsonrpc: "2.0", id: 0 })) - 2 - 1;

/**
 * The size in bytes (UTF-8) of a tools/call's JSON-RPC response: the result
 * the MCP server builds from the answer (src/mcp/results.ts: success as JSON
 * text plus the same value as structuredContent, a failure as its `{error}`
 * text), without the transport's framing (an SSE event's `data:` lines), as
 * requests are counted. Computed from the answer's JSON once, instead of
 * serializing the response (test/unit/sim.test.ts checks it against that).
 */
export function answerBytes(id: number, answer: Answer<unknown>): number {
  const ids = String(id).length;
  if (answer.ok) {
    const json = JSON.stringify(answer.value);
    return SUCCESS_FRAME + ids + 2 * utf8Length(json) + quotedExtra(json);
  }
  const json = JSON.stringify({ error: answer.error });
  return FAILURE_FRAME + ids + utf8Length(json) + quotedExtra(json);
}

/** A counter of the unit's calls, their request bytes and, when asked, their answer bytes. */
class Meter {
  calls = 0;
  bytes = 0;
  answerBytes = 0;

  constructor(readonly countAnswers: boolean) {}

  *call<N extends AgentTool>(name: N, args: ToolArgs<N>): Generator<Step, Answer<ToolOutputs[N]>, Reply> {
    this.calls += 1;
    this.bytes += requestBytes(this.calls, name, args);
    const answer = yield* agent(name, args);
    if (this.countAnswers) this.answerBytes += answerBytes(this.calls, answer);
    return answer;
  }
}

/**
 * How a deck's agent meets a version_conflict and what the person's saves
 * are. Experiment 5 runs TODAY; experiment 6 (sim/conflicts.ts) varies both.
 */
export interface DeckRules {
  /**
   * "re-read": list_note_tabs, then retry with its version (today).
   * "changes": retry at once with the conflict's current_version when its
   * `changes` are complete and none touched the agent's deck; else re-read.
   */
  onConflict: "re-read" | "changes";
  /** The share of the person's saves that rename the agent's deck instead of saving the Markdown (once the deck exists). */
  renameShare: number;
  /** Count answer bytes, and read the deck back at the end (read_note_tab, not counted). */
  audit: boolean;
}

export const TODAY: DeckRules = { onConflict: "re-read", renameShare: 0, audit: false };

/** What a version_conflict carries besides code and message (src/note/errors.ts). */
interface ConflictDetails {
  current_version?: number;
  changes?: { version: number; tab_id?: string }[];
  changes_complete?: boolean;
}

/** Whether a conflict lets the agent retry at once: every change since its version is listed and none touched its deck. */
export function untouched(error: ToolError, tabId: string): error is ToolError & ConflictDetails & { current_version: number } {
  const { current_version, changes, changes_complete } = error as ToolError & ConflictDetails;
  if (typeof current_version !== "number" || changes_complete !== true || !Array.isArray(changes)) return false;
  // Before its create has committed the agent has no deck for a change to touch; the create's key makes its retry safe.
  return tabId === "" || changes.every((change) => change.tab_id !== tabId);
}

/**
 * One deck in its own Note. Before each write try, the person saves the Note
 * a Poisson(4 s × 1/60 s) number of times (the saves in the 4 s between the
 * agent's read, or the conflict's answer, and its write); any save makes that
 * try a version conflict, and the agent re-reads with list_note_tabs (or,
 * under rules.onConflict "changes", retries at once when the conflict's
 * changes did not touch its deck) and tries again, same key, new version,
 * after another 4 s. Write w's tries draw from (seed, 5, deck, w), the same
 * for every strategy and rule; which saves are renames, from (seed, 6, deck, w).
 */
export function* writeDeck(config: DeckConfig, strategy: Strategy, deck: number, tag: string, rules: DeckRules = TODAY, unit?: string): Script<OutlineFigures> {
  const noteId = unit === undefined ? noteIdFor(5, tag, `${strategy}-${String(deck).padStart(4, "0")}`) : noteIdFor(6, tag, unit);
  yield* setUpNote(noteId, `Experiment 5: deck ${deck}`);
  const meter = new Meter(rules.audit);
  const figures: DeckFigures = {
    strategy,
    deck,
    writes: 0,
    write_bytes: 0,
    calls: 0,
    bytes: 0,
    answer_bytes: 0,
    conflict_answer_bytes: 0,
    conflicts: 0,
    re_reads: 0,
    touched_conflicts: 0,
    person_saves: 0,
    renames: 0,
    slides: 0,
    final_deck: null,
    deck_exact: null,
  };
  let version = expectOk(yield* meter.call("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
  const lambda = config.thinkSeconds * config.savesPerSecond;
  let tabId = "";

  const writes = strategy === "outline" ? 1 : 1 + DECK.length;
  for (let w = 0; w < writes; w++) {
    const tries = stream(config.seed, 5, deck, w);
    const kinds = rules.renameShare > 0 ? stream(config.seed, 6, deck, w) : null;
    const key = `deck-${deck}-write-${w}`;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 1000) throw new Error(`write ${w} of deck ${deck} did not settle in 1,000 tries`);
      const saves = tries.poisson(lambda);
      let touched = false;
      for (let s = 0; s < saves; s++) {
        figures.person_saves += 1;
        if (kinds !== null && kinds.chance(rules.renameShare) && tabId !== "") {
          figures.renames += 1;
          touched = true;
          expectOk(yield* person({ op: "rename_tab", note_id: noteId, tab_id: tabId, label: `Launch plan, renamed ${figures.renames}` }), "rename_tab");
        } else {
          expectOk(yield* person({ op: "save_markdown", note_id: noteId, text: `Saved by the person, save ${figures.person_saves}` }), "save_markdown");
        }
      }
      const before = meter.bytes;
      let answer: Answer<{ version: number; tab_id: string; slide_count?: number }>;
      if (w === 0) {
        const args: ToolArgs<"create_note_tab"> = { note_id: noteId, expected_version: version, idempotency_key: key, tab_type: "slides", label: "Launch plan" };
        if (strategy === "outline") args.slides = DECK.map((s) => ({ ...s }));
        answer = yield* meter.call("create_note_tab", args);
      } else {
        const slide = DECK[w - 1];
        if (slide === undefined) throw new Error(`no slide ${w}`);
        answer = yield* meter.call("edit_note_tab", {
          note_id: noteId,
          expected_version: version,
          idempotency_key: key,
          tab_id: tabId,
          operation: "slide_add",
          title: slide.title,
          body: slide.body,
        });
      }
      if (attempt === 0) {
        figures.writes += 1;
        figures.write_bytes += meter.bytes - before;
      }
      if (answer.ok) {
        version = answer.value.version;
        tabId = answer.value.tab_id;
        figures.slides = answer.value.slide_count ?? 0;
        break;
      }
      if (answer.error.code !== "version_conflict") throw new Error(`write ${w}: unexpected ${answer.error.code}: ${answer.error.message}`);
      figures.conflicts += 1;
      if (rules.audit) figures.conflict_answer_bytes += answerBytes(meter.calls, answer);
      if (touched) figures.touched_conflicts += 1;
      if (rules.onConflict === "changes" && untouched(answer.error, tabId)) {
        version = answer.error.current_version;
        continue;
      }
      figures.re_reads += 1;
      version = expectOk(yield* meter.call("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
    }
  }
  if (figures.slides !== DECK.length) throw new Error(`deck ${deck} ended with ${figures.slides} slides, not ${DECK.length}`);
  figures.calls = meter.calls;
  figures.bytes = meter.bytes;
  figures.answer_bytes = meter.answerBytes;
  if (rules.audit) {
    const read = expectOk(yield* agent("read_note_tab", { note_id: noteId, tab_id: tabId }), "read_note_tab");
    const slides = "slides" in read ? read.slides.map((s) => ({ title: s.title, body: s.body })) : [];
    figures.final_deck = hashHex(JSON.stringify(slides));
    figures.deck_exact = slides.length === DECK.length && slides.every((s, i) => s.title === DECK[i]?.title && s.body === DECK[i]?.body);
  }
  return { kind: "deck", figures };
}

/** A Note with `sources` sources (cited by the agent), then listed from the start at the largest page size. */
function* listSources(config: OutlineConfig, tag: string): Script<OutlineFigures> {
  const noteId = noteIdFor(5, tag, "listing");
  yield* setUpNote(noteId, "Experiment 5: 120 sources");
  let version = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
  for (let i = 1; i <= config.sources; i++) {
    const added = expectOk(
      yield* agent("add_note_source", { note_id: noteId, expected_version: version, idempotency_key: `source-${i}`, title: `Source ${i}`, url: `https://example.org/sources/${i}` }),
      "add_note_source",
    );
    version = added.version;
  }
  const meter = new Meter(false);
  const perCall: number[] = [];
  let cursor: string | undefined;
  for (;;) {
    const args: ToolArgs<"list_note_attachments"> = { note_id: noteId, kind: "sources", limit: config.pageSize };
    if (cursor !== undefined) args.cursor = cursor;
    const page = expectOk(yield* meter.call("list_note_attachments", args), "list_note_attachments");
    perCall.push(page.items.length);
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }
  return { kind: "listing", figures: { sources: config.sources, page_size: config.pageSize, calls: meter.calls, items_per_call: perCall, bytes: meter.bytes } };
}

export interface OutlineRow {
  strategy: Strategy;
  source: Source;
  decks: number;
  writes_per_deck: number;
  request_bytes_per_deck: number;
  conflicts: number;
  conflicts_per_deck: number;
  decks_with_conflict: number;
  expected_conflicts_per_deck: number;
  calls_per_deck: number;
  all_request_bytes_per_deck: number;
  person_saves: number;
}

export interface OutlineResult {
  config: OutlineConfig;
  rows: OutlineRow[];
  listing: ListingFigures & { source: Source };
}

export function outlineResult(config: OutlineConfig, units: readonly { figures: OutlineFigures; source: Source }[]): OutlineResult {
  const decks = units.flatMap((u) => (u.figures.kind === "deck" ? [{ figures: u.figures.figures, source: u.source }] : []));
  const listing = units.flatMap((u) => (u.figures.kind === "listing" ? [{ ...u.figures.figures, source: u.source }] : []))[0];
  if (listing === undefined) throw new Error("the listing unit did not run");
  // A try conflicts when at least one save falls in its window: p = 1 − e^−λ; tries per write are geometric, so conflicts per write = p / (1 − p) = e^λ − 1.
  const lambda = config.thinkSeconds * config.savesPerSecond;
  const conflictsPerWrite = Math.exp(lambda) - 1;
  const rows = STRATEGIES.map((strategy): OutlineRow => {
    const mine = decks.filter((d) => d.figures.strategy === strategy);
    const n = mine.length;
    const total = (pick: (f: DeckFigures) => number): number => mine.reduce((a, d) => a + pick(d.figures), 0);
    const first = mine[0]?.figures;
    return {
      strategy,
      source: mine[0]?.source ?? "in process",
      decks: n,
      writes_per_deck: first?.writes ?? 0,
      request_bytes_per_deck: n === 0 ? 0 : total((f) => f.write_bytes) / n,
      conflicts: total((f) => f.conflicts),
      conflicts_per_deck: n === 0 ? 0 : total((f) => f.conflicts) / n,
      decks_with_conflict: mine.filter((d) => d.figures.conflicts > 0).length,
      expected_conflicts_per_deck: (first?.writes ?? 0) * conflictsPerWrite,
      calls_per_deck: n === 0 ? 0 : total((f) => f.calls) / n,
      all_request_bytes_per_deck: n === 0 ? 0 : total((f) => f.bytes) / n,
      person_saves: total((f) => f.person_saves),
    };
  });
  return { config, rows, listing };
}

const STRATEGY_NAMES: Record<Strategy, string> = {
  outline: "outline: 1 create_note_tab with 12 slides",
  "slide-by-slide": "slide by slide: empty create + 12 slide_add",
};

export function outlineSection(result: OutlineResult): Section {
  const { config, listing } = result;
  const marks = result.rows.some((r) => r.source !== "in process") || listing.source !== "in process";
  return {
    key: "outline_vs_slide_by_slide",
    heading: `### 5. Outline vs slide by slide: a 12-slide deck, ${count(config.decks)} simulated decks per strategy, seed ${config.seed}`,
    tables: [
      markdownTable({
        head: [
          "strategy",
          ...(marks ? ["ran"] : []),
          "writes per deck",
          "request bytes per deck",
          "version conflicts",
          "conflicts per deck",
          "decks with a conflict",
          "expected conflicts per deck",
          "calls per deck",
          "bytes per deck, all calls",
        ],
        rows: result.rows.map((r) => [
          STRATEGY_NAMES[r.strategy],
          ...(marks ? [r.source] : []),
          count(r.writes_per_deck),
          count(r.request_bytes_per_deck),
          count(r.conflicts),
          decimal(r.conflicts_per_deck, 3),
          percent(r.decks_with_conflict, r.decks),
          decimal(r.expected_conflicts_per_deck, 3),
          decimal(r.calls_per_deck, 2),
          count(r.all_request_bytes_per_deck),
        ]),
        align: ["left", ...(marks ? ["left" as const] : [])],
      }),
      markdownTable({
        head: ["listing", ...(marks ? ["ran"] : []), "sources", "limit", "calls", "items per call", "request bytes"],
        rows: [["list_note_attachments from the start", ...(marks ? [listing.source] : []), count(listing.sources), count(listing.page_size), count(listing.calls), listing.items_per_call.join(" + "), count(listing.bytes)]],
        align: ["left", ...(marks ? ["left" as const] : [])],
      }),
    ],
    note:
      "One outline call is one write, a fraction of the bytes, and about a thirteenth of the version conflicts of building the same deck slide by slide; a Note with 120 sources lists in 3 calls at the largest page. " +
      "Model: each deck is its own Note; request bytes are JSON.stringify({jsonrpc: \"2.0\", id, method: \"tools/call\", params: {name, arguments}}) in UTF-8 with id = the call's number in its deck, " +
      "each body one the tool's input schema (src/mcp/schemas.ts) accepts; \"request bytes per deck\" counts each write's first try, \"all calls\" adds the first list_note_tabs, retries and re-reads. " +
      `Between the agent's read (or previous answer) and each write try pass ${config.thinkSeconds} s, in which the person saves somewhere in the Note (the Markdown text) as a Poisson process of ${decimal(config.savesPerSecond * 60, 0)} save a minute; ` +
      "any save there makes the try a version conflict, resolved by re-reading with list_note_tabs and retrying with the same key and the new version after another 4 s (each retry counted). " +
      `Expected conflicts per deck = writes × (e^λ − 1), λ = ${decimal(config.thinkSeconds * config.savesPerSecond, 4)}. Listing: the agent cites 120 pages, then pages through list_note_attachments at limit ${config.pageSize}.`,
  };
}
