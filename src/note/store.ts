/**
 * What the Note's rules need from storage, and nothing more. Two
 * implementations: SQLite inside the Durable Object (src/storage), and an
 * in-memory one for unit tests and the simulations. Every method is
 * synchronous, so a whole operation runs inside one transaction with nothing
 * awaited between its checks and its write.
 */
import type { ChangeEntry } from "./changes.js";
import type { AttachmentKind } from "./cursor.js";
import type { Result } from "./result.js";
import type { TabType } from "./tabs/ids.js";
import type { IndexDelta } from "./search/contract.js";
import type { IndexDoc } from "./search/documents.js";
import type { ChangeTouch, UndoStep } from "./undo.js";

export interface NoteMeta {
  note_id: string;
  title: string;
  version: number;
  approved: boolean;
  /** The next `n` of a tab ID; it never goes back. */
  next_tab_n: number;
  /** The next `n` of a slide ID; it never goes back, so a slide ID is never reused in the Note. */
  next_slide_n: number;
  /** The next `n` of a Sheet row's ID, as `next_slide_n` is for slides. */
  next_row_n: number;
  /** Tabs in the strip, the fixed ones included: a new tab's position, without reading the strip. */
  tab_count: number;
  source_count: number;
  file_count: number;
  created_at: number;
  /**
   * The person deleted the Note: every operation answers note_not_found while
   * its members' directories learn it, then the object erases its storage.
   */
  deleted: boolean;
}

export interface TabRow {
  id: string;
  type: TabType;
  label: string;
  position: number;
  slide_count: number;
  /** A Sheet's rows (0 for other tabs). */
  row_count: number;
  /** A Sheet's column names in order ([] for other tabs). */
  columns: string[];
}

export interface Slide {
  /** `slide-{n}-{base36 ms}` (tab-id.ts): fixed for the slide's life, never reused in the Note. */
  id: string;
  title: string;
  body: string;
  notes: string;
}

/** A Sheet row's cells by column name; a column left out is an empty cell. */
export type Cells = Record<string, string | number>;

export interface SheetRow {
  /** `row-{n}-{base36 ms}` (tab-id.ts): fixed for the row's life, never reused in the Note. */
  id: string;
  cells: Cells;
}

/** An item with its order key: only the keys' order means anything, and they have gaps (order.ts). */
export type Keyed<T> = T & { key: number };

/**
 * A tab's items in order (a deck's slides, a Sheet's rows), each found by its
 * exact ID. Every method reads or writes only the rows it names or returns:
 * what keeps a call's cost bounded by what it touches, not by the tab's size.
 */
export interface Sequence<T extends { id: string }> {
  /** Every item of the tab, in order. */
  all(tabId: string): Keyed<T>[];
  /** Up to `limit` items with an order key above `after` (null: from the first), in order. */
  page(tabId: string, after: number | null, limit: number): Keyed<T>[];
  /** The item with this exact ID, in whichever tab holds it. */
  find(id: string): (Keyed<T> & { tab_id: string }) | null;
  /** The order key of the tab's last item, null when it has none. */
  lastKey(tabId: string): number | null;
  /** The order key of the first item after `key` (null: the tab's first item), null when there is none. */
  keyAfter(tabId: string, key: number | null): number | null;
  insert(tabId: string, items: readonly Keyed<T>[]): void;
  /** Rewrites the item with this ID: its content and its order key. */
  update(tabId: string, item: Keyed<T>): void;
  remove(tabId: string, id: string): void;
  /** Removes every item of the tab. */
  clear(tabId: string): void;
  /**
   * Moves items, keeping their content and keys, from one tab ID to another:
   * the items given by ID (every item of `from` when null). A deletion moves
   * them to a trash tab ID (undo.ts), a revert moves them back.
   */
  retab(from: string, to: string, ids: readonly string[] | null): void;
  /** The item with the greatest order key below `key` in the tab, null when there is none. */
  itemBefore(tabId: string, key: number): Keyed<T> | null;
}

/**
 * A keyed write's first result: an object of strings, numbers, booleans and
 * lists of strings (CreatedTab, EditedTab, AddedSource), as JSON would carry it.
 */
