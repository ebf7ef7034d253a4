/**
 * A V8 CPU profile of the Worker, read back to the code that wrote it: each
 * sample's function is mapped through the bundle's source map to its source
 * file, and the self time summed per owner (a package under node_modules, or
 * a folder of src/), so a profile says which library or layer the time went
 * to. Used by `npm run bench:profile` for the tool calls and for startup.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openInspector } from "./inspector.js";

/** The parts of a DevTools `Profiler.Profile` this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Self time, ms. */
  ms: number;
  /** Of all samples' time (idle excluded). */
  share: number;
}

export interface ProfileSummary {
  /** Sampled time the thread was busy, ms (idle excluded). */
  busyMs: number;
  /** By owner: `zod`, `@modelcontextprotocol/core`, `src/http`, `(garbage collector)`, … */
  owners: Share[];
  /** By function, as `owner › name`. */
  functions: Share[];
  /** By the call into another owner: a library's self time under the nearest caller outside it, as `library ← owner › name`. */
  entries: Share[];
}

/** The owner of a source path relative to the project: its package under node_modules, else its folder (src/http). */
export function ownerOf(path: string): string {
  const at = path.lastIndexOf("node_modules/");
  if (at >= 0) {
    const parts = path.slice(at + "node_modules/".length).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  return path.includes("/") ? dirname(path) : path;
}

/** Where a bundle's line and column came from: its owner, and `file:line` of the project's source. */
export type SourceOf = (line: number, column: number) => { owner: string; place: string } | null;

/** Reads `<bundle>.map` and answers for the bundle's positions, paths relative to `root`. */
export function sourcesOf(bundlePath: string, root: string): SourceOf {
  const payload = JSON.parse(readFileSync(`${bundlePath}.map`, "utf8")) as ConstructorParameters<typeof SourceMap>[0];
  const map = new SourceMap(payload);
  const base = dirname(bundlePath);
  return (line, column) => {
    const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number };
    if (entry.originalSource === undefined) return null;
    const original = entry.originalSource.startsWith("file:") ? fileURLToPath(entry.originalSource) : entry.originalSource;
    const path = relative(root, resolve(base, original)).replace(/\\/g, "/");
    return { owner: ownerOf(path), place: `${basename(path)}:${(entry.originalLine ?? 0) + 1}` };
  };
}

/**
 * Self time per owner, per function and per call into another owner.
 * `bundleUrl` tells the bundle's script in the profile (frames from elsewhere
 * are the runtime's own: `(program)`, `(garbage collector)`, built-ins);
 * `source` reads the bundle's source map. Each sample is charged the time
 * until the next one (`timeDeltas[i + 1]`), as DevTools' flame chart draws it.
 */
export function summarize(profile: CpuProfile, source: SourceOf, bundleUrl: (url: string) => boolean): ProfileSummary {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const frames = new Map<number, { owner: string; name: string }>();
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    let owner = frame.functionName.startsWith("(") ? frame.functionName : "(runtime)";
    let name = frame.functionName || "(anonymous)";
    if (bundleUrl(frame.url) && frame.lineNumber >= 0) {
      const from = source(frame.lineNumber, frame.columnNumber);
      owner = from?.owner ?? "(bundle)";
      // An arrow function has no name: where it is written says which.
      name = `${frame.functionName || "(anonymous)"} (${from?.place ?? "?"})`;
    }
    frames.set(node.id, { owner, name });
  }
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  const entries = new Map<string, number>();
  const add = (totals: Map<string, number>, key: string, us: number): void => void totals.set(key, (totals.get(key) ?? 0) + us);
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const frame = frames.get(id);
    if (frame === undefined || frame.name === "(idle)") return;
    busy += us;
    add(owners, frame.owner, us);
    add(functions, `${frame.owner} › ${frame.name}`, us);
    // Up past the owner's own frames, and the runtime's built-ins between (Array.map, Promise.then): the caller is code.
    let up = parents.get(id);
    while (up !== undefined && (frames.get(up)?.owner === frame.owner || frames.get(up)?.owner === "(runtime)")) up = parents.get(up);
    const caller = up === undefined ? undefined : frames.get(up);
    add(entries, caller === undefined || caller.owner === "(root)" ? frame.owner : `${frame.owner} ← ${caller.owner} › ${caller.name}`, us);
  });
  const shares = (totals: Map<string, number>): Share[] =>
    [...totals]
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy === 0 ? 0 : us / busy }))
      .sort((a, b) => b.ms - a.ms);
  return { busyMs: busy / 1000, owners: shares(owners), functions: shares(functions), entries: shares(entries) };
}

/**
 * Samples the Worker behind the inspector's WebSocket `url` while `during()`
 * runs, every `intervalUs` microseconds; gives up `timeoutMs` after the start.
 */
export async function profileWhile(url: string, during: () => Promise<void>, intervalUs = 200, timeoutMs = 300_000): Promise<CpuProfile> {
  const inspector = await openInspector(url, timeoutMs);
  try {
    await inspector.call("Profiler.enable");
    await inspector.call("Profiler.setSamplingInterval", { interval: intervalUs });
    await inspector.call("Profiler.start");
    await during();
    const { profile } = await inspector.call("Profiler.stop");
    return profile as unknown as CpuProfile;
  } finally {
    inspector.close();
  }
}
