/**
 * A user's directory of Notes: which Notes they are a member of, and whether
 * each is approved for connectors, and a search copy of every document of
 * those Notes (docs/search.md, Across Notes). Note objects keep it up to
 * date; it answers `list_notes` and ranks a search across Notes without
 * visiting every Note. The Note object stays the authority on access and on
 * what a hit shows: an entry only tells where to look.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import { foldTitle, type DirectoryEntry } from "../note/index.js";
import { DIRECTORY_MIGRATIONS, migrate } from "./migrations.js";
import { Sql, type SqlValue } from "./sql.js";

export type { DirectoryEntry };

/**
 * An entry as listed: without its version, which only orders deliveries (an
 * older entry never overwrites a newer one). An entry is rewritten when the
 * Note's title, approval or members change, not on every write, so its
 * version is not the Note's current one and must not be shown as if it were.
 */
export interface ListedNote {
  note_id: string;
  title: string;
  approved: boolean;
}

/** One page of the directory: entries after a Note ID, in Note ID order, filtered. */
interface PageQuery {
  /** The last Note ID of the previous page ("" for the first page). */
  after: string;
  limit: number;
  /** Connectors see approved Notes only; the person sees every Note. */
  approvedOnly: boolean;
  /** A fragment the title must contain, compared folded (foldTitle); none: every title. */
  titleContains?: string | undefined;
}

interface Page {
  notes: ListedNote[];
  /** Whether entries follow the page. */
  more: boolean;
}

/** A cross-Note search, as the gateway asks it. */
export interface DirectorySearch {
  /** An FTS5 MATCH expression (src/note/search/text.ts, matchExpression). */
  match: string;
  /** Connectors find approved Notes only. */
  approvedOnly: boolean;
  limit: number;
  /** The last hit of the previous page (its score and row): the page starts after it. */
  after?: { score: number; rowid: number } | undefined;
  /** Rank now, without taking Notes whose copy is pending (the caller asked this search's share of them already). */
  skipPending?: boolean | undefined;
}

/** A document that matched: its Note and key, and its place in the ranking (bm25, lower is better; then the row). */
export interface DirectoryHit {
  note_id: string;
  key: number;
  score: number;
  rowid: number;
}

export interface DirectoryHits {
  hits: DirectoryHit[];
  /** Whether matches follow the page. */
  more: boolean;
  /**
   * Notes whose documents the directory does not hold yet (listed before the
   * copy existed), taken off its list: ask each to deliver what it owes, then
   * search again. Absent once none is left; then `hits` is the page.
   */
  pending?: string[];
}

/** How many Notes without a copy one search asks for theirs. */
export const PENDING_COPIES_ASKED = 25;

