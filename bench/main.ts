/**
 * `npm run bench`: measures the connector on Miniflare directly (or, with
 * `--runtime wrangler`, under wrangler dev) against the
 * runtime's own baseline and prints Markdown tables (or JSON with --json).
 * Ctrl-C stops the load and the server. See docs/performance.md.
 */
import { FULL, parseArgs, QUICK, USAGE, type BenchOptions } from "./options.js";
import { markdownReport } from "./report.js";
import { runBench } from "./run-bench.js";
import { stopOnSignals } from "./stop-signals.js";

let cli;
try {
  cli = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
if (cli.help) {
  console.log(USAGE);
  process.exit(0);
}

const stopping = stopOnSignals("bench");

const started = Date.now();
const options: BenchOptions = {
  ...(cli.quick ? QUICK : FULL),
  runtime: cli.runtime,
  log: (line) => console.error(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${line}`),
  signal: stopping,
};

try {
  const report = await runBench(options);
  console.log(cli.json ? JSON.stringify(report, null, 2) : markdownReport(report));
  const failed = report.goals.filter((g) => g.met === false).length;
  console.error(`[bench] done in ${report.wallSeconds} s; goals met: ${report.goals.filter((g) => g.met === true).length}/${report.goals.length}${failed > 0 ? `, missed: ${failed}` : ""}`);
  process.exit(0);
} catch (error) {
  if (stopping.aborted) {
    console.error("[bench] stopped; the server is down.");
    process.exit(130);
  }
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
