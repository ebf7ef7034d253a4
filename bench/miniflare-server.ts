/**
 * The bench Worker on Miniflare directly: what production runs, without
 * `wrangler dev`'s proxy workerd and request logging in front of it. The
 * Worker is the bundle `wrangler deploy --dry-run` builds (what a deployment
 * uploads), and its bindings are wrangler.toml's as wrangler itself turns them
 * into Miniflare options, with the variables of dev/local.env, as `wrangler
 * dev --env-file dev/local.env` gives them. One workerd process, a child of
 * this one, runs the Worker and its Durable Objects.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import type { LocalServer } from "../scripts/local-server.js";
import { descendants } from "./process-memory.js";

const run = promisify(execFile);
const HOST = "127.0.0.1";

export interface MiniflareServer extends LocalServer {
  /** The Worker's DevTools WebSocket (Miniflare's inspector proxy on 127.0.0.1); throws for a server started without one. */
  inspectorUrl(): Promise<string>;
  /** Bytes of the bundle Miniflare runs (the entry module `wrangler deploy --dry-run` wrote). */
  bundleBytes: number;
  /** That bundle's path (its source map is beside it, `.map` appended). */
  bundlePath: string;
}

export interface MiniflareServerOptions {
  /** The project's root (where wrangler.toml is). */
  root: string;
  /** The Worker's entry module, relative to the root, in place of wrangler.toml's `main`. */
  entry: string;
  port: number;
  /**
   * The Worker's DevTools inspector, for heap readings and profiles; none when
   * undefined, as in production. An open inspector makes every console.log
   * dearer (the runtime captures a stack for it), so timed runs go without.
   */
  inspectorPort?: number;
  /** A throwaway folder: the bundle and the Durable Objects' and KV's storage go in it. */
  dir: string;
  /** Variables over wrangler.toml's and dev/local.env's. */
  vars?: Record<string, string>;
  /** Each line the Worker prints to stderr (its console.error). stdout (its console.log: a line per request) is read and dropped. */
  onError?: (line: string) => void;
  signal?: AbortSignal;
}

/** Bundles `entry` as a deployment would and starts it on Miniflare at 127.0.0.1:`port`. */
export async function startMiniflareServer(options: MiniflareServerOptions): Promise<MiniflareServer> {
  const { root, entry, port, inspectorPort, dir, vars = {}, onError, signal } = options;
  const outdir = join(dir, "bundle");
  await run("npx", ["wrangler", "deploy", entry, "--dry-run", "--outdir", outdir], {
    cwd: root,
    signal,
    maxBuffer: 16 * 2 ** 20,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", NO_COLOR: "1" },
  });
  // wrangler names the bundle after the entry (bench/worker.ts → worker.js) and writes nothing else that ends in .js.
  const script = readdirSync(outdir).find((name) => name.endsWith(".js"));
  if (script === undefined) throw new Error(`wrangler deploy --dry-run wrote no .js into its --outdir`);

  const configPath = join(root, "wrangler.toml");
  const { unstable_getMiniflareWorkerOptions, unstable_getVarsForDev, unstable_readConfig } = await keepingSignals(() => import("wrangler"));
  const config = unstable_readConfig({ config: configPath });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const local = unstable_getVarsForDev(config.configPath, ["dev/local.env"], config.vars, undefined, true);
  const bindings: Record<string, string> = {};
  for (const [name, binding] of Object.entries(local)) {
    if (typeof binding.value !== "string") throw new Error(`wrangler.toml's var ${name}: the bench passes string variables only`);
    bindings[name] = binding.value;
  }
  Object.assign(bindings, vars);
  await mkdir(join(dir, "state"), { recursive: true });

  // Miniflare's workerd is a child of this process; the one that was not there before is ours.
  const workerdsBefore = new Set(workerdChildren());
  const mf = await keepingSignals(() => new Miniflare({
    ...workerOptions,
    name: config.name,
    modules: true,
    scriptPath: join(outdir, script),
    // The bundle's source map points outside the folder: without this, workerd refuses "..".
    modulesRoot: outdir,
    bindings,
    host: HOST,
    port,
    ...(inspectorPort === undefined ? {} : { inspectorPort, inspectorHost: HOST, unsafeInspectorProxy: true }),
    durableObjectsPersist: join(dir, "state", "do"),
    kvPersist: join(dir, "state", "kv"),
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // The Worker's request log lines (production sends them to Workers Logs): read and dropped here.
      stdout.resume();
      createInterface({ input: stderr, crlfDelay: Infinity }).on("line", (line) => {
        if (line.trim() !== "") onError?.(line);
      });
    },
  }));
  let disposed: Promise<void> | undefined;
  const dispose = (): Promise<void> => (disposed ??= mf.dispose());
  try {
    await mf.ready;
    signal?.throwIfAborted();
  } catch (error) {
    await dispose();
    throw error;
  }
  const pid = workerdChildren().find((p) => !workerdsBefore.has(p));
  if (pid === undefined) {
    await dispose();
    throw new Error("Miniflare is up but its workerd process was not found among this process's children");
  }
  let resolveExited: (code: number | null) => void = () => undefined;
  const exited = new Promise<number | null>((resolve) => (resolveExited = resolve));
  const stop = async (): Promise<void> => {
    await dispose();
    resolveExited(null);
  };
  const url = `http://${HOST}:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    pid,
    exited,
    kill: () => void stop(),
    stop,
    bundleBytes: readFileSync(join(outdir, script)).byteLength,
    bundlePath: join(outdir, script),
    async inspectorUrl() {
      if (inspectorPort === undefined) throw new Error("this Miniflare server was started without an inspector");
      const response = await fetch(`http://${HOST}:${inspectorPort}/json/list`);
      const targets = (await response.json()) as { webSocketDebuggerUrl?: string }[];
      const target = targets[0]?.webSocketDebuggerUrl;
      if (target === undefined) throw new Error(`Miniflare's inspector on port ${inspectorPort} lists no Worker`);
      return target;
    },
  };
}

/**
 * Runs `start` (importing wrangler; constructing Miniflare) and takes back
 * SIGINT and SIGTERM from the handlers it registered: both exit the process at
 * once (Miniflare after disposing its own runtime), and the bench's own
 * (bench/stop-signals.ts) must first stop its load and server and remove its folders.
 */
async function keepingSignals<T>(start: () => T | Promise<T>): Promise<T> {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  try {
    return await start();
  } finally {
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
}

/** PIDs of the workerd processes whose parent is this process. */
function workerdChildren(): number[] {
  return descendants(process.pid)
    .filter((p) => p.comm === "workerd" && p.ppid === process.pid)
    .map((p) => p.pid);
}
