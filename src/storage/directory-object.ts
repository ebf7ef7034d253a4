/**
 * A user's directory of Notes: which Notes they are a member of, and whether
 * each is approved for connectors. Note objects keep it up to date; it
 * answers `list_notes` without visiting every Note. The Note object stays the
 * authority on access: an entry only tells where to look.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import type { DirectoryEntry } from "../note/directory.js";
import { DIRECTORY_MIGRATIONS, migrate } from "./migrations.js";
import { Sql } from "./sql.js";

export type { DirectoryEntry };

/**
 * An entry as listed: without its version, which only orders deliveries (an
 * older entry never overwrites a newer one). An entry is rewritten when the
 * Note's approval or members change, not on every write, so its version is
 * not the Note's current one and must not be shown as if it were.
 */
export type ListedNote = Omit<DirectoryEntry, "version">;

export class DirectoryObject extends DurableObject<Env> {
  readonly #sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new Sql(ctx.storage.sql);
    ctx.storage.transactionSync(() => migrate(this.#sql, DIRECTORY_MIGRATIONS));
  }

  upsert(entry: DirectoryEntry): void {
    this.#sql.run(
      `INSERT INTO notes (note_id, title, approved, version) VALUES (?, ?, ?, ?)
       ON CONFLICT (note_id) DO UPDATE SET title = excluded.title, approved = excluded.approved, version = excluded.version
       WHERE excluded.version >= notes.version`,
      entry.note_id,
      entry.title,
      entry.approved ? 1 : 0,
      entry.version,
    );
  }

  list(): ListedNote[] {
    return this.#sql
      .all<{ note_id: string; title: string; approved: number }>(`SELECT note_id, title, approved FROM notes ORDER BY note_id`)
      .map((row) => ({ ...row, approved: row.approved === 1 }));
  }
}
