/**
 * The Notes a run works on, set up through the person's API: a "deck Note"
 * (the three fixed tabs and one Slides tab of 20 slides, what an agent
 * typically finds), Notes holding N generated sources, and the content the
 * write workloads send.
 */
import { orThrow, type PersonApi } from "../scripts/lib/person-api.js";
import type { SlideInput } from "../src/note/commands.js";
import { encodeCursor } from "../src/note/cursor.js";
import { seedSources } from "./bench-routes.js";
import { callTool } from "./mcp-call.js";

/** A page of attachments at the tool's largest limit. */
export const PAGE_LIMIT = 50;

/** An outline of `count` slides of a plausible size (a title, a paragraph, a line of notes). */
export function outline(count: number, label = "Slide"): SlideInput[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `${label} ${i + 1}: quarterly figures`,
    body: `Revenue grew in every region; the chart on this slide compares the last four quarters (${i + 1}).`,
    notes: "Mention the outlier in March.",
  }));
}

export interface DeckNote {
  noteId: string;
  tabId: string;
  version: number;
}

/** Adds an empty Slides tab; returns its ID and the Note's new version. */
export async function addSlidesTab(api: PersonApi, noteId: string, label: string): Promise<{ tabId: string; version: number }> {
  const added = orThrow(await api.addTab(noteId, { tab_type: "slides", label }), `add a Slides tab to ${noteId}`);
  return { tabId: added.tab.id, version: added.version };
}

/** Creates and approves a Note with one Slides tab of 20 slides. */
export async function createDeckNote(api: PersonApi, noteId: string): Promise<DeckNote> {
  await api.createApprovedNote(noteId);
  const { tabId } = await addSlidesTab(api, noteId, "Q3 deck");
  const { version } = orThrow(await api.setSlides(noteId, tabId, { slides: outline(20) }), `set the slides of ${noteId}`);
  return { noteId, tabId, version };
}

/** Creates and approves a Note holding `count` generated sources. */
export async function createSourcesNote(api: PersonApi, noteId: string, count: number): Promise<void> {
  await api.createApprovedNote(noteId);
  await seedSources(api.origin, noteId, count);
}

/**
 * The cursor of a full page deep in a Note's sources: the page ending at 90 %
 * of the list. Cursors are opaque to agents; the benchmark builds one with
 * the connector's own encoder instead of paging there one call at a time.
 */
export function deepCursor(noteId: string, sources: number): string {
  const after = Math.max(0, Math.floor(sources * 0.9) - PAGE_LIMIT);
  return encodeCursor(noteId, "sources", after);
}

/** The deep page of a Note is a full page with more after it: the cursor is right. */
export async function checkDeepPage(origin: string, agentToken: string, noteId: string, count: number): Promise<void> {
  const page = await callTool<{ items: unknown[]; next_cursor: string | null }>(origin, agentToken, "list_note_attachments", {
    note_id: noteId,
    kind: "sources",
    limit: PAGE_LIMIT,
    cursor: deepCursor(noteId, count),
  });
  if (page.items.length !== PAGE_LIMIT || page.next_cursor === null) {
    throw new Error(`the deep page of ${noteId} has ${page.items.length} items (expected ${PAGE_LIMIT} and more after)`);
  }
}
