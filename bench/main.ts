/**
 * `npm run bench`: measures the connector on Miniflare directly and prints a
 * Markdown report (JSON with --json). Ctrl-C stops the load and the servers.
 * See docs/performance.md.
 */
import { FULL, parseArgs, QUICK, USAGE } from "./options.js";
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

const signal = stopOnSignals("bench");
const started = Date.now();
const log = (line: string): void => console.error(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${line}`);
try {
  const report = await runBench({ ...(cli.quick ? QUICK : FULL), log, signal });
  console.log(cli.json ? JSON.stringify(report, null, 2) : markdownReport(report));
  console.error(`[bench] done in ${report.wallSeconds} s`);
  process.exit(0);
} catch (error) {
  if (signal.aborted) {
    console.error("[bench] stopped; the servers are down.");
    process.exit(130);
  }
  const cause = error instanceof Error && error.cause !== undefined ? `\ncaused by: ${String(error.cause)}` : "";
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}`);
  process.exit(1);
}
