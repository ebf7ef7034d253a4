/**
 * Finding things (docs/spec.md §11, docs/search.md): the shapes every part of
 * search shares. The Note indexes its own items (one document per item, in
 * its own SQLite, in the operation's transaction); each member's directory
 * holds a copy of every document of their Notes, fed by the outbox, to rank
 * across Notes; the Note then describes each hit fresh and checks access.
 */

/** What a hit is. */
export type HitKind = "note" | "tab" | "slide" | "row" | "markdown" | "source" | "file";

/**
 * A document's key in its Note's index: `n * 8 + code`, an integer that
 * SQLite takes as the FTS rowid. `n` is the item's own number (a tab's,
 * slide's or row's `n` from its ID, a source's or file's sequence number, a
 * Markdown section's ordinal, 0 for the Note's title); codes below. Never
 * reused for another item: the counters never go back.
 */
export const KEY_CODES = { note: 0, tab: 1, slide: 2, row: 3, markdown: 4, source: 5, file: 6, fixed_tab: 7 } as const;
export type KeyCode = keyof typeof KEY_CODES;

export function docKey(code: KeyCode, n: number): number {
  return n * 8 + KEY_CODES[code];
}

export function keyParts(key: number): { code: KeyCode; n: number } | null {
  if (!Number.isSafeInteger(key) || key < 0) return null;
  const code = (Object.keys(KEY_CODES) as KeyCode[]).find((c) => KEY_CODES[c] === key % 8);
  return code === undefined ? null : { code, n: Math.floor(key / 8) };
}

/**
 * Changes to a Note's documents, as its members' directories receive them
 * (with a DirectoryEntry, `index`): `reset` drops every document the
 * directory holds for the Note first (a new member's whole copy, a
 * re-index); then `drop`, then `put` (key and indexed text, as
 * `indexText` made it).
 */
export interface IndexDelta {
  reset?: true;
  put?: [number, string][];
  drop?: number[];
}

/** Where a hit is, by exact IDs: what an agent needs to act on it. */
export interface HitIds {
  note_id: string;
  tab_id?: string;
  slide_id?: string;
  row_id?: string;
  source_id?: string;
  file_id?: string;
  /** A Markdown hit: the section's ordinal (0 first). */
  section?: number;
}

/** One hit, as the Note describes it (the edge adds its page's `url`). */
export interface SearchHit extends HitIds {
  /**
   * What `fetch` takes: `{note_id}` (the Note's outline), `{note_id}/{tab_id}`
   * (a tab), `{note_id}/{tab_id}/{item_id}` (a slide, row, source or file),
   * `{note_id}/markdown/section-{n}` (a Markdown section). IDs never hold '/'.
   */
  id: string;
  kind: HitKind;
  /** The item's title: a slide's title, a row's first cell, a source's title, a file's name, a tab's label, a section's heading, the Note's title. */
  title: string;
  /** The Note's title. */
  note_title: string;
  /** A short passage of the item's text around the first matched word (at most SNIPPET_CHARS). */
  snippet: string;
}

export const SNIPPET_CHARS = 200;

/** A page of hits, best first. */
export interface SearchPage {
  hits: SearchHit[];
  /** Pass it back as `cursor` for the next page; null on the last. */
  next_cursor: string | null;
}

/** One hit's whole text (`fetch`), bounded by FETCH_CHARS. */
export interface FetchedItem {
  id: string;
  title: string;
  text: string;
  metadata: HitIds & { kind: HitKind; version: number; note_title: string; truncated: boolean; length: number };
}

export const FETCH_CHARS = 100_000;

/**
 * How soon after a write its search documents reach its members' directories (docs/search.md, "Across
 * Notes"): the Note's alarm delivers what every write in that time queued, one call per member, and the
 * write answers without waiting for them.
 */
export const SEARCH_DELIVERY_MS = 250;
