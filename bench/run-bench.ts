/**
 * One benchmark run, start to end: memory before and after a fixed number of
 * tool calls, on a server of its own; then the main server up
 * (bench-server.ts), the Notes set up, the cost of each call, every timed
 * workload against the baseline measured in the same run, a sweep of
 * connection counts; last, baseline memory and the retention check on a
 * second small server. Returns the whole report; report.ts prints it.
 */
import { pool } from "../scripts/lib/pool.js";
import { startBenchServer, type BenchServer, type ServerEvents } from "./bench-server.js";
import { measureCosts, type CallCost } from "./call-cost.js";
import { checkDeepPage, checkDeepRowsPage, createDeckNote, createSheetNote, createSourcesNote, SHEET_SIZES, type DeckNote, type SheetNote } from "./fixtures.js";
import { evaluateGoals, type GoalResult } from "./goals.js";
import { errorCount, runLoad, type LoadResult } from "./load.js";
import { measureLiveSockets, SOCKET_COUNTS, type LiveSocketsReport } from "./live-sockets.js";
import { measureNoteCeiling, type CeilingRow } from "./note-ceiling.js";
import { machineFacts, type MachineFacts } from "./machine.js";
import { measure, measurePaired, type LoadRow, type PairedRatio } from "./measure-workload.js";
import type { BenchOptions, BenchRuntime } from "./options.js";
import type { HeapUsage } from "./heap.js";
import { totalRss, workerdMemory, type ProcessMemory } from "./process-memory.js";
import { checkRetention, configuredRetentionSeconds, type RetentionReport } from "./retention-check.js";
import {
  addNoteSource,
  attachmentsPage,
  authOnly,
  baseline,
  createNoteTab,
  getRoot,
  listNoteTabs,
  listNoteTabsSpread,
  mcpMessage,
  memoryMix,
  rowsAppend,
  sheetPage,
  slideAdd,
  slideAddOneNote,
  slideAddSpread,
  slideUpdate,
  type Workload,
  type WorkloadContext,
} from "./workloads.js";

export type { LoadRow, PairedRatio } from "./measure-workload.js";

export interface MemoryReading {
  kind: "start" | "after_tool_calls" | "after_more_tool_calls" | "end" | "second_start" | "second_after_baseline";
  label: string;
  /** Tool calls made before this reading. */
  toolCalls: number;
  processes: ProcessMemory[];
  totalBytes: number;
  /** The Worker's JavaScript heap after a full collection (null: not read). */
  heap: HeapUsage | null;
}

export interface BenchReport {
  machine: MachineFacts;
  /** What ran the Worker. */
  runtime: BenchRuntime;
  startedAt: string;
  wallSeconds: number;
  options: Omit<BenchOptions, "log" | "signal">;
  baselineThroughput: number;
  rows: LoadRow[];
  paired: PairedRatio[];
  /** Writes on a Note with 0, 10 and 100 open live sockets, in alternating slices (issue 13). */
  live: LiveSocketsReport | null;
  /** One Note's most committed writes a second: 1 writer, and 8 with the retry loop (issue 15). */
  ceiling: CeilingRow[];
  sweep: LoadRow[];
  costs: CallCost[];
  memory: MemoryReading[];
  /** The load between memory readings: the tool calls, and the baseline calls on the second server. */
  memoryLoads: { label: string; result: LoadResult }[];
  /** IDEMPOTENCY_RETENTION_SECONDS as wrangler.toml sets it for the main run. */
  retentionSeconds: number;
  retention: RetentionReport | null;
  /** What the server printed during the main run that bears on the figures. */
  server: ServerEvents;
  goals: GoalResult[];
}

