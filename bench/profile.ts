/**
 * `npm run bench:profile`: where a tool call's Worker time goes. Starts the
 * bench Worker on Miniflare (as `npm run bench` does, but with the inspector
 * open), measures each workload's Worker CPU a call unprofiled, then samples
 * the isolate's CPU through the DevTools inspector while each runs again,
 * and prints self time a call by owner (a package, or a folder of src/), by
 * function, and by call into a library; then the production Worker's startup,
 * as `wrangler check startup` profiles it. Bounded in time; stops its server.
 *
 *   npm run bench:profile                      # the ladder and the goal tools, 3 s each, then startup
 *   npm run bench:profile -- list_note_tabs    # one workload
 *   npm run bench:profile -- startup           # startup only
 *   npm run bench:profile -- --seconds 6 --top 30 --startups 7
 *   npm run bench:profile -- --cpu-only baseline list_note_tabs   # CPU a call and rate only (for an A/B)
 *   npm run bench:profile -- --save profiles create_note_tab      # also writes each .cpuprofile and the bundle's map (startup too), for DevTools
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startBenchServer } from "./bench-server.js";
import { profileWhile, sourcesOf, summarize, type CpuProfile, type ProfileSummary } from "./cpu-profile.js";
import { createDeckNote } from "./fixtures.js";
import { errorCount, runLoad } from "./load.js";
import { measure } from "./measure-workload.js";
import { FULL } from "./options.js";
import type { MiniflareServer } from "./miniflare-server.js";
import { stopOnSignals } from "./stop-signals.js";
import { authOnly, baseline, createNoteTab, listNoteTabs, mcpMessage, type Workload, type WorkloadContext } from "./workloads.js";

const WORKLOADS = ["baseline", "auth_only", "mcp_ping", "mcp_tools_list", "list_note_tabs", "list_note_tabs_2026", "create_note_tab"] as const;
const CONNECTIONS = 16;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);
const quiet = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", NO_COLOR: "1" };

interface Options {
  seconds: number;
  top: number;
  startups: number;
  cpuOnly: boolean;
  saveDir?: string;
  workloads: string[];
  startup: boolean;
}

function parse(argv: readonly string[]): Options {
  const options: Options = { seconds: 3, top: 15, startups: 5, cpuOnly: false, workloads: [], startup: false };
  const number = (flag: string, value: string | undefined, max: number, whole: boolean): number => {
    const n = Number(value);
    const fits = value !== undefined && value.trim() !== "" && n > 0 && n <= max && (!whole || Number.isInteger(n));
    if (!fits) throw new Error(`${flag}: ${whole ? "a whole number" : "a number"} from ${whole ? 1 : "above 0"} to ${max}, not ${value ?? "nothing"}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--seconds") options.seconds = number(arg, argv[++i], 600, false);
    else if (arg === "--top") options.top = number(arg, argv[++i], 1_000, true);
    else if (arg === "--startups") options.startups = number(arg, argv[++i], 50, true);
    else if (arg === "--cpu-only") options.cpuOnly = true;
    else if (arg === "--save") {
      const dir = argv[++i];
      if (dir === undefined || dir.startsWith("--")) throw new Error(`--save: a folder, not ${dir ?? "nothing"}`);
      options.saveDir = dir;
    } else if (arg === "startup") options.startup = true;
    else if ((WORKLOADS as readonly string[]).includes(arg)) options.workloads.push(arg);
    else throw new Error(`unknown argument ${arg}: a workload (${WORKLOADS.join(", ")}), startup, or --seconds, --top, --startups, --cpu-only, --save`);
  }
  if (options.workloads.length === 0 && !options.startup) {
    options.workloads = [...WORKLOADS];
    options.startup = !options.cpuOnly;
  }
  if (options.cpuOnly && options.startup) throw new Error("--cpu-only measures workloads; startup is a profile (leave one out)");
  return options;
}

let options: Options;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}

const stopping = stopOnSignals("profile");
try {
  if (options.workloads.length > 0) await profileWorkloads(options);
  if (options.startup) await profileStartup(options);
} catch (error) {
  if (!stopping.aborted) throw error;
  console.error("[profile] stopped; the server is down.");
  process.exit(130);
}

/** Every workload unprofiled first (no profiling session has touched the isolate yet), then each one profiled. */
async function profileWorkloads({ seconds, cpuOnly, saveDir, workloads }: Options): Promise<void> {
  const bench = await startBenchServer({ signal: stopping });
  try {
    const server = bench.server as MiniflareServer;
    const source = sourcesOf(server.bundlePath, ROOT);
    const ctx: WorkloadContext = { origin: bench.origin, agentToken: bench.agentToken, api: bench.api, connections: CONNECTIONS };
    const deck = await createDeckNote(bench.api, "deck-profile");
    const all: Workload[] = [
      baseline("baseline", "baseline"),
      authOnly(ctx),
      mcpMessage(ctx, "ping"),
      mcpMessage(ctx, "tools/list"),
      listNoteTabs(ctx, deck),
      listNoteTabs(ctx, deck, "tools", "list_note_tabs_2026", "2026-07-28"),
      createNoteTab(ctx),
    ];
    const chosen = all.filter((w) => workloads.includes(w.id));
    // Unprofiled: the bench's own measurement (a warm-up, the timed run, the Worker's CPU from /proc).
    const plainOptions = { ...FULL, durationSec: seconds, warmupSec: 1, log: (line: string) => console.error(line), signal: stopping };
    for (const workload of chosen) {
      const row = await measure(bench, workload, plainOptions, null, 0);
      const cpu = row.cpuMsPerRequest["workerd (Worker)"] ?? NaN;
      console.log(`# ${workload.id}: ${Math.round(row.result.throughput)} calls/s, Worker CPU ${cpu.toFixed(3)} ms a call (unprofiled)`);
    }
    if (cpuOnly) return;

    const inspector = await bench.inspectorUrl();
    const bundle = basename(server.bundlePath);
    for (const workload of chosen) {
      let calls = 0;
      await workload.provision?.(Math.ceil(seconds * 3_000));
      const profile = await profileWhile(inspector, async () => {
        const result = await runLoad({ origin: bench.origin, connections: CONNECTIONS, durationSec: seconds, requests: workload.requests(), accept: workload.accept, okStatus: workload.okStatus, signal: stopping });
        if (errorCount(result) > 0) console.error(`[profile] ${workload.id}: errors (${result.firstFailure ?? "?"})`);
        calls = result.responses;
      });
      print(`${workload.id}: ${calls} calls in ${seconds} s`, summarize(profile, source, (url) => url.endsWith(bundle)), { calls });
      if (saveDir !== undefined) {
        await mkdir(saveDir, { recursive: true });
        await writeFile(join(saveDir, `${workload.id}.cpuprofile`), JSON.stringify(profile));
        await copyFile(`${server.bundlePath}.map`, join(saveDir, `${bundle}.map`));
      }
    }
  } finally {
    await bench.close();
  }
}