export class DirectoryObject extends DurableObject<Env> {
  /** Read by the cost tests (rows read per page). */
  protected readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    ctx.storage.transactionSync(() => migrate(this.sql, DIRECTORY_MIGRATIONS));
  }

  /**
   * Takes in the entries a Note sent, in the order it queued them (what its
   * writes of a short time queued: src/storage/directory-outbox.ts). Each is
   * its listing and the changes to its search documents, or its removal (the
   * Note deleted, or this user removed from it), which drops both. One
   * transaction: the listing and the documents never disagree. An older entry
   * than the one held (only a Note deleted and made again under its ID has
   * one) changes nothing.
   */
  receiveAll(entries: readonly DirectoryEntry[]): void {
    this.ctx.storage.transactionSync(() => {
      for (const entry of entries) this.#apply(entry);
    });
  }

  /** One entry, within receiveAll's transaction. */
  #apply(entry: DirectoryEntry): void {
    if (entry.removed === true) {
      // A removal is at the deleted Note's last version: it drops every entry of that Note, never one of a newer one.
      const held = this.sql.first<{ version: number }>(`SELECT version FROM notes WHERE note_id = ?`, entry.note_id);
      if (held !== null && held.version > entry.version) return;
      this.sql.run(`DELETE FROM notes WHERE note_id = ?`, entry.note_id);
      this.sql.run(`DELETE FROM copy_pending WHERE note_id = ?`, entry.note_id);
      this.#dropNote(entry.note_id);
      return;
    }
    const written = this.sql.run(
      `INSERT INTO notes (note_id, title, approved, version, title_folded) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (note_id) DO UPDATE SET title = excluded.title, approved = excluded.approved, version = excluded.version,
         title_folded = excluded.title_folded
       WHERE excluded.version >= notes.version`,
      entry.note_id,
      entry.title,
      entry.approved ? 1 : 0,
      entry.version,
      foldTitle(entry.title),
    );
    if (written === 0 || entry.index === undefined) return;
    const { reset, drop = [], put = [] } = entry.index;
    if (reset === true) {
      this.#dropNote(entry.note_id);
      this.sql.run(`DELETE FROM copy_pending WHERE note_id = ?`, entry.note_id);
    }
    for (const key of drop) this.#dropDoc(entry.note_id, key);
    for (const [key, text] of put) this.#putDoc(entry.note_id, key, text);
  }

  /**
   * One page of the user's documents that match `match` (an FTS5 expression
   * from the domain's matchExpression), best first (bm25; ties by row), after
   * the keyset `after`. Every matching document is read once, with its key
   * and its Note's listing: the rows read follow the matches, never the
   * number of Notes. Connectors see approved Notes only.
   */
  search(query: DirectorySearch): DirectoryHits {
    // Notes listed before the copy existed (directory migration 3): the caller asks them for it, then searches again.
    if (query.skipPending !== true) {
      const pending = this.sql.all<{ note_id: string }>(`SELECT note_id FROM copy_pending LIMIT ?`, PENDING_COPIES_ASKED).map((row) => row.note_id);
      if (pending.length > 0) {
        // Asked once: a Note that cannot send its copy now retries its delivery by its own alarm.
        for (const noteId of pending) this.sql.run(`DELETE FROM copy_pending WHERE note_id = ?`, noteId);
        return { hits: [], more: false, pending };
      }
    }
    const after = query.after ?? null;
    const rows = this.sql.all<DirectoryHit>(
      `WITH hits AS (SELECT rowid AS id, bm25(docs) AS score FROM docs WHERE docs MATCH ?)
       SELECT k.note_id AS note_id, k.key AS key, hits.score AS score, hits.id AS rowid
       FROM hits JOIN doc_keys AS k ON k.id = hits.id JOIN notes AS n ON n.note_id = k.note_id
       WHERE (? = 0 OR n.approved = 1) AND (? IS NULL OR hits.score > ? OR (hits.score = ? AND hits.id > ?))
       ORDER BY hits.score, hits.id LIMIT ?`,
      query.match,
      query.approvedOnly ? 1 : 0,
      after === null ? null : 1,
      after?.score ?? null,
      after?.score ?? null,
      after?.rowid ?? null,
      query.limit + 1,
    );
    return { hits: rows.slice(0, query.limit), more: rows.length > query.limit };
  }

  /** Drops every document the directory holds for the Note. */
  #dropNote(noteId: string): void {
    for (const { id } of this.sql.all<{ id: number }>(`DELETE FROM doc_keys WHERE note_id = ? RETURNING id`, noteId)) {
      this.sql.run(`DELETE FROM docs WHERE rowid = ?`, id);
    }
  }

  #dropDoc(noteId: string, key: number): void {
    const held = this.sql.first<{ id: number }>(`DELETE FROM doc_keys WHERE note_id = ? AND key = ? RETURNING id`, noteId, key);
    if (held !== null) this.sql.run(`DELETE FROM docs WHERE rowid = ?`, held.id);
  }

  /** Puts a document, replacing the one under its key: the row keeps its rowid. */
  #putDoc(noteId: string, key: number, text: string): void {
    const held = this.sql.first<{ id: number }>(`SELECT id FROM doc_keys WHERE note_id = ? AND key = ?`, noteId, key);
    let id: number;
    if (held === null) {
      id = (this.sql.first<{ id: number }>(`INSERT INTO doc_keys (note_id, key) VALUES (?, ?) RETURNING id`, noteId, key) as { id: number }).id;
    } else {
      id = held.id;
      this.sql.run(`DELETE FROM docs WHERE rowid = ?`, id);
    }
    this.sql.run(`INSERT INTO docs (rowid, text) VALUES (?, ?)`, id, text);
  }

  /**
   * A page of entries, filtered and cut in SQL: a range on the primary key
   * (or, for connectors, on the `approved` index), so an unfiltered page reads
   * the rows it returns and one more. A title filter reads on past the
   * entries that do not match until the page is full (docs/decisions.md).
   * `instr` has no wildcards: '%' and '_' in a fragment match themselves.
   */
  page(query: PageQuery): Page {
    const where = ["note_id > ?"];
    const bindings: SqlValue[] = [query.after];
    if (query.approvedOnly) where.push("approved = 1");
    if (query.titleContains !== undefined) {
      where.push("instr(title_folded, ?) > 0");
      bindings.push(foldTitle(query.titleContains));
    }
    const rows = this.sql.all<{ note_id: string; title: string; approved: number }>(
      `SELECT note_id, title, approved FROM notes WHERE ${where.join(" AND ")} ORDER BY note_id LIMIT ?`,
      ...bindings,
      query.limit + 1,
    );
    const notes = rows.slice(0, query.limit).map((row) => ({ note_id: row.note_id, title: row.title, approved: row.approved === 1 }));
    return { notes, more: rows.length > query.limit };
  }
}
