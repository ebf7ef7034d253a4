/**
 * The benchmark harness works: `npm run bench -- --quick` (shorter still), in process, gives
 * every workload a row with throughput, the Worker's CPU a call and no error
 * of any kind; the headline comparisons their rounds; the live sockets every
 * change; one Note's ceiling its conflicts answered; the cost table its rows;
 * the memory server its readings of the workerd and the heap. The figures
 * themselves are not asserted (a shared machine is noisy): docs/performance.md has them.
 */
import { expect, it } from "vitest";
import { QUICK } from "../../bench/options.js";
import { markdownReport } from "../../bench/report.js";
import { runBench } from "../../bench/run-bench.js";

/**
 * The smallest run that still proves the harness: --quick's Notes and rounds, each load 8 calls (a writer's
 * ceiling 8 each) instead of a duration, 20 calls between memory readings, search users of 3 and 12 Notes.
 * Loads of a few tenths of a second kept both cores busy for half a minute, and one could end before its
 * first answer on a loaded machine (a load with no answer has no row).
 */
const SMALLEST = { ...QUICK, loadCalls: 8, memoryCalls: 20, searchNotes: [3, 12] as [number, number] };

it("runs every workload, the headline comparisons, live sockets, the ceiling, costs and memory, without errors", async () => {
  const report = await runBench({ ...SMALLEST, log: () => undefined });

  const [small, large] = SMALLEST.sourceCounts;
  const attachments = [small, large].flatMap((n) => [`list_note_attachments_first_${n}`, `list_note_attachments_deep_${n}`]);
  const sheets = SMALLEST.sheetRows.flatMap((n) => [`read_note_tab_sheet_first_${n}`, `read_note_tab_sheet_deep_${n}`]);
  expect(report.rows.map((r) => r.id)).toEqual([
    "get_root",
    "baseline",
    "auth_only",
    "mcp_ping",
    "mcp_tools_list",
    "list_note_tabs",
    "create_note_tab",
    "slide_add",
    "add_note_source",
    "slide_update",
    "rows_append",
    ...attachments,
    ...sheets,
    "list_note_tabs_1_note",
    `list_note_tabs_${SMALLEST.parallelNotes}_notes`,
    "slide_add_1_note",
    `slide_add_${SMALLEST.parallelNotes}_notes`,
  ]);
  for (const row of report.rows) {
    expect(row.result.throughput, row.id).toBeGreaterThan(0);
    // The Worker's CPU is read from /proc in clock ticks (10 ms): a load of a few cheap calls can fall under one.
    expect(row.cpu.workerMs, row.id).toBeGreaterThanOrEqual(0);
    expect({ id: row.id, non2xx: row.result.non2xx, mcp: row.result.mcpErrors, socket: row.result.socketErrors, warmup: row.warmupErrors }).toEqual({
      id: row.id,
      non2xx: 0,
      mcp: 0,
      socket: 0,
      warmup: 0,
    });
  }

  // The headline: one method, each pair in turn (a round each in --quick); list_note_tabs before the rows and after them.
  expect(report.comparisons.map((c) => [c.id, c.errors, c.roundRatios.length])).toEqual([
    ["list_note_tabs_vs_baseline_early", 0, 1],
    ["list_note_tabs_vs_baseline", 0, 1],
    ["create_note_tab_vs_baseline", 0, 1],
    [`list_note_tabs_${SMALLEST.parallelNotes}_notes_vs_1_note`, 0, 1],
  ]);
  for (const c of report.comparisons) {
    expect(c.ratio, c.id).toBeCloseTo(c.bRate / c.aRate, 6);
    expect(Math.min(c.aCpuMs, c.bCpuMs), c.id).toBeGreaterThanOrEqual(0);
  }

  // Writes with 0, 10 and 100 open live sockets: no error, and every socket got every change of its Note.
  expect(report.live.rows.map((r) => [r.sockets, r.errors, r.delivered])).toEqual([
    [0, 0, null],
    [10, 0, true],
    [100, 0, true],
  ]);
  for (const row of report.live.rows) expect(row.throughput, `${row.sockets} sockets`).toBeGreaterThan(0);

  // One Note's ceiling: 1 writer never conflicts; 8 writers on one Note do, and every conflict is answered by the loop (a re-read, or a resend at current_version), never an error.
  expect(report.ceiling.map((r) => [r.writers, r.retry, r.errors])).toEqual([
    [1, "reread", 0],
    [8, "reread", 0],
    [8, "changes", 0],
  ]);
  const [one, eight, eightChanges] = report.ceiling;
  expect(one?.commits).toBeGreaterThan(0);
  expect([one?.conflicts, one?.rereads]).toEqual([0, 0]);
  expect(eight?.conflicts).toBeGreaterThan(0);
  // Each conflict of the re-read loop is followed by one re-read (the last may still be in flight when the run ends).
  expect(eight?.rereads).toBeGreaterThanOrEqual((eight?.conflicts ?? 0) - 8);
  expect(eight?.rereads).toBeLessThanOrEqual(eight?.conflicts ?? 0);
  // The other loop resends at current_version: each writer edits its own slide, so a complete list of changes never names it.
  expect(eightChanges?.commits).toBeGreaterThan(0);
  expect(eightChanges?.conflicts).toBeGreaterThan(0);
  // A re-read only when a writer fell more than 20 versions behind (an incomplete list): rare, never most.
  expect((eightChanges?.rereads ?? 0) * 10).toBeLessThan(eightChanges?.conflicts ?? 0);
  for (const row of report.ceiling) expect(row.workerCpuMsPerCommit, `${row.writers} ${row.retry}`).toBeGreaterThanOrEqual(0);
  // Summed over the run, the Worker's CPU is read: every row's CPU a call, the comparisons' and the ceiling's.
  const cpuSums = [report.rows.map((r) => r.cpu.workerMs), report.comparisons.flatMap((c) => [c.aCpuMs, c.bCpuMs]), report.ceiling.map((r) => r.workerCpuMsPerCommit)];
  for (const sum of cpuSums.map((each) => each.reduce((a, b) => a + b, 0))) expect(sum).toBeGreaterThan(0);

  // Costs: every workload measured; a write keeps one idempotency record a call; a page reads about a page.
  const writes = ["create_note_tab", "slide_add", "add_note_source", "slide_update_20", "slide_update_500", "rows_append_100", "rows_append_5000"];
  expect(report.costs.map((c) => c.id)).toEqual(["list_note_tabs", ...writes, ...sheets, ...attachments]);
  for (const id of writes) {
    const cost = report.costs.find((c) => c.id === id);
    expect(cost?.rowsWrittenPerCall, id).toBeGreaterThan(0);
    expect(cost !== undefined && cost.idempotencyAfter - cost.idempotencyBefore, id).toBe(cost?.calls);
  }
  for (const id of [...attachments, ...sheets]) expect(report.costs.find((c) => c.id === id)?.rowsReadPerCall, id).toBeGreaterThan(0);
  // The directory's side: a write of indexed content reaches alice's directory (her list and her search copy); a read writes nothing there.
  for (const id of ["slide_update_20", "slide_update_500", "slide_add", "add_note_source"]) expect(report.costs.find((c) => c.id === id)?.directoryRowsWrittenPerCall, id).toBeGreaterThan(0);
  for (const id of ["list_note_tabs", ...attachments, ...sheets]) expect(report.costs.find((c) => c.id === id)?.directoryRowsWrittenPerCall, id).toBe(0);

  // Search: a user of 12 Notes against one of 3, the same 3 Notes holding the words in each; one word, four words, a miss.
  const [few, many] = SMALLEST.searchNotes;
  expect(report.search.skipped).toBeNull();
  expect(report.search.comparisons.map((c) => [c.id, c.errors, c.roundRatios.length])).toEqual(
    ["word", "phrase", "miss"].map((q) => [`search_${q}_${many}_vs_${few}_notes`, 0, 1]),
  );
  for (const c of report.search.comparisons) expect(Math.min(c.aRate, c.bRate), c.id).toBeGreaterThan(0);
  expect(report.search.costs.map((c) => [c.id, c.hits])).toEqual([
    [`search_word_${few}`, 3],
    [`search_word_${many}`, 3],
    [`search_phrase_${few}`, 3],
    [`search_phrase_${many}`, 3],
    [`search_miss_${few}`, 0],
    [`search_miss_${many}`, 0],
  ]);
  expect([report.search.upkeep?.id, report.search.upkeep?.errors, report.search.upkeep?.roundRatios.length]).toEqual(["slide_update_5_members_vs_1", 0, 1]);
  expect(Math.min(report.search.upkeep?.aRate ?? 0, report.search.upkeep?.bRate ?? 0)).toBeGreaterThan(0);
  // The cost law: the directory reads the same rows for the same hits, whatever the user's number of Notes.
  for (const q of ["word", "phrase", "miss"]) {
    const [small, large] = [few, many].map((n) => report.search.costs.find((c) => c.id === `search_${q}_${n}`)?.directoryRowsReadPerCall ?? -1);
    expect(large, q).toBe(small);
  }

  // Memory: the Worker's workerd and its heap at the start, after the baseline calls, the tool calls, and as many again.
  const calls = SMALLEST.memoryCalls;
  expect(report.memory.map((m) => m.calls)).toEqual([0, calls, 2 * calls, 3 * calls]);
  for (const m of report.memory) {
    expect(m.rssBytes, m.label).toBeGreaterThan(2 ** 20);
    // A live heap of a Worker that loaded zod and the MCP SDK: more than 1 MB, and under what V8 reserved.
    expect(m.heap?.usedBytes, m.label).toBeGreaterThan(2 ** 20);
    expect(m.heap?.usedBytes, m.label).toBeLessThanOrEqual(m.heap?.totalBytes ?? 0);
  }
  for (const { label, result } of report.memoryLoads) expect([label, result.non2xx + result.mcpErrors + result.socketErrors]).toEqual([label, 0]);

  const markdown = markdownReport(report);
  for (const row of report.rows) expect(markdown).toContain(`| ${row.name} |`);
  for (const title of ["## Headline: a tool call against the baseline", "## Cost per call", "## Search: many Notes against few", "## Writes with live sockets open", "## One Note's write ceiling", "## Memory"]) {
    expect(markdown).toContain(title);
  }
}, 240_000);