const PARALLEL_NOTES = 64;

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { log, signal } = options;
  const startedAt = new Date();
  const machine = machineFacts();
  const memory: MemoryReading[] = [];
  const memoryLoads: BenchReport["memoryLoads"] = [];
  await measureMemory(options, memory, memoryLoads);

  log(`[bench] starting the bench Worker (bench/worker.ts) on ${options.runtime === "miniflare" ? "Miniflare directly" : "wrangler dev"} …`);
  // The timed runs' server has no inspector, as production has none: an open one makes each log line dearer.
  const bench = await startBenchServer({ runtime: options.runtime, inspector: false, signal });
  log(`[bench] ${bench.origin} up (process group ${bench.server.pid}), signed in as alice`);
  const ctx: WorkloadContext = { origin: bench.origin, agentToken: bench.agentToken, api: bench.api, connections: options.connections };

  const rows: LoadRow[] = [];
  const sweep: LoadRow[] = [];
  const paired: PairedRatio[] = [];
  const costs: CallCost[] = [];
  let toolCalls = 0;
  try {
    log(`[bench] setting up ${PARALLEL_NOTES} deck Notes and Notes of ${options.sourceCounts.join(" / ")} sources …`);
    const decks = await pool(
      Array.from({ length: PARALLEL_NOTES }, (_, i) => `deck-${String(i).padStart(2, "0")}`),
      8,
      (noteId) => createDeckNote(bench.api, noteId),
    );
    const deck0 = decks[0] as DeckNote;
    const sourceNotes = new Map<number, string>();
    for (const count of options.sourceCounts) {
      signal?.throwIfAborted();
      const noteId = `sources-${count}`;
      await createSourcesNote(bench.api, noteId, count);
      await checkDeepPage(ctx.origin, ctx.agentToken, noteId, count);
      sourceNotes.set(count, noteId);
    }
    log(`[bench] setting up Sheets of ${SHEET_SIZES.map((n) => n.toLocaleString("en-US")).join(" / ")} rows …`);
    const sheetNotes = new Map<number, SheetNote>();
    for (const rows of SHEET_SIZES) {
      signal?.throwIfAborted();
      const sheet = await createSheetNote(bench.api, ctx.agentToken, `sheet-${rows}`, rows);
      await checkDeepRowsPage(ctx.origin, ctx.agentToken, sheet, rows);
      sheetNotes.set(rows, sheet);
    }

    log(`[bench] cost: ${options.costCalls} calls per workload …`);
    costs.push(...(await measureCosts(ctx, options, sourceNotes, sheetNotes)));
    toolCalls += costs.reduce((sum, c) => sum + c.calls, 0);

    const base = baseline("baseline_start", "baseline: GET /bench/baseline (one trivial Durable Object call), at the start");
    const tabs = listNoteTabs(ctx, deck0);
    const create = createNoteTab(ctx);
    const tabsModern = listNoteTabs(ctx, deck0, "tools", "list_note_tabs_2026", "2026-07-28");
    const createModern = createNoteTab(ctx, "2026-07-28");
    const tabsOne = listNoteTabs(ctx, deck0, "parallel", "list_note_tabs_1_note");
    const tabsSpread = listNoteTabsSpread(ctx, decks);
    const workloads: Workload[] = [
      getRoot(),
      base,
      authOnly(ctx),
      mcpMessage(ctx, "ping"),
      mcpMessage(ctx, "tools/list"),
      tabs,
      tabsModern,
      create,
      createModern,
      slideAdd(ctx),
      addNoteSource(ctx),
      slideUpdate(ctx),
      rowsAppend(ctx),
      baseline("baseline_middle", "baseline again, in the middle"),
      ...options.sourceCounts.flatMap((count) => [
        attachmentsPage(ctx, sourceNotes.get(count) as string, count, false),
        attachmentsPage(ctx, sourceNotes.get(count) as string, count, true),
      ]),
      ...SHEET_SIZES.flatMap((rows) => [sheetPage(ctx, sheetNotes.get(rows) as SheetNote, rows, false), sheetPage(ctx, sheetNotes.get(rows) as SheetNote, rows, true)]),
      tabsOne,
      tabsSpread,
      slideAddOneNote(ctx, deck0),
      slideAddSpread(ctx, decks),
      baseline("baseline_end", "baseline again, at the end"),
    ];
    let fastest = 0;
    for (const workload of workloads) {
      signal?.throwIfAborted();
      const row = await measure(bench, workload, options, null, fastest);
      rows.push(row);
      fastest = Math.max(fastest, row.result.throughput);
      if (workload.section !== "reference") toolCalls += row.result.responses;
    }
    const baselines = rows.filter((r) => r.id.startsWith("baseline_")).map((r) => r.result.throughput);
    const baselineThroughput = baselines.reduce((a, b) => a + b, 0) / Math.max(1, baselines.length);
    for (const row of rows) row.ratio = baselineThroughput > 0 ? row.result.throughput / baselineThroughput : null;

    const rate = (id: string): number => rows.find((r) => r.id === id)?.result.throughput ?? 0;
    for (const [id, a, b] of [
      ["list_note_tabs_vs_baseline", base, tabs],
      ["list_note_tabs_2026_vs_baseline", base, tabsModern],
      ["create_note_tab_vs_baseline", base, create],
      ["create_note_tab_2026_vs_baseline", base, createModern],
      ["list_note_tabs_2026_vs_2025", tabs, tabsModern],
      ["create_note_tab_2026_vs_2025", create, createModern],
      ["list_note_tabs_64_notes_vs_1_note", tabsOne, tabsSpread],
    ] as const) {
      signal?.throwIfAborted();
      const pair = await measurePaired(bench, id, a, b, options, rate);
      paired.push(pair.result);
      toolCalls += pair.toolCalls;
      log(`[bench] paired ${id}: ${pair.result.ratio.toFixed(2)}× (${Math.round(pair.result.aThroughput)} → ${Math.round(pair.result.bThroughput)} req/s)`);
    }

    signal?.throwIfAborted();
    log(`[bench] slide_add with ${SOCKET_COUNTS.join(" / ")} open live sockets on the Note, alternating slices …`);
    const live = await measureLiveSockets(bench, ctx, options);
    for (const row of live.rows) {
      toolCalls += row.responses;
      log(`[bench] ${row.sockets} sockets: ${Math.round(row.throughput)} req/s (${row.ratio.toFixed(2)}× none), ${row.errors} errors, every change delivered: ${row.delivered ?? "–"}`);
    }

    signal?.throwIfAborted();
    log(`[bench] one Note's write ceiling: 1 writer, then 8 with the retry loop …`);
    const ceiling = await measureNoteCeiling(bench, ctx, options);
    for (const row of ceiling) toolCalls += row.commits + row.conflicts + row.rereads;

    for (const connections of options.sweepConnections) {
      const sweepBase = await measure(bench, { ...baseline("baseline", "baseline"), connections }, { ...options, durationSec: options.sweepDurationSec, warmupSec: 0.5 }, null, 0);
      sweepBase.section = "sweep";
      sweepBase.ratio = 1;
      const sweepTabs = await measure(bench, { ...listNoteTabs(ctx, deck0), connections }, { ...options, durationSec: options.sweepDurationSec, warmupSec: 0.5 }, sweepBase.result.throughput, 0);
      sweepTabs.section = "sweep";
      toolCalls += sweepTabs.result.responses;
      sweep.push(sweepBase, sweepTabs);
    }

    memory.push(await readMemory(bench, "end", `main server: end of the timed run (${toolCalls.toLocaleString("en-US")} tool calls in all${options.runtime === "miniflare" ? "; no inspector, so no heap" : ""})`, toolCalls));

    const events = bench.events();
    await bench.close();
    let retention: RetentionReport | null = null;
    if (options.secondServer) {
      log(`[bench] a second server (IDEMPOTENCY_RETENTION_SECONDS=${options.retentionSeconds}): baseline memory, then pruning …`);
      const second = await startBenchServer({ runtime: options.runtime, vars: { IDEMPOTENCY_RETENTION_SECONDS: String(options.retentionSeconds) }, signal });
      try {
        memory.push(await readMemory(second, "second_start", "second server: start (up, signed in)", 0));
        const run = await runLoad({ origin: second.origin, connections: options.connections, durationSec: 0, amount: options.memoryCalls, maxSec: 180, requests: [{ method: "GET", path: "/bench/baseline" }], accept: (b) => b === "ok", signal });
        memoryLoads.push({ label: "baseline calls on the second server", result: run });
        memory.push(await readMemory(second, "second_after_baseline", `second server: after ${run.responses.toLocaleString("en-US")} baseline calls (no tool call)`, 0));
        retention = await checkRetention(second, options.retentionSeconds, signal);
      } finally {
        await second.close();
      }
    }

    const { log: _log, signal: _signal, ...plain } = options;
    const report: Omit<BenchReport, "goals"> = {
      machine,
      runtime: options.runtime,
      startedAt: startedAt.toISOString(),
      wallSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
      options: plain,
      baselineThroughput,
      rows,
      paired,
      live,
      ceiling,
      sweep,
      costs,
      memory,
      memoryLoads,
      retentionSeconds: configuredRetentionSeconds(),
      retention,
      server: events,
    };
    return { ...report, goals: evaluateGoals(report) };
  } finally {
    await bench.close(); // a second close only finds the server gone
  }
}

