/**
 * The Notes a run works on, set up through the person's API and the tools: a
 * "deck Note" (the three fixed tabs and one Slides tab of 20 slides, what an
 * agent typically finds; or of 500, a deck at its limit), Notes holding N
 * generated sources, "Sheet Notes" (one Sheet of N generated rows), and the
 * content the write workloads send.
 */
import { orThrow, type PersonApi } from "../scripts/lib/person-api.js";
import type { SlideInput } from "../src/note/commands.js";
import { encodeCursor, encodeItemsCursor } from "../src/note/cursor.js";
import { KEY_GAP } from "../src/note/tabs/order.js";
import { seedRows, seedSources } from "./bench-routes.js";
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
  /** The deck's slide IDs, in order. */
  slideIds: string[];
}

/** Adds an empty Slides tab; returns its ID and the Note's new version. */
export async function addSlidesTab(api: PersonApi, noteId: string, label: string): Promise<{ tabId: string; version: number }> {
  const added = orThrow(await api.addTab(noteId, { tab_type: "slides", label }), `add a Slides tab to ${noteId}`);
  return { tabId: added.tab.id, version: added.version };
}

/** Creates and approves a Note with one Slides tab of `slides` slides (20: the deck Note). */
export async function createDeckNote(api: PersonApi, noteId: string, slides = 20): Promise<DeckNote> {
  await api.createApprovedNote(noteId);
  const { tabId } = await addSlidesTab(api, noteId, "Q3 deck");
  const { version, slide_ids: slideIds = [] } = orThrow(await api.setSlides(noteId, tabId, { slides: outline(slides) }), `set the slides of ${noteId}`);
  return { noteId, tabId, version, slideIds };
}

/** A Sheet's columns in the benchmark: what bench/worker.ts seeds and rows_append sends. */
export const SHEET_COLUMNS = ["item", "region", "amount"];

/** `count` rows of plausible cells for rows_append. */
export function sheetRows(count: number, label = "Item"): Record<string, string | number>[] {
  return Array.from({ length: count }, (_, i) => ({ item: `${label} ${i + 1}`, region: ["North", "South", "East", "West"][i % 4] as string, amount: i * 37 }));
}

export interface SheetNote {
  noteId: string;
  tabId: string;
  /** The seeded rows' IDs, in order: a hand-made cursor names its last row. */
  ids: string[];
}

/** Adds an empty Sheet of SHEET_COLUMNS to a Note through create_note_tab, at the Note's current version; returns its ID. */
export async function addSheetTab(origin: string, agentToken: string, noteId: string, key: string): Promise<string> {
  const { version } = await callTool<{ version: number }>(origin, agentToken, "list_note_tabs", { note_id: noteId });
  const created = await callTool<{ tab_id: string }>(origin, agentToken, "create_note_tab", {
    note_id: noteId,
    expected_version: version,
    idempotency_key: key,
    tab_type: "sheet",
    label: "Bench sheet",
    columns: SHEET_COLUMNS,
  });
  return created.tab_id;
}

/** Creates and approves a Note with one Sheet of `rows` generated rows (at most 10,000: a Sheet's limit). */
export async function createSheetNote(api: PersonApi, agentToken: string, noteId: string, rows: number): Promise<SheetNote> {
  await api.createApprovedNote(noteId);
  const tabId = await addSheetTab(api.origin, agentToken, noteId, `${noteId}-sheet`);
  const ids = rows > 0 ? (await seedRows(api.origin, noteId, tabId, rows)).ids : [];
  return { noteId, tabId, ids };
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

/**
 * The cursor of the full page of a seeded Sheet's rows that ends at 90 % of
 * the Sheet, built as deepCursor builds one: seeded rows have the keys that
 * appending gives (0, KEY_GAP, 2 × KEY_GAP, …).
 */
export function deepRowsCursor(sheet: SheetNote, rows: number): string {
  const start = Math.max(1, Math.floor(rows * 0.9) - PAGE_LIMIT);
  return encodeItemsCursor(sheet.noteId, sheet.tabId, "rows", { after: (start - 1) * KEY_GAP, count: start, lastId: sheet.ids[start - 1] as string });
}

/** The deep page of a Sheet is a full page, starting at the row the cursor names, with more after it. */
export async function checkDeepRowsPage(origin: string, agentToken: string, sheet: SheetNote, rows: number): Promise<void> {
  const page = await callTool<{ rows: { index: number; cells: Record<string, unknown> }[]; next_cursor: string | null }>(origin, agentToken, "read_note_tab", {
    note_id: sheet.noteId,
    tab_id: sheet.tabId,
    limit: PAGE_LIMIT,
    cursor: deepRowsCursor(sheet, rows),
  });
  const first = page.rows[0];
  if (page.rows.length !== PAGE_LIMIT || page.next_cursor === null || first === undefined || first.cells.item !== `Row ${first.index + 1}`) {
    throw new Error(`the deep page of ${sheet.noteId} has ${page.rows.length} rows from ${JSON.stringify(first)} (expected ${PAGE_LIMIT} from its own row number, and more after)`);
  }
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
