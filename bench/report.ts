/** The report of a run as Markdown: the tables, the machine, and the goals. */
import type { CallCost } from "./call-cost.js";
import { errorCount } from "./load.js";
import type { BenchReport, LoadRow } from "./run-bench.js";

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const ratio = (r: number | null): string => (r === null ? "–" : `${r.toFixed(2)}×`);
/** The Worker's own process: what Cloudflare bills a call for (the headline CPU figure). */
const WORKER = "workerd (Worker)";
const cpuMs = (row: LoadRow): string => (row.cpuMsPerRequest[WORKER] === undefined ? "–" : (row.cpuMsPerRequest[WORKER] as number).toFixed(2));
const SECTION_TITLES: Record<string, string> = {
  reference: "reference routes",
  ladder: "between the baseline and a tool call",
  tools: "tool calls",
  attachments: "list_note_attachments pages",
  sheets: "read_note_tab pages of a Sheet",
  parallel: "one Note versus 64 Notes",
};

function errors(row: LoadRow): string {
  const total = errorCount(row.result);
  if (total === 0) return "0";
  return `**${int(total)}** (non-2xx ${row.result.non2xx}, MCP ${row.result.mcpErrors}, socket ${row.result.socketErrors})`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map((h) => (/^(req|p50|p99|×|calls|rows|conn|MB|tool)/.test(h) ? "---:" : "---"))), ...rows.map(line)].join("\n");
}

export function loadTable(rows: readonly LoadRow[]): string {
  const body: string[][] = [];
  let section = "";
  for (const row of rows) {
    if (row.section !== section) {
      section = row.section;
      body.push([`**${SECTION_TITLES[section] ?? section}**`, "", "", "", "", "", "", "", ""]);
    }
    body.push([row.name, row.notes, String(row.connections), int(row.result.throughput), String(row.result.p50), String(row.result.p99), cpuMs(row), ratio(row.ratio), errors(row)]);
  }
  return table(["workload", "Notes", "conn", "req/s", "p50 ms", "p99 ms", "Worker CPU ms / call", "× baseline", "errors"], body);
}

function failures(rows: readonly LoadRow[]): string {
  const lines = rows
    .filter((r) => errorCount(r.result) > 0 || r.warmupErrors > 0)
    .map((r) => `- ${r.name}: ${errorCount(r.result)} errors in the timed run, ${r.warmupErrors} in the warm-up; first: \`${(r.result.firstFailure ?? "–").replace(/`/g, "'")}\``);
  return lines.length === 0 ? "No errors: every response was a 2xx, every tool result free of `isError`, every write committed (not replayed)." : `Errors:\n\n${lines.join("\n")}`;
}

function cpuTable(rows: readonly LoadRow[]): string {
  // Only the processes this runtime has: Miniflare runs no wrangler and no proxy.
  const seen = new Set(rows.flatMap((r) => Object.keys(r.cpuMsPerRequest)));
  const processes = ["bench (node, autocannon)", "wrangler (node)", "workerd (proxy)", WORKER].filter((p) => p === WORKER || seen.has(p));
  const workerds = processes.filter((p) => p.startsWith("workerd"));
  const picked = rows.filter((r) => (r.section !== "attachments" && r.section !== "sheets") || r.id.includes("_first_"));
  return table(
    ["workload", "Notes", ...processes.map((p) => `${p} ms`), "other ms", "all ms", `busiest thread, ${workerds.map((p) => p.slice("workerd (".length, -1)).join(" / ")} (cores)`, "rest of the machine (cores)"],
    picked.map((r) => {
      const cells = processes.map((p) => (r.cpuMsPerRequest[p] ?? 0).toFixed(2));
      const all = Object.values(r.cpuMsPerRequest).reduce((a, b) => a + b, 0);
      const other = Object.entries(r.cpuMsPerRequest)
        .filter(([name]) => !processes.includes(name))
        .reduce((sum, [, ms]) => sum + ms, 0);
      const busy = workerds.map((p) => (r.busiestThreadCores[p] ?? 0).toFixed(2)).join(" / ");
      return [r.name, r.notes, ...cells, other.toFixed(2), all.toFixed(2), busy, r.othersCores.toFixed(2)];
    }),
  );
}

function serverText(report: BenchReport): string {
  const { reloads, errorLines } = report.server;
  const parts: string[] = [];
  if (report.runtime === "wrangler") {
    parts.push(
      reloads === 0
        ? "wrangler dev did not reload the Worker during the run."
        : `**wrangler dev reloaded the Worker ${reloads} time(s) during the run** (a watched file changed): figures around a reload are not comparable.`,
    );
  }
  const baselines = report.rows.filter((r) => r.id.startsWith("baseline_")).map((r) => Math.round(r.result.throughput));
  if (baselines.length > 1) parts.push(`The baseline measured ${baselines.join(", ")} req/s at the start, middle and end of the run: that spread is this machine's noise.`);
  // Last: an indented block ends the paragraph, and nothing may follow it on its last line.
  if (errorLines.length > 0) parts.push(`It printed error lines:\n\n${errorLines.map((l) => `    ${l}`).join("\n")}`);
  return parts.join(" ");
}

