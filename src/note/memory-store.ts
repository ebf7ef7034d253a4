/**
 * An in-memory `NoteStore` for unit tests and the simulations. A transaction
 * keeps an undo journal of what it changed and plays it back if the
 * operation throws, so a failure leaves the Note untouched, as SQLite's
 * rollback does. Tab rows are handed out as they are kept (the rules never
 * change a row they read; they write a new one); every other read is a fresh
 * copy, as SQLite's rows are. Not frozen: frozen rows made every site that
 * reads them slower in V8.
 */
import type { AttachmentKind } from "./cursor.js";
import type { FileRow, IdempotencyRecord, NewFile, NewSource, NoteMeta, NoteStore, RecordedResult, Slide, SourceRow, TabRow } from "./store.js";

interface State {
  meta: NoteMeta | null;
  members: Map<string, "owner" | "editor">;
  tabs: Map<string, TabRow>;
  slides: Map<string, Slide[]>;
  markdown: string;
  keys: Map<string, IdempotencyRecord>;
  sources: SourceRow[];
  sourcesByUrl: Map<string, SourceRow>;
  files: FileRow[];
}

export class MemoryNoteStore implements NoteStore {
  #state: State = {
    meta: null,
    members: new Map(),
    tabs: new Map(),
    slides: new Map(),
    markdown: "",
    keys: new Map(),
    sources: [],
    sourcesByUrl: new Map(),
    files: [],
  };
  /** Undo steps of the running transaction, newest last. */
  #undo: (() => void)[] | null = null;
  /** The tabs in strip order, until a tab changes. */
  #strip: readonly TabRow[] | null = null;

  transaction<T>(fn: () => T): T {
    if (this.#undo !== null) return fn();
    this.#undo = [];
    try {
      return fn();
    } catch (error) {
      const undo = this.#undo;
      for (let i = undo.length - 1; i >= 0; i--) (undo[i] as () => void)();
      this.#strip = null;
      throw error;
    } finally {
      this.#undo = null;
    }
  }

  /** Remembers how to restore `key` of `map` if the transaction fails. */
  #save<K, V>(map: Map<K, V>, key: K): void {
    if (this.#undo === null) return;
    const had = map.has(key);
    const old = map.get(key);
    this.#undo.push(() => (had ? map.set(key, old as V) : map.delete(key)));
  }

  readMeta(): NoteMeta | null {
    return this.#state.meta === null ? null : copyMeta(this.#state.meta);
  }
  writeMeta(meta: NoteMeta): void {
    const old = this.#state.meta;
    this.#undo?.push(() => (this.#state.meta = old));
    this.#state.meta = copyMeta(meta);
  }

  isMember(user: string): boolean {
    return this.#state.members.has(user);
  }
  addMember(user: string, role: "owner" | "editor"): void {
    this.#save(this.#state.members, user);
    this.#state.members.set(user, role);
  }
  members(): string[] {
    return [...this.#state.members.keys()];
  }

  tabs(): TabRow[] {
    this.#strip ??= byPosition([...this.#state.tabs.values()]);
    return this.#strip.slice();
  }
  tab(id: string): TabRow | null {
    return this.#state.tabs.get(id) ?? null;
  }
  insertTab(tab: TabRow): void {
    if (this.#state.tabs.has(tab.id)) throw new Error(`tab ${tab.id} exists`);
    this.#setTab(tab);
  }
  updateTab(tab: TabRow): void {
    this.#setTab(tab);
  }
  #setTab(tab: TabRow): void {
    this.#save(this.#state.tabs, tab.id);
    this.#state.tabs.set(tab.id, copyTab(tab));
    this.#strip = null;
  }
  deleteTab(id: string): void {
    this.#save(this.#state.tabs, id);
    this.#save(this.#state.slides, id);
    this.#state.tabs.delete(id);
    this.#state.slides.delete(id);
    this.#strip = null;
  }

  slides(tabId: string): Slide[] {
    return (this.#state.slides.get(tabId) ?? []).map(copySlide);
  }
  appendSlides(tabId: string, first: number, slides: readonly Slide[]): void {
    const deck = this.#state.slides.get(tabId) ?? [];
    if (deck.length !== first) throw new Error(`tab ${tabId} has ${deck.length} slides, not ${first}`);
    this.#save(this.#state.slides, tabId);
    this.#state.slides.set(tabId, [...deck, ...slides.map(copySlide)]);
  }
  replaceSlides(tabId: string, slides: readonly Slide[]): void {
    this.#save(this.#state.slides, tabId);
    this.#state.slides.set(tabId, slides.map(copySlide));
  }

  markdown(): string {
    return this.#state.markdown;
  }
  writeMarkdown(text: string): void {
    const old = this.#state.markdown;
    this.#undo?.push(() => (this.#state.markdown = old));
    this.#state.markdown = text;
  }

  idempotency(key: string): IdempotencyRecord | null {
    const record = this.#state.keys.get(key);
    return record === undefined ? null : { key: record.key, tool: record.tool, result: copyResult(record.result), created_at: record.created_at };
  }
  recordIdempotency(record: IdempotencyRecord): void {
    this.#save(this.#state.keys, record.key);
    this.#state.keys.set(record.key, { key: record.key, tool: record.tool, result: copyResult(record.result), created_at: record.created_at });
  }
  pruneIdempotency(cutoff: number): number {
    let pruned = 0;
    for (const [key, record] of this.#state.keys) {
      if (record.created_at <= cutoff) {
        this.#save(this.#state.keys, key);
        this.#state.keys.delete(key);
        pruned += 1;
      }
    }
    return pruned;
  }
  oldestIdempotency(): number | null {
    let oldest: number | null = null;
    for (const record of this.#state.keys.values()) if (oldest === null || record.created_at < oldest) oldest = record.created_at;
    return oldest;
  }

  sourceByNormalizedUrl(normalized: string): SourceRow | null {
    return this.#state.sourcesByUrl.get(normalized) ?? null;
  }
  insertSource(source: NewSource): number {
    const row: SourceRow = {
      seq: this.#state.sources.length + 1,
      title: source.title,
      url: source.url,
      normalized_url: source.normalized_url,
      description: source.description,
      added_at: source.added_at,
    };
    this.#save(this.#state.sourcesByUrl, row.normalized_url);
    this.#undo?.push(() => this.#state.sources.pop());
    this.#state.sources.push(row);
    this.#state.sourcesByUrl.set(row.normalized_url, row);
    return row.seq;
  }
  insertFile(file: NewFile): number {
    const row: FileRow = { seq: this.#state.files.length + 1, name: file.name, media_type: file.media_type, size_bytes: file.size_bytes, added_at: file.added_at };
    this.#undo?.push(() => this.#state.files.pop());
    this.#state.files.push(row);
    return row.seq;
  }

  attachments(kind: "sources", after: number, limit: number): SourceRow[];
  attachments(kind: "files", after: number, limit: number): FileRow[];
  attachments(kind: AttachmentKind, after: number, limit: number): SourceRow[] | FileRow[] {
    // Sequence numbers are 1, 2, 3…: the row after `after` sits at index `after`.
    if (kind === "sources") return this.#state.sources.slice(after, after + limit).map(copySource);
    return this.#state.files.slice(after, after + limit).map(copyFile);
  }
}

// Rows are copied field by field, as SQLite hands out its columns: V8 copies an
// object literal many times faster than a spread of an object that was itself
// spread, and a field added to a row type without a copy here fails to compile.

function copyMeta(meta: NoteMeta): NoteMeta {
  return {
    note_id: meta.note_id,
    title: meta.title,
    version: meta.version,
    approved: meta.approved,
    next_tab_n: meta.next_tab_n,
    tab_count: meta.tab_count,
    source_count: meta.source_count,
    file_count: meta.file_count,
    created_at: meta.created_at,
  };
}

function copyTab(tab: TabRow): TabRow {
  return { id: tab.id, type: tab.type, label: tab.label, position: tab.position, slide_count: tab.slide_count };
}

function copySlide(slide: Slide): Slide {
  return { title: slide.title, body: slide.body, notes: slide.notes };
}

function copySource(row: SourceRow): SourceRow {
  return { seq: row.seq, title: row.title, url: row.url, normalized_url: row.normalized_url, description: row.description, added_at: row.added_at };
}

function copyFile(row: FileRow): FileRow {
  return { seq: row.seq, name: row.name, media_type: row.media_type, size_bytes: row.size_bytes, added_at: row.added_at };
}

/**
 * Sorts rows by position, in place, keeping rows of equal position in their
 * order (a stable insertion sort). A strip is a handful of tabs, nearly in
 * order already, where this takes a fraction of Array#sort's time.
 */
function byPosition(rows: TabRow[]): TabRow[] {
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i] as TabRow;
    let j = i - 1;
    for (; j >= 0 && (rows[j] as TabRow).position > row.position; j--) rows[j + 1] = rows[j] as TabRow;
    rows[j + 1] = row;
  }
  return rows;
}

/**
 * A copy of a result. Results are flat, of strings, numbers and booleans, so a
 * shallow copy is what SQLite's JSON round trip gives back.
 */
function copyResult(result: RecordedResult): RecordedResult {
  return { ...result };
}
