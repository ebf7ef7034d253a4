/**
 * One benchmark run, start to end: the Worker bundled once; memory on a server
 * of its own (with an inspector, for the heap); then the timed server (none,
 * as production): its Notes set up, the cost of each call, every workload's
 * row, the headline comparisons, writes with live sockets open, one Note's
 * write ceiling. Returns the whole report; report.ts prints it.
 */
import { pool } from "../scripts/lib/pool.js";
import { measureCosts, type CallCost } from "./call-cost.js";
import { checkDeepPage, checkDeepRowsPage, createDeckNote, createSheetNote, createSourcesNote, type DeckNote, type SheetNote } from "./fixtures.js";
import type { HeapUsage } from "./heap.js";
import { measureLiveSockets, type LiveSocketsReport } from "./live-sockets.js";
import { runLoad, type LoadResult } from "./load.js";
import { machineFacts, type MachineFacts } from "./machine.js";
import { compare, measure, type Comparison, type Row } from "./measure.js";
import { measureNoteCeiling, type CeilingRow } from "./note-ceiling.js";
import type { BenchOptions } from "./options.js";
import { rssBytes } from "./proc.js";
import { measureSearch, type SearchBench } from "./search-rows.js";
import { bundleWorker, startBenchServer, type BenchServer } from "./server.js";
import * as w from "./workloads.js";

export interface MemoryReading {
  label: string;
  /** Calls made on the memory server before this reading. */
  calls: number;
  /** VmRSS of the Worker's workerd. */
  rssBytes: number;
  /** The Worker's JavaScript heap after a full collection. */
  heap: HeapUsage | null;
}

export interface BenchReport {
  machine: MachineFacts;
  startedAt: string;
  wallSeconds: number;
  options: Omit<BenchOptions, "log" | "signal">;
  rows: Row[];
  /** The headline ratios: each pair measured in turn, a, b, a, b, … */
  comparisons: Comparison[];
  live: LiveSocketsReport;
  ceiling: CeilingRow[];
  costs: CallCost[];
  /** Search on a user with many Notes against one with few (issue 26). */
  search: SearchBench;
  memory: MemoryReading[];
  memoryLoads: { label: string; result: LoadResult }[];
  /** What the timed server's Worker printed to stderr. */
  errorLines: string[];
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { log, signal } = options;
  const startedAt = new Date();
  log("[bench] bundling bench/worker.ts as a deployment would …");
  const bundle = await bundleWorker(signal);
  try {
    log("[bench] memory: a server of its own (with an inspector, for the heap) …");
    const memoryServer = await startBenchServer(bundle, { inspector: true, signal });
    const { memory, memoryLoads } = await measureMemory(memoryServer, options).finally(() => (options.quick ? undefined : memoryServer.close()));
    log("[bench] the timed server (no inspector, as production; --quick goes on on the memory server) …");
    const server = options.quick ? memoryServer : await startBenchServer(bundle, { signal });
    try {
      const timed = await measureTimed(server, options);
      const { log: _log, signal: _signal, ...plain } = options;
      return {
        machine: machineFacts(),
        startedAt: startedAt.toISOString(),
        wallSeconds: Math.round((Date.now() - startedAt.getTime()) / 100) / 10,
        options: plain,
        ...timed,
        memory,
        memoryLoads,
        errorLines: server.errorLines,
      };
    } finally {
      await server.close();
    }
  } finally {
    await bundle.remove();
  }
}