function costTable(costs: readonly CallCost[]): string {
  return table(
    ["workload", "calls", "rows read / call", "rows written / call", "database bytes before → after", "idempotency records before → after"],
    costs.map((c) => [
      c.name,
      String(c.calls),
      String(c.rowsReadPerCall),
      String(c.rowsWrittenPerCall),
      `${int(c.databaseBytesBefore)} → ${int(c.databaseBytesAfter)}`,
      `${int(c.idempotencyBefore)} → ${int(c.idempotencyAfter)}`,
    ]),
  );
}

function idempotencyText(report: BenchReport): string {
  const writes = report.costs.filter((c) => c.idempotencyAfter !== c.idempotencyBefore || ["create_note_tab", "slide_add", "add_note_source", "slide_update_20", "slide_update_500", "rows_append_100", "rows_append_5000"].includes(c.id));
  const growth = writes.map((c) => `${c.name}: +${c.idempotencyAfter - c.idempotencyBefore} records after ${c.calls} committed writes`).join("; ");
  const days = report.retentionSeconds / 86_400;
  const lines = [
    `Each committed write keeps one idempotency record (${growth}). Records are kept for the retention, IDEMPOTENCY_RETENTION_SECONDS = ${int(report.retentionSeconds)} s (${days.toFixed(days < 1 ? 2 : 0)} days, wrangler.toml), and the Note's alarm deletes older ones, so a Note holds at most (its writes per retention window) records.`,
  ];
  const r = report.retention;
  if (r === null) lines.push("The pruning check on a second server did not run (--quick).");
  else {
    const path = r.changes.map((c) => `${c.records} at ${c.sec} s`).join(", ");
    lines.push(
      r.prunedAfterSec !== null
        ? `Pruning, on a second server with IDEMPOTENCY_RETENTION_SECONDS = ${r.retentionSeconds}: ${r.writes} writes left ${r.recordsAfterWrites} records; the alarm had deleted all of them ${r.prunedAfterSec} s after the first write (records: ${path}).`
        : `Pruning, on a second server with IDEMPOTENCY_RETENTION_SECONDS = ${r.retentionSeconds}: ${r.writes} writes left ${r.recordsAfterWrites} records, and ${r.recordsAtEnd} were still there ${r.watchedSec} s after the first write (records: ${path}): **the alarm stopped pruning under ${runtimeName(report)}**.`,
    );
  }
  return lines.join("\n\n");
}

function memoryLoadsText(report: BenchReport): string {
  return report.memoryLoads
    .map(({ label, result }) => {
      const errs = errorCount(result);
      const detail = errs === 0 ? "no errors" : `**${errs} errors** (first: \`${(result.firstFailure ?? "–").replace(/`/g, "'")}\`)`;
      return `- ${int(result.responses)} ${label}, ${report.options.connections} connections, ${int(result.throughput)} req/s: ${detail}.`;
    })
    .join("\n");
}

function memoryTable(report: BenchReport): string {
  const roles = [...new Set(report.memory.flatMap((m) => m.processes.map((p) => p.command)))];
  return table(
    ["reading", "tool calls", ...roles.map((r) => `${r} MB`), "MB all workerd", "Worker's JS heap after a full GC, MB"],
    report.memory.map((m) => [
      m.label,
      int(m.toolCalls),
      ...roles.map((r) => mb(m.processes.find((p) => p.command === r)?.rssBytes ?? 0)),
      mb(m.totalBytes),
      m.heap === null ? "–" : `${mb(m.heap.usedBytes)} (of ${mb(m.heap.totalBytes)})`,
    ]),
  );
}

function sweepTable(report: BenchReport): string {
  const connections = [...new Set(report.sweep.map((r) => r.connections))];
  return table(
    ["conn", "baseline req/s", "p50 ms", "p99 ms", "list_note_tabs req/s", "p50 ms", "p99 ms", "× baseline", "errors"],
    connections.map((c) => {
      const base = report.sweep.find((r) => r.connections === c && r.id === "baseline");
      const tabs = report.sweep.find((r) => r.connections === c && r.id === "list_note_tabs");
      const errs = (base === undefined ? 0 : errorCount(base.result)) + (tabs === undefined ? 0 : errorCount(tabs.result));
      return [
        String(c),
        base === undefined ? "–" : int(base.result.throughput),
        String(base?.result.p50 ?? "–"),
        String(base?.result.p99 ?? "–"),
        tabs === undefined ? "–" : int(tabs.result.throughput),
        String(tabs?.result.p50 ?? "–"),
        String(tabs?.result.p99 ?? "–"),
        ratio(tabs?.ratio ?? null),
        errs === 0 ? "0" : `**${errs}**`,
      ];
    }),
  );
}

