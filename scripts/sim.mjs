// @ts-check
/**
 * `npm run sim`: bundles the simulations (sim/ and the domain they drive)
 * into one file with esbuild when one of the bundle's own source files
 * changed since it was built, then runs the bundle. Plain JavaScript, so a
 * run with a fresh bundle costs one Node start-up and a few `stat` calls.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist", "sim");
const bundle = join(outdir, "main.cjs");
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

if (stale()) {
  const { build } = await import("esbuild");
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["sim/main.ts"],
    bundle: true,
    platform: "node",
    // CommonJS, so that the MCP client (external) is required only when --live loads sim/live.ts.
    format: "cjs",
    external: ["@modelcontextprotocol/client"],
    outfile: bundle,
    metafile: true,
    logLevel: "warning",
  });
  const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("node_modules/"));
  writeFileSync(manifest, `${JSON.stringify(inputs, null, 1)}\n`);
}

createRequire(import.meta.url)(bundle);
