/**
 * `npm run bench:profile`: where a tool call's Worker time goes. Starts the
 * bench Worker on Miniflare (as `npm run bench` does), samples the isolate's
 * CPU through the DevTools inspector while each workload runs under load,
 * and prints self time per call by owner (a package, or a folder of src/) and
 * the busiest functions; then the Worker's startup, profiled by `wrangler
 * check startup` on the same bundle. Bounded in time; stops its server.
 *
 *   npm run bench:profile                      # the ladder and the two goal tools, 3 s each
 *   npm run bench:profile -- list_note_tabs    # one workload (and startup)
 *   npm run bench:profile -- startup           # startup only
 *   npm run bench:profile -- --seconds 6 --top 30
 *   npm run bench:profile -- --cpu-only baseline list_note_tabs   # CPU a call and rate, no profile (for an A/B)
 *   npm run bench:profile -- --save /tmp/profiles create_note_tab  # also writes each .cpuprofile (and the bundle's map) for DevTools
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startBenchServer } from "./bench-server.js";
import { profileWhile, sourcesOf, summarize, type CpuProfile, type ProfileSummary } from "./cpu-profile.js";
import { createDeckNote } from "./fixtures.js";
import { runLoad } from "./load.js";
import { cpuPerRequest, sampleCpu } from "./process-cpu.js";
import type { MiniflareServer } from "./miniflare-server.js";
import { authOnly, baseline, createNoteTab, listNoteTabs, mcpMessage, type Workload, type WorkloadContext } from "./workloads.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args.splice(at, 2)[1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: a positive number`);
  return value;
};
const seconds = option("--seconds", 3);
const top = option("--top", 15);
const startups = option("--startups", 5);
const saveAt = args.indexOf("--save");
const saveDir = saveAt < 0 ? undefined : args.splice(saveAt, 2)[1];
const cpuOnly = args.includes("--cpu-only");
if (cpuOnly) args.splice(args.indexOf("--cpu-only"), 1);
const CONNECTIONS = 16;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);
const quiet = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", NO_COLOR: "1" };

const bench = await startBenchServer();
const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop.abort(new Error(`stopped by ${signal}`)));
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
  const chosen = args.length === 0 ? all : all.filter((w) => args.includes(w.id));
  if (chosen.length === 0 && !args.includes("startup")) throw new Error(`no such workload: ${args.join(" ")} (one of ${all.map((w) => w.id).join(", ")}, or startup)`);
  const inspector = await server.inspectorUrl();
  const isBundle = (url: string): boolean => url.endsWith(server.bundlePath.split("/").at(-1) ?? "\0");

  for (const workload of chosen) {
    await workload.provision?.(3_000);
    // A warm-up outside the profile: the isolate compiled, the Notes cached.
    await runLoad({ origin: bench.origin, connections: CONNECTIONS, durationSec: 1, requests: workload.requests(), accept: workload.accept, okStatus: workload.okStatus, signal: stop.signal });
    // Unprofiled first: the Worker's CPU a call as the bench reads it (workerd's, from /proc), and its rate.
    await workload.provision?.(Math.ceil(seconds * 3_000));
    const before = sampleCpu(server.pid);
    const plain = await runLoad({ origin: bench.origin, connections: CONNECTIONS, durationSec: seconds, requests: workload.requests(), accept: workload.accept, okStatus: workload.okStatus, signal: stop.signal });
    const cpu = cpuPerRequest(before, sampleCpu(server.pid), plain.responses)["workerd (Worker)"] ?? NaN;
    console.log(`\n# ${workload.id}: ${Math.round(plain.throughput)} calls/s, Worker CPU ${cpu.toFixed(3)} ms a call (unprofiled)`);
    if (cpuOnly) continue;
    await workload.provision?.(Math.ceil(seconds * 3_000));
    let calls = 0;
    const profile = await profileWhile(inspector, async () => {
      const result = await runLoad({ origin: bench.origin, connections: CONNECTIONS, durationSec: seconds, requests: workload.requests(), accept: workload.accept, okStatus: workload.okStatus, signal: stop.signal });
      calls = result.responses;
      if (result.non2xx + result.mcpErrors + result.socketErrors > 0) console.error(`[profile] ${workload.id}: errors (${result.firstFailure ?? "?"})`);
    });
    print(`${workload.id}: ${calls} calls in ${seconds} s`, summarize(profile, source, isBundle), calls);
    if (saveDir !== undefined) {
      await mkdir(saveDir, { recursive: true });
      await writeFile(join(saveDir, `${workload.id}.cpuprofile`), JSON.stringify(profile));
      await copyFile(`${server.bundlePath}.map`, join(saveDir, "bundle.js.map"));
    }
  }
} finally {
  await bench.close();
}

if (!cpuOnly) await profileStartup();

// Startup: the production Worker's module evaluation (wrangler.toml's main, as deployed), as `wrangler check startup` profiles it.
async function profileStartup(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "startup-"));
  try {
    const out = join(dir, "out");
    const bundle = join(dir, "worker.bundle");
    await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", out, "--outfile", bundle], { cwd: ROOT, env: quiet, signal: stop.signal, maxBuffer: 16 * 2 ** 20 });
    const script = join(out, "index.js");
    const source = sourcesOf(script, ROOT);
    const summaries: ProfileSummary[] = [];
    for (let i = 0; i < startups; i++) {
      const outfile = join(dir, `startup-${i}.cpuprofile`);
      await run("npx", ["wrangler", "check", "startup", "--worker", bundle, "--outfile", outfile], { cwd: ROOT, env: quiet, signal: stop.signal });
      const profile = JSON.parse(await readFile(outfile, "utf8")) as CpuProfile;
      summaries.push(summarize(profile, source, (url) => url.endsWith("index.js")));
    }
    summaries.sort((a, b) => a.busyMs - b.busyMs);
    const median = summaries[Math.floor(summaries.length / 2)] as ProfileSummary;
    const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
    const title = `startup, the production bundle (${kib((await stat(script)).size)}): median of ${startups} (${summaries.map((s) => s.busyMs.toFixed(0)).join(", ")} ms)`;
    print(title, median, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function print(title: string, summary: ProfileSummary, calls: number): void {
  const perCall = (ms: number): string => (calls === 1 ? `${ms.toFixed(1)} ms` : `${((ms * 1000) / Math.max(1, calls)).toFixed(0)} µs`);
  console.log(`\n## ${title}: ${perCall(summary.busyMs)} of the Worker thread ${calls === 1 ? "" : "a call"}\n`);
  console.log(`| owner | ${calls === 1 ? "ms" : "µs a call"} | share |\n| --- | ---: | ---: |`);
  for (const s of summary.owners.slice(0, top)) console.log(`| ${s.name} | ${perCall(s.ms)} | ${(s.share * 100).toFixed(1)} % |`);
  console.log(`\n| function | ${calls === 1 ? "ms" : "µs a call"} | share |\n| --- | ---: | ---: |`);
  for (const s of summary.functions.slice(0, top)) console.log(`| ${s.name} | ${perCall(s.ms)} | ${(s.share * 100).toFixed(1)} % |`);
  console.log(`\n| called from | ${calls === 1 ? "ms" : "µs a call"} | share |\n| --- | ---: | ---: |`);
  for (const s of summary.entries.slice(0, top)) console.log(`| ${s.name} | ${perCall(s.ms)} | ${(s.share * 100).toFixed(1)} % |`);
}