async function measureTimed(server: BenchServer, options: BenchOptions): Promise<Pick<BenchReport, "rows" | "comparisons" | "live" | "ceiling" | "costs" | "search">> {
  const { log, signal } = options;
  const ctx: w.WorkloadContext = { origin: server.origin, agentToken: server.agentToken, api: server.api, connections: options.connections };
  log(`[bench] setting up ${options.parallelNotes} deck Notes, Notes of ${options.sourceCounts.join(" / ")} sources, Sheets of ${options.sheetRows.join(" / ")} rows …`);
  const decks = await pool(
    Array.from({ length: options.parallelNotes }, (_, i) => `deck-${String(i).padStart(2, "0")}`),
    8,
    (noteId) => createDeckNote(ctx.api, noteId),
  );
  const deck0 = decks[0] as DeckNote;
  const sources = new Map<number, string>();
  for (const count of options.sourceCounts) {
    signal?.throwIfAborted();
    await createSourcesNote(ctx.api, `sources-${count}`, count);
    await checkDeepPage(ctx.origin, ctx.agentToken, `sources-${count}`, count);
    sources.set(count, `sources-${count}`);
  }
  const sheets = new Map<number, SheetNote>();
  for (const count of options.sheetRows) {
    signal?.throwIfAborted();
    const sheet = await createSheetNote(ctx.api, ctx.agentToken, `sheet-${count}`, count);
    await checkDeepRowsPage(ctx.origin, ctx.agentToken, sheet, count);
    sheets.set(count, sheet);
  }

  log(`[bench] cost: ${options.costCalls} calls a workload …`);
  const costs = await measureCosts(ctx, options, sources, sheets);

  const base = w.baseline();
  const tabs = w.listNoteTabs(ctx, deck0);
  const create = w.createNoteTab(ctx);
  const tabsOne = w.listNoteTabs(ctx, deck0, "parallel", "list_note_tabs_1_note");
  const tabsSpread = w.listNoteTabsSpread(ctx, decks);
  const comparisons: Comparison[] = [];
  // The headline once on an isolate that has run little (set-up and costs), and again after every row (below).
  comparisons.push(await compare(server, "list_note_tabs_vs_baseline_early", base, tabs, options, () => 0));
  const workloads: w.Workload[] = [
    w.getRoot(),
    base,
    w.authOnly(ctx),
    w.mcpMessage(ctx, "ping"),
    w.mcpMessage(ctx, "tools/list"),
    tabs,
    create,
    w.slideAdd(ctx),
    w.addNoteSource(ctx),
    w.slideUpdate(ctx),
    w.rowsAppend(ctx),
    ...[...sources].flatMap(([count, noteId]) => [w.attachmentsPage(ctx, noteId, count, false), w.attachmentsPage(ctx, noteId, count, true)]),
    ...[...sheets].flatMap(([count, sheet]) => [w.sheetPage(ctx, sheet, count, false), w.sheetPage(ctx, sheet, count, true)]),
    tabsOne,
    tabsSpread,
    w.slideAddOneNote(ctx, deck0),
    w.slideAddSpread(ctx, decks),
  ];
  const rows: Row[] = [];
  let fastest = 0;
  for (const workload of workloads) {
    signal?.throwIfAborted();
    // No write is faster than the fastest row so far: a write's lanes get room for that.
    const row = await measure(server, workload, options, fastest);
    rows.push(row);
    fastest = Math.max(fastest, row.result.throughput);
  }

  const rate = (workload: w.Workload): number => rows.find((r) => r.id === workload.id)?.result.throughput ?? fastest;
  for (const [id, a, b] of [
    ["list_note_tabs_vs_baseline", base, tabs],
    ["create_note_tab_vs_baseline", base, create],
    [`list_note_tabs_${options.parallelNotes}_notes_vs_1_note`, tabsOne, tabsSpread],
  ] as const) {
    signal?.throwIfAborted();
    comparisons.push(await compare(server, id, a, b, options, rate));
  }

  const search = await measureSearch(server, options);
  if (search.skipped !== null) log(`[bench] search: skipped (${search.skipped})`);

  log("[bench] slide_add with 0 / 10 / 100 live sockets open on the Note …");
  const live = await measureLiveSockets(server, ctx, options);
  log("[bench] one Note's write ceiling: 1 writer, then 8 …");
  const ceiling = await measureNoteCeiling(server, ctx, options);
  return { rows, comparisons, live, ceiling, costs, search };
}

/**
 * Memory on a server of its own, so that neither its calls nor its heap
 * readings touch the timed runs: at the start; after `memoryCalls` baseline
 * calls (what the runtime itself grows by, no tool called); after as many tool
 * calls; after as many again (does it level off?).
 */
async function measureMemory(server: BenchServer, options: BenchOptions): Promise<Pick<BenchReport, "memory" | "memoryLoads">> {
  const { log, signal } = options;
  {
    const ctx: w.WorkloadContext = { origin: server.origin, agentToken: server.agentToken, api: server.api, connections: options.connections };
    const mix = await w.memoryMix(ctx);
    const memory: MemoryReading[] = [];
    const memoryLoads: BenchReport["memoryLoads"] = [];
    let calls = 0;
    const read = async (label: string): Promise<void> => {
      const heap = await server.heap(); // first: its full collection may hand memory back
      memory.push({ label, calls, rssBytes: rssBytes(server.pid), heap });
    };
    await read("start (up, signed in, its Notes created)");
    for (const [label, requests] of [
      ["baseline calls (no tool call)", () => w.baseline().requests()],
      ["tool calls (list_note_tabs, list_note_attachments, add_note_source in turn)", () => mix.requests()],
      ["more tool calls", () => mix.requests()],
    ] as const) {
      log(`[bench] memory: ${options.memoryCalls} ${label} …`);
      const result = await runLoad({ origin: server.origin, connections: options.connections, durationSec: 0, amount: options.memoryCalls, maxSec: 180, requests: [...requests()], signal });
      await mix.resync();
      calls += result.responses;
      memoryLoads.push({ label, result });
      await read(`after ${result.responses.toLocaleString("en-US")} ${label.replace(/ \(.*\)$/, "")}`);
    }
    return { memory, memoryLoads };
  }
}
