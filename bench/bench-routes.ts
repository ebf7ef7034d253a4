/**
 * The bench Worker's own routes (bench/worker.ts), which the production Worker
 * does not have: a Note object's cost counters and storage, and a Note filled
 * with generated sources, or a Sheet with generated rows, in seconds. Everything else a run sets up goes
 * through the person's API (scripts/lib/person-api.ts) or the tools.
 */
import type { NoteStats } from "./note-stats.js";

export type { NoteStats };

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

async function send<T>(origin: string, method: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`, { method, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
