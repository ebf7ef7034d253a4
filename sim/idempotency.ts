/**
 * Experiment 3 (docs/spec.md §9): why the idempotency key is checked before the
 * version (promise 2). A client creates 50 decks while answers get lost;
 * three key policies against the two orders of the server's checks.
 */
import { stream } from "./random.js";
import { agent, expectOk, noteIdFor, setUpNote, type Script, type Source, type Unit } from "./script.js";
import { runSeedsOf, type Settings } from "./settings.js";
import { count, markdownTable } from "./table.js";
import type { Section } from "./report.js";

export const KEY_POLICIES = ["fresh-every-call", "same-on-resend", "fresh-after-conflict"] as const;
export type KeyPolicy = (typeof KEY_POLICIES)[number];
export const ORDERS = ["key-then-version", "version-then-key"] as const;
export type Order = (typeof ORDERS)[number];

export interface IdempotencyConfig {
  seeds: number[];
  intents: number;
  lossProbability: number;
}

export function idempotencyConfig(settings: Settings): IdempotencyConfig {
  return { seeds: runSeedsOf(settings), intents: 50, lossProbability: 0.3 };
}

/** One run: one Note, one policy, one order, one seed. */
export interface RunFigures {
  policy: KeyPolicy;
  order: Order;
  seed: number;
  intents: number;
  /** Slides tabs in the Note at the end (every one is a create the server committed). */
  tabs_created: number;
  create_calls: number;
  /** list_note_tabs calls: the first one, and one re-read after each version conflict the client saw. */
  list_calls: number;
  /** Every tools/call the client sent. */
  calls_sent: number;
  /** Answers the client discarded. */
  lost_responses: number;
  /** version_conflict answers the client saw. */
  conflicts_seen: number;
  /** Answers marked replayed: true that the client saw. */
  replays_seen: number;
}

/** The units of experiment 3: every policy × order × seed. Version-then-key runs on the version-first server the simulation plays. */
export function idempotencyUnits(config: IdempotencyConfig): Unit<RunFigures>[] {
  const units: Unit<RunFigures>[] = [];
  for (const policy of KEY_POLICIES) {
    for (const order of ORDERS) {
      for (const seed of config.seeds) {
        const unit: Unit<RunFigures> = { script: (tag) => createDecks(config, policy, order, seed, tag) };
        if (order === "version-then-key") unit.server = "version-first";
        units.push(unit);
      }
    }
  }
  return units;
}

/**
 * The client: for each intent it sends create_note_tab with the version from
 * its latest answer. A lost answer is resent unchanged (a fresh key under the
 * fresh-every-call policy); a version conflict makes it re-read the tabs and
 * try again with the new version (a fresh key unless it keeps keys across
 * conflicts). Whether the i-th intent's j-th send is lost depends only on
 * (seed, i, j): every policy and order meets the same losses.
 */
function* createDecks(config: IdempotencyConfig, policy: KeyPolicy, order: Order, seed: number, tag: string): Script<RunFigures> {
  const noteId = noteIdFor(3, tag, `${policy}-${order}-s${seed}`);
  yield* setUpNote(noteId, `Experiment 3: ${policy}, ${order}, seed ${seed}`);
  const figures: RunFigures = {
    policy,
    order,
    seed,
    intents: config.intents,
    tabs_created: 0,
    create_calls: 0,
    list_calls: 1,
    calls_sent: 0,
    lost_responses: 0,
    conflicts_seen: 0,
    replays_seen: 0,
  };
  let version = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
  let keys = 0;
  const freshKey = (intent: number): string => `deck-${intent}-key-${(keys += 1)}`;

  for (let intent = 0; intent < config.intents; intent++) {
    const losses = stream(seed, 3, intent);
    let key = freshKey(intent);
    for (let sends = 0; ; sends++) {
      if (sends > 1000) throw new Error(`intent ${intent} did not settle in 1,000 sends`);
      const answer = yield* agent("create_note_tab", {
        note_id: noteId,
        expected_version: version,
        idempotency_key: key,
        tab_type: "slides",
        label: `Deck ${intent + 1}`,
      });
      figures.create_calls += 1;
      if (losses.chance(config.lossProbability)) {
        // The server answered; the client never saw it. It resends the same call.
        figures.lost_responses += 1;
        if (policy === "fresh-every-call") key = freshKey(intent);
        continue;
      }
      if (answer.ok) {
        if (answer.value.replayed) figures.replays_seen += 1;
        version = answer.value.version;
        break;
      }
      if (answer.error.code !== "version_conflict") throw new Error(`create_note_tab: unexpected ${answer.error.code}: ${answer.error.message}`);
      figures.conflicts_seen += 1;
      version = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
      figures.list_calls += 1;
      if (policy !== "same-on-resend") key = freshKey(intent);
    }
  }
  figures.calls_sent = figures.create_calls + figures.list_calls;
  // Measured, not part of the client's calls.
  const tabs = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").tabs;
  figures.tabs_created = tabs.filter((t) => t.type === "slides").length;
  return figures;
}

