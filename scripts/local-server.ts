/**
 * The connector on this machine: `wrangler dev` on a loopback port, and the
 * demo Note seeded through the person's API. `npm start` and the end-to-end
 * tests share these pieces, so the tests start the server the way people do.
 *
 * @example
 * const server = await startLocalServer({ port: await freePort(), persistTo: await tempPersistDir() });
 * await seedDemoNote(server.url);
 * const { access_token } = await signIn({ origin: server.url, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"] });
 * // … talk to `${server.url}/mcp` with `Authorization: Bearer ${access_token}` …
 * await server.stop();
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { orThrow, PersonApi } from "./lib/person-api.js";
import { signIn } from "./lib/sign-in.js";

export const DEMO_NOTE_ID = "demo";
export const DEMO_NOTE_TITLE = "Demo Note";
/** The local user who owns the demo Note (dev/local.env's LOCAL_USER). */
export const DEMO_USER = "alice";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** wrangler's own launcher, run by this Node directly: through npx a start took about a second more of CPU. */
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const HOST = "127.0.0.1";
/** Lines of wrangler's output kept for the error message when it fails to start. */
const TAIL_LINES = 40;

export interface LocalServerOptions {
  port: number;
  /** wrangler's `--persist-to`; default: its own `.wrangler/state` in the project. */
  persistTo?: string;
  /** Receives each line wrangler prints; default: kept only for error messages. */
  onOutput?: (line: string) => void;
  /** How long to wait for the server's first 200; default 60 s. */
  readyTimeoutMs?: number;
  /** Aborting it while the server starts stops wrangler and rejects. */
  signal?: AbortSignal;
  /**
   * Extra Worker variables, each passed as `--var KEY:VALUE` (they override wrangler.toml's
   * and dev/local.env's). wrangler reads a value that parses as JSON as that JSON: "true"
   * reaches the Worker as a boolean, "3" as a number.
   */
  vars?: Record<string, string>;
  /**
   * Where wrangler's DevTools inspector listens (on 127.0.0.1). Default: a free port, so that
   * servers started at once never race for the same one (wrangler takes 9229, or the next
   * port it finds free, and two wranglers can find the same). `"wrangler"`: wrangler's own
   * choice, 9229 when free, where Chrome's DevTools look (`npm start`).
   */
  inspectorPort?: number | "wrangler";
  /**
   * The Worker's entry module, relative to the project, in place of wrangler.toml's `main`;
   * the bindings stay wrangler.toml's.
   */
  entry?: string;
}

