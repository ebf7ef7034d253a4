/**
 * An in-memory `NoteStore` for unit tests and the simulations, kept to answer
 * exactly as the SQLite store does. A transaction keeps an undo journal of
 * what it changed and plays it back when the operation fails or throws, as
 * SQLite's rollback does; a write outside a transaction is refused. Every
 * read hands out a copy, as SQLite's rows are, and text orders as SQLite's
 * BINARY collation does (by code point).
 */
import type { ChangeEntry } from "./changes.js";
import type { AttachmentKind } from "./cursor.js";
import type { Result } from "./result.js";
import { bm25, tokensOf } from "./search/bm25.js";
import type { IndexDoc } from "./search/documents.js";
import { byCodePoint } from "./unicode.js";
import { trashOf, type ChangeTouch, type UndoStep } from "./undo.js";
import type { ChangeUndo, DirectoryEntry, DirectoryWhen, FileRow, IdempotencyRecord, Keyed, NewFile, NewSource, NoteMeta, NoteStore, OwedEntry, ScoredDoc, SearchAfter, Sequence, SheetRow, Slide, SourceRow, TabRow } from "./store.js";

export class MemoryNoteStore implements NoteStore {
  #meta: NoteMeta | null = null;
  /** null until first written, as the SQLite table has no row until then. */
  #markdown: string | null = null;
  readonly #members = new Map<string, "owner" | "editor">();
  readonly #tabs = new Map<string, TabRow>();
  readonly slides: MemorySequence<Slide>;
  readonly rows: MemorySequence<SheetRow>;
  readonly #keys = new Map<string, IdempotencyRecord>();
  /** In sequence order; a reverted citation leaves a gap, and a number is never given twice (SQLite's AUTOINCREMENT). */
  readonly #sources: SourceRow[] = [];
  readonly #sourcesByUrl = new Map<string, SourceRow>();
  readonly #files: FileRow[] = [];
  #lastSource = 0;
  #lastFile = 0;
  readonly #outbox = new Map<number, OwedEntry>();
  #outboxSeq = 0;
  #queued: DirectoryWhen | null = null;
  /** The change log by version. */
  readonly #changes = new Map<number, ChangeEntry>();
  /** Each entry's undo information as the SQLite row keeps it: JSON text, or null. */
  /** The touch index: each key with the last version that touched it. */
  readonly #touched = new Map<string, number>();
  readonly #undos = new Map<number, { touch: string; steps: string } | null>();
  #committed: ChangeEntry[] = [];
  /** The search index by key (the SQLite store's FTS5 table `search`). */
  readonly #search = new Map<number, IndexDoc>();
  /** Undo steps of the running transaction, newest last; null outside one. */
  #undo: (() => void)[] | null = null;

  constructor() {
    const saveTab = <T>(tabs: Map<string, T>, tabId: string) => this.#saveEntry(tabs, tabId);
    this.slides = new MemorySequence<Slide>(saveTab, copySlide);
    this.rows = new MemorySequence<SheetRow>(saveTab, copyRow);
  }

  transaction<T>(fn: () => Result<T>): Result<T> {
    if (this.#undo !== null) throw new Error("nested transaction: one operation runs in one transaction, opened by Note.execute");
    const undo: (() => void)[] = [];
    const queued = this.#queued;
    const committed = this.#committed.length;
    this.#undo = undo;
    let result: Result<T> | undefined;
    try {
      result = fn();
      return result;
    } finally {
      this.#undo = null;
      if (result === undefined || !result.ok) {
        for (const step of undo.reverse()) step();
        this.#queued = queued;
        this.#committed.length = committed;
      }
    }
  }

  /** Remembers how to put back what a write is about to change; every write runs inside a transaction. */
  #onUndo(step: () => void): void {
    if (this.#undo === null) throw new Error("a write outside a transaction: run it through NoteStore.transaction");
    this.#undo.push(step);
  }

  #saveEntry<K, V>(map: Map<K, V>, key: K): void {
    const had = map.has(key);
    const old = map.get(key);
    this.#onUndo(() => (had ? map.set(key, old as V) : map.delete(key)));
  }

