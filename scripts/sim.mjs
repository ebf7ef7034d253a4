// @ts-check
/**
 * `npm run sim`: bundles the simulations (sim/ and the domain they drive)
 * with esbuild when one of the bundle's own source files changed since it was
 * built, then runs the bundle in this same process. Plain JavaScript, so that
 * starting it costs one Node start-up and a few `stat` calls: the whole
 * default run is meant to take under a second (issue 4).
 *
 * The bundle runs with a V8 code cache (what `module.enableCompileCache()`
 * does from Node 22 on): the first run after a build writes the bytecode of
 * every function it compiled, and later runs skip compiling them.
 *
 * `npm run sim` starts Node with NODE_EXTRA_CA_CERTS emptied (package.json),
 * its value kept in SIM_NODE_EXTRA_CA_CERTS: Node reads and parses every
 * certificate that file holds before it runs a line, 40 ms where it names the
 * system's bundle, and a run in process opens no connection. A `--live` run
 * may reach an https connector, so it runs again with the certificates.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { isMainThread } from "node:worker_threads";

const extraCaCerts = process.env.SIM_NODE_EXTRA_CA_CERTS;
if (isMainThread && extraCaCerts && process.argv.some((arg) => arg === "--live" || arg.startsWith("--live="))) {
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: extraCaCerts };
  delete env.SIM_NODE_EXTRA_CA_CERTS;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", env });
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => child.kill(signal));
  const [code, signal] = await new Promise((resolve) => child.once("exit", (...ended) => resolve(ended)));
  process.exit(code ?? (signal === null ? 1 : 128 + (os.constants.signals[signal] ?? 0)));
}

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist", "sim");
const bundle = join(outdir, "main.cjs");
const codeCache = join(outdir, "main.cjs.v8-cache");
/** The project files the last build read (esbuild's metafile), beside the bundle. */
const manifest = join(outdir, "inputs.json");
/** What changes a bundle besides its sources: the packages, and how it is built. */
const ALWAYS = ["package-lock.json", "scripts/sim.mjs"];

/** Modification time (ms) of a project file; a missing one counts as newer than anything. */
function modified(path) {
  return statSync(join(root, path), { throwIfNoEntry: false })?.mtimeMs ?? Number.POSITIVE_INFINITY;
}

function stale() {
  const built = statSync(manifest, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !existsSync(bundle)) return true;
  const inputs = /** @type {string[]} */ (JSON.parse(readFileSync(manifest, "utf8")));
  return [...inputs, ...ALWAYS].some((path) => modified(path) >= built);
}

// The bundle's second thread starts here too; the first one has just checked the build.
if (isMainThread && stale()) {
  const { build } = await import("esbuild");
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["sim/main.ts"],
    bundle: true,
    platform: "node",
    // A script, not a module: Node 20 can cache a script's compiled code (node:vm), not a module's.
    format: "cjs",
    // The MCP client is required only by --live.
    external: ["@modelcontextprotocol/sdk"],
    outfile: bundle,
    metafile: true,
    logLevel: "warning",
  });
  const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("node_modules/"));
  writeFileSync(manifest, `${JSON.stringify(inputs, null, 1)}\n`);
}

// A third of a default run's CPU is V8's optimizing compiler, on threads of its own, while the
// code runs unoptimized. Two flags cut that work (docs/experiments.md): inlining less per
// optimized function (200 bytes of inlined bytecode in all, not 920), and leaving functions
// of more than 2 KB of bytecode unoptimized. The only such hot functions are the scripts of
// experiments 4 and 5, generators whose time goes into the calls they yield: optimized, they
// took 100 ms of compiling (recompiled after each deoptimization) and ran no faster. Set
// before the bundle is compiled: the code cache records the flags it was made with.
setFlagsFromString("--max-inlined-bytecode-size-cumulative=200 --max-optimized-bytecode-size=2048");

const cachedData = existsSync(codeCache) ? readFileSync(codeCache) : undefined;
const script = new Script(Module.wrap(readFileSync(bundle, "utf8")), { filename: bundle, cachedData });
// V8 refuses a cache made for other code or another V8; the run then compiles as usual. A run
// that compiled clearly more than the cache holds (a full run after `--help`) replaces it.
if (isMainThread) process.once("beforeExit", () => {
  const compiled = script.createCachedData();
  const usable = cachedData !== undefined && script.cachedDataRejected !== true;
  if (!usable || compiled.length > cachedData.length * 1.05) writeFileSync(codeCache, compiled);
});
const bundleModule = { exports: {} };
script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, dirname(bundle));
