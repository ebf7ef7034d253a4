/** The Note's storage in its Durable Object's SQLite database. */
import type { ChangeEntry, AttachmentKind, DirectoryEntry, DirectoryWhen, Result, Cells, FileRow, IdempotencyRecord, Keyed, NewFile, NewSource, NoteMeta, NoteStore, OwedEntry, RecordedResult, Sequence, SheetRow, Slide, SourceRow, TabRow } from "../note/index.js";
import { termsExpression, trashOf, type ChangeTouch, type ChangeUndo, type IndexDoc, type ScoredDoc, type SearchAfter, type UndoStep } from "../note/index.js";
import { migrate, type Migration } from "./migrations.js";
import type { Sql, SqlValue } from "./sql.js";

interface MetaRow {
  note_id: string;
  title: string;
  version: number;
  approved: number;
  next_tab_n: number;
  tab_count: number;
  source_count: number;
  file_count: number;
  created_at: number;
  deleted: number;
  next_slide_n: number;
  next_row_n: number;
}

/** SQLite here binds at most 100 values a statement. */
const VALUES_PER_STATEMENT = 100;

/**
 * A tab's items in one table, `(tab_id, idx)` its primary key (idx the order
 * key) and a unique index on `id`: a page is a range of the primary key, an
 * item found by ID one lookup in the index.
 */
class SqlSequence<T extends { id: string }> implements Sequence<T> {
  readonly #select: string;
  readonly #insertRow: string;
  readonly #perInsert: number;

  constructor(
    private readonly sql: Sql,
    private readonly table: string,
    /** The item's own columns, after tab_id, idx and id. */
    private readonly columns: readonly string[],
    private readonly encode: (item: T) => SqlValue[],
    private readonly decode: (row: Record<string, SqlValue>) => T,
  ) {
    this.#select = `SELECT tab_id, idx, id, ${columns.join(", ")} FROM ${table}`;
    this.#insertRow = `(${["?", "?", "?", ...columns.map(() => "?")].join(", ")})`;
    this.#perInsert = Math.floor(VALUES_PER_STATEMENT / (3 + columns.length));
  }

