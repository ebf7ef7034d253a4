/** A run's report as Markdown: the machine, then one table a measurement. The goals are in docs/performance.md. */
import type { CallCost } from "./call-cost.js";
import { errorCount, type LoadResult } from "./load.js";
import type { Comparison, Row } from "./measure.js";
import type { BenchReport } from "./run-bench.js";

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const ms = (n: number): string => n.toFixed(2);
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
/** How long a load lasts: its seconds, or its calls (the harness test's run). */
const span = (o: { durationSec: number; loadCalls?: number }): string => (o.loadCalls === undefined ? `${o.durationSec} s` : `${o.loadCalls} calls`);
const SECTIONS: Record<string, string> = {
  reference: "reference routes", ladder: "between the baseline and a tool call", tools: "tool calls", // prettier-ignore
  attachments: "list_note_attachments pages", sheets: "read_note_tab pages of a Sheet", parallel: "one Note against many",
};

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((h) => (/^(req|p50|p99|×|calls|rows|directory|conn|MB|tool|Worker|rest|commits|hits)/.test(h) ? "---:" : "---"))), ...rows.map(line)].join("\n");
}

function errors(result: LoadResult, firstFailure = result.firstFailure): string {
  const total = errorCount(result);
  return total === 0 ? "0" : `**${int(total)}** (${(firstFailure ?? "").slice(0, 120).replace(/[|`]/g, "'")})`;
}

function rowsTable(rows: readonly Row[]): string {
  const body: string[][] = [];
  let section = "";
  for (const r of rows) {
    if (r.section !== section) body.push([`**${SECTIONS[(section = r.section)]}**`, "", "", "", "", "", "", "", "", ""]);
    body.push([
      r.name,
      r.notes,
      String(r.connections),
      int(r.result.throughput),
      String(r.result.p50),
      String(r.result.p99),
      ms(r.cpu.workerMs),
      r.cpu.workerThread.toFixed(2),
      r.cpu.othersCores.toFixed(2),
      r.warmupErrors > 0 ? `${errors(r.result)} (+${r.warmupErrors} in the warm-up)` : errors(r.result),
    ]);
  }
  return table(["workload", "Notes", "conn", "req/s", "p50 ms", "p99 ms", "Worker CPU ms / call", "Worker thread (cores)", "rest of the machine (cores)", "errors"], body);
}

function comparisonsTable(comparisons: readonly Comparison[]): string {
  return table(
    ["a", "b", "a req/s", "b req/s", "× (b / a)", "each round", "Worker CPU ms / call, a → b", "errors"],
    comparisons.map((c) => [
      c.a,
      c.b,
      int(c.aRate),
      int(c.bRate),
      `**${c.ratio.toFixed(2)}×**`,
      c.roundRatios.map((r) => r.toFixed(2)).join(", "),
      `${ms(c.aCpuMs)} → ${ms(c.bCpuMs)}`,
      c.errors === 0 ? "0" : `**${c.errors}** (${(c.firstFailure ?? "").slice(0, 120)})`,
    ]),
  );
}

function liveTable(report: BenchReport): string {
  return table(
    ["open sockets", "req/s", "× none", "Worker CPU ms / write", "socket clients' CPU ms / write", "changes per socket", "every change delivered", "errors"],
    report.live.rows.map((r) => [
      String(r.sockets),
      int(r.throughput),
      `${r.ratio.toFixed(2)}×`,
      ms(r.cpuMsPerWrite.worker),
      ms(r.cpuMsPerWrite.clients),
      r.changesPerSocket === null ? "–" : `${int(r.changesPerSocket.min)} – ${int(r.changesPerSocket.max)}`,
      r.delivered === null ? "–" : r.delivered ? "yes" : "**no**",
      r.errors === 0 ? "0" : `**${r.errors}** (${r.firstFailure ?? ""})`,
    ]),
  );
}

function ceilingTable(report: BenchReport): string {
  return table(
    ["writers", "on a conflict", "commits / s", "conflicts / commit", "re-reads / commit", "p50 ms", "p99 ms", "Worker CPU ms / commit", "Worker thread (cores)", "errors"],
    report.ceiling.map((r) => [
      String(r.writers),
      r.retry === "reread" ? "re-read" : "re-read only if the changes touched the slide",
      int(r.commitsPerSecond),
      r.commits > 0 ? (r.conflicts / r.commits).toFixed(2) : "–",
      r.commits > 0 ? (r.rereads / r.commits).toFixed(2) : "–",
      String(r.p50),
      String(r.p99),
      ms(r.workerCpuMsPerCommit),
      r.workerThreadCores.toFixed(2),
      r.errors === 0 ? "0" : `**${r.errors}** (${r.firstFailure ?? ""})`,
    ]),
  );
}

function costTable(costs: readonly CallCost[]): string {
  return table(
    ["workload", "calls", "rows read / call", "rows written / call", "directory: rows read / call", "directory: rows written / call", "database bytes before → after", "idempotency records before → after"],
    costs.map((c) => [
      c.name,
      String(c.calls),
      String(c.rowsReadPerCall),
      String(c.rowsWrittenPerCall),
      String(c.directoryRowsReadPerCall),
      String(c.directoryRowsWrittenPerCall),
      `${int(c.databaseBytesBefore)} → ${int(c.databaseBytesAfter)}`,
      `${int(c.idempotencyBefore)} → ${int(c.idempotencyAfter)}`,
    ]),
  );
}

function searchSection(report: BenchReport): string[] {
  const s = report.search;
  if (s.skipped !== null) return [`Not measured: ${s.skipped}.`];
  const [small, large] = s.notes;
  return [
    `The MCP \`search\` tool (its default page of 10), by the agents of two users: one with ${int(small)} Notes, one with ${int(large)}; the same ${s.holders} Notes of each hold the words (one Markdown section each), the others are filler documents without them, so both get the same hits. Each pair measured in turn (${report.options.rounds} rounds, each load its warm-up then ${span(report.options)}), after the table of workloads.`,
    "",
    comparisonsTable(s.comparisons),
    "",
    `What a search costs the user's directory object (its SQLite counters, GET /bench/directory-stats), over ${report.options.costCalls} calls one after another:`,
    "",
    table(
      ["search", "user's Notes", "calls", "hits", "directory: rows read / call"],
      s.costs.map((c) => [c.name, int(c.notes), String(c.calls), String(c.hits), String(c.directoryRowsReadPerCall)]),
    ),
    "",
    "What the cross-Note index costs a write, in one run: a write answers once every member's directory has its changes, so the same `slide_update` on decks of 5 members (alice and four others) against decks of 1, one deck a connection, in turn:",
    "",
    s.upkeep === null ? "Not measured." : comparisonsTable([s.upkeep]),
  ];
}

