/**
 * The bench Worker's own routes (bench/worker.ts), which the production Worker
 * does not have: a Note object's cost counters and storage, and a Note filled
 * with generated sources, or a Sheet with generated rows, in seconds. Everything else a run sets up goes
 * through the person's API (scripts/lib/person-api.ts) or the tools.
 */
import { SEARCH_DELIVERY_MS } from "../src/note/search/contract.js";
import type { DirectoryStats, NoteStats } from "./note-stats.js";

export type { DirectoryStats, NoteStats };

/** A Note's most sources per seeding call (one transaction each). */
const SEED_BATCH = 100_000;

/** Fills a created Note with `count` generated sources; returns how many it holds now. */
export async function seedSources(origin: string, noteId: string, count: number): Promise<number> {
  let total = 0;
  for (let left = count; left > 0; left -= SEED_BATCH) {
    total = (await send<{ sources: number }>(origin, "POST", `/bench/seed-sources/${encodeURIComponent(noteId)}?count=${Math.min(left, SEED_BATCH)}`)).sources;
  }
  return total;
}

/** Appends `count` generated rows (at most 10,000) to a Sheet of three columns or more; returns how many it holds now and the new rows' IDs. */
export async function seedRows(origin: string, noteId: string, tabId: string, count: number): Promise<{ rows: number; ids: string[] }> {
  return send<{ rows: number; ids: string[] }>(origin, "POST", `/bench/seed-rows/${encodeURIComponent(noteId)}/${encodeURIComponent(tabId)}?count=${count}`);
}

/** The Note object's cumulative cost counters and its storage now. */
export function noteStats(origin: string, noteId: string): Promise<NoteStats> {
  return send<NoteStats>(origin, "GET", `/bench/stats/${encodeURIComponent(noteId)}`);
}

/** A user's directory object's cumulative cost counters (stats() reads no row: nothing to take off) and its storage now. */
export function directoryStats(origin: string, user: string): Promise<DirectoryStats> {
  return send<DirectoryStats>(origin, "GET", `/bench/directory-stats/${encodeURIComponent(user)}`);
}

/**
 * A user's directory stats once its deliveries have stopped: the outbox
 * delivers after a write commits, so read until two readings 100 ms apart
 * agree (at most `maxMs`).
 */
export async function settledDirectoryStats(origin: string, user: string, maxMs = 10_000): Promise<DirectoryStats> {
  const until = Date.now() + maxMs;
  // A write's search documents leave its Note when the Note's alarm rings, SEARCH_DELIVERY_MS after it: wait past that.
  const quiet = SEARCH_DELIVERY_MS + 150;
  await new Promise((resolve) => setTimeout(resolve, quiet));
  let last = await directoryStats(origin, user);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quiet));
    const now = await directoryStats(origin, user);
    if (now.rows_written === last.rows_written || Date.now() > until) return now;
    last = now;
  }
}

async function send<T>(origin: string, method: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`, { method, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
