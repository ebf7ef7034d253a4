import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The settings of dev/local.env, the file `npm start` gives wrangler: the tests run with the same. */
function localEnv(): Record<string, string> {
  const text = readFileSync(new URL("./dev/local.env", import.meta.url), "utf8");
  return Object.fromEntries([...text.matchAll(/^([A-Z_]+)='(.*)'$/gm)].map((m) => [m[1] as string, m[2] as string]));
}

/** The generated-history test's settings (test/workers/history.test.ts), when set: workerd sees only bindings. */
function historySettings(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith("HISTORY_") && e[1] !== undefined));
}

/**
 * The abuse limits' own tests (test/limits) run with the limits on and small, so a
 * test trips one in a few calls; every other test runs with them off, as
 * dev/local.env has it (a test file that signs in five times must not meet them).
 * The small limiters are bindings of their own beside wrangler.toml's; the limits'
 * files give the Worker them under the usual names (test/limits/support.ts).
 */
const SMALL_LIMITS = {
  SMALL_REGISTER_LIMIT: { simple: { limit: 5, period: 60 } },
  SMALL_AUTHORIZE_LIMIT: { simple: { limit: 6, period: 60 } },
  SMALL_TOOL_WRITE_LIMIT: { simple: { limit: 3, period: 60 } },
  SMALL_TOOL_READ_LIMIT: { simple: { limit: 6, period: 60 } },
  SMALL_PUBLIC_MCP_LIMIT: { simple: { limit: 6, period: 60 } },
};

/**
 * Unit tests of code that needs nothing of workerd (the domain, the tooling, the
 * page's and app's view code): Node runs them. Those of what the runtime itself
 * decides (its URL parser, its fetch and streams) stay in the workers project.
 */
const IN_WORKERD = ["test/unit/url.test.ts", "test/unit/provider-answer.test.ts"];

/**
 * The files that take longest, started first and in this order, so that no long file starts
 * last and runs alone at the end while the other cores idle (vitest's own order goes project
 * by project, by file size on a fresh clone: the history test started last and the suite
 * took a minute longer). The rest follow in vitest's order.
 */
const LONGEST_FIRST = [
  "test/workers/history.test.ts",
  "test/e2e/bench.test.ts",
  "test/e2e/sim-live.test.ts",
  "test/e2e/live.test.ts",
  "test/e2e/oidc.test.ts",
  "test/workers/content-edits.test.ts",
  // Files of their own runtime, and the workers files that wait longest: at the end, each ran alone.
  "test/workers/search-across.test.ts",
  "test/workers/durability.test.ts",
  "test/workers/attachments.test.ts",
  "test/workers/search-edge.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * The files that need a runtime of their own: they restart every object in it
 * (abortAllDurableObjects), or search all of a user's Notes and expect only their own.
 */
const OWN_RUNTIME = ["test/workers/history.test.ts", "test/workers/durability.test.ts", "test/workers/search-across.test.ts", "test/workers/search-edge.test.ts"];

/**
 * A project of files run in workerd, on the Worker as `wrangler dev` runs it.
 *
 * `isolate: false`: the files share their runtime, one after another in each of the
 * run's workers, instead of each starting one of its own and loading the Worker into it
 * again (about 3 s of CPU a file): the workers files took 130 s of CPU instead of 250.
 * They share its storage too, so a file acts on Notes and users of its own and expects
 * nothing of the rest; the files that cannot are in `workers-own` (OWN_RUNTIME).
 */
function workersProject(name: string, files: { include: string[]; exclude?: string[]; isolate?: boolean }) {
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: { bindings: { ...localEnv(), ...historySettings() }, ratelimits: SMALL_LIMITS },
      }),
    ],
    test: {
      name,
      ...files,
      // The Worker's largest dependencies bundled once for the run, rather than each module transformed and
      // loaded again by every runtime: the project's "import" time went from 61 s to 43 s (35 files).
      deps: { optimizer: { ssr: { enabled: true, include: ["@modelcontextprotocol/server", "@modelcontextprotocol/core", "zod", "hono", "@cloudflare/workers-oauth-provider", "jose"] } } },
      // Shared 2-core machines are noisy, and four files run at once; a test's own assertions decide, not the clock.
      testTimeout: 90_000,
      // A file signs in the users it needs (test/support/workers.ts); on a loaded machine that alone can take seconds.
      hookTimeout: 120_000,
    },
  };
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    // The Worker's one log line per request (src/http/request-log.ts) would bury a failing test's output; the log test reads them with a spy.
    onConsoleLog: (log) => !(/\broute: /.test(log) && /\bduration_ms: /.test(log)),
    // Where the time went: the slowest files, one line at the end (test/support/slowest-reporter.ts).
    reporters: ["default", "./test/support/slowest-reporter.ts"],
    // Four files at a time on a 2-core machine, of every project (an e2e file's time goes mostly to waiting
    // on its server, a bench's to waiting on the Notes' alarms).
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/unit/**/*.test.ts"],
          exclude: IN_WORKERD,
          // The files share their process, one after another in each of the run's workers, instead of each importing
          // the domain and its dependencies again: the project took about 27 s of CPU instead of 43. No unit file leaves
          // global state behind (fake timers and spies are restored in each file).
          isolate: false,
          // As in workerd before (the sim's experiments take seconds); on a loaded machine the clock must not decide.
          testTimeout: 90_000,
        },
      },
      workersProject("workers", { include: [...IN_WORKERD, "test/workers/**/*.test.ts", "test/limits/**/*.test.ts"], exclude: OWN_RUNTIME, isolate: false }),
      workersProject("workers-own", { include: OWN_RUNTIME }),
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          // As the unit files: each file's own module runs afresh, the modules it imports (the MCP clients, the
          // scripts' helpers, none holding state) are loaded once a worker: 11 s of CPU less for the project.
          isolate: false,
          // No maxWorkers of its own: vitest runs a project limited to one file at a time as a group after all the
          // others (it took the suite from about 215 s to 365 s here); sharing the run's four, the e2e files, which
          // mostly wait on their servers, fill the cores the workerd files leave idle. The files on the shared server
          // act on Notes of their own; the demo Note is only read after its seeding (and written by oauth.test.ts alone).
          // One `wrangler dev` for the files that can share it (test/support/e2e-server.ts): its origin reaches them by inject("e2eOrigin").
          globalSetup: ["./test/support/e2e-global.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
