/**
 * `npm run search:quality`: the labelled queries over the generated corpus,
 * on a connector of its own on a loopback port; prints precision at 1 and
 * recall at 5, overall and per language, and every query not answered first
 * (docs/search.md, "Quality"). Exits 1 if a goal is missed (0.9 and 0.98).
 */
import { stopOnSignals } from "../stop-signals.js";
import { DEFAULT_SEED } from "./corpus.js";
import { runQuality } from "./run.js";
import { markdownQuality } from "./score.js";

const USAGE = `npm run search:quality [-- [--seed N] [--json] [--within-note]]

Generates the corpus (seed ${DEFAULT_SEED} unless --seed), starts the bench Worker on
Miniflare on a free loopback port, loads the corpus through the person's API and
the agent's tools, runs each labelled query through the MCP search tool (limit 5),
prints the figures and the misses, stops the server.
  --json         the report as JSON on stdout (progress goes to stderr)
  --within-note  each query within its expected Note only (note_id given): the Note's
                 own ranking, a check of the machinery; not the issue's figure`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
const seedAt = args.indexOf("--seed");
const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : DEFAULT_SEED;
const unknown = args.filter((a, i) => !["--json", "--seed", "--within-note"].includes(a) && !(seedAt >= 0 && i === seedAt + 1));
if (unknown.length > 0 || !Number.isInteger(seed) || seed < 0) {
  console.error(`unknown argument or bad seed: ${args.join(" ")}\n\n${USAGE}`);
  process.exit(2);
}

const signal = stopOnSignals("search:quality");
const started = Date.now();
const log = (line: string): void => console.error(`${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${line}`);
try {
  const report = await runQuality({ seed, withinNote: args.includes("--within-note"), log, signal });
  console.log(args.includes("--json") ? JSON.stringify(report, null, 2) : markdownQuality(report));
  const met = report.overall.precisionAt1 >= 0.9 && report.overall.recallAt5 >= 0.98;
  process.exit(met ? 0 : 1);
} catch (error) {
  if (signal.aborted) {
    console.error("[search:quality] stopped; the server is down.");
    process.exit(130);
  }
  console.error(`[search:quality] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
