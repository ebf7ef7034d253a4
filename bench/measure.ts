/**
 * Measuring a workload on the running server: a warm-up that is not counted,
 * then the timed load with the Worker's CPU read around it. The headline
 * ratios (a tool call against the baseline) take one method: the two loads
 * measured this way in turn, a, b, a, b, …, so that a shared machine's
 * drifting load falls on both alike.
 */
import { errorCount, runLoad, type LoadResult } from "./load.js";
import type { BenchOptions } from "./options.js";
import { cpuUse, sampleCpu, type CpuUse } from "./proc.js";
import type { BenchServer } from "./server.js";
import type { Workload } from "./workloads.js";

export interface Row extends Pick<Workload, "id" | "name" | "section" | "connections" | "notes"> {
  result: LoadResult;
  /** Errors of any kind during the warm-up (not in `result`, shown apart). */
  warmupErrors: number;
  cpu: CpuUse;
}

/** Warm-up (not counted), then the timed load. `expectedRate`: how many calls a second a write's lanes must have room for. */
export async function measure(server: BenchServer, workload: Workload, options: BenchOptions, expectedRate = 0): Promise<Row> {
  const { log, signal } = options;
  const connections = workload.connections > 0 ? workload.connections : options.connections;
  const common = { origin: server.origin, connections, accept: workload.accept, okStatus: workload.okStatus, signal };
  let warmupErrors = 0;
  if (options.warmupSec > 0) {
    await workload.provision?.(Math.max(expectedRate, 1_000) * options.warmupSec * 1.5);
    const warm = await runLoad({ ...common, durationSec: options.warmupSec, amount: options.loadCalls, requests: workload.requests() });
    warmupErrors = errorCount(warm);
    expectedRate = Math.max(expectedRate, warm.throughput);
  }
  await workload.provision?.(Math.max(expectedRate, 100) * options.durationSec * 2);
  const before = sampleCpu(server.pid);
  const result = await runLoad({ ...common, durationSec: options.durationSec, amount: options.loadCalls, requests: workload.requests() });
  const cpu = cpuUse(before, sampleCpu(server.pid), result.responses);
  const errors = errorCount(result);
  log(
    `[bench] ${workload.name} [${connections} conn, ${workload.notes} Note(s)]: ${Math.round(result.throughput)} req/s, ` +
      `${cpu.workerMs.toFixed(2)} ms Worker CPU a call${errors > 0 ? `, ${errors} ERRORS (${result.firstFailure ?? "?"})` : ""}`,
  );
  return { id: workload.id, name: workload.name, section: workload.section, connections, notes: workload.notes, result, warmupErrors, cpu };
}

/** Two workloads measured in turn, `options.rounds` times each: b against a. */
export interface Comparison {
  id: string;
  a: string;
  b: string;
  rounds: number;
  /** Each side's responses over its timed seconds, and its Worker CPU a call, all rounds together; ratio: bRate / aRate. */
  aRate: number;
  bRate: number;
  ratio: number;
  aCpuMs: number;
  bCpuMs: number;
  /** Each round's b / a, to show the spread. */
  roundRatios: number[];
  /** Errors of any kind, warm-ups included. */
  errors: number;
  firstFailure?: string;
}

export async function compare(server: BenchServer, id: string, a: Workload, b: Workload, options: BenchOptions, expectedRate: (w: Workload) => number): Promise<Comparison> {
  const sides = [a, b].map(() => ({ responses: 0, seconds: 0, cpuMs: 0 }));
  const roundRatios: number[] = [];
  let errors = 0;
  let firstFailure: string | undefined;
  for (let round = 0; round < options.rounds; round++) {
    const rates: number[] = [];
    for (const [i, workload] of [a, b].entries()) {
      options.signal?.throwIfAborted();
      const row = await measure(server, workload, { ...options, log: () => undefined }, expectedRate(workload));
      const side = sides[i] as (typeof sides)[number];
      side.responses += row.result.responses;
      side.seconds += row.result.seconds;
      side.cpuMs += row.cpu.workerMs * row.result.responses;
      rates.push(row.result.throughput);
      errors += errorCount(row.result) + row.warmupErrors;
      firstFailure ??= row.result.firstFailure;
    }
    roundRatios.push((rates[0] ?? 0) > 0 ? (rates[1] ?? 0) / (rates[0] ?? 1) : 0);
  }
  const [sa, sb] = sides as [(typeof sides)[number], (typeof sides)[number]];
  const rate = (s: typeof sa): number => (s.seconds > 0 ? s.responses / s.seconds : 0);
  const cpu = (s: typeof sa): number => (s.responses > 0 ? s.cpuMs / s.responses : 0);
  const label = (w: Workload): string => (w.section === "reference" ? w.name : `${w.name} [${w.notes} Note${w.notes === "1" ? "" : "s"}]`);
  const result: Comparison = { id, a: label(a), b: label(b), rounds: options.rounds, aRate: rate(sa), bRate: rate(sb), ratio: rate(sa) > 0 ? rate(sb) / rate(sa) : 0, aCpuMs: cpu(sa), bCpuMs: cpu(sb), roundRatios, errors };
  if (firstFailure !== undefined) result.firstFailure = firstFailure;
  options.log(`[bench] ${id}: ${result.ratio.toFixed(2)}× (${Math.round(result.aRate)} → ${Math.round(result.bRate)} req/s; rounds ${roundRatios.map((r) => r.toFixed(2)).join(", ")})`);
  return result;
}
