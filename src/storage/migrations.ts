/**
 * The Note object's SQLite schema as a numbered, append-only list. A shipped
 * migration is never edited: a change is a new entry, with a test that
 * upgrades data written by the old schema (docs/storage-schema.md).
 */
import { foldTitle, newSlideId, noteDocuments, wholeIndexEntries, type Cells, type FileRow, type Slide, type SourceRow, type TabRow } from "../note/index.js";
import type { Sql } from "./sql.js";

export interface Migration {
  version: number;
  name: string;
  statements: string[];
  /** Rows rewritten by code after the statements (what SQL alone cannot compute), in the same transaction. */
  backfill?: (sql: Sql) => void;
}

export const NOTE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    statements: [
      `CREATE TABLE meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        note_id TEXT NOT NULL,
        title TEXT NOT NULL,
        version INTEGER NOT NULL,
        approved INTEGER NOT NULL,
        next_tab_n INTEGER NOT NULL,
        source_count INTEGER NOT NULL,
        file_count INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `CREATE TABLE markdown (id INTEGER PRIMARY KEY CHECK (id = 1), text TEXT NOT NULL)`,
      `CREATE TABLE members (user TEXT PRIMARY KEY, role TEXT NOT NULL) WITHOUT ROWID`,
      `CREATE TABLE tabs (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        label TEXT NOT NULL,
        position INTEGER NOT NULL,
        slide_count INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `CREATE TABLE slides (
        tab_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        notes TEXT NOT NULL,
        PRIMARY KEY (tab_id, idx)
      ) WITHOUT ROWID`,
      `CREATE TABLE idempotency (
        key TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `CREATE INDEX idempotency_created_at ON idempotency (created_at)`,
      `CREATE TABLE sources (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        url TEXT NOT NULL,
        normalized_url TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL,
        added_at INTEGER NOT NULL
      )`,
      `CREATE TABLE files (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        media_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        added_at INTEGER NOT NULL
      )`,
      // Directory entries the Note still owes its members' directories.
      `CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL, entry TEXT NOT NULL)`,
    ],
  },
  {
    version: 2,
    name: "meta.tab_count",
    statements: [
      // A new tab's position and the tab limit, read from the meta row instead of the whole strip.
      `ALTER TABLE meta ADD COLUMN tab_count INTEGER NOT NULL DEFAULT 0`,
      `UPDATE meta SET tab_count = (SELECT COUNT(*) FROM tabs)`,
    ],
  },
  {
    version: 3,
    name: "idempotency.fingerprint",
    statements: [
      // The first call's arguments, fingerprinted: a resend learns whether its arguments differed.
      // Records written before stay NULL: they cannot tell, and expire within the retention window.
      `ALTER TABLE idempotency ADD COLUMN fingerprint TEXT`,
    ],
  },
  {
    version: 4,
    name: "repair the strip of a failed add_tab",
    statements: [
      // Before one transaction owner (issue 10), a person's add_tab refused for its position
      // could leave its tab row behind without counting it: positions tied at the end of the
      // strip, tab_count short, next_tab_n behind the tab's n. Renumber ties by ID, count the
      // tabs, and move the counter past every n in use; a repaired Note's version moves on, as
      // after any change of what it shows. A sound Note is left as it is.
      `UPDATE meta SET version = version + 1 WHERE tab_count <> (SELECT COUNT(*) FROM tabs)`,
      `UPDATE tabs SET position = (
         SELECT COUNT(*) FROM tabs AS t WHERE t.position < tabs.position OR (t.position = tabs.position AND t.id < tabs.id)
       )`,
      `UPDATE meta SET tab_count = (SELECT COUNT(*) FROM tabs)`,
      `UPDATE meta SET next_tab_n = MAX(next_tab_n, 1 + COALESCE((
         SELECT MAX(CAST(substr(id, instr(id, '-') + 1, instr(substr(id, instr(id, '-') + 1), '-') - 1) AS INTEGER))
         FROM tabs WHERE id LIKE '%-%-%'
       ), 0))`,
    ],
  },
  {
    version: 5,
    name: "meta.deleted",
    statements: [
      // The person deleted the Note: it answers note_not_found until its members' directories
      // have dropped it, then the object erases its storage (docs/decisions.md).
      `ALTER TABLE meta ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0`,
    ],
  },
  {
    version: 6,
    name: "slides.id and meta.next_slide_n",
    statements: [
      // Every slide's own ID, `slide-{n}-{base36 ms}`, n from a counter that never goes back (docs/decisions.md).
      // Unique in the Note by that counter, not by an index: a UNIQUE index would write a second row per slide
      // and break the cost law (20 slides, at most 25 rows); the generated histories check uniqueness.
      `ALTER TABLE slides ADD COLUMN id TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE meta ADD COLUMN next_slide_n INTEGER NOT NULL DEFAULT 1`,
    ],
    backfill: (sql) => {
      // The slides written before get IDs in strip order, deck order; then the counter moves past them.
      // The suffix is the upgrade's time, as a new slide's is its write's time.
      const now = Date.now();
      const slides = sql.all<{ tab_id: string; idx: number }>(
        `SELECT slides.tab_id, slides.idx FROM slides JOIN tabs ON tabs.id = slides.tab_id ORDER BY tabs.position, tabs.id, slides.idx`,
      );
      const first = sql.first<{ n: number }>(`SELECT next_slide_n AS n FROM meta WHERE id = 1`)?.n ?? 1;
      slides.forEach((slide, i) => sql.run(`UPDATE slides SET id = ? WHERE tab_id = ? AND idx = ?`, newSlideId(first + i, now), slide.tab_id, slide.idx));
      if (slides.length > 0) sql.run(`UPDATE meta SET next_slide_n = ? WHERE id = 1`, first + slides.length);
    },
  },
  {
    version: 7,
    name: "order keys with gaps, slides found by ID, Sheet rows",
    statements: [
      // A slide's idx becomes an order key with gaps (src/note/tabs/order.ts): deleting or moving one slide
      // writes that slide only. Keys were 0..n-1 (n at most 500); times 1024 no new key meets an old one.
      `UPDATE slides SET idx = idx * 1024`,
      // slide_update and slide_delete find a slide by its ID; the index also makes IDs unique.
      `CREATE UNIQUE INDEX slides_id ON slides (id)`,
      `ALTER TABLE meta ADD COLUMN next_row_n INTEGER NOT NULL DEFAULT 1`,
      `ALTER TABLE tabs ADD COLUMN row_count INTEGER NOT NULL DEFAULT 0`,
      // A Sheet's column names in order, as a JSON list; '[]' for every other tab.
      `ALTER TABLE tabs ADD COLUMN columns TEXT NOT NULL DEFAULT '[]'`,
      // A Sheet's rows: cells as a JSON object by column name, ordered and found as slides are.
      `CREATE TABLE sheet_rows (
        tab_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        id TEXT NOT NULL,
        cells TEXT NOT NULL,
        PRIMARY KEY (tab_id, idx)
      ) WITHOUT ROWID`,
      `CREATE UNIQUE INDEX sheet_rows_id ON sheet_rows (id)`,
    ],
  },
  {
    version: 8,
    name: "changes: the change log",
    statements: [
      // One entry per committed change, by the version it committed as (src/note/changes.ts); the entry as JSON.
      `CREATE TABLE changes (
        version INTEGER PRIMARY KEY,
        entry TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 9,
    name: "changes.touch and changes.undo: taking a change back",
    statements: [
      // What a content change touched and the steps that take it back (src/note/undo.ts), as JSON, in the
      // change's own row: no extra row per change. NULL for a change that is not content, and for every
      // change logged before this migration: those are not revertible. A deletion keeps what it deleted
      // in slides and sheet_rows under the trash tab ID `~{version}`, pruned with the entry.
      `ALTER TABLE changes ADD COLUMN touch TEXT`,
      `ALTER TABLE changes ADD COLUMN undo TEXT`,
      // The touch index: each item key (a slide's or row's ID, `tab:T`, `whole:T`, `label:T`, `markdown` …) with the
      // last version that touched it, so "did anything after version v touch this?" is one read a key.
      `CREATE TABLE touched (key TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`,
    ],
  },
  {
    version: 10,
    name: "search: the Note's full-text index",
    statements: [
      // One document an item (src/note/search/documents.ts): the rowid its key, `text` its words as the domain's tokenizer
      // folded them (src/note/search/text.ts), split by FTS5's ascii tokenizer on the spaces between them; `item` the item's
      // own ID, stored, not indexed (a hit names it). A regular content table: FTS5 keeps the indexed text once more
      // (search_content), so a document is replaced or dropped by rowid alone and the index can be read back whole
      // (docs/storage-schema.md says what it costs).
      `CREATE VIRTUAL TABLE search USING fts5(text, item UNINDEXED, tokenize = 'ascii')`,
    ],
    backfill: (sql) => {
      // Every document of the content written before, and each member's directory its whole copy (the outbox delivers it).
      const meta = sql.first<{ note_id: string; title: string; version: number; approved: number; deleted: number }>(`SELECT note_id, title, version, approved, deleted FROM meta WHERE id = 1`);
      if (meta === null || meta.deleted === 1) return;
      const tabs = sql.all<Omit<TabRow, "columns"> & { columns: string }>(`SELECT id, type, label, position, slide_count, row_count, columns FROM tabs ORDER BY position, id`).map((t) => ({ ...t, columns: JSON.parse(t.columns) as string[] }));
      const docs = noteDocuments({
        meta,
        tabs,
        slides: (tabId) => sql.all<Slide>(`SELECT id, title, body, notes FROM slides WHERE tab_id = ? ORDER BY idx`, tabId),
        rows: (tabId) => sql.all<{ id: string; cells: string }>(`SELECT id, cells FROM sheet_rows WHERE tab_id = ? ORDER BY idx`, tabId).map((r) => ({ id: r.id, cells: JSON.parse(r.cells) as Cells })),
        markdown: sql.first<{ text: string }>(`SELECT text FROM markdown WHERE id = 1`)?.text ?? "",
        sources: sql.all<SourceRow>(`SELECT seq, title, url, normalized_url, description, added_at FROM sources ORDER BY seq`),
        files: sql.all<FileRow>(`SELECT seq, name, media_type, size_bytes, added_at FROM files ORDER BY seq`),
      });
      for (const doc of docs) sql.run(`INSERT INTO search (rowid, text, item) VALUES (?, ?, ?)`, doc.key, doc.text, doc.item);
      const header = { note_id: meta.note_id, title: meta.title, approved: meta.approved === 1, version: meta.version };
      for (const { user } of sql.all<{ user: string }>(`SELECT user FROM members ORDER BY user`)) {
        for (const entry of wholeIndexEntries(header, docs)) sql.run(`INSERT INTO outbox (user, entry) VALUES (?, ?)`, user, JSON.stringify(entry));
      }
    },
  },
];

