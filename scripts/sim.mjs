// @ts-check
/**
 * `npm run sim`: bundles the simulations (sim/ and the domain they drive)
 * with esbuild when a source is newer than the bundle, then runs the bundle
 * in this same process. Plain JavaScript, so that starting it costs one Node
 * start-up and a few `stat` calls: the whole default run is meant to take
 * under a second (issue 4).
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist", "sim");
const entry = join(outdir, "main.js");

/** Newest modification time (ms) of a file, or of the files under a folder. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

const built = statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const inputs = ["sim", "src", "package-lock.json", "scripts/sim.mjs"].map((p) => newest(join(root, p)));
if (Math.max(...inputs) >= built) {
  const { build } = await import("esbuild");
  // A fresh folder: split chunks are content-hashed, so old ones would pile up.
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [join(root, "sim", "main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    // The MCP client is loaded only by --live, as its own chunk.
    splitting: true,
    external: ["@modelcontextprotocol/sdk"],
    outdir,
    logLevel: "warning",
  });
}
await import(pathToFileURL(entry).href);