function memoryTable(report: BenchReport): string {
  const readings = table(
    ["reading", "calls so far", "Worker's workerd, VmRSS MB", "Worker's JS heap after a full GC, MB"],
    report.memory.map((m) => [m.label, int(m.calls), mb(m.rssBytes), m.heap === null ? "–" : `${mb(m.heap.usedBytes)} (of ${mb(m.heap.totalBytes)})`]),
  );
  const loads = report.memoryLoads.map(({ label, result }) => `- ${int(result.responses)} ${label}, ${int(result.throughput)} req/s, errors: ${errors(result)}.`);
  return [readings, "", ...loads].join("\n");
}

export function markdownReport(report: BenchReport): string {
  const o = report.options;
  const m = report.machine;
  const failed = report.rows.filter((r) => errorCount(r.result) + r.warmupErrors > 0).length;
  return [
    `# npm run bench${o.quick ? " --quick" : ""}`,
    "",
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}; Node ${m.node}; miniflare ${m.miniflare} (workerd ${m.workerd}), wrangler ${m.wrangler} (the bundle); autocannon ${m.autocannon}.`,
    "",
    `Run: ${report.startedAt}, ${report.wallSeconds} s. The Worker (bench/worker.ts) on Miniflare directly, as \`wrangler deploy\` bundles it, no inspector on the timed server. ` +
      `Every load: ${o.connections} connections (a write: one lane of Notes a connection), ${o.warmupSec} s of warm-up not counted, then ${span(o)}; autocannon, keep-alive, pipelining 1. ` +
      `"Worker CPU" is the Worker's workerd's CPU time over the responses; "Worker thread" its busiest thread's share of a core (1.00: the Worker is CPU-bound); "rest of the machine" the cores other processes kept busy meanwhile.`,
    "",
    "## Headline: a tool call against the baseline",
    "",
    `Each pair measured in turn, a, b, a, b, … (${o.rounds} rounds, every load as in the table below: its warm-up, then ${span(o)}), after the table's rows.`,
    "",
    comparisonsTable(report.comparisons),
    "",
    "## Every workload",
    "",
    rowsTable(report.rows),
    "",
    failed === 0 ? "No errors: every response a 2xx, every tool result free of `isError`, every write committed (not replayed)." : `**${failed} rows had errors.**`,
    ...(report.errorLines.length === 0 ? [] : ["", "The Worker printed to stderr:", "", ...report.errorLines.map((l) => `    ${l}`)]),
    "",
    "## Cost per call",
    "",
    `Rows read and written (the SQLite cursors' counters, summed by the Note object, index entries included), over ${o.costCalls} calls one after another on an idle Note (create_note_tab at most 100, rows_append at most 49: the limits), from GET /bench/stats before and after; ` +
      "the directory's columns are the same counters on alice's directory object (GET /bench/directory-stats), read once its deliveries stopped: what keeping her list of Notes and her cross-Note search index current cost a call.",
    "",
    costTable(report.costs),
    "",
    "## Search: many Notes against few",
    "",
    ...searchSection(report),
    "",
    "## Writes with live sockets open",
    "",
    `edit_note_tab slide_add, one writer, on three deck Notes alike but for the live sockets open on them (held by another process, bench/live-clients.ts); ${report.live.slices} turns of ${report.live.sliceSec} s each, after one not counted.`,
    "",
    liveTable(report),
    "",
    "## One Note's write ceiling",
    "",
    `One 20-slide deck, ${o.loadCalls === undefined ? `${o.durationSec} s` : `${o.loadCalls} calls a writer`} after ${o.warmupSec} s not counted; writer i corrects slide i, one call in flight each, a fresh key an intent; on \`version_conflict\` it re-reads (list_note_tabs) or resends at \`current_version\` (bench/note-ceiling.ts). CPU a commit counts the conflicts and re-reads it took.`,
    "",
    ceilingTable(report),
    "",
    "## Memory",
    "",
    `On a server of its own (with an inspector, for the heap), ${o.connections} connections.`,
    "",
    memoryTable(report),
    "",
  ].join("\n");
}
