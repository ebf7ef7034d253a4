/** What a run measures and for how long: the full run, `--quick`, `--json` and `--runtime`. */

/** What runs the Worker: Miniflare directly (what production runs: one workerd), or `wrangler dev` (a proxy workerd and wrangler's Node process in front). */
export type BenchRuntime = "miniflare" | "wrangler";
export const RUNTIMES: readonly BenchRuntime[] = ["miniflare", "wrangler"];

export interface BenchOptions {
  /** What runs the Worker: Miniflare directly (the default: what production runs), or wrangler dev. */
  runtime: BenchRuntime;
  /** A smoke run: short workloads, smaller Notes, no connection sweep, no second server. */
  quick: boolean;
  /** Connections of every timed workload (writes: one lane, i.e. its own Notes, per connection). */
  connections: number;
  /** Seconds each workload is measured, after its warm-up. */
  durationSec: number;
  /** Seconds of warm-up before each workload (not counted). */
  warmupSec: number;
  /** How many sources the attachment Notes hold. */
  sourceCounts: number[];
  /** Tool calls between the two memory readings. */
  memoryCalls: number;
  /** Calls per workload in the cost measurement. */
  costCalls: number;
  /** Alternating slices of each paired comparison (the goals' ratios), and seconds per slice. */
  pairedSlices: number;
  pairedSliceSec: number;
  /** Connection counts of the sweep; empty for none. */
  sweepConnections: number[];
  /** Seconds per point of the sweep. */
  sweepDurationSec: number;
  /**
   * After the main server, a second fresh one: the memory of `memoryCalls`
   * baseline calls (the runtime's own growth, to compare), and idempotency
   * pruning with a short retention.
   */
  secondServer: boolean;
  /** The retention the second server gets, in seconds. */
  retentionSeconds: number;
  /** Prints progress here (stderr in the CLI). */
  log: (line: string) => void;
  signal?: AbortSignal;
}

export const FULL: Omit<BenchOptions, "log"> = {
  runtime: "miniflare",
  quick: false,
  connections: 16,
  durationSec: 4,
  warmupSec: 1,
  sourceCounts: [100, 10_000, 100_000],
  memoryCalls: 10_000,
  costCalls: 50,
  pairedSlices: 3,
  pairedSliceSec: 1.5,
  sweepConnections: [1, 4, 16, 64],
  sweepDurationSec: 1.5,
  secondServer: true,
  retentionSeconds: 3,
};

export const QUICK: Omit<BenchOptions, "log"> = {
  ...FULL,
  quick: true,
  durationSec: 1,
  warmupSec: 0.3,
  sourceCounts: [100, 1_000, 10_000],
  memoryCalls: 1_000,
  costCalls: 10,
  pairedSlices: 2,
  pairedSliceSec: 0.5,
  sweepConnections: [],
  secondServer: false,
};

export interface CliOptions {
  runtime: BenchRuntime;
  quick: boolean;
  json: boolean;
  help: boolean;
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const known = new Set(["--quick", "--json", "--help", "-h"]);
  const rest = [...argv];
  let runtime: BenchRuntime = FULL.runtime;
  const at = rest.indexOf("--runtime");
  if (at >= 0) {
    const value = rest[at + 1];
    if (!RUNTIMES.includes(value as BenchRuntime)) throw new Error(`--runtime: ${RUNTIMES.join(" or ")}, not ${value ?? "nothing"}`);
    runtime = value as BenchRuntime;
    rest.splice(at, 2);
  }
  const unknown = rest.filter((a) => !known.has(a));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(" ")} (try --help)`);
  return { runtime, quick: rest.includes("--quick"), json: rest.includes("--json"), help: rest.includes("--help") || rest.includes("-h") };
}

export const USAGE = `npm run bench [-- [--quick] [--json] [--runtime miniflare|wrangler]]

Starts the bench Worker (bench/worker.ts) with wrangler.toml's bindings on a free
loopback port, drives it with autocannon, prints Markdown tables, stops it.
  --quick     a smoke run: ${QUICK.durationSec} s per workload, Notes of ${QUICK.sourceCounts.join(" / ")} sources
  --json      the report as JSON on stdout (progress still goes to stderr)
  --runtime   miniflare (default): the bundle wrangler deploy builds, on Miniflare directly, as production runs it;
              wrangler: under wrangler dev as npm start runs it (a proxy workerd and wrangler's logging in front)`;