export interface LocalServer {
  /** The server's origin, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** The MCP endpoint, `${url}/mcp`. */
  mcpUrl: string;
  /** The PID of the process this module started (the leader of its own process group). */
  pid: number;
  /** Settles when that process has exited, with its exit code (null: ended by a signal). */
  exited: Promise<number | null>;
  /** Sends a signal to the process and everything it started (wrangler, workerd). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `wrangler dev` on 127.0.0.1:`port` with dev/local.env and waits
 * until `GET /` answers 200. Rejects (after stopping what it started) if
 * wrangler exits first or the wait runs out, with wrangler's last lines.
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const { port, persistTo, onOutput, readyTimeoutMs = 60_000, signal, vars = {}, inspectorPort, entry } = options;
  const inspector = inspectorPort === "wrangler" ? null : (inspectorPort ?? (await freePortBut(port)));
  signal?.throwIfAborted();
  const args = [
    WRANGLER,
    "dev",
    ...(entry === undefined ? [] : [entry]),
    "--ip",
    HOST,
    "--port",
    String(port),
    "--env-file",
    "dev/local.env",
    "--show-interactive-dev-session=false",
  ];
  if (persistTo !== undefined) args.push("--persist-to", persistTo);
  if (inspector !== null) args.push("--inspector-ip", HOST, "--inspector-port", String(inspector));
  for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);

  // A process group of its own: stop() reaches wrangler's launcher, wrangler and workerd by this one PID.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: process.env.NO_COLOR ?? "1",
      // Miniflare otherwise fetches a sample `request.cf` object from Cloudflare at startup and, offline, prints the
      // failed lookup's stack trace twice; the Worker reads nothing of `request.cf`, so its placeholder does.
      CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not start `wrangler dev` (is wrangler installed? run npm install)");

  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      onOutput?.(line);
    });
  }

  let done = false;
  const kill = (sig: NodeJS.Signals): void => {
    if (done) return; // the group is gone; its number may belong to someone else by now
    try {
      process.kill(-pid, sig);
    } catch {
      // The group is gone already.
    }
  };
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      // The leader (wrangler's launcher) can go first: give the rest of its group (wrangler, workerd)
      // a moment to finish on its own, then end whatever is left.
      void groupGone(pid, 3_000).then(() => {
        kill("SIGKILL");
        done = true;
        resolve(code);
      });
    });
    child.once("error", () => {
      done = true;
      resolve(null);
    });
  });

  const stop = async (graceMs = 5_000): Promise<void> => {
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const url = `http://${HOST}:${port}`;
  const server: LocalServer = { url, mcpUrl: `${url}/mcp`, pid, exited, kill, stop };
  const onAbort = (): void => kill("SIGTERM");
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await waitUntilReady(url, exited, readyTimeoutMs);
    signal?.throwIfAborted();
  } catch (error) {
    await stop();
    if (signal?.aborted === true) throw new LocalServerStartError("stopped while starting", []);
    throw new LocalServerStartError(error instanceof Error ? error.message : String(error), tail);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return server;
}

/** wrangler dev did not come up; `message` ends with its last lines of output. */
export class LocalServerStartError extends Error {
  constructor(
    /** Why, in one line. */
    readonly reason: string,
    /** The last lines wrangler printed. */
    readonly output: readonly string[],
  ) {
    super(output.length === 0 ? reason : `${reason}\n--- last lines of wrangler dev ---\n${output.join("\n")}`);
    this.name = "LocalServerStartError";
  }
}

/** Polls `GET /` until it answers 200; fails if the process exits or time runs out. */
async function waitUntilReady(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let died: number | null | undefined;
  void exited.then((code) => {
    died = code;
  });
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (died !== undefined) throw new Error(`wrangler dev exited (code ${String(died)}) before ${url} answered`);
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await Promise.race([sleep(250), exited]);
  }
  throw new Error(`${url} did not answer 200 within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
}

/** Resolves once no process is left in group `pgid`, or after `timeoutMs`. */
async function groupGone(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A TCP port free on 127.0.0.1 right now: the one the OS gives a listener on port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const listener = createServer();
    listener.unref();
    listener.once("error", reject);
    listener.listen(0, HOST, () => {
      const address = listener.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      listener.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}

/** A free loopback port other than `taken` (a port chosen but not yet bound: the system may offer it again). */
async function freePortBut(taken: number): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port !== taken) return port;
  }
}

/** A fresh, empty directory under the OS's temp directory, for a throwaway `--persist-to`. */
export function tempPersistDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "notes-connector-e2e-"));
}

export function removeDir(path: string): Promise<void> {
  return rm(path, { recursive: true, force: true });
}

export interface SeededNote {
  note_id: string;
  /** False when the Note was there already (a 409 `note_exists`). */
  created: boolean;
  /** The Note's version after seeding. */
  version: number;
  /** The Slides tab added with a fresh Note; absent when the Note was there already. */
  slides_tab_id?: string;
}

/**
 * Seeds the demo Note through the person's API, idempotently: creates it
 * (a 409 `note_exists` means it is there already), approves it for
 * connectors, and gives a fresh Note one Slides tab, "Q3 deck". It signs in
 * as the demo user (or `user`) through the local consent page for a token to
 * the person's API (`osfoundry:app`, audience `/api/v1`). `noteId`: the same
 * Note under another ID (a test's own, beside the demo Note on a shared server).
 */
export async function seedDemoNote(url: string, options: { user?: string; noteId?: string } = {}): Promise<SeededNote> {
  const { user = DEMO_USER, noteId = DEMO_NOTE_ID } = options;
  const { access_token: token } = await signIn({ origin: url, user, scopes: ["osfoundry:app"], resource: "api" });
  const api = new PersonApi({ origin: url, token, timeoutMs: 10_000 });
  const created = await api.createNote({
    note_id: noteId,
    title: DEMO_NOTE_TITLE,
    markdown: "# Demo Note\n\nA Note for trying the connector: an agent adds decks, slides and sources here.\n",
  });
  if (!created.ok && created.error.code !== "note_exists") orThrow(created, "create the demo Note");
  const { version } = orThrow(await api.setApproval(noteId, { approved: true }), "approve the demo Note");
  if (!created.ok) return { note_id: noteId, created: false, version };

  const added = orThrow(await api.addTab(noteId, { tab_type: "slides", label: "Q3 deck" }), "add the demo Slides tab");
  return { note_id: noteId, created: true, version: added.version, slides_tab_id: added.tab.id };
}
