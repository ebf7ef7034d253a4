/**
 * Setting Notes up for a run the way the desktop app would, through the
 * person's API (/api/v1), plus the bench-only routes of the Worker
 * (/bench/stats, /bench/seed-sources; mounted when BENCH_ROUTES is "true").
 */

import type { NoteStats } from "../src/storage/note-stats.js";

export type { NoteStats };

export interface Slide {
  title: string;
  body?: string;
  notes?: string;
}

export class PersonApi {
  constructor(
    readonly origin: string,
    /** alice's token for /api/v1 (osfoundry:app). */
    readonly token: string,
  ) {}

  /** Creates a Note and approves it for connectors; returns its version (2). */
  async createApprovedNote(noteId: string, title = `Bench ${noteId}`): Promise<number> {
    await this.#send("POST", "/api/v1/notes", { note_id: noteId, title }, 201);
    const approved = await this.#send<{ version: number }>("PUT", `/api/v1/notes/${noteId}/approval`, { approved: true }, 200);
    return approved.version;
  }

  /** Adds an empty Slides tab; returns its ID and the Note's new version. */
  async addSlidesTab(noteId: string, label = "Bench deck"): Promise<{ tabId: string; version: number }> {
    const added = await this.#send<{ version: number; tab: { id: string } }>("POST", `/api/v1/notes/${noteId}/tabs`, { tab_type: "slides", label }, 201);
    return { tabId: added.tab.id, version: added.version };
  }

  /** Replaces a deck's slides; returns the Note's new version. */
  async setSlides(noteId: string, tabId: string, slides: readonly Slide[]): Promise<number> {
    const set = await this.#send<{ version: number }>("PUT", `/api/v1/notes/${noteId}/tabs/${tabId}/slides`, { slides }, 200);
    return set.version;
  }

  /** Bench only: fills the Note with `count` generated sources (in calls of at most 100,000). */
  async seedSources(noteId: string, count: number): Promise<number> {
    let total = 0;
    for (let left = count; left > 0; left -= 100_000) {
      const seeded = await this.#send<{ sources: number }>("POST", `/bench/seed-sources/${noteId}?count=${Math.min(left, 100_000)}`, undefined, 200);
      total = seeded.sources;
    }
    return total;
  }

  /** Bench only: the Note object's cumulative cost counters and its storage now. */
  stats(noteId: string): Promise<NoteStats> {
    return this.#send<NoteStats>("GET", `/bench/stats/${noteId}`, undefined, 200);
  }

  async #send<T = unknown>(method: string, path: string, body: unknown, expected: number): Promise<T> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${method} ${path} answered HTTP ${response.status} (expected ${expected}): ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }
}

/** Runs `task` over `items`, at most `width` at a time. */
export async function inBatches<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
