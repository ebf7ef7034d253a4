/**
 * Measuring one workload on the running server: a warm-up that is not
 * counted, the timed run, and the CPU each process used meanwhile; or two
 * workloads in alternating slices, for ratios a drifting machine cannot skew.
 */
import type { BenchServer } from "./bench-server.js";
import { errorCount, runLoad, type LoadResult } from "./load.js";
import type { BenchOptions } from "./options.js";
import { busiestThreads, cpuPerRequest, othersCores, sampleCpu } from "./process-cpu.js";
import type { Section, Workload } from "./workloads.js";

export interface LoadRow {
  id: string;
  name: string;
  section: Section | "sweep";
  connections: number;
  notes: string;
  result: LoadResult;
  /** Throughput over the baseline's (the mean of the baseline rows; in the sweep, the baseline at the same connections). */
  ratio: number | null;
  /** Errors of any kind during the warm-up (not in `result`, shown apart). */
  warmupErrors: number;
  /** CPU milliseconds per request in each process during the timed run. */
  cpuMsPerRequest: Record<string, number>;
  /** For each workerd, how much of a core its busiest thread (the one running JavaScript) used during the timed run. */
  busiestThreadCores: Record<string, number>;
  /** Cores that other processes on the machine kept busy during the timed run. */
  othersCores: number;
}

/**
 * Two workloads measured in alternating slices (a, b, a, b, …), so that a
 * shared machine's drifting load hits both alike: the goals' ratios.
 */
export interface PairedRatio {
  id: string;
  a: string;
  b: string;
  slices: number;
  sliceSec: number;
  aThroughput: number;
  bThroughput: number;
  /** b's throughput over a's. */
  ratio: number;
  /** Errors of any kind in either workload's slices. */
  errors: number;
  firstFailure?: string;
}

/** Warm-up (not counted), then the timed run with CPU sampled around it. */
export async function measure(bench: BenchServer, workload: Workload, options: BenchOptions, baselineThroughput: number | null, fastestSoFar: number): Promise<LoadRow> {
  const { log, signal } = options;
  const connections = workload.connections > 0 ? workload.connections : options.connections;
  const common = { origin: bench.origin, connections, accept: workload.accept, okStatus: workload.okStatus, signal };
  // Writes get room for a warm-up at the fastest rate this run has seen (no write is faster than the baseline), then for twice the warm-up's rate.
  await workload.provision?.(Math.max(fastestSoFar, 1_000) * options.warmupSec * 1.5);
  const warm = await runLoad({ ...common, durationSec: options.warmupSec, requests: workload.requests() });
  await workload.provision?.(warm.throughput * options.durationSec * 2);
  const before = sampleCpu(bench.server.pid);
  const result = await runLoad({ ...common, durationSec: options.durationSec, requests: workload.requests() });
  const after = sampleCpu(bench.server.pid);
  const cpu = cpuPerRequest(before, after, result.responses);
  const threads = busiestThreads(before, after, result.seconds);
  const others = othersCores(before, after, result.seconds);
  const errors = errorCount(result);
  log(
    `[bench] ${workload.name} [${connections} conn, ${workload.notes} Note(s)]: ${Math.round(result.throughput)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
      (errors > 0 ? `, ${errors} ERRORS (${result.firstFailure ?? "?"})` : ""),
  );
  return {
    id: workload.id,
    name: workload.name,
    section: workload.section,
    connections,
    notes: workload.notes,
    result,
    ratio: baselineThroughput === null ? null : baselineThroughput > 0 ? result.throughput / baselineThroughput : null,
    warmupErrors: errorCount(warm),
    cpuMsPerRequest: cpu,
    busiestThreadCores: threads,
    othersCores: others,
  };
}

/** a, b, a, b, … in slices of options.pairedSliceSec (no warm-up: both ran just before), writes provisioned before each slice. */
export async function measurePaired(
  bench: BenchServer,
  id: string,
  a: Workload,
  b: Workload,
  options: BenchOptions,
  rate: (id: string) => number,
): Promise<{ result: PairedRatio; toolCalls: number }> {
  const { pairedSlices: slices, pairedSliceSec: sliceSec, connections, signal } = options;
  const totals = { a: { responses: 0, seconds: 0 }, b: { responses: 0, seconds: 0 } };
  let errors = 0;
  let firstFailure: string | undefined;
  let toolCalls = 0;
  for (let i = 0; i < slices; i++) {
    for (const [side, workload] of [["a", a], ["b", b]] as const) {
      await workload.provision?.(Math.max(rate(workload.id), 100) * sliceSec * 3);
      const result = await runLoad({
        origin: bench.origin,
        connections: workload.connections > 0 ? workload.connections : connections,
        durationSec: sliceSec,
        requests: workload.requests(),
        accept: workload.accept,
        okStatus: workload.okStatus,
        signal,
      });
      totals[side].responses += result.responses;
      totals[side].seconds += result.seconds;
      errors += errorCount(result);
      firstFailure ??= result.firstFailure;
      if (workload.section !== "reference") toolCalls += result.responses;
    }
  }
  const aThroughput = totals.a.seconds > 0 ? totals.a.responses / totals.a.seconds : 0;
  const bThroughput = totals.b.seconds > 0 ? totals.b.responses / totals.b.seconds : 0;
  const label = (w: Workload): string => (w.section === "reference" ? "baseline (GET /bench/baseline)" : `${w.name} [${w.notes} Note${w.notes === "1" ? "" : "s"}]`);
  const result: PairedRatio = { id, a: label(a), b: label(b), slices, sliceSec, aThroughput, bThroughput, ratio: aThroughput > 0 ? bThroughput / aThroughput : 0, errors };
  if (firstFailure !== undefined) result.firstFailure = firstFailure;
  return { result, toolCalls };
}
