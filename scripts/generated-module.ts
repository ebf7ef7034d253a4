/**
 * The committed modules a build script generates (the page's script, the deck
 * preview's HTML): written by `npm run build:…`, or with `--check` compared
 * with what is committed, so a test fails when someone edits the source and
 * forgets to build.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** Whether `moduleUrl` (a script's `import.meta.url`) is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}

/** Writes `text` to `file` and says so, or with --check exits 1 when the file holds anything else. */
export async function writeOrCheck(file: string, text: string, command: string, wrote: string): Promise<void> {
  const name = file.slice(file.indexOf("src/"));
  if (process.argv.includes("--check")) {
    const current = await readFile(file, "utf8").catch(() => "");
    if (current === text) return;
    console.error(`${name} is out of date: run ${command}`);
    process.exit(1);
  }
  await writeFile(file, text);
  console.log(`wrote ${name} (${wrote})`);
}