export type RecordedResult = object;

export interface IdempotencyRecord {
  key: string;
  tool: string;
  /** The first call's arguments, fingerprinted (idempotency.ts); null on records written before fingerprints. */
  fingerprint: string | null;
  result: RecordedResult;
  created_at: number;
}

export interface SourceRow {
  seq: number;
  title: string;
  url: string;
  normalized_url: string;
  description: string;
  added_at: number;
}

export interface FileRow {
  seq: number;
  name: string;
  media_type: string;
  size_bytes: number;
  added_at: number;
}

export type NewSource = Omit<SourceRow, "seq">;
export type NewFile = Omit<FileRow, "seq">;

/** What the log keeps to take a change back: what it touched, and the steps that undo it (undo.ts). */
export interface ChangeUndo {
  touch: ChangeTouch;
  steps: UndoStep[];
}

/** What a member's directory of Notes shows of one Note (directory.ts). */
export interface DirectoryEntry {
  note_id: string;
  title: string;
  approved: boolean;
  /** The Note's version when the entry was written: an older entry never overwrites a newer one. */
  version: number;
  /** The Note was deleted: the directory drops it (an entry at a version up to this one). */
  removed?: boolean;
  /** What changed in the Note's search documents since the previous entry to this member (search/contract.ts). */
  index?: IndexDelta;
}

/** When a queued directory entry must reach its directory: before the operation answers, or shortly after. */
export type DirectoryWhen = "now" | "soon";

/** A directory entry a member's directory has not received yet. */
export interface OwedEntry {
  seq: number;
  user: string;
  entry: DirectoryEntry;
}

/** A document the index found, with its bm25 score (lower is better, as FTS5's bm25 returns it). */
export interface ScoredDoc {
  key: number;
  item: string;
  score: number;
}

/** Where a page of search hits starts: after this score and key, in (score, key) order. */
export interface SearchAfter {
  score: number;
  key: number;
}

export interface NoteStore {
  /**
   * Runs one operation atomically: it commits when `fn` returns a success,
   * and rolls back everything `fn` wrote when it returns a failure or throws.
   * Only one transaction runs at a time: calling this inside `fn` throws.
   */
  transaction<T>(fn: () => Result<T>): Result<T>;

  readMeta(): NoteMeta | null;
  writeMeta(meta: NoteMeta): void;

  isMember(user: string): boolean;
  addMember(user: string, role: "owner" | "editor"): void;
  removeMember(user: string): void;
  members(): string[];

  /** Every tab, in strip order (ties, which only damaged data has, by ID). */
  tabs(): TabRow[];
  tab(id: string): TabRow | null;
  insertTab(tab: TabRow): void;
  updateTab(tab: TabRow): void;
  /** Deletes the tab and its slides or rows. */
  deleteTab(id: string): void;

  /** Every deck's slides. */
  readonly slides: Sequence<Slide>;
  /** Whether the deck has a slide with exactly this title: only an error's hint asks. */
  slideTitled(tabId: string, title: string): boolean;
  /** Every Sheet's rows. */
  readonly rows: Sequence<SheetRow>;

  markdown(): string;
  writeMarkdown(text: string): void;

  idempotency(key: string): IdempotencyRecord | null;
  recordIdempotency(record: IdempotencyRecord): void;
  /** Deletes records created at or before `cutoff`; returns how many. */
  pruneIdempotency(cutoff: number): number;
  oldestIdempotency(): number | null;

  sourceByNormalizedUrl(normalized: string): SourceRow | null;
  insertSource(source: NewSource): number;
  insertFile(file: NewFile): number;
  /** Up to `limit` attachments with a sequence number above `after`, in order. */
  attachments(kind: "sources", after: number, limit: number): SourceRow[];
  attachments(kind: "files", after: number, limit: number): FileRow[];
  attachments(kind: AttachmentKind, after: number, limit: number): SourceRow[] | FileRow[];