function pairedTable(report: BenchReport): string {
  return table(
    ["a", "b", "slices", "a req/s", "b req/s", "b / a", "errors"],
    report.paired.map((p) => [p.a, p.b, `${p.slices} × ${p.sliceSec} s each`, int(p.aThroughput), int(p.bThroughput), ratio(p.ratio), p.errors === 0 ? "0" : `**${p.errors}** (${p.firstFailure ?? ""})`]),
  );
}

function liveTable(report: BenchReport): string {
  const live = report.live;
  if (live === null) return "Not measured in this run.";
  const counts = (r: NonNullable<BenchReport["live"]>["rows"][number]): string => (r.changesPerSocket === null ? "–" : `${int(r.changesPerSocket.min)} – ${int(r.changesPerSocket.max)}`);
  return [
    `edit_note_tab slide_add, one writer (one Note's writes are serial), on three deck Notes alike but for the live sockets open on them (held by another process, bench/live-clients.ts); ${live.slices} alternating slices of ${live.sliceSec} s each, after one not counted. "Delivered": every socket received every change of its Note once, in order, and stayed open.`,
    "",
    table(
      ["open sockets", "req/s", "× none", "errors", `CPU ms per write: Worker workerd / proxy workerd${report.runtime === "wrangler" ? "" : " (none on Miniflare)"} / socket clients`, "changes per socket", "delivered"],
      live.rows.map((r) => [
        String(r.sockets),
        int(r.throughput),
        ratio(r.ratio),
        r.errors === 0 ? "0" : `**${r.errors}** (${r.firstFailure ?? ""})`,
        `${r.cpuMsPerWrite.worker.toFixed(2)} / ${report.runtime === "wrangler" ? r.cpuMsPerWrite.proxy.toFixed(2) : "–"} / ${r.cpuMsPerWrite.clients.toFixed(2)}`,
        counts(r),
        r.delivered === null ? "–" : r.delivered ? "yes" : "**no**",
      ]),
    ),
  ].join("\n");
}

function ceilingTable(report: BenchReport): string {
  return [
    `One Note (a 20-slide deck), ${report.options.durationSec} s after ${report.options.warmupSec} s not counted; writer i corrects slide i (\`slide_update\`), one call in flight per writer, a fresh idempotency key per intent. On \`version_conflict\` a writer re-reads (\`list_note_tabs\`) and resends the same call, same key, at the version it read; the last row re-reads only when the conflict's \`changes\` are incomplete or touched its slide, and otherwise resends at \`current_version\` (bench/note-ceiling.ts). "Worker CPU ms / commit" counts every call a commit took, conflicts and re-reads included; "busiest thread" is the Worker's JavaScript thread, which runs the Note's object too (1.00: a whole core).`,
    "",
    table(
      ["writers", "retry", "commits / s", "conflicts / commit", "re-reads / commit", "p50 ms", "p99 ms", "Worker CPU ms / commit", "busiest thread", "errors"],
      report.ceiling.map((r) => [
        String(r.writers),
        r.retry === "reread" ? "re-read on every conflict" : "re-read only if the changes touched the slide",
        int(r.commitsPerSecond),
        r.commits > 0 ? (r.conflicts / r.commits).toFixed(2) : "–",
        r.commits > 0 ? (r.rereads / r.commits).toFixed(2) : "–",
        String(r.p50),
        String(r.p99),
        r.workerCpuMsPerCommit.toFixed(2),
        r.workerThreadCores.toFixed(2),
        r.errors === 0 ? "0" : `**${r.errors}** (${r.firstFailure ?? ""})`,
      ]),
    ),
  ].join("\n");
}

function goalsTable(report: BenchReport): string {
  return table(
    ["goal", "target", "measured", "met"],
    report.goals.map((g) => [g.goal, g.target, g.measured, g.met === null ? "not measured" : g.met ? "met" : "**missed**"]),
  );
}

