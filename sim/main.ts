/**
 * `npm run sim`: the design's five experiments (SPEC §9) rerun on the
 * project's own domain code, printed as Markdown tables (or `--json`).
 *
 *   npm run sim -- [--seed N] [--trials N] [--only 1,3] [--json] [--threads N]
 *   npm run sim -- --live http://127.0.0.1:8787 [--trials N] [--only 3,4,5]
 *
 * In process, the jobs are shared out over up to two threads (this machine's
 * cores); every job draws from its own seeded streams, so the split changes
 * no figure. `--live` loads the MCP client only then (sim/live.ts).
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { assemble, collect, EXPERIMENTS, jobsOf, makePlan, runJob, sections, toJson, type ExperimentNumber, type Job, type Plan, type Results } from "./experiments.js";
import { renderMarkdown } from "./report.js";
import { SPEC_TRIALS, type Settings } from "./settings.js";

/** `--live` runs over HTTP, so its trials default lower: experiment 4 at 15 sessions, experiment 5 at 100 decks. */
const LIVE_DEFAULT_TRIALS = 500;

const USAGE = `Usage: npm run sim -- [options]
Reruns the experiments of SPEC §9 on the domain code and prints one Markdown table per experiment.
  --seed N      one seed for every experiment (experiment 3 runs N, N+1, N+2); default: SPEC's (7; 1, 2, 3)
  --trials N    experiment 1's trials per K (default ${SPEC_TRIALS}); experiments 4 and 5 scale by N/${SPEC_TRIALS}
  --only LIST   which experiments, e.g. 1,3 (default: all; with --live: 3,4,5)
  --json        one JSON document instead of the tables
  --threads N   in process: threads to spread the jobs over (default: 2, or 1 on a one-core machine)
  --live URL    send experiments 3, 4 and 5 through the connector at URL (e.g. http://127.0.0.1:8787, started by npm start;
                1 and 2, if chosen with --only, and the counterfactual rows run in process);
                its trials default to --trials ${LIVE_DEFAULT_TRIALS} (experiment 4: 15 sessions; experiment 5: 100 decks)
  --concurrency N  with --live: units in flight at once (default 8)
  --help        this text`;

class UsageError extends Error {}

interface Options {
  settings: Settings;
  only: Set<ExperimentNumber>;
  json: boolean;
  threads: number;
  live?: string;
  concurrency: number;
}

/** What a worker thread needs: the plan's inputs, and the counter every thread claims jobs from. */
interface WorkerTask {
  settings: Settings;
  only: ExperimentNumber[];
  next: SharedArrayBuffer;
}

function parseOptions(argv: readonly string[]): Options | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seed: { type: "string" },
      trials: { type: "string" },
      only: { type: "string" },
      json: { type: "boolean", default: false },
      threads: { type: "string" },
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
  for (const part of (values.only ?? (live === undefined ? "1,2,3,4,5" : "3,4,5")).split(",")) {
    const n = Number(part.trim());
    if (!EXPERIMENTS.includes(n as ExperimentNumber)) throw new UsageError(`--only takes experiment numbers 1 to 5, e.g. 1,3; not "${part}"`);
    only.add(n as ExperimentNumber);
  }
  const options: Options = {
    settings: { seed, trials },
    only,
    json: values.json === true,
    threads: integer("--threads", values.threads, 1, 64) ?? Math.min(2, availableParallelism()),
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

/**
 * Runs the plan in process on `threads` threads (this one included). The
 * threads claim jobs one at a time from a shared counter, largest first, so
 * they finish together however fast each starts; each job draws from its own
 * streams, so which thread ran it changes nothing.
 */
async function runInThreads(settings: Settings, only: ReadonlySet<ExperimentNumber>, threads: number): Promise<Results> {
  const plan = makePlan(settings, only);
  const jobs = jobsOf(plan);
  const outputs: Output[] = new Array(jobs.length);
  const next = new SharedArrayBuffer(4);
  const workers: Promise<void>[] = [];
  // A worker thread loads this file again: only the bundle (.js) runs without a TypeScript loader.
  const extra = import.meta.url.endsWith(".js") ? Math.min(threads, jobs.length) - 1 : 0;
  for (let t = 0; t < extra; t++) {
    const task: WorkerTask = { settings, only: [...only], next };
    workers.push(
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: task });
        worker.once("message", (done: [number, Output][]) => {
          for (const [i, output] of done) outputs[i] = output;
          resolve();
        });
        worker.once("error", reject);
        worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`a simulation thread exited with code ${code}`))));
      }),
    );
  }
  for (const [i, output] of claimJobs(plan, jobs, next)) outputs[i] = output;
  await Promise.all(workers);
  return assemble(plan, collect(jobs, outputs));
}

type Output = ReturnType<typeof runJob>;

/** Runs jobs until none is left to claim; returns each with its index. */
function claimJobs(plan: Plan, jobs: readonly Job[], next: SharedArrayBuffer): [number, Output][] {
  const counter = new Int32Array(next);
  const done: [number, Output][] = [];
  for (let i = Atomics.add(counter, 0, 1); i < jobs.length; i = Atomics.add(counter, 0, 1)) done.push([i, runJob(plan, jobs[i] as Job)]);
  return done;
}

/** A worker thread: claims jobs like the main thread and posts what it ran. */
function workerMain(task: WorkerTask): void {
  const plan = makePlan(task.settings, new Set(task.only));
  parentPort?.postMessage(claimJobs(plan, jobsOf(plan), task.next));
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
    results = await runInThreads(options.settings, options.only, options.threads);
  }
  process.stdout.write(options.json ? `${JSON.stringify(toJson(results, options.only), null, 2)}\n` : renderMarkdown(sections(results, options.only)));
}

if (isMainThread) {
  main().catch((error: unknown) => {
    // A connector that is not there gets a sentence; anything else is a bug and gets its stack.
    const text = error instanceof Error ? (error.name === "LiveSetupError" ? error.message : (error.stack ?? error.message)) : String(error);
    process.stderr.write(`npm run sim: ${text}\n`);
    process.exitCode = 1;
  });
} else {
  workerMain(workerData as WorkerTask);
}