  /**
   * Writes a committed change's entry in the log (changes.ts), inside its
   * transaction, with what takes it back (undo.ts) when it is a content change.
   */
  recordChange(entry: ChangeEntry, undo?: ChangeUndo | null): void;
  /** Drops the log's entry of this version, if it has one, with its undo information and the items its deletion kept (undo.ts). */
  dropChange(version: number): void;
  /** The log's entry of this version with its undo information (null: none kept), or null when the log does not hold it. */
  change(version: number): { entry: ChangeEntry; undo: ChangeUndo | null } | null;
  /** Up to `limit` entries after `version`, oldest first, each with what it touched (null: not content, or from before undo information). */
  changePage(version: number, limit: number): { entry: ChangeEntry; touch: ChangeTouch | null }[];
  /** The touch index (undo.ts): the last version that touched each of these keys, for those it holds. */
  lastTouches(keys: readonly string[]): Map<string, number>;
  /** Sets each key's version. */
  writeTouches(writes: readonly (readonly [string, number])[]): void;
  /** Drops the index's keys last touched before `version` (the oldest the log keeps): they can block no revert. Returns how many. */
  pruneTouches(version: number): number;
  /** What each change after `version` touched (null: a change that is not content, or from before undo information), oldest first. */
  touchesSince(version: number): { version: number; touch: ChangeTouch | null }[];
  /** Deletes the source with this sequence number (a revert of its citation). */
  removeSource(seq: number): void;
  /** Puts a source back with its own sequence number (a revert of that revert). */
  restoreSource(source: SourceRow): void;
  removeFile(seq: number): void;
  restoreFile(file: FileRow): void;
  /** The source or file with this sequence number, null when there is none. */
  attachment(kind: "sources", seq: number): SourceRow | null;
  attachment(kind: "files", seq: number): FileRow | null;
  /** Up to `limit` entries with a version above `version`, oldest first. */
  changesSince(version: number, limit: number): ChangeEntry[];
  /** The oldest version the log holds, null when it holds none. */
  oldestChange(): number | null;
  /**
   * The entries of the transactions that committed since the last call, in
   * order, and forgets them: what the Note's object sends its open pages
   * after each operation. A rolled-back entry never appears.
   */
  takeCommittedChanges(): ChangeEntry[];

  /** Queues an entry for a member's directory, delivered after the commit (the outbox). */
  /**
   * `when`: "now" for what a member's list shows (a title, an approval, a membership, a deletion), delivered
   * before the operation answers; "soon" for search documents alone, delivered shortly after (DirectoryWhen).
   */
  queueDirectoryEntry(user: string, entry: DirectoryEntry, when?: DirectoryWhen): void;
  /** What committed operations queued since the outbox was last read: "now" if any entry must go before the answer, "soon" if only search documents, null if nothing (it saves a read after every call). */
  queuedDirectoryEntries(): DirectoryWhen | null;
  owedDirectoryEntries(): OwedEntry[];
  /** Drops a delivered entry; outside any operation's transaction. */
  directoryEntryDelivered(seq: number): void;
  /** Drops every entry still owed, inside the operation that supersedes them (a deletion). */
  dropDirectoryEntries(): void;
  /** Whether any entry is still owed, read from storage: what decides that a deleted Note may be erased. */
  owesDirectoryEntries(): boolean;

  /**
   * The Note's search index (docs/search.md): one document a key. Written by
   * the domain's wrapper (search/indexed-store.ts) in the operation's own
   * transaction; `searchPut` replaces the key's document.
   */
  searchPut(doc: IndexDoc): void;
  searchDrop(key: number): void;
  /**
   * Up to `limit` documents holding any of the terms (each a token, or tokens
   * that must follow one another), best first: by FTS5's bm25 score (k1 1.2,
   * b 0.75), then by key; after `after` when given.
   */
  searchQuery(terms: readonly (readonly string[])[], after: SearchAfter | null, limit: number): ScoredDoc[];
  /** The documents of these keys that the index holds, in key order. */
  searchDocs(keys: readonly number[]): IndexDoc[];
  /** Every document, in key order: a new member's whole copy, and what the tests compare. */
  searchDump(): IndexDoc[];
}
