/**
 * `npm run bench:profile`'s reading of a V8 CPU profile: who owns a sample, and the time per owner, function
 * and call into a library. In the Node project (esbuild builds a small bundle with its source map), though no server runs.
 */
import { build } from "esbuild";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerOf, sourcesOf, summarize, type CpuProfile, type SourceOf } from "../../bench/cpu-profile.js";

describe("ownerOf", () => {
  it("names a package under node_modules, scoped or not, however deep", () => {
    expect(ownerOf("node_modules/zod/v4/core/schemas.js")).toBe("zod");
    expect(ownerOf("node_modules/@modelcontextprotocol/core-internal/src/shared/protocol.ts")).toBe("@modelcontextprotocol/core-internal");
    expect(ownerOf("node_modules/a/node_modules/@b/c/index.js")).toBe("@b/c");
  });

  it("names the project's folder otherwise", () => {
    expect(ownerOf("src/http/app.ts")).toBe("src/http");
    expect(ownerOf("bench/worker.ts")).toBe("bench");
    expect(ownerOf("index.ts")).toBe("index.ts");
  });
});

/** A profile of one call tree: root → handler (src/http) → parse (zod) → run (zod) → exec (the runtime), and idle. */
function tree(): CpuProfile {
  const frame = (functionName: string, lineNumber: number) => ({ functionName, url: lineNumber < 0 ? "" : "bundle.js", lineNumber, columnNumber: 0 });
  return {
    nodes: [
      { id: 1, callFrame: frame("(root)", -1), children: [2, 5] },
      { id: 2, callFrame: frame("", 10), children: [3] },
      { id: 3, callFrame: frame("parse", 20), children: [6] },
      { id: 6, callFrame: frame("run", 30), children: [4] },
      { id: 4, callFrame: frame("exec", -1), children: [] },
      { id: 5, callFrame: frame("(idle)", -1), children: [] },
    ],
    // As V8 writes them, one delta a sample (the time since the one before); a sample is charged until the next:
    // 2 (handler) 30 µs, 6 (run, under parse) 50 µs, 4 (exec) 20 µs, then idle (900 µs), whose own span ends the profile.
    samples: [2, 6, 6, 4, 5, 5],
    timeDeltas: [0, 30, 20, 30, 20, 900],
  };
}

const FAKE: SourceOf = (line) =>
  line === 10 ? { owner: "src/http", place: "app.ts:11" } : line >= 20 ? { owner: "zod", place: `schemas.js:${line + 1}` } : null;

describe("summarize", () => {
  const summary = summarize(tree(), FAKE, (url) => url === "bundle.js");

  it("adds each sample's time to its own frame's owner, idle left out", () => {
    expect(summary.busyMs).toBeCloseTo(0.1);
    expect(summary.owners.map((s) => [s.name, Math.round(s.ms * 1000)])).toEqual([
      ["zod", 50],
      ["src/http", 30],
      ["(runtime)", 20],
    ]);
    expect(summary.owners[0]?.share).toBeCloseTo(0.5);
  });

  it("names an anonymous function by where it is written", () => {
    expect(summary.functions.map((s) => s.name)).toEqual(["zod › run (schemas.js:31)", "src/http › (anonymous) (app.ts:11)", "(runtime) › exec"]);
  });

  it("charges a library's time to the nearest caller outside it, past the library's own frames", () => {
    expect(summary.entries.map((s) => [s.name, Math.round(s.ms * 1000)])).toEqual([
      ["zod ← src/http › (anonymous) (app.ts:11)", 50],
      ["src/http", 30],
      ["(runtime) ← zod › run (schemas.js:31)", 20],
    ]);
  });
});

describe("sourcesOf", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cpu-profile-"));
    await mkdir(join(root, "src", "http"), { recursive: true });
    await mkdir(join(root, "node_modules", "lib"), { recursive: true });
    await writeFile(join(root, "node_modules", "lib", "index.js"), "export function libWork(n) {\n  return n * 2;\n}\n");
    await writeFile(join(root, "src", "http", "entry.js"), 'import { libWork } from "lib";\nexport function handle(n) {\n  return libWork(n) + 1;\n}\n');
    // The bundle in a folder of its own, as wrangler deploy --outdir writes it: the map's sources are relative to it.
    await build({ entryPoints: [join(root, "src", "http", "entry.js")], bundle: true, format: "esm", sourcemap: true, outfile: join(root, "out", "bundle.js"), absWorkingDir: root, logLevel: "silent" });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("maps a bundle's line to the project's file and its package or folder", async () => {
    const lines = (await readFile(join(root, "out", "bundle.js"), "utf8")).split("\n");
    const at = (text: string): number => lines.findIndex((line) => line.includes(text));
    const source = sourcesOf(join(root, "out", "bundle.js"), root);
    expect(source(at("n * 2"), 2)).toEqual({ owner: "lib", place: "index.js:2" });
    expect(source(at("libWork(n) + 1"), 2)).toEqual({ owner: "src/http", place: "entry.js:3" });
  });
});
