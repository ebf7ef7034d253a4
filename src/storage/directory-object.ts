/**
 * A user's directory of Notes: which Notes they are a member of, and whether
 * each is approved for connectors. Note objects keep it up to date; it
 * answers `list_notes` without visiting every Note. The Note object stays the
 * authority on access: an entry only tells where to look.
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

export class DirectoryObject extends DurableObject<Env> {
  /** Read by the cost tests (rows read per page). */
  protected readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    ctx.storage.transactionSync(() => migrate(this.sql, DIRECTORY_MIGRATIONS));
  }

  /** Takes in an entry a Note sent: its listing, or its removal once the Note was deleted. */
  receive(entry: DirectoryEntry): void {
    if (entry.removed === true) {
      // A removal is at the deleted Note's last version: it drops every entry of that Note, never one of a newer one.
      this.sql.run(`DELETE FROM notes WHERE note_id = ? AND version <= ?`, entry.note_id, entry.version);
      return;
    }
    this.sql.run(
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
