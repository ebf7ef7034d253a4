/**
 * `npm run bench`: measures the connector on Miniflare directly (or, with
 * `--runtime wrangler`, under wrangler dev) against the
 * runtime's own baseline and prints Markdown tables (or JSON with --json).
 * Ctrl-C stops the load and the server. See docs/performance.md.
 */
import { FULL, parseArgs, QUICK, USAGE, type BenchOptions } from "./options.js";
import { markdownReport } from "./report.js";
import { runBench } from "./run-bench.js";

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

const stopping = new AbortController();
let stoppedAt = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // npm and tsx relay the terminal's Ctrl-C, so one press can arrive twice: only a later one means "leave now".
    if (stopping.signal.aborted) {
      if (Date.now() - stoppedAt > 2_000) process.exit(130);
      return;
    }
    stoppedAt = Date.now();
    console.error(`\n[bench] ${signal}: stopping the load and the server …`);
    stopping.abort(new Error(`stopped by ${signal}`));
  });
}

const started = Date.now();
const options: BenchOptions = {
  ...(cli.quick ? QUICK : FULL),
  runtime: cli.runtime,
  log: (line) => console.error(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${line}`),
  signal: stopping.signal,
};

try {
  const report = await runBench(options);
  console.log(cli.json ? JSON.stringify(report, null, 2) : markdownReport(report));
  const failed = report.goals.filter((g) => g.met === false).length;
  console.error(`[bench] done in ${report.wallSeconds} s; goals met: ${report.goals.filter((g) => g.met === true).length}/${report.goals.length}${failed > 0 ? `, missed: ${failed}` : ""}`);
  process.exit(0);
} catch (error) {
  if (stopping.signal.aborted) {
    console.error("[bench] stopped; the server is down.");
    process.exit(130);
  }
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