export const DIRECTORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    statements: [
      `CREATE TABLE notes (
        note_id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        approved INTEGER NOT NULL,
        version INTEGER NOT NULL
      ) WITHOUT ROWID`,
    ],
  },
  {
    version: 2,
    name: "notes.title_folded and the approved index",
    statements: [
      // The title as a title filter compares it (foldTitle: Unicode, which SQLite's lower() and LIKE are not).
      `ALTER TABLE notes ADD COLUMN title_folded TEXT NOT NULL DEFAULT ''`,
      // A connector's page (approved Notes only) is a range on this index, not a scan past unapproved entries.
      `CREATE INDEX notes_approved ON notes (approved, note_id)`,
    ],
    backfill: (sql) => {
      for (const row of sql.all<{ note_id: string; title: string }>(`SELECT note_id, title FROM notes`)) {
        sql.run(`UPDATE notes SET title_folded = ? WHERE note_id = ?`, foldTitle(row.title), row.note_id);
      }
    },
  },
  {
    version: 3,
    name: "the search copy of every member Note's documents",
    statements: [
      // Contentless (the directory keeps no text: the Note writes titles and snippets fresh), rows deletable one by one.
      // The domain tokenizes (src/note/search/text.ts): `ascii` only splits on the spaces it put.
      `CREATE VIRTUAL TABLE docs USING fts5(text, content='', contentless_delete=1, tokenize='ascii')`,
      // Which Note's document a row of \`docs\` is (its rowid is doc_keys.id): looked up both ways and by Note.
      `CREATE TABLE doc_keys (
        id INTEGER PRIMARY KEY,
        note_id TEXT NOT NULL,
        key INTEGER NOT NULL,
        UNIQUE (note_id, key)
      )`,
      // The Notes listed before this migration, whose documents the directory has not received yet: a search asks a few
      // of them at a time to send their copy (src/http/gateway.ts), until none is left. A Note's first copy (a reset) takes it off.
      `CREATE TABLE copy_pending (note_id TEXT PRIMARY KEY) WITHOUT ROWID`,
      `INSERT INTO copy_pending (note_id) SELECT note_id FROM notes`,
    ],
  },
];

/**
 * Applies the migrations this database has not seen yet, in order. Call it
 * inside one transaction (the object's constructor does), so a failed
 * upgrade leaves the old schema whole.
 */
export function migrate(sql: Sql, migrations: readonly Migration[]): number {
  sql.run(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`);
  const applied = new Set(sql.all<{ version: number }>(`SELECT version FROM schema_migrations`).map((row) => row.version));
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) sql.run(statement);
    migration.backfill?.(sql);
    sql.run(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, migration.version, migration.name);
  }
  return migrations.at(-1)?.version ?? 0;
}