/**
 * Memory on a server of its own, so that neither its calls nor its heap
 * snapshots touch the timed run: at the start, after `memoryCalls` tool calls,
 * and after as many again (does it keep growing, or level off?).
 */
async function measureMemory(options: BenchOptions, memory: MemoryReading[], loads: BenchReport["memoryLoads"]): Promise<void> {
  const { log, signal } = options;
  log(`[bench] memory: a server of its own …`);
  const server = await startBenchServer({ runtime: options.runtime, signal });
  try {
    const ctx: WorkloadContext = { origin: server.origin, agentToken: server.agentToken, api: server.api, connections: options.connections };
    const mix = await memoryMix(ctx);
    let calls = 0;
    memory.push(await readMemory(server, "start", "memory server: start (up, signed in, its Notes created)", calls));
    for (const kind of ["after_tool_calls", "after_more_tool_calls"] as const) {
      log(`[bench] memory: ${options.memoryCalls} tool calls …`);
      const run = await runLoad({ origin: server.origin, connections: options.connections, durationSec: 0, amount: options.memoryCalls, maxSec: 180, requests: mix.requests(), signal });
      await mix.resync();
      calls += run.responses;
      memory.push(await readMemory(server, kind, `memory server: after ${calls.toLocaleString("en-US")} tool calls`, calls));
      const what = kind === "after_tool_calls" ? "tool calls" : "more tool calls";
      loads.push({ label: `${what} on the memory server (list_note_tabs, list_note_attachments, add_note_source in turn)`, result: run });
      if (errorCount(run) > 0) log(`[bench] the memory run had ${errorCount(run)} errors: ${run.firstFailure ?? ""}`);
    }
  } finally {
    await server.close();
  }
}

/** The heap first: its full collection may hand memory back before the processes are read. */
async function readMemory(bench: BenchServer, kind: MemoryReading["kind"], label: string, calls: number): Promise<MemoryReading> {
  const heap = await bench.heap();
  const processes = workerdMemory(bench.server.pid);
  return { kind, label, toolCalls: calls, processes, totalBytes: totalRss(processes), heap };
}

