/** What a run measures and for how long: the full run and `--quick` (the harness test's run), and the command line. */

export interface BenchOptions {
  /** A smoke run: short loads and smaller Notes. */
  quick: boolean;
  /** Connections of every timed load (writes: one lane, i.e. its own Notes, per connection). */
  connections: number;
  /** Seconds each load is measured, after its warm-up. */
  durationSec: number;
  /**
   * Calls each load makes instead, when set (a write's ceiling: this many a writer): the
   * harness test's run, whose figures nobody reads. A load's CPU then follows its calls,
   * not the clock, and every load has answers on a loaded machine.
   */
  loadCalls?: number;
  /** Seconds of warm-up before each load (not counted; 0: none). */
  warmupSec: number;
  /** How many deck Notes the spread workloads (one Note against many) use. */
  parallelNotes: number;
  /** How many sources the attachment Notes hold (the first is the small one, the last the large one). */
  sourceCounts: number[];
  /** How many rows the Sheets hold. */
  sheetRows: number[];
  /** The search rows' two users: how many Notes the small one and the large one have (ten of each, or all of the small one's, hold the words). */
  searchNotes: [number, number];
  /** Calls per load between two memory readings. */
  memoryCalls: number;
  /** Calls per workload in the cost measurement. */
  costCalls: number;
  /** Rounds of the alternating comparisons (a, b, a, b, …: the headline ratios), each load a warm-up then `durationSec`. */
  rounds: number;
  /** Prints progress here (stderr in the CLI). */
  log: (line: string) => void;
  signal?: AbortSignal;
}

export const FULL: Omit<BenchOptions, "log"> = {
  quick: false,
  connections: 16,
  durationSec: 4,
  warmupSec: 1,
  parallelNotes: 64,
  sourceCounts: [100, 10_000, 100_000],
  sheetRows: [100, 10_000],
  searchNotes: [10, 1_000],
  memoryCalls: 10_000,
  costCalls: 50,
  rounds: 3,
};

export const QUICK: Omit<BenchOptions, "log"> = {
  quick: true,
  connections: 4,
  durationSec: 0.4,
  warmupSec: 0,
  parallelNotes: 8,
  sourceCounts: [100, 1_000],
  sheetRows: [100, 1_000],
  searchNotes: [4, 40],
  memoryCalls: 100,
  costCalls: 3,
  rounds: 1,
};

export interface CliOptions {
  quick: boolean;
  json: boolean;
  help: boolean;
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const known = ["--quick", "--json", "--help", "-h"];
  const unknown = argv.filter((a) => !known.includes(a));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(" ")} (try --help)`);
  return { quick: argv.includes("--quick"), json: argv.includes("--json"), help: argv.includes("--help") || argv.includes("-h") };
}

export const USAGE = `npm run bench [-- [--quick] [--json]]

Starts the bench Worker (bench/worker.ts) on Miniflare on a free loopback port,
drives it with autocannon, prints a Markdown report, stops it (docs/performance.md).
  --quick     a smoke run of the harness: ${QUICK.durationSec} s per load, Notes of ${QUICK.sourceCounts.join(" / ")} sources
  --json      the report as JSON on stdout (progress still goes to stderr)`;