export function machineLine(report: BenchReport): string {
  const m = report.machine;
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}; Node ${m.node}; wrangler ${m.wrangler}, miniflare ${m.miniflare} (workerd ${m.workerd}); autocannon ${m.autocannon}`;
}

function runtimeName(report: BenchReport): string {
  return report.runtime === "miniflare" ? "Miniflare" : "wrangler dev";
}

const CPU_TEXT = {
  miniflare:
    "CPU time (utime + stime from /proc) each process used during the timed run, divided by the responses. On Miniflare one workerd runs the Worker and its Durable Objects, as in production (the bench Worker serializes each request's log line as a log sink would and drops it, bench/worker.ts); Miniflare's own Node side runs in the bench's process, with the load generator, on the same machine.",
  wrangler:
    "CPU time (utime + stime from /proc) each process used during the timed run, divided by the responses. wrangler dev puts a proxy workerd in front of the Worker's workerd, and wrangler's Node process logs every request; \"other\" is esbuild and npm under wrangler. The load generator runs on the same machine.",
} as const;

function runtimeText(report: BenchReport): string {
  return report.runtime === "miniflare"
    ? `Runtime: Miniflare ${report.machine.miniflare} directly, with the bundle \`wrangler deploy --dry-run\` builds from bench/worker.ts and wrangler.toml's bindings (dev/local.env's variables): no dev proxy, no inspector on this server, the request log line serialized as the deployed runtime does and dropped (bench/worker.ts; \`--runtime wrangler\` runs it under wrangler dev instead). "Worker CPU ms / call" is the Worker's workerd's CPU per response: what Cloudflare bills, and what bounds one Note's throughput.`
    : `Runtime: wrangler dev ${report.machine.wrangler} (as npm start runs it), with bench/worker.ts as its entry: a proxy workerd and wrangler's request logging in front of the Worker. "Worker CPU ms / call" is the Worker's workerd's CPU per response.`;
}

export function markdownReport(report: BenchReport): string {
  const o = report.options;
  return [
    `# npm run bench${o.quick ? " --quick" : ""}`,
    "",
    `Machine: ${machineLine(report)}.`,
    "",
    runtimeText(report),
    "",
    `Run: ${report.startedAt}, wall time ${report.wallSeconds} s. Every workload: ${o.connections} connections (writes: one lane of Notes per connection), ${o.warmupSec} s warm-up not counted, then ${o.durationSec} s measured; autocannon, pipelining 1, keep-alive. Throughput is responses per second; latency (p50, p99) is of every response, in whole milliseconds. "× baseline" is against the mean of the baseline rows (${int(report.baselineThroughput)} req/s).`,
    "",
    "## Throughput and latency",
    "",
    loadTable(report.rows),
    "",
    failures([...report.rows, ...report.sweep]),
    "",
    serverText(report),
    "",
    "## Paired ratios",
    "",
    "The goals' ratios, each measured by running its two workloads in alternating slices (a, b, a, b, …) right after the table above, so that the machine's drifting load falls on both alike.",
    "",
    pairedTable(report),
    "",
    "## Writes with open live sockets",
    "",
    liveTable(report),
    "",
    "## One Note's write ceiling",
    "",
    ceilingTable(report),
    "",
    "## Where the time goes: CPU per request, by process",
    "",
    `${CPU_TEXT[report.runtime]} ` +
      "\"Busiest thread\" is the CPU of each workerd's busiest thread (the one running JavaScript) over the run's wall time: 1.00 would be a whole core. \"Rest of the machine\" is the CPU that processes outside the benchmark used meanwhile (/proc/stat minus the processes above): on a shared machine, runs where it is high are slower for reasons outside the connector.",
    "",
    cpuTable(report.rows),
    "",
    "## Cost per call",
    "",
    `Rows read and written (the SQLite cursors' counters, summed by the Note object), over ${o.costCalls} calls one after another on an idle Note (create_note_tab: at most 100, a Note's limit of tabs; rows_append: at most 49, a Sheet's limit of rows), from GET /bench/stats before and after; the Note's database size before and after those calls. The counters count index entries as rows: a slide or a Sheet row written is two rows (the row and its entry in the unique index on its ID), and a key is two (its row and its entry in the index on its time).`,
    "",
    costTable(report.costs),
    "",
    "## Idempotency storage",
    "",
    idempotencyText(report),
    "",
    `## Memory (VmRSS of the workerd processes under ${runtimeName(report)})`,
    "",
    memoryTable(report),
    "",
    memoryLoadsText(report),
    "",
    ...(report.sweep.length === 0
      ? []
      : [
          "## Connection sweep",
          "",
          `${o.sweepDurationSec} s per point after 0.5 s warm-up; list_note_tabs against the baseline at the same number of connections.`,
          "",
          sweepTable(report),
          "",
        ]),
    "## Goals (issue 5, issue 12's cost law, issue 13's live sockets, issue 15's targets on Miniflare)",
    "",
    goalsTable(report),
    "",
  ].join("\n");
}
