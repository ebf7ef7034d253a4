/**
 * `npm run sim`: the design's five experiments (docs/spec.md §9), issue 13's
 * sixth and issue 25's seventh rerun on the project's own domain code, printed as Markdown tables (or `--json`).
 *
 *   npm run sim -- [--seed N] [--trials N] [--only 1,3] [--json]
 *   npm run sim -- --live http://127.0.0.1:8787 [--trials N] [--only 3,4,5]
 *
 * The MCP client is loaded only for `--live` (sim/live.ts).
 */
import { parseArgs } from "node:util";
import { EXPERIMENTS, runExperiments, sections, toJson, type ExperimentNumber, type Results } from "./experiments.js";
import { renderMarkdown } from "./report.js";
import { SPEC_TRIALS, type Settings } from "./settings.js";

/** `--live` runs over HTTP, so its trials default lower: experiment 4 at 15 sessions, experiment 5 at 100 decks. */
const LIVE_DEFAULT_TRIALS = 500;

const USAGE = `Usage: npm run sim -- [options]
Reruns the experiments of docs/spec.md §9 (and a sixth: conflicts that carry the changes since; a seventh: taking an agent's wrong change back) on the domain code and prints one Markdown table per experiment.
  --seed N      one seed for every experiment (experiment 3 runs N, N+1, N+2); default: those of docs/spec.md §9 (7; 1, 2, 3)
  --trials N    experiment 1's trials per K (default ${SPEC_TRIALS}); experiments 4, 5, 6 and 7 scale by N/${SPEC_TRIALS}
  --only LIST   which experiments, e.g. 1,3 (default: all; with --live: 3,4,5)
  --json        one JSON document instead of the tables
  --live URL    send experiments 3, 4 and 5 (and 6 if chosen with --only) through the connector at URL (e.g. http://127.0.0.1:8787, started by npm start;
                1, 2 and 7, if chosen with --only, and experiment 3's version-first rows run in process);
                its trials default to --trials ${LIVE_DEFAULT_TRIALS} (experiment 4: 15 sessions; experiment 5: 100 decks)
  --concurrency N  with --live: units in flight at once (default 8)
  --help        this text`;

class UsageError extends Error {}

interface Options {
  settings: Settings;
  only: Set<ExperimentNumber>;
  json: boolean;
  live?: string;
  concurrency: number;
}

function parseOptions(argv: readonly string[]): Options | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seed: { type: "string" },
      trials: { type: "string" },
      only: { type: "string" },
      json: { type: "boolean", default: false },
      live: { type: "string" },
      concurrency: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) return "help";
  const live = values.live;
  if (live !== undefined && !/^https?:\/\/[^/]+\/?$/.test(live)) throw new UsageError(`--live takes the connector's origin, e.g. http://127.0.0.1:8787, not "${live}"`);
  const trials = integer("--trials", values.trials, 1, 10_000_000) ?? (live === undefined ? SPEC_TRIALS : LIVE_DEFAULT_TRIALS);
  const seed = integer("--seed", values.seed, 0, 2 ** 32 - 3);
  const only = new Set<ExperimentNumber>();
  for (const part of (values.only ?? (live === undefined ? "1,2,3,4,5,6,7" : "3,4,5")).split(",")) {
    const n = Number(part.trim());
    if (!EXPERIMENTS.includes(n as ExperimentNumber)) throw new UsageError(`--only takes experiment numbers 1 to 7, e.g. 1,3; not "${part}"`);
    only.add(n as ExperimentNumber);
  }
  const options: Options = {
    settings: { seed, trials },
    only,
    json: values.json === true,
    concurrency: integer("--concurrency", values.concurrency, 1, 64) ?? 8,
  };
  if (live !== undefined) options.live = live.replace(/\/+$/, "");
  return options;
}

function integer(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} takes an integer from ${min} to ${max}, not "${text}"`);
  return n;
}

async function main(): Promise<void> {
  let options: Options | "help";
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let results: Results;
  if (options.live !== undefined) {
    const { runLive } = await import("./live.js");
    results = await runLive({ origin: options.live, settings: options.settings, only: options.only, concurrency: options.concurrency, log: (line) => process.stderr.write(`${line}\n`) });
  } else {
    results = runExperiments(options.settings, options.only);
  }
  process.stdout.write(options.json ? `${JSON.stringify(toJson(results, options.only), null, 2)}\n` : renderMarkdown(sections(results, options.only)));
}

main().catch((error: unknown) => {
  // A connector that is not there gets a sentence; anything else is a bug and gets its stack.
  const text = error instanceof Error ? (error.name === "LiveSetupError" ? error.message : (error.stack ?? error.message)) : String(error);
  process.stderr.write(`npm run sim: ${text}\n`);
  process.exitCode = 1;
});