  readMeta(): NoteMeta | null {
    return this.#meta === null ? null : metaRow(this.#meta, this.#meta);
  }
  writeMeta(meta: NoteMeta): void {
    const old = this.#meta;
    this.#onUndo(() => (this.#meta = old));
    this.#meta = metaRow(meta, old ?? meta);
  }

  isMember(user: string): boolean {
    return this.#members.has(user);
  }
  addMember(user: string, role: "owner" | "editor"): void {
    if (this.#members.has(user)) return;
    this.#saveEntry(this.#members, user);
    this.#members.set(user, role);
  }
  removeMember(user: string): void {
    if (!this.#members.has(user)) return;
    this.#saveEntry(this.#members, user);
    this.#members.delete(user);
  }
  members(): string[] {
    return [...this.#members.keys()].sort(byCodePoint);
  }

  tabs(): TabRow[] {
    return [...this.#tabs.values()].sort((a, b) => a.position - b.position || byCodePoint(a.id, b.id)).map(copyTab);
  }
  tab(id: string): TabRow | null {
    const tab = this.#tabs.get(id);
    return tab === undefined ? null : copyTab(tab);
  }
  insertTab(tab: TabRow): void {
    if (this.#tabs.has(tab.id)) throw new Error(`tab ${tab.id} exists`);
    this.#saveEntry(this.#tabs, tab.id);
    this.#tabs.set(tab.id, copyTab(tab));
  }
  updateTab(tab: TabRow): void {
    const old = this.#tabs.get(tab.id);
    if (old === undefined) return;
    this.#saveEntry(this.#tabs, tab.id);
    // As SQLite's UPDATE: a tab's type never changes.
    const row = copyTab(tab);
    row.type = old.type;
    this.#tabs.set(tab.id, row);
  }
  deleteTab(id: string): void {
    this.#saveEntry(this.#tabs, id);
    this.#tabs.delete(id);
    this.slides.clear(id);
    this.rows.clear(id);
  }

  slideTitled(tabId: string, title: string): boolean {
    return this.slides.all(tabId).some((slide) => slide.title === title);
  }

  markdown(): string {
    return this.#markdown ?? "";
  }
  writeMarkdown(text: string): void {
    const old = this.#markdown;
    this.#onUndo(() => (this.#markdown = old));
    this.#markdown = text;
  }

  idempotency(key: string): IdempotencyRecord | null {
    const record = this.#keys.get(key);
    return record === undefined ? null : copyRecord(record);
  }
  recordIdempotency(record: IdempotencyRecord): void {
    if (this.#keys.has(record.key)) throw new Error(`idempotency key ${record.key} is recorded`);
    this.#saveEntry(this.#keys, record.key);
    this.#keys.set(record.key, copyRecord(record));
  }
  pruneIdempotency(cutoff: number): number {
    const expired = [...this.#keys.values()].filter((record) => record.created_at <= cutoff);
    for (const record of expired) {
      this.#saveEntry(this.#keys, record.key);
      this.#keys.delete(record.key);
    }
    return expired.length;
  }
  oldestIdempotency(): number | null {
    const times = [...this.#keys.values()].map((record) => record.created_at);
    return times.length === 0 ? null : Math.min(...times);
  }

  sourceByNormalizedUrl(normalized: string): SourceRow | null {
    const row = this.#sourcesByUrl.get(normalized);
    return row === undefined ? null : { ...row };
  }
  insertSource(source: NewSource): number {
    const row: SourceRow = { seq: this.#lastSource + 1, ...source };
    this.restoreSource(row);
    return row.seq;
  }
  insertFile(file: NewFile): number {
    const row: FileRow = { seq: this.#lastFile + 1, ...file };
    this.restoreFile(row);
    return row.seq;
  }
  removeSource(seq: number): void {
    const at = this.#sources.findIndex((row) => row.seq === seq);
    const row = this.#sources[at];
    if (row === undefined) return;
    this.#saveEntry(this.#sourcesByUrl, row.normalized_url);
    this.#onUndo(() => this.#sources.splice(at, 0, row));
    this.#sources.splice(at, 1);
    this.#sourcesByUrl.delete(row.normalized_url);
  }
  restoreSource(source: SourceRow): void {
    if (this.#sourcesByUrl.has(source.normalized_url)) throw new Error("UNIQUE constraint failed: sources.normalized_url");
    const row = { ...source };
    const at = this.#sources.findIndex((r) => r.seq > row.seq);
    const index = at < 0 ? this.#sources.length : at;
    const last = this.#lastSource;
    this.#saveEntry(this.#sourcesByUrl, row.normalized_url);
    this.#onUndo(() => {
      this.#sources.splice(index, 1);
      this.#lastSource = last;
    });
    this.#sources.splice(index, 0, row);
    this.#sourcesByUrl.set(row.normalized_url, row);
    this.#lastSource = Math.max(last, row.seq);
  }
  removeFile(seq: number): void {
    const at = this.#files.findIndex((row) => row.seq === seq);
    const row = this.#files[at];
    if (row === undefined) return;
    this.#onUndo(() => this.#files.splice(at, 0, row));
    this.#files.splice(at, 1);
  }
  restoreFile(file: FileRow): void {
    const row = { ...file };
    const at = this.#files.findIndex((r) => r.seq > row.seq);
    const index = at < 0 ? this.#files.length : at;
    const last = this.#lastFile;
    this.#onUndo(() => {
      this.#files.splice(index, 1);
      this.#lastFile = last;
    });
    this.#files.splice(index, 0, row);
    this.#lastFile = Math.max(last, row.seq);
  }
  attachment(kind: "sources", seq: number): SourceRow | null;
  attachment(kind: "files", seq: number): FileRow | null;
  attachment(kind: AttachmentKind, seq: number): SourceRow | FileRow | null {
    const rows: readonly (SourceRow | FileRow)[] = kind === "sources" ? this.#sources : this.#files;
    const row = rows.find((r) => r.seq === seq);
    return row === undefined ? null : { ...row };
  }

  attachments(kind: "sources", after: number, limit: number): SourceRow[];
  attachments(kind: "files", after: number, limit: number): FileRow[];
  attachments(kind: AttachmentKind, after: number, limit: number): SourceRow[] | FileRow[] {
    // Sequence numbers rise, with gaps only where a revert took one away: the row after `after` sits at index `after` or before it.
    const rows: readonly (SourceRow | FileRow)[] = kind === "sources" ? this.#sources : this.#files;
    let at = Math.min(after, rows.length);
    while (at > 0 && (rows[at - 1] as { seq: number }).seq > after) at--;
    return rows.slice(at, at + limit).map((row) => ({ ...row })) as SourceRow[] | FileRow[];
  }

  recordChange(entry: ChangeEntry, undo: ChangeUndo | null = null): void {
    if (this.#changes.has(entry.version)) throw new Error(`UNIQUE constraint failed: changes.version (${entry.version})`);
    this.#saveEntry(this.#changes, entry.version);
    this.#saveEntry(this.#undos, entry.version);
    this.#undos.set(entry.version, undo === null ? null : { touch: JSON.stringify(undo.touch), steps: JSON.stringify(undo.steps) });
    // Kept as SQLite keeps it, a copy: every read hands out new objects. The committed list holds the entry itself, as the SQLite store's does.
    this.#changes.set(entry.version, copyChange(entry));
    this.#committed.push(entry);
  }
  dropChange(version: number): void {
    if (!this.#changes.has(version)) return;
    this.#saveEntry(this.#changes, version);
    this.#changes.delete(version);
    this.#saveEntry(this.#undos, version);
    this.#undos.delete(version);
    this.slides.clear(trashOf(version));
    this.rows.clear(trashOf(version));
  }
  change(version: number): { entry: ChangeEntry; undo: ChangeUndo | null } | null {
    const entry = this.#changes.get(version);
    if (entry === undefined) return null;
    const undo = this.#undos.get(version) ?? null;
    return { entry: copyChange(entry), undo: undo === null ? null : { touch: JSON.parse(undo.touch) as ChangeTouch, steps: JSON.parse(undo.steps) as UndoStep[] } };
  }
  changePage(version: number, limit: number): { entry: ChangeEntry; touch: ChangeTouch | null }[] {
    return this.changesSince(version, limit).map((entry) => {
      const undo = this.#undos.get(entry.version) ?? null;
      return { entry, touch: undo === null ? null : (JSON.parse(undo.touch) as ChangeTouch) };
    });
  }
  lastTouches(keys: readonly string[]): Map<string, number> {
    const last = new Map<string, number>();
    for (const key of keys) {
      const version = this.#touched.get(key);
      if (version !== undefined) last.set(key, version);
    }
    return last;
  }
  writeTouches(writes: readonly (readonly [string, number])[]): void {
    for (const [key, version] of writes) {
      this.#saveEntry(this.#touched, key);
      this.#touched.set(key, version);
    }
  }
  pruneTouches(version: number): number {
    const stale = [...this.#touched].filter(([, v]) => v < version).map(([key]) => key);
    for (const key of stale) {
      this.#saveEntry(this.#touched, key);
      this.#touched.delete(key);
    }
    return stale.length;
  }
  touchesSince(version: number): { version: number; touch: ChangeTouch | null }[] {
    return [...this.#changes.keys()]
      .filter((v) => v > version)
      .sort((a, b) => a - b)
      .map((v) => {
        const undo = this.#undos.get(v) ?? null;
        return { version: v, touch: undo === null ? null : (JSON.parse(undo.touch) as ChangeTouch) };
      });
  }
  changesSince(version: number, limit: number): ChangeEntry[] {
    return [...this.#changes.values()]
      .filter((entry) => entry.version > version)
      .sort((a, b) => a.version - b.version)
      .slice(0, limit)
      .map(copyChange);
  }
  oldestChange(): number | null {
    let oldest: number | null = null;
    for (const version of this.#changes.keys()) if (oldest === null || version < oldest) oldest = version;
    return oldest;
  }
  takeCommittedChanges(): ChangeEntry[] {
    const taken = this.#committed;
    this.#committed = [];
    return taken;
  }

  queueDirectoryEntry(user: string, entry: DirectoryEntry, when: DirectoryWhen = "now"): void {
    const seq = this.#outboxSeq + 1;
    this.#onUndo(() => {
      this.#outbox.delete(seq);
      this.#outboxSeq = seq - 1;
    });
    this.#outboxSeq = seq;
    this.#outbox.set(seq, { seq, user, entry: { ...entry } });
    if (this.#queued !== "now") this.#queued = when;
  }
  queuedDirectoryEntries(): DirectoryWhen | null {
    return this.#queued;
  }
  owedDirectoryEntries(): OwedEntry[] {
    this.#queued = null;
    return [...this.#outbox.values()].map((owed) => ({ ...owed, entry: { ...owed.entry } }));
  }
  directoryEntryDelivered(seq: number): void {
    this.#outbox.delete(seq);
  }
  dropDirectoryEntries(): void {
    const dropped = new Map(this.#outbox);
    this.#onUndo(() => {
      for (const [seq, owed] of dropped) this.#outbox.set(seq, owed);
    });
    this.#outbox.clear();
  }
  owesDirectoryEntries(): boolean {
    return this.#outbox.size > 0;
  }

  searchPut(doc: IndexDoc): void {
    this.#saveEntry(this.#search, doc.key);
    this.#search.set(doc.key, { key: doc.key, item: doc.item, text: doc.text });
  }
  searchDrop(key: number): void {
    if (!this.#search.has(key)) return;
    this.#saveEntry(this.#search, key);
    this.#search.delete(key);
  }
  searchQuery(terms: readonly (readonly string[])[], after: SearchAfter | null, limit: number): ScoredDoc[] {
    const tokens = new Map<number, string[]>();
    for (const [key, doc] of this.#search) tokens.set(key, tokensOf(doc.text));
    return bm25(tokens, terms)
      .filter(({ key, score }) => after === null || score > after.score || (score === after.score && key > after.key))
      .sort((a, b) => a.score - b.score || a.key - b.key)
      .slice(0, limit)
      .map(({ key, score }) => ({ key, item: (this.#search.get(key) as IndexDoc).item, score }));
  }
  searchDocs(keys: readonly number[]): IndexDoc[] {
    return [...new Set(keys)]
      .sort((a, b) => a - b)
      .flatMap((key) => {
        const doc = this.#search.get(key);
        return doc === undefined ? [] : [{ ...doc }];
      });
  }
  searchDump(): IndexDoc[] {
    return this.searchDocs([...this.#search.keys()]);
  }

  /**
   * Everything kept, as the rows of the SQLite tables of the same names and
   * columns (src/storage/migrations.ts), each table in primary-key order: what
   * a test compares with the object's database and with a model.
   */
  tables(): Record<string, Record<string, unknown>[]> {
    const m = this.#meta;
    // Each row's columns in the order of the SQLite table (migrations add theirs at the end).
    return {
      meta: m === null ? [] : [{ id: 1, note_id: m.note_id, title: m.title, version: m.version, approved: m.approved ? 1 : 0,
        next_tab_n: m.next_tab_n, source_count: m.source_count, file_count: m.file_count, created_at: m.created_at, tab_count: m.tab_count, deleted: m.deleted ? 1 : 0,
        next_slide_n: m.next_slide_n, next_row_n: m.next_row_n }],
      markdown: this.#markdown === null ? [] : [{ id: 1, text: this.#markdown }],
      members: [...this.#members].sort(([a], [b]) => byCodePoint(a, b)).map(([user, role]) => ({ user, role })),
      tabs: [...this.#tabs.values()]
        .sort((a, b) => byCodePoint(a.id, b.id))
        .map((t) => ({ id: t.id, type: t.type, label: t.label, position: t.position, slide_count: t.slide_count, row_count: t.row_count, columns: JSON.stringify(t.columns) })),
      slides: this.slides.rows().map(({ tab_id, item: s }) => ({ tab_id, idx: s.key, title: s.title, body: s.body, notes: s.notes, id: s.id })),
      idempotency: [...this.#keys.values()]
        .sort((a, b) => byCodePoint(a.key, b.key))
        .map((r) => ({ key: r.key, tool: r.tool, result: JSON.stringify(r.result), created_at: r.created_at, fingerprint: r.fingerprint })),
      sources: this.#sources.map((r) => ({ seq: r.seq, title: r.title, url: r.url, normalized_url: r.normalized_url, description: r.description, added_at: r.added_at })),
      changes: [...this.#changes.values()]
        .sort((a, b) => a.version - b.version)
        .map((entry) => ({ version: entry.version, entry: JSON.stringify(entry), touch: this.#undos.get(entry.version)?.touch ?? null, undo: this.#undos.get(entry.version)?.steps ?? null })),
      files: this.#files.map((r) => ({ seq: r.seq, name: r.name, media_type: r.media_type, size_bytes: r.size_bytes, added_at: r.added_at })),
      outbox: [...this.#outbox.values()].map(({ seq, user, entry }) => ({ seq, user, entry: JSON.stringify(entry) })),
      touched: [...this.#touched].sort(([a], [b]) => byCodePoint(a, b)).map(([key, version]) => ({ key, version })),
      sheet_rows: this.rows.rows().map(({ tab_id, item: r }) => ({ tab_id, idx: r.key, id: r.id, cells: JSON.stringify(r.cells) })),
      // The FTS5 table's rows as `SELECT rowid, * FROM search` has them (test/support/note-tables.ts); its shadow tables are FTS5's own.
      search: this.searchDump().map((d) => ({ rowid: d.key, text: d.text, item: d.item })),
    };
  }
}

/** The meta row column by column, as SQLite's upsert writes it: the Note's ID and creation time once, from `first`. */
function metaRow(meta: NoteMeta, first: NoteMeta): NoteMeta {
  return {
    note_id: first.note_id,
    title: meta.title,
    version: meta.version,
    approved: meta.approved,
    next_tab_n: meta.next_tab_n,
    tab_count: meta.tab_count,
    source_count: meta.source_count,
    file_count: meta.file_count,
    created_at: first.created_at,
    deleted: meta.deleted,
    next_slide_n: meta.next_slide_n,
    next_row_n: meta.next_row_n,
  };
}

/** A tab row's own copy, its columns as the SQLite table has them (one object shape for every tab). */
function copyTab(tab: TabRow): TabRow {
  return {
    id: tab.id,
    type: tab.type,
    label: tab.label,
    position: tab.position,
    slide_count: tab.slide_count,
    row_count: tab.row_count,
    columns: tab.columns.length === 0 ? [] : tab.columns.slice(),
  };
}

/** A change entry's own copy, field by field: structuredClone here was the largest single cost of a write in `npm run sim`. */
function copyChange(entry: ChangeEntry): ChangeEntry {
  const copy = { ...entry };
  copy.actor = { ...entry.actor };
  if (entry.slide_ids !== undefined) copy.slide_ids = entry.slide_ids.slice();
  if (entry.row_ids !== undefined) copy.row_ids = entry.row_ids.slice();
  return copy;
}

/** A slide as the table's columns hold it, its own object. */
function copySlide(slide: Keyed<Slide>): Keyed<Slide> {
  return { id: slide.id, title: slide.title, body: slide.body, notes: slide.notes, key: slide.key };
}

/** A Sheet row as the table's columns hold it, its own object and its own cells (strings and numbers). */
function copyRow(row: Keyed<SheetRow>): Keyed<SheetRow> {
  return { id: row.id, cells: { ...row.cells }, key: row.key };
}

/**
 * A tab's items in key order, as the SQLite table's primary key keeps them.
 * Each write replaces the tab's list (never mutates it), after `save` has put
 * the old list in the transaction's undo journal.
 */
class MemorySequence<T extends { id: string }> implements Sequence<T> {
  readonly #tabs = new Map<string, readonly Keyed<T>[]>();

  constructor(
    private readonly save: (tabs: Map<string, readonly Keyed<T>[]>, tabId: string) => void,
    /** An item's own copy, never the stored object, with the table's columns only: what every read hands out and every write keeps. */
    private readonly copy: (item: Keyed<T>) => Keyed<T>,
  ) {}

  #list(tabId: string): readonly Keyed<T>[] {
    return this.#tabs.get(tabId) ?? [];
  }
  /** Replaces the tab's list with `list`, a new array of the caller's that no one else holds. */
  #write(tabId: string, list: Keyed<T>[]): void {
    this.save(this.#tabs, tabId);
    if (list.length === 0) this.#tabs.delete(tabId);
    else this.#tabs.set(tabId, inKeyOrder(list) ? list : list.sort((a, b) => a.key - b.key));
  }

  all(tabId: string): Keyed<T>[] {
    return this.#list(tabId).map(this.copy);
  }
  page(tabId: string, after: number | null, limit: number): Keyed<T>[] {
    return this.#list(tabId).filter((item) => after === null || item.key > after).slice(0, limit).map(this.copy);
  }
  find(id: string): (Keyed<T> & { tab_id: string }) | null {
    for (const [tab_id, list] of this.#tabs) {
      const item = list.find((it) => it.id === id);
      if (item !== undefined) {
        // The copy's own fields, then tab_id: a spread followed by a new field costs Node's V8 a new hidden class per object.
        const found = this.copy(item) as Keyed<T> & { tab_id: string };
        found.tab_id = tab_id;
        return found;
      }
    }
    return null;
  }
  /** Whether any tab holds an item with this ID (what the table's unique index checks), without copying it. */
  #holds(id: string): boolean {
    for (const list of this.#tabs.values()) if (list.some((it) => it.id === id)) return true;
    return false;
  }
  lastKey(tabId: string): number | null {
    return this.#list(tabId).at(-1)?.key ?? null;
  }
  keyAfter(tabId: string, key: number | null): number | null {
    return this.#list(tabId).find((item) => key === null || item.key > key)?.key ?? null;
  }
  insert(tabId: string, items: readonly Keyed<T>[]): void {
    const list = this.#list(tabId);
    // As the table's primary key and unique index refuse them, within the batch too.
    const keys = new Set(list.map((it) => it.key));
    const ids = new Set<string>();
    for (const item of items) {
      if (keys.has(item.key) || ids.has(item.id) || this.#holds(item.id)) throw new Error(`item ${item.id} or key ${item.key} exists`);
      keys.add(item.key);
      ids.add(item.id);
    }
    this.#write(tabId, [...list, ...items.map(this.copy)]);
  }
  update(tabId: string, item: Keyed<T>): void {
    const list = this.#list(tabId);
    if (!list.some((it) => it.id === item.id)) return;
    if (list.some((it) => it.key === item.key && it.id !== item.id)) throw new Error(`key ${item.key} is taken`);
    this.#write(tabId, list.map((it) => (it.id === item.id ? this.copy(item) : it)));
  }
  remove(tabId: string, id: string): void {
    const list = this.#list(tabId);
    if (list.some((it) => it.id === id)) this.#write(tabId, list.filter((it) => it.id !== id));
  }
  clear(tabId: string): void {
    if (this.#tabs.has(tabId)) this.#write(tabId, []);
  }
  retab(from: string, to: string, ids: readonly string[] | null): void {
    const list = this.#list(from);
    const moving = ids === null ? list : list.filter((it) => ids.includes(it.id));
    if (moving.length === 0) return;
    const target = this.#list(to);
    const keys = new Set(target.map((it) => it.key));
    if (moving.some((it) => keys.has(it.key))) throw new Error(`a key of the items moved to ${to} is taken`);
    this.#write(from, ids === null ? [] : list.filter((it) => !ids.includes(it.id)));
    this.#write(to, [...target, ...moving]);
  }
  itemBefore(tabId: string, key: number): Keyed<T> | null {
    const list = this.#list(tabId);
    let found: Keyed<T> | undefined;
    for (const item of list) {
      if (item.key >= key) break;
      found = item;
    }
    return found === undefined ? null : this.copy(found);
  }

  /** Every item, by tab ID then key: the table's rows in primary-key order. */
  rows(): { tab_id: string; item: Keyed<T> }[] {
    return [...this.#tabs]
      .sort(([a], [b]) => byCodePoint(a, b))
      .flatMap(([tab_id, list]) => list.map((item) => ({ tab_id, item: this.copy(item) })));
  }
}

/** Whether the items' keys rise: an append or an update in place leaves them so, and then nothing needs sorting. */
function inKeyOrder(list: readonly { key: number }[]): boolean {
  for (let i = 1; i < list.length; i++) if ((list[i] as { key: number }).key <= (list[i - 1] as { key: number }).key) return false;
  return true;
}

function copyRecord(r: IdempotencyRecord): IdempotencyRecord {
  return { key: r.key, tool: r.tool, fingerprint: r.fingerprint, result: { ...r.result }, created_at: r.created_at };
}
