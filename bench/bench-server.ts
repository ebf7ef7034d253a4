/**
 * The connector for a benchmark: `wrangler dev` started as `npm start` starts
 * it (scripts/local-server.ts), with the same wrangler.toml but the bench
 * Worker as its entry (bench/worker.ts: the production app and Note object
 * plus the bench routes), on a free loopback port with a throwaway
 * persistence directory, plus alice's two tokens: the agent's (read + write,
 * for /mcp) and the app's (for /api/v1), and its DevTools inspector on
 * another free port, for the Worker's heap. `close()` stops the server and
 * removes the directory.
 */
import { PersonApi } from "../scripts/lib/person-api.js";
import { signIn } from "../scripts/lib/sign-in.js";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../scripts/local-server.js";
import { workerHeap, type HeapUsage } from "./heap.js";

/** The bench Worker's entry, relative to the project. */
export const BENCH_ENTRY = "bench/worker.ts";

export interface BenchServer {
  server: LocalServer;
  origin: string;
  /** alice's agent token: osfoundry:read + osfoundry:write, resource /mcp. */
  agentToken: string;
  /** The person's API as alice (osfoundry:app, resource /api/v1). */
  api: PersonApi;
  /** What wrangler dev printed that bears on the figures: reloads (a watched file changed mid-run) and error lines. */
  events(): ServerEvents;
  /** The port of the Worker's DevTools inspector (127.0.0.1). */
  inspectorPort: number;
  /** The Worker's JavaScript heap after a full collection; null if the inspector did not answer (why goes to `events().errorLines`). */
  heap(): Promise<HeapUsage | null>;
  close(): Promise<void>;
}

export interface ServerEvents {
  /** "Reloading local server": wrangler rebuilt and restarted the Worker (its objects too) because a file changed. */
  reloads: number;
  /** Lines wrangler or the Worker printed as errors after the server was ready. */
  errorLines: string[];
}

export async function startBenchServer(options: { vars?: Record<string, string>; signal?: AbortSignal } = {}): Promise<BenchServer> {
  const persistTo = await tempPersistDir();
  let server: LocalServer | undefined;
  let ready = false;
  const events: ServerEvents = { reloads: 0, errorLines: [] };
  const onOutput = (line: string): void => {
    if (line.includes("Reloading local server")) events.reloads += 1;
    else if (ready && /\berror\b/i.test(line) && events.errorLines.length < 20) events.errorLines.push(line.trim().slice(0, 300));
  };
  const close = async (): Promise<void> => {
    await server?.stop();
    await removeDir(persistTo);
  };
  try {
    const inspectorPort = await freePort();
    server = await startLocalServer({ port: await freePort(), persistTo, entry: BENCH_ENTRY, vars: options.vars, inspectorPort, onOutput, signal: options.signal });
    ready = true;
    const origin = server.url;
    const agent = await signIn({ origin, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" });
    const app = await signIn({ origin, user: "alice", scopes: ["osfoundry:app"], resource: "api" });
    const api = new PersonApi({ origin, token: app.access_token, timeoutMs: 60_000 });
    // The production Worker has no bench routes: a 404 here means wrangler ran another entry.
    const probe = await fetch(`${origin}/bench/baseline`);
    if ((await probe.text()) !== "ok") throw new Error(`GET /bench/baseline answered HTTP ${probe.status}: is ${BENCH_ENTRY} the Worker wrangler dev runs?`);
    const heap = async (): Promise<HeapUsage | null> => {
      try {
        return await workerHeap(inspectorPort);
      } catch (error) {
        events.errorLines.push(`heap reading: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      }
    };
    return { server, origin, agentToken: agent.access_token, api, events: () => ({ reloads: events.reloads, errorLines: [...events.errorLines] }), inspectorPort, heap, close };
  } catch (error) {
    await close();
    throw error;
  }
}
