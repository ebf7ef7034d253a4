/**
 * The connector for a benchmark: the bench Worker (bench/worker.ts: the
 * production app and Note object plus the bench routes) with wrangler.toml's
 * bindings, on a free loopback port with a throwaway persistence directory,
 * plus alice's two tokens: the agent's (read + write, for /mcp) and the app's
 * (for /api/v1), and its DevTools inspector on another free port, for the
 * Worker's heap. By default on Miniflare directly (bench/miniflare-server.ts:
 * the deployment's bundle, no dev proxy); with `runtime: "wrangler"`, under
 * `wrangler dev` as `npm start` starts it (scripts/local-server.ts). `close()`
 * stops the server and removes the directory.
 */
import { PersonApi } from "../scripts/lib/person-api.js";
import { signIn } from "../scripts/lib/sign-in.js";
import { fileURLToPath } from "node:url";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../scripts/local-server.js";
import { workerHeap, type HeapUsage } from "./heap.js";
import { startMiniflareServer } from "./miniflare-server.js";
import type { BenchRuntime } from "./options.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The bench Worker's entry, relative to the project. */
export const BENCH_ENTRY = "bench/worker.ts";

export interface BenchServer {
  runtime: BenchRuntime;
  /** `pid`: the root of the server's processes (wrangler dev: npx's process group; Miniflare: its workerd). */
  server: LocalServer;
  origin: string;
  /** alice's agent token: osfoundry:read + osfoundry:write, resource /mcp. */
  agentToken: string;
  /** The person's API as alice (osfoundry:app, resource /api/v1). */
  api: PersonApi;
  /** What the server printed that bears on the figures: reloads (wrangler dev: a watched file changed mid-run) and error lines. */
  events(): ServerEvents;
  /** The Worker's DevTools WebSocket; throws for a server started without an inspector. */
  inspectorUrl(): Promise<string>;
  /** The Worker's JavaScript heap after a full collection; null without an inspector, or if it did not answer (why goes to `events().errorLines`). */
  heap(): Promise<HeapUsage | null>;
  close(): Promise<void>;
}

export interface ServerEvents {
  /** "Reloading local server": wrangler rebuilt and restarted the Worker (its objects too) because a file changed. Always 0 on Miniflare, which watches nothing. */
  reloads: number;
  /** Lines wrangler or the Worker printed as errors after the server was ready (Miniflare: the Worker's stderr). */
  errorLines: string[];
}

export interface BenchServerOptions {
  runtime?: BenchRuntime;
  vars?: Record<string, string>;
  /**
   * The Worker's DevTools inspector (default: on), for heap readings and
   * profiles. Production has none, and an open one makes every console.log
   * cost the Worker a captured stack: the timed runs' server goes without.
   * wrangler dev always opens one.
   */
  inspector?: boolean;
  signal?: AbortSignal;
}

export async function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  const runtime = options.runtime ?? "miniflare";
  const inspector = runtime === "wrangler" || options.inspector !== false;
  const persistTo = await tempPersistDir();
  let server: LocalServer | undefined;
  let ready = false;
  const events: ServerEvents = { reloads: 0, errorLines: [] };
  const onError = (line: string): void => {
    if (ready && events.errorLines.length < 20) events.errorLines.push(line.trim().slice(0, 300));
  };
  const onOutput = (line: string): void => {
    if (line.includes("Reloading local server")) events.reloads += 1;
    else if (/\berror\b/i.test(line)) onError(line);
  };
  const close = async (): Promise<void> => {
    await server?.stop();
    await removeDir(persistTo);
  };
  try {
    const inspectorPort = inspector ? await freePort() : undefined;
    const port = await freePort();
    let inspectorUrl: () => Promise<string>;
    if (runtime === "miniflare") {
      const mf = await startMiniflareServer({ root: ROOT, entry: BENCH_ENTRY, port, inspectorPort, dir: persistTo, vars: options.vars, onError, signal: options.signal });
      server = mf;
      inspectorUrl = () => mf.inspectorUrl();
    } else {
      server = await startLocalServer({ port, persistTo, entry: BENCH_ENTRY, vars: options.vars, inspectorPort, onOutput, signal: options.signal });
      inspectorUrl = async () => `ws://127.0.0.1:${inspectorPort}/ws`;
    }
    ready = true;
    const origin = server.url;
    const agent = await signIn({ origin, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" });
    const app = await signIn({ origin, user: "alice", scopes: ["osfoundry:app"], resource: "api" });
    const api = new PersonApi({ origin, token: app.access_token, timeoutMs: 60_000 });
    // The production Worker has no bench routes: a 404 here means the server runs another entry.
    const probe = await fetch(`${origin}/bench/baseline`);
    if ((await probe.text()) !== "ok") throw new Error(`GET /bench/baseline answered HTTP ${probe.status}: is ${BENCH_ENTRY} the Worker the server runs?`);
    const heap = async (): Promise<HeapUsage | null> => {
      if (!inspector) return null;
      try {
        return await workerHeap(await inspectorUrl());
      } catch (error) {
        events.errorLines.push(`heap reading: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      }
    };
    return { runtime, server, origin, agentToken: agent.access_token, api, events: () => ({ reloads: events.reloads, errorLines: [...events.errorLines] }), inspectorUrl, heap, close };
  } catch (error) {
    await close();
    throw error;
  }
}