  #item(row: Record<string, SqlValue>): Keyed<T> {
    return { ...this.decode(row), id: row.id as string, key: row.idx as number };
  }

  all(tabId: string): Keyed<T>[] {
    return this.sql.all<Record<string, SqlValue>>(`${this.#select} WHERE tab_id = ? ORDER BY idx`, tabId).map((row) => this.#item(row));
  }
  page(tabId: string, after: number | null, limit: number): Keyed<T>[] {
    const rows =
      after === null
        ? this.sql.all<Record<string, SqlValue>>(`${this.#select} WHERE tab_id = ? ORDER BY idx LIMIT ?`, tabId, limit)
        : this.sql.all<Record<string, SqlValue>>(`${this.#select} WHERE tab_id = ? AND idx > ? ORDER BY idx LIMIT ?`, tabId, after, limit);
    return rows.map((row) => this.#item(row));
  }
  find(id: string): (Keyed<T> & { tab_id: string }) | null {
    const row = this.sql.first<Record<string, SqlValue>>(`${this.#select} WHERE id = ?`, id);
    return row === null ? null : { ...this.#item(row), tab_id: row.tab_id as string };
  }
  lastKey(tabId: string): number | null {
    return this.sql.first<{ idx: number }>(`SELECT idx FROM ${this.table} WHERE tab_id = ? ORDER BY idx DESC LIMIT 1`, tabId)?.idx ?? null;
  }
  keyAfter(tabId: string, key: number | null): number | null {
    const row =
      key === null
        ? this.sql.first<{ idx: number }>(`SELECT idx FROM ${this.table} WHERE tab_id = ? ORDER BY idx LIMIT 1`, tabId)
        : this.sql.first<{ idx: number }>(`SELECT idx FROM ${this.table} WHERE tab_id = ? AND idx > ? ORDER BY idx LIMIT 1`, tabId, key);
    return row?.idx ?? null;
  }
  insert(tabId: string, items: readonly Keyed<T>[]): void {
    for (let start = 0; start < items.length; start += this.#perInsert) {
      const chunk = items.slice(start, start + this.#perInsert);
      const values = chunk.flatMap((item) => [tabId, item.key, item.id, ...this.encode(item)]);
      this.sql.run(
        `INSERT INTO ${this.table} (tab_id, idx, id, ${this.columns.join(", ")}) VALUES ${chunk.map(() => this.#insertRow).join(", ")}`,
        ...values,
      );
    }
  }
  update(tabId: string, item: Keyed<T>): void {
    const set = this.columns.map((column) => `${column} = ?`).join(", ");
    this.sql.run(`UPDATE ${this.table} SET idx = ?, ${set} WHERE id = ? AND tab_id = ?`, item.key, ...this.encode(item), item.id, tabId);
  }
  remove(tabId: string, id: string): void {
    this.sql.run(`DELETE FROM ${this.table} WHERE id = ? AND tab_id = ?`, id, tabId);
  }
  clear(tabId: string): void {
    this.sql.run(`DELETE FROM ${this.table} WHERE tab_id = ?`, tabId);
  }
  retab(from: string, to: string, ids: readonly string[] | null): void {
    if (ids === null) {
      this.sql.run(`UPDATE ${this.table} SET tab_id = ? WHERE tab_id = ?`, to, from);
      return;
    }
    for (let start = 0; start < ids.length; start += VALUES_PER_STATEMENT - 2) {
      const chunk = ids.slice(start, start + VALUES_PER_STATEMENT - 2);
      this.sql.run(`UPDATE ${this.table} SET tab_id = ? WHERE tab_id = ? AND id IN (${chunk.map(() => "?").join(", ")})`, to, from, ...chunk);
    }
  }
  itemBefore(tabId: string, key: number): Keyed<T> | null {
    const row = this.sql.first<Record<string, SqlValue>>(`${this.#select} WHERE tab_id = ? AND idx < ? ORDER BY idx DESC LIMIT 1`, tabId, key);
    return row === null ? null : this.#item(row);
  }
}

const TAB_COLUMNS = "id, type, label, position, slide_count, row_count, columns";
type TabSqlRow = Omit<TabRow, "columns"> & { columns: string };

function tabRow(row: TabSqlRow): TabRow {
  return { ...row, columns: JSON.parse(row.columns) as string[] };
}

/** Carries a failure result out of `transactionSync`, which rolls back only on a throw. */
class RolledBack {
  constructor(readonly result: Result<never>) {}
}

/**
 * The Note's storage. It is the only caller of `transactionSync` on the
 * Note object's storage (the migrations included), so it knows when a
 * transaction is open and refuses to nest one.
 */
export class SqliteNoteStore implements NoteStore {
  #inTransaction = false;
  /** Whether a committed operation queued directory entries the outbox has not handed out yet. */
  #queued: DirectoryWhen | null = null;
  /** Change log entries written since takeCommittedChanges last ran; a rollback drops its own. */
  #committed: ChangeEntry[] = [];

  readonly slides: Sequence<Slide>;
  readonly rows: Sequence<SheetRow>;

  constructor(
    private readonly sql: Sql,
    private readonly storage: DurableObjectStorage,
  ) {
    this.slides = new SqlSequence<Slide>(
      sql,
      "slides",
      ["title", "body", "notes"],
      (slide) => [slide.title, slide.body, slide.notes],
      (row) => ({ id: row.id as string, title: row.title as string, body: row.body as string, notes: row.notes as string }),
    );
    this.rows = new SqlSequence<SheetRow>(
      sql,
      "sheet_rows",
      ["cells"],
      (row) => [JSON.stringify(row.cells)],
      (row) => ({ id: row.id as string, cells: JSON.parse(row.cells as string) as Cells }),
    );
  }

  transaction<T>(fn: () => Result<T>): Result<T> {
    const queued = this.#queued;
    const committed = this.#committed.length;
    try {
      return this.#exclusive(() => {
        const result = fn();
        if (!result.ok) throw new RolledBack(result);
        return result;
      });
    } catch (thrown) {
      this.#queued = queued;
      this.#committed.length = committed;
      if (thrown instanceof RolledBack) return thrown.result;
      throw thrown;
    }
  }

  /** Brings the schema up to date, in one transaction of its own: the object's constructor runs it. */
  migrate(migrations: readonly Migration[]): void {
    this.#exclusive(() => migrate(this.sql, migrations));
    // A migration may queue directory entries (migration 10, the index's first copy): the next operation delivers them.
    if (this.owesDirectoryEntries()) this.#queued = "now";
  }

  /**
   * One `transactionSync`, never two at once: a nested one would run as a
   * savepoint inside the outer, and the outer would commit its own writes
   * around an inner failure. A nested call is a programming error.
   */
  #exclusive<T>(fn: () => T): T {
    if (this.#inTransaction) throw new Error("nested transaction: one operation runs in one transaction, opened by Note.execute");
    this.#inTransaction = true;
    try {
      return this.storage.transactionSync(fn);
    } finally {
      this.#inTransaction = false;
    }
  }

  readMeta(): NoteMeta | null {
    const row = this.sql.first<MetaRow>(
      `SELECT note_id, title, version, approved, next_tab_n, tab_count, source_count, file_count, created_at, deleted, next_slide_n, next_row_n FROM meta WHERE id = 1`,
    );
    return row === null ? null : { ...row, approved: row.approved === 1, deleted: row.deleted === 1 };
  }

  writeMeta(meta: NoteMeta): void {
    this.sql.run(
      `INSERT INTO meta (id, note_id, title, version, approved, next_tab_n, tab_count, source_count, file_count, created_at, deleted, next_slide_n, next_row_n)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, version = excluded.version, approved = excluded.approved,
         next_tab_n = excluded.next_tab_n, tab_count = excluded.tab_count, source_count = excluded.source_count, file_count = excluded.file_count,
         deleted = excluded.deleted, next_slide_n = excluded.next_slide_n, next_row_n = excluded.next_row_n`,
      meta.note_id,
      meta.title,
      meta.version,
      meta.approved ? 1 : 0,
      meta.next_tab_n,
      meta.tab_count,
      meta.source_count,
      meta.file_count,
      meta.created_at,
      meta.deleted ? 1 : 0,
      meta.next_slide_n,
      meta.next_row_n,
    );
  }

  isMember(user: string): boolean {
    return this.sql.first(`SELECT 1 FROM members WHERE user = ?`, user) !== null;
  }
  addMember(user: string, role: "owner" | "editor"): void {
    this.sql.run(`INSERT OR IGNORE INTO members (user, role) VALUES (?, ?)`, user, role);
  }
  removeMember(user: string): void {
    this.sql.run(`DELETE FROM members WHERE user = ?`, user);
  }
  members(): string[] {
    return this.sql.all<{ user: string }>(`SELECT user FROM members ORDER BY user`).map((r) => r.user);
  }

  tabs(): TabRow[] {
    return this.sql.all<TabSqlRow>(`SELECT ${TAB_COLUMNS} FROM tabs ORDER BY position, id`).map(tabRow);
  }
  tab(id: string): TabRow | null {
    const row = this.sql.first<TabSqlRow>(`SELECT ${TAB_COLUMNS} FROM tabs WHERE id = ?`, id);
    return row === null ? null : tabRow(row);
  }
  insertTab(tab: TabRow): void {
    this.sql.run(
      `INSERT INTO tabs (id, type, label, position, slide_count, row_count, columns) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      tab.id,
      tab.type,
      tab.label,
      tab.position,
      tab.slide_count,
      tab.row_count,
      JSON.stringify(tab.columns),
    );
  }
  updateTab(tab: TabRow): void {
    this.sql.run(
      `UPDATE tabs SET label = ?, position = ?, slide_count = ?, row_count = ?, columns = ? WHERE id = ?`,
      tab.label,
      tab.position,
      tab.slide_count,
      tab.row_count,
      JSON.stringify(tab.columns),
      tab.id,
    );
  }
  deleteTab(id: string): void {
    this.slides.clear(id);
    this.rows.clear(id);
    this.sql.run(`DELETE FROM tabs WHERE id = ?`, id);
  }

  slideTitled(tabId: string, title: string): boolean {
    return this.sql.first(`SELECT 1 FROM slides WHERE tab_id = ? AND title = ? LIMIT 1`, tabId, title) !== null;
  }

  markdown(): string {
    return this.sql.first<{ text: string }>(`SELECT text FROM markdown WHERE id = 1`)?.text ?? "";
  }
  writeMarkdown(text: string): void {
    this.sql.run(`INSERT INTO markdown (id, text) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text`, text);
  }

  idempotency(key: string): IdempotencyRecord | null {
    const row = this.sql.first<{ key: string; tool: string; fingerprint: string | null; result: string; created_at: number }>(
      `SELECT key, tool, fingerprint, result, created_at FROM idempotency WHERE key = ?`,
      key,
    );
    return row === null ? null : { ...row, result: JSON.parse(row.result) as RecordedResult };
  }
  recordIdempotency(record: IdempotencyRecord): void {
    this.sql.run(
      `INSERT INTO idempotency (key, tool, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)`,
      record.key,
      record.tool,
      record.fingerprint,
      JSON.stringify(record.result),
      record.created_at,
    );
  }
  pruneIdempotency(cutoff: number): number {
    return this.sql.run(`DELETE FROM idempotency WHERE created_at <= ?`, cutoff);
  }
  oldestIdempotency(): number | null {
    return this.sql.first<{ t: number | null }>(`SELECT MIN(created_at) AS t FROM idempotency`)?.t ?? null;
  }

  sourceByNormalizedUrl(normalized: string): SourceRow | null {
    return this.sql.first<SourceRow>(
      `SELECT seq, title, url, normalized_url, description, added_at FROM sources WHERE normalized_url = ?`,
      normalized,
    );
  }
  insertSource(source: NewSource): number {
    return this.#inserted(
      this.sql.first<{ seq: number }>(
        `INSERT INTO sources (title, url, normalized_url, description, added_at) VALUES (?, ?, ?, ?, ?) RETURNING seq`,
        source.title,
        source.url,
        source.normalized_url,
        source.description,
        source.added_at,
      ),
    );
  }
  insertFile(file: NewFile): number {
    return this.#inserted(
      this.sql.first<{ seq: number }>(
        `INSERT INTO files (name, media_type, size_bytes, added_at) VALUES (?, ?, ?, ?) RETURNING seq`,
        file.name,
        file.media_type,
        file.size_bytes,
        file.added_at,
      ),
    );
  }

  #inserted(row: { seq: number } | null): number {
    if (row === null) throw new Error("INSERT … RETURNING seq returned no row");
    return row.seq;
  }

  attachments(kind: "sources", after: number, limit: number): SourceRow[];
  attachments(kind: "files", after: number, limit: number): FileRow[];
  attachments(kind: AttachmentKind, after: number, limit: number): SourceRow[] | FileRow[] {
    // A range on the primary key: a page reads `limit` rows however many the Note holds.
    if (kind === "sources") {
      return this.sql.all<SourceRow>(
        `SELECT seq, title, url, normalized_url, description, added_at FROM sources WHERE seq > ? ORDER BY seq LIMIT ?`,
        after,
        limit,
      );
    }
    return this.sql.all<FileRow>(`SELECT seq, name, media_type, size_bytes, added_at FROM files WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit);
  }

  recordChange(entry: ChangeEntry, undo: ChangeUndo | null = null): void {
    this.sql.run(
      `INSERT INTO changes (version, entry, touch, undo) VALUES (?, ?, ?, ?)`,
      entry.version,
      JSON.stringify(entry),
      undo === null ? null : JSON.stringify(undo.touch),
      undo === null ? null : JSON.stringify(undo.steps),
    );
    this.#committed.push(entry);
  }
  dropChange(version: number): void {
    this.sql.run(`DELETE FROM changes WHERE version = ?`, version);
    // What its deletion kept for a revert goes with it: a range of each table's primary key, empty as a rule.
    this.sql.run(`DELETE FROM slides WHERE tab_id = ?`, trashOf(version));
    this.sql.run(`DELETE FROM sheet_rows WHERE tab_id = ?`, trashOf(version));
  }
  change(version: number): { entry: ChangeEntry; undo: ChangeUndo | null } | null {
    const row = this.sql.first<{ entry: string; touch: string | null; undo: string | null }>(`SELECT entry, touch, undo FROM changes WHERE version = ?`, version);
    if (row === null) return null;
    const undo = row.touch === null || row.undo === null ? null : { touch: JSON.parse(row.touch) as ChangeTouch, steps: JSON.parse(row.undo) as UndoStep[] };
    return { entry: JSON.parse(row.entry) as ChangeEntry, undo };
  }
  changePage(version: number, limit: number): { entry: ChangeEntry; touch: ChangeTouch | null }[] {
    return this.sql
      .all<{ entry: string; touch: string | null }>(`SELECT entry, touch FROM changes WHERE version > ? ORDER BY version LIMIT ?`, version, limit)
      .map((row) => ({ entry: JSON.parse(row.entry) as ChangeEntry, touch: row.touch === null ? null : (JSON.parse(row.touch) as ChangeTouch) }));
  }
  lastTouches(keys: readonly string[]): Map<string, number> {
    const last = new Map<string, number>();
    for (let start = 0; start < keys.length; start += VALUES_PER_STATEMENT) {
      const chunk = keys.slice(start, start + VALUES_PER_STATEMENT);
      for (const row of this.sql.all<{ key: string; version: number }>(`SELECT key, version FROM touched WHERE key IN (${chunk.map(() => "?").join(", ")})`, ...chunk)) {
        last.set(row.key, row.version);
      }
    }
    return last;
  }
  writeTouches(writes: readonly (readonly [string, number])[]): void {
    const per = VALUES_PER_STATEMENT / 2;
    for (let start = 0; start < writes.length; start += per) {
      const chunk = writes.slice(start, start + per);
      this.sql.run(
        `INSERT INTO touched (key, version) VALUES ${chunk.map(() => "(?, ?)").join(", ")} ON CONFLICT (key) DO UPDATE SET version = excluded.version`,
        ...chunk.flatMap(([key, version]) => [key, version]),
      );
    }
  }
  pruneTouches(version: number): number {
    return this.sql.run(`DELETE FROM touched WHERE version < ?`, version);
  }
  touchesSince(version: number): { version: number; touch: ChangeTouch | null }[] {
    // `touch` only: a change's undo steps (a Markdown stretch, a row's cells) are never read here.
    return this.sql
      .all<{ version: number; touch: string | null }>(`SELECT version, touch FROM changes WHERE version > ? ORDER BY version`, version)
      .map((row) => ({ version: row.version, touch: row.touch === null ? null : (JSON.parse(row.touch) as ChangeTouch) }));
  }
  removeSource(seq: number): void {
    this.sql.run(`DELETE FROM sources WHERE seq = ?`, seq);
  }
  restoreSource(source: SourceRow): void {
    this.sql.run(
      `INSERT INTO sources (seq, title, url, normalized_url, description, added_at) VALUES (?, ?, ?, ?, ?, ?)`,
      source.seq,
      source.title,
      source.url,
      source.normalized_url,
      source.description,
      source.added_at,
    );
  }
  removeFile(seq: number): void {
    this.sql.run(`DELETE FROM files WHERE seq = ?`, seq);
  }
  restoreFile(file: FileRow): void {
    this.sql.run(`INSERT INTO files (seq, name, media_type, size_bytes, added_at) VALUES (?, ?, ?, ?, ?)`, file.seq, file.name, file.media_type, file.size_bytes, file.added_at);
  }
  attachment(kind: "sources", seq: number): SourceRow | null;
  attachment(kind: "files", seq: number): FileRow | null;
  attachment(kind: AttachmentKind, seq: number): SourceRow | FileRow | null {
    if (kind === "sources") return this.sql.first<SourceRow>(`SELECT seq, title, url, normalized_url, description, added_at FROM sources WHERE seq = ?`, seq);
    return this.sql.first<FileRow>(`SELECT seq, name, media_type, size_bytes, added_at FROM files WHERE seq = ?`, seq);
  }
  changesSince(version: number, limit: number): ChangeEntry[] {
    return this.sql
      .all<{ entry: string }>(`SELECT entry FROM changes WHERE version > ? ORDER BY version LIMIT ?`, version, limit)
      .map((row) => JSON.parse(row.entry) as ChangeEntry);
  }
  oldestChange(): number | null {
    return this.sql.first<{ version: number }>(`SELECT version FROM changes ORDER BY version LIMIT 1`)?.version ?? null;
  }
  takeCommittedChanges(): ChangeEntry[] {
    const taken = this.#committed;
    this.#committed = [];
    return taken;
  }

  queueDirectoryEntry(user: string, entry: DirectoryEntry, when: DirectoryWhen = "now"): void {
    this.sql.run(`INSERT INTO outbox (user, entry) VALUES (?, ?)`, user, JSON.stringify(entry));
    if (this.#queued !== "now") this.#queued = when;
  }
  queuedDirectoryEntries(): DirectoryWhen | null {
    return this.#queued;
  }
  owedDirectoryEntries(): OwedEntry[] {
    this.#queued = null;
    return this.sql
      .all<{ seq: number; user: string; entry: string }>(`SELECT seq, user, entry FROM outbox ORDER BY seq`)
      .map((row) => ({ ...row, entry: JSON.parse(row.entry) as DirectoryEntry }));
  }
  directoryEntryDelivered(seq: number): void {
    this.sql.run(`DELETE FROM outbox WHERE seq = ?`, seq);
  }
  dropDirectoryEntries(): void {
    this.sql.run(`DELETE FROM outbox`);
  }
  owesDirectoryEntries(): boolean {
    return this.sql.first(`SELECT 1 FROM outbox LIMIT 1`) !== null;
  }

  searchPut(doc: IndexDoc): void {
    // FTS5 takes REPLACE on its rowid: the key's old document (if any) leaves the index, the new one enters it.
    this.sql.run(`INSERT OR REPLACE INTO search (rowid, text, item) VALUES (?, ?, ?)`, doc.key, doc.text, doc.item);
  }
  searchDrop(key: number): void {
    this.sql.run(`DELETE FROM search WHERE rowid = ?`, key);
  }
  searchQuery(terms: readonly (readonly string[])[], after: SearchAfter | null, limit: number): ScoredDoc[] {
    const match = termsExpression(terms);
    if (match === "") return [];
    const select = `SELECT rowid AS key, item, bm25(search) AS score FROM search WHERE search MATCH ?`;
    const rows =
      after === null
        ? this.sql.all<ScoredDoc>(`${select} ORDER BY score, key LIMIT ?`, match, limit)
        : this.sql.all<ScoredDoc>(`${select} AND (bm25(search) > ? OR (bm25(search) = ? AND rowid > ?)) ORDER BY score, key LIMIT ?`, match, after.score, after.score, after.key, limit);
    return rows;
  }
  searchDocs(keys: readonly number[]): IndexDoc[] {
    const unique = [...new Set(keys)];
    const docs: IndexDoc[] = [];
    for (let start = 0; start < unique.length; start += VALUES_PER_STATEMENT) {
      const chunk = unique.slice(start, start + VALUES_PER_STATEMENT);
      docs.push(...this.sql.all<IndexDoc>(`SELECT rowid AS key, item, text FROM search WHERE rowid IN (${chunk.map(() => "?").join(", ")})`, ...chunk));
    }
    return docs.sort((a, b) => a.key - b.key);
  }
  searchDump(): IndexDoc[] {
    return this.sql.all<IndexDoc>(`SELECT rowid AS key, item, text FROM search ORDER BY rowid`);
  }
}