/** The production Worker's module evaluation (wrangler.toml's main, as deployed), as `wrangler check startup` profiles it. */
async function profileStartup({ startups, saveDir }: Options): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "startup-"));
  try {
    const out = join(dir, "out");
    const bundle = join(dir, "worker.bundle");
    await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", out, "--outfile", bundle], { cwd: ROOT, env: quiet, signal: stopping, maxBuffer: 16 * 2 ** 20 });
    const script = join(out, "index.js");
    const source = sourcesOf(script, ROOT);
    const summaries: ProfileSummary[] = [];
    for (let i = 0; i < startups; i++) {
      const outfile = join(dir, `startup-${i}.cpuprofile`);
      await run("npx", ["wrangler", "check", "startup", "--worker", bundle, "--outfile", outfile], { cwd: ROOT, env: quiet, signal: stopping });
      const profile = JSON.parse(await readFile(outfile, "utf8")) as CpuProfile;
      summaries.push(summarize(profile, source, (url) => url.endsWith("index.js")));
      if (saveDir !== undefined) {
        await mkdir(saveDir, { recursive: true });
        await copyFile(outfile, join(saveDir, `startup-${i}.cpuprofile`));
        await copyFile(`${script}.map`, join(saveDir, "index.js.map"));
      }
    }
    summaries.sort((a, b) => a.busyMs - b.busyMs);
    const median = summaries[Math.floor(summaries.length / 2)] as ProfileSummary;
    const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
    print(`startup, the production bundle (${kib((await stat(script)).size)}): median of ${startups} (${summaries.map((s) => s.busyMs.toFixed(0)).join(", ")} ms)`, median, "startup");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The summary as Markdown tables: per call (`calls`), or in ms for a startup. */
function print(title: string, summary: ProfileSummary, per: { calls: number } | "startup"): void {
  const unit = per === "startup" ? "ms" : "µs a call";
  const amount = (ms: number): string => (per === "startup" ? `${ms.toFixed(1)} ms` : `${((ms * 1000) / Math.max(1, per.calls)).toFixed(0)} µs`);
  console.log(`\n## ${title}: ${amount(summary.busyMs)} of the Worker thread${per === "startup" ? "" : " a call"}\n`);
  for (const [heading, shares] of [
    ["owner", summary.owners],
    ["function", summary.functions],
    ["called from", summary.entries],
  ] as const) {
    console.log(`| ${heading} | ${unit} | share |\n| --- | ---: | ---: |`);
    for (const s of shares.slice(0, options.top)) console.log(`| ${s.name} | ${amount(s.ms)} | ${(s.share * 100).toFixed(1)} % |`);
    console.log("");
  }
}
