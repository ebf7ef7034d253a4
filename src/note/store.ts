/**
 * What the Note's rules need from storage, and nothing more. Two
 * implementations: SQLite inside the Durable Object (src/storage), and an
 * in-memory one for unit tests and the simulations. Every method is
 * synchronous, so a whole operation runs inside one transaction with nothing
 * awaited between its checks and its write.
 */
import type { AttachmentKind } from "./cursor.js";
import type { Result } from "./result.js";
import type { TabType } from "./tab-id.js";

export interface NoteMeta {
  note_id: string;
  title: string;
  version: number;
  approved: boolean;
  /** The next `n` of a tab ID; it never goes back. */
  next_tab_n: number;
  /** The next `n` of a slide ID; it never goes back, so a slide ID is never reused in the Note. */
  next_slide_n: number;
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
}

export interface Slide {
  /** `slide-{n}-{base36 ms}` (tab-id.ts): fixed for the slide's life, never reused in the Note. */
  id: string;
  title: string;
  body: string;
  notes: string;
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

/** What a member's directory of Notes shows of one Note (directory.ts). */
export interface DirectoryEntry {
  note_id: string;
  title: string;
  approved: boolean;
  /** The Note's version when the entry was written: an older entry never overwrites a newer one. */
  version: number;
  /** The Note was deleted: the directory drops it (an entry at a version up to this one). */
  removed?: boolean;
}

/** A directory entry a member's directory has not received yet. */
export interface OwedEntry {
  seq: number;
  user: string;
  entry: DirectoryEntry;
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
  members(): string[];

  /** Every tab, in strip order (ties, which only damaged data has, by ID). */
  tabs(): TabRow[];
  tab(id: string): TabRow | null;
  insertTab(tab: TabRow): void;
  updateTab(tab: TabRow): void;
  /** Deletes the tab and its slides. */
  deleteTab(id: string): void;

  slides(tabId: string): Slide[];
  /** Up to `limit` of the deck's slides from index `from` on, in order: a page reads only its rows. */
  slidePage(tabId: string, from: number, limit: number): Slide[];
  /** Appends after the tab's last slide, whose index is `first - 1`; each slide keeps the ID the caller gave it. */
  appendSlides(tabId: string, first: number, slides: readonly Slide[]): void;
  /** Replaces the whole deck; the caller gives the new slides new IDs (the old ones are never reused). */
  replaceSlides(tabId: string, slides: readonly Slide[]): void;

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

  /** Queues an entry for a member's directory, delivered after the commit (the outbox). */
  queueDirectoryEntry(user: string, entry: DirectoryEntry): void;
  /** Whether committed operations queued entries since the outbox was last read: what saves a read after every call. */
  queuedDirectoryEntries(): boolean;
  owedDirectoryEntries(): OwedEntry[];
  /** Drops a delivered entry; outside any operation's transaction. */
  directoryEntryDelivered(seq: number): void;
  /** Drops every entry still owed, inside the operation that supersedes them (a deletion). */
  dropDirectoryEntries(): void;
  /** Whether any entry is still owed, read from storage: what decides that a deleted Note may be erased. */
  owesDirectoryEntries(): boolean;
}