export interface IdempotencyRow {
  policy: KeyPolicy;
  order: Order;
  source: Source;
  runs: RunFigures[];
  tabs_created: number;
  duplicate_tabs: number;
  calls_sent: number;
}

export interface IdempotencyResult {
  config: IdempotencyConfig;
  rows: IdempotencyRow[];
}

/** Sums the runs per policy and order, in the units' order. */
export function idempotencyResult(config: IdempotencyConfig, runs: readonly { figures: RunFigures; source: Source }[]): IdempotencyResult {
  const rows: IdempotencyRow[] = [];
  for (const policy of KEY_POLICIES) {
    for (const order of ORDERS) {
      const mine = runs.filter((r) => r.figures.policy === policy && r.figures.order === order);
      const tabs = sum(mine.map((r) => r.figures.tabs_created));
      rows.push({
        policy,
        order,
        source: mine[0]?.source ?? "in process",
        runs: mine.map((r) => r.figures),
        tabs_created: tabs,
        duplicate_tabs: tabs - config.intents * mine.length,
        calls_sent: sum(mine.map((r) => r.figures.calls_sent)),
      });
    }
  }
  return { config, rows };
}

const POLICY_NAMES: Record<KeyPolicy, string> = {
  "fresh-every-call": "fresh key every call",
  "same-on-resend": "same key on every resend",
  "fresh-after-conflict": "same key on resend, fresh after a conflict",
};

const ORDER_NAMES: Record<Order, string> = {
  "key-then-version": "key, then version (this server)",
  "version-then-key": "version, then key (counterfactual)",
};

export function idempotencySection(result: IdempotencyResult): Section {
  const { config } = result;
  const seeds = config.seeds;
  const marks = result.rows.some((r) => r.source !== "in process");
  return {
    key: "idempotency_order",
    heading: `### 3. Idempotency order: ${config.intents} create_note_tab intents per run, ${config.lossProbability * 100}% of answers lost, seeds ${seeds.join(", ")}`,
    tables: [
      markdownTable({
        head: [
          "client key policy",
          "server checks",
          ...(marks ? ["ran"] : []),
          ...seeds.map((s) => `tabs, seed ${s}`),
          "tabs, total",
          "duplicate tabs",
          ...seeds.map((s) => `calls, seed ${s}`),
          "calls, total",
        ],
        rows: result.rows.map((r) => [
          POLICY_NAMES[r.policy],
          ORDER_NAMES[r.order],
          ...(marks ? [r.source] : []),
          ...r.runs.map((f) => count(f.tabs_created)),
          count(r.tabs_created),
          count(r.duplicate_tabs),
          ...r.runs.map((f) => count(f.calls_sent)),
          count(r.calls_sent),
        ]),
        align: ["left", "left", ...(marks ? ["left" as const] : [])],
      }),
    ],
    note:
      `Checking the key before the version turns every resend into the first result: ${config.intents} tabs for ${config.intents} intents with a key kept across resends, in every seed; ` +
      "a server that checked the version first answers the resend with a conflict, and a client that then treats its next try as a new intent creates a second deck. " +
      `Model: one Note per run; the client lists once, then sends each intent's create_note_tab with the version from its latest answer; every answer is lost with probability ${config.lossProbability} after the server acted on the call ` +
      "(the client discards it; a resend may be lost again), and the client resends the same call (same expected_version; a new key only under \"fresh key every call\"); " +
      "on a version conflict it re-reads with list_note_tabs and tries again with the new version, keeping the key only under \"same key on every resend\". " +
      "Whether the i-th intent's j-th send is lost is drawn from (seed, i, j), so every row meets the same losses. Calls = create_note_tab + list_note_tabs calls; tabs are counted on the Note afterwards.",
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
