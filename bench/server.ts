/**
 * The connector for a benchmark, on Miniflare directly, as production runs it:
 * one workerd, no dev proxy, no inspector unless asked (the memory readings
 * ask). The Worker is bench/worker.ts (the production app and Note object plus
 * the bench routes) bundled once a run by `wrangler deploy --dry-run` (what a
 * deployment uploads); its bindings are wrangler.toml's as wrangler turns them
 * into Miniflare options, with dev/local.env's variables. Each server gets a
 * throwaway storage folder on a free loopback port, and alice's two tokens:
 * the agent's (read + write, for /mcp) and the app's (the person's API).
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { PersonApi } from "../scripts/lib/person-api.js";
import { signIn } from "../scripts/lib/sign-in.js";
import { freePort } from "../scripts/local-server.js";
import { workerHeap, type HeapUsage } from "./heap.js";
import { workerdChildren } from "./proc.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";

export interface Bundle {
  dir: string;
  script: string;
  remove(): Promise<void>;
}

export async function bundleWorker(signal?: AbortSignal): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), "notes-connector-bench-"));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "bench/worker.ts", "--dry-run", "--outdir", dir], {
      cwd: ROOT,
      signal,
      maxBuffer: 16 * 2 ** 20,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", NO_COLOR: "1" },
    });
    // wrangler names the bundle after the entry (worker.js) and writes no other .js.
    const script = readdirSync(dir).find((name) => name.endsWith(".js"));
    if (script === undefined) throw new Error("wrangler deploy --dry-run wrote no .js into its --outdir");
    return { dir, script, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

export interface BenchServer {
  origin: string;
  /** The workerd process that runs the Worker and its Durable Objects. */
  pid: number;
  /** alice's agent token: osfoundry:read + osfoundry:write, resource /mcp. */
  agentToken: string;
  /** The person's API as alice. */
  api: PersonApi;
  /** Lines the Worker printed to stderr after it was up. */
  errorLines: string[];
  /** The Worker's JavaScript heap after a full collection; null without an inspector. */
  heap(): Promise<HeapUsage | null>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Variables over wrangler.toml's and dev/local.env's. */
  vars?: Record<string, string>;
  /** The DevTools inspector, for heap readings. Production has none; the timed runs' server goes without. */
  inspector?: boolean;
  signal?: AbortSignal;
}

export async function startBenchServer(bundle: Bundle, options: ServerOptions = {}): Promise<BenchServer> {
  const { vars = {}, inspector = false, signal } = options;
  const state = await mkdtemp(join(tmpdir(), "notes-connector-bench-state-"));
  await mkdir(join(state, "do"));
  const configPath = join(ROOT, "wrangler.toml");
  const { unstable_getMiniflareWorkerOptions, unstable_getVarsForDev, unstable_readConfig } = await keepingSignals(() => import("wrangler"));
  const config = unstable_readConfig({ config: configPath });
  const bindings: Record<string, string> = {};
  for (const [name, binding] of Object.entries(unstable_getVarsForDev(config.configPath, ["dev/local.env"], config.vars, undefined, true))) {
    if (typeof binding.value !== "string") throw new Error(`wrangler.toml's var ${name}: the bench passes string variables only`);
    bindings[name] = binding.value;
  }
  const errorLines: string[] = [];
  let up = false;
  const port = await freePort();
  const inspectorPort = inspector ? await freePort() : undefined;
  const before = new Set(workerdChildren());
  const mf = await keepingSignals(
    () =>
      new Miniflare({
        ...unstable_getMiniflareWorkerOptions(configPath).workerOptions,
        name: config.name,
        modules: true,
        scriptPath: join(bundle.dir, bundle.script),
        // The bundle's source map points outside the folder: without this, workerd refuses "..".
        modulesRoot: bundle.dir,
        bindings: { ...bindings, ...vars },
        host: HOST,
        port,
        ...(inspectorPort === undefined ? {} : { inspectorPort, inspectorHost: HOST, unsafeInspectorProxy: true }),
        durableObjectsPersist: join(state, "do"),
        kvPersist: join(state, "kv"),
        handleRuntimeStdio(stdout: Readable, stderr: Readable) {
          stdout.resume(); // bench/worker.ts drops the request log; nothing else prints there
          createInterface({ input: stderr, crlfDelay: Infinity }).on("line", (line) => {
            if (up && line.trim() !== "" && errorLines.length < 20) errorLines.push(line.trim().slice(0, 300));
          });
        },
      }),
  );
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= mf.dispose().finally(() => rm(state, { recursive: true, force: true })));
  try {
    await mf.ready;
    signal?.throwIfAborted();
    up = true;
    const pid = workerdChildren().find((p) => !before.has(p));
    if (pid === undefined) throw new Error("Miniflare is up but its workerd was not found among this process's children");
    const origin = `http://${HOST}:${port}`;
    const agent = await signIn({ origin, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" });
    const app = await signIn({ origin, user: "alice", scopes: ["osfoundry:app"], resource: "api" });
    const api = new PersonApi({ origin, token: app.access_token, timeoutMs: 60_000 });
    const probe = await fetch(`${origin}/bench/baseline`);
    if ((await probe.text()) !== "ok") throw new Error(`GET /bench/baseline answered HTTP ${probe.status}: the server does not run bench/worker.ts`);
    const heap = async (): Promise<HeapUsage | null> => {
      if (inspectorPort === undefined) return null;
      const targets = (await (await fetch(`http://${HOST}:${inspectorPort}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
      const url = targets[0]?.webSocketDebuggerUrl;
      if (url === undefined) throw new Error(`the inspector on port ${inspectorPort} lists no Worker`);
      return workerHeap(url);
    };
    return { origin, pid, agentToken: agent.access_token, api, errorLines, heap, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `start` and removes the SIGINT/SIGTERM handlers it added (they exit at once): bench/stop-signals.ts cleans up first. */
async function keepingSignals<T>(start: () => T | Promise<T>): Promise<T> {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  try {
    return await start();
  } finally {
    for (const s of signals) for (const listener of process.listeners(s)) if (!before.get(s)?.has(listener)) process.off(s, listener);
  }
}

