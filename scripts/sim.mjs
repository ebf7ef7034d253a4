// @ts-check
/**
 * `npm run sim`: bundles the simulations (sim/ and the domain they drive)
 * with esbuild when one of the bundle's own source files changed since it was
 * built, then runs the bundle in this same process. Plain JavaScript, so that
 * starting it costs one Node start-up and a few `stat` calls: the whole
 * default run is meant to take under a second (issue 4).
 */
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist", "sim");
const entry = join(outdir, "main.js");
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
  if (built === undefined || statSync(entry, { throwIfNoEntry: false }) === undefined) return true;
  const inputs = /** @type {string[]} */ (JSON.parse(readFileSync(manifest, "utf8")));
  return [...inputs, ...ALWAYS].some((path) => modified(path) >= built);
}

if (stale()) {
  const { build } = await import("esbuild");
  // A fresh folder: split chunks are content-hashed, so old ones would pile up.
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["sim/main.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    // The MCP client is loaded only by --live, as its own chunk.
    splitting: true,
    external: ["@modelcontextprotocol/sdk"],
    outdir,
    metafile: true,
    logLevel: "warning",
  });
  const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("node_modules/"));
  writeFileSync(manifest, `${JSON.stringify(inputs, null, 1)}\n`);
}
await import(pathToFileURL(entry).href);
